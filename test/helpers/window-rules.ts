/**
 * The window-rule oracle of the property tests: the checker `context-ledger check` runs
 * (`src/check/check-session.ts`: every rule of the window that holds at all times, and the ledger's own
 * bookkeeping, computed from the archive independently of the store's planner), throwing an `Error` on
 * the first problem it finds — naming the session, the rule and the seqs involved — so it works in
 * vitest, in fast-check properties and in child-process workers (it does not import vitest).
 *
 * {@link assertWindowRules} checks the rules of every moment; {@link assertStepRules} and
 * {@link assertProgress} add those about the limits, against what one `applyWindow()` / `reduce()`
 * returned (`src/check/step-rules.ts`). The rules themselves are listed in `src/check/window-rules.ts`,
 * `src/check/ledger-rows.ts` and `src/check/step-rules.ts`.
 *
 * The conformance suite calls {@link assertWindowRulesOf} and {@link assertStepRulesOf}, which take either
 * backend's store: a SQLite store goes through `checkSession` as above; a PostgreSQL store is read in one
 * REPEATABLE READ snapshot (`store.reading`) through its API and checked by the same `WindowRules` — the
 * window rules in full, a session of another format than Strands read as skeletons as `checkSession`
 * reads it — and `MessageRules` (bodies, window forms, summaries against append's validator;
 * `repeatOf`); the SQLite-only bookkeeping columns `ledger-rows.ts` reads are not checked there.
 */
import { shapeOf } from '../../src/check/archive-facts.js'
import { checkSummaryBodies, MessageRules } from '../../src/check/message-rules.js'
import { problemList } from '../../src/check/problems.js'
import { checkSession } from '../../src/check/check-session.js'
import { checkProgress, checkStepRules } from '../../src/check/step-rules.js'
import {
  describeProblem,
  WindowRules,
  type SessionView,
  type WindowRuleProblem,
} from '../../src/check/window-rules.js'
import { skeletonOf } from '../../src/check/skeleton.js'
import { formatNamed, type BodyFormat } from '../../src/formats/index.js'
import { strandsFormat } from '../../src/formats/strands/index.js'
import { withPinFlag } from '../../src/messages/pin-flag.js'
import type {
  ContextStore,
  LedgerEntry,
  SessionSummary,
  StoredMessageData,
  SummaryRecord,
  WindowLimits,
  WindowResult,
} from '../../src/index.js'
import { asyncSqliteStore, sqliteOf, type LedgerStore } from './ledger-open.js'

/** Protected ranges in force for the session (as given to the manager). */
export interface ProtectedRanges {
  /** The first N messages. Default 0. */
  readonly first?: number
  /** The last N messages. Default 0. */
  readonly last?: number
}

/** Optional facts the caller knows and the store must agree with. */
export interface WindowRuleOptions {
  /**
   * What the caller appended and had acknowledged: trackingId → `JSON.stringify` of the message with its
   * trackingId. Each must be in the archive, byte-identical.
   */
  readonly appended?: ReadonlyMap<string, string> | Iterable<readonly [string, string]> | undefined
  /** The boundary an earlier check saw: the boundary may not be smaller now. */
  readonly previousBoundary?: number
  /**
   * Whether to check that the newest turn's opening message is in the window (default true). Off only
   * for files written by versions that could evict it.
   */
  readonly newestTurn?: boolean
  /**
   * Whether every message between the current summary's `fromBoundary` and `toBoundary` must be folded
   * into it or be in the window (default false): true for writers that never release kept rows (no unpin,
   * no narrower protected range), where a fold is the only way such a message leaves the window.
   */
  readonly foldCoverage?: boolean
  /**
   * Whether to read the session through the store's API alone even on SQLite (as
   * {@link assertWindowRulesThroughApi} does): for a branch, while `check` reads a branch's bookkeeping
   * columns as a root's.
   */
  readonly throughApi?: boolean
  /** Problems already reported and not fixed yet (each named where it is used): left out. */
  readonly known?: ((problem: WindowRuleProblem) => boolean) | undefined
}

/** What the check saw, to feed into the next check (e.g. `previousBoundary`). */
export interface WindowRulesReport {
  /** First seq of the window's tail. */
  readonly boundary: number
  /** Messages in the archive. */
  readonly messageCount: number
  /** Seqs of the window, ascending. */
  readonly windowSeqs: readonly number[]
  /** Seqs of protected messages, ascending. */
  readonly protectedSeqs: readonly number[]
  /** The archive, in seq order. */
  readonly history: readonly LedgerEntry[]
  /** The summary the window shows, if any. */
  readonly summary: SummaryRecord | undefined
  /** The seqs the current summary stands for, down its chain (ascending; empty without a summary). */
  readonly chainSeqs: readonly number[]
  /** The session's summaries, newest first. */
  readonly summaries: readonly SummaryRecord[]
}

const PAGE = 5000

function throwFirst(problems: readonly WindowRuleProblem[]): void {
  const first = problems[0]
  if (first !== undefined) throw new Error(describeProblem(first))
}

/**
 * Reads a session's whole archive.
 *
 * @param store - the store
 * @param sessionId - the session
 * @returns every entry, in seq order
 */
export function readHistory(store: ContextStore, sessionId: string): LedgerEntry[] {
  const out: LedgerEntry[] = []
  for (;;) {
    const page = store.history(sessionId, { fromSeq: out.length, limit: PAGE })
    out.push(...page)
    if (page.length < PAGE) return out
  }
}

/**
 * Checks every window rule the ledger must keep at all times for one session, and throws on the first
 * one broken. Safe to call while other connections write: it reads one committed state.
 *
 * @param store - an open store
 * @param sessionId - the session to check
 * @param ranges - the protected ranges in force (`first`, `last`)
 * @param options - acknowledged appends and the boundary seen before
 * @returns what was seen, for the next check
 * @throws Error naming the rule and the seqs involved
 */
export function assertWindowRules(
  store: ContextStore,
  sessionId: string,
  ranges: ProtectedRanges = {},
  options: WindowRuleOptions = {},
): WindowRulesReport {
  const history: LedgerEntry[] = []
  const r = checkSession(store, sessionId, {
    ...options,
    ranges,
    onEntry: (e) => history.push(e),
  })
  throwFirst(r.problems)
  return { ...r, history }
}

/** One step of a property run: the store after the step, and what the step returned. */
export interface RuleCheck {
  store: ContextStore
  sessionId: string
  archive: readonly StoredMessageData[]
  tokens: readonly number[]
  windowSeqs: readonly number[]
  limits: WindowLimits
  /** The result of the applyWindow/reduce that produced this window, when there was one. */
  result?: WindowResult | undefined
  mode?: 'apply' | 'overflow'
  previousBoundary?: number
  /**
   * The tokens of the summary the window shows after the step, if it shows one: it counts as one message
   * of these tokens, and it is never what must stay (a cut that keeps only that takes it out).
   */
  summaryTokens?: number | undefined
}

/**
 * Checks every window rule after one step: the rules of every moment, then the limits the result claims.
 *
 * @param c - the store and the step's result
 * @returns the protected seqs the shared checker computed
 */
export function assertStepRules(c: RuleCheck): Set<number> {
  const report = assertWindowRules(c.store, c.sessionId, c.limits, {
    ...(c.previousBoundary === undefined ? {} : { previousBoundary: c.previousBoundary }),
  })
  return stepRules(report, c)
}

/** The rules about the limits a step's result claims, on the state the rules of every moment were read in. */
function stepRules(report: WindowRulesReport, c: Omit<RuleCheck, 'store'>): Set<number> {
  const protectedSeqs = new Set(report.protectedSeqs)
  throwFirst(
    checkStepRules({
      sessionId: c.sessionId,
      shapes: c.archive.map(shapeOf),
      tokens: c.tokens,
      expectedSeqs: c.windowSeqs,
      windowSeqs: report.windowSeqs,
      protectedSeqs,
      boundary: report.boundary,
      limits: c.limits,
      result: c.result,
      mode: c.mode,
      summaryTokens: c.summaryTokens,
    }),
  )
  return protectedSeqs
}

/**
 * {@link assertWindowRules} on either backend's store (the conformance suite's).
 *
 * @param store - an open store of the suite
 * @param sessionId - the session to check
 * @param ranges - the protected ranges in force (`first`, `last`)
 * @param options - acknowledged appends and the boundary seen before
 * @returns what was seen, for the next check
 * @throws Error naming the rule and the seqs involved
 */
export async function assertWindowRulesOf(
  store: LedgerStore,
  sessionId: string,
  ranges: ProtectedRanges = {},
  options: WindowRuleOptions = {},
): Promise<WindowRulesReport> {
  const sqlite = sqliteOf(store)
  if (sqlite !== undefined && options.throughApi !== true)
    return assertWindowRules(sqlite.store, sessionId, ranges, options)
  return apiWindowRules(store, sessionId, ranges, options)
}

/**
 * The window rules of a SQLite session read through the store's API alone — as a PostgreSQL one is —
 * without the bookkeeping columns `checkSession` reads with its own SQL: what a branch's window is held
 * to (docs/design.md, "Branches") while `check` reads a branch's bookkeeping as a root's.
 *
 * @param store - an open SQLite store
 * @param sessionId - the session to check
 * @param ranges - the protected ranges in force (`first`, `last`)
 * @param options - acknowledged appends and the boundary seen before
 * @returns what was seen
 * @throws Error naming the rule and the seqs involved
 */
export async function assertWindowRulesThroughApi(
  store: ContextStore,
  sessionId: string,
  ranges: ProtectedRanges = {},
  options: WindowRuleOptions = {},
): Promise<WindowRulesReport> {
  return apiWindowRules(asyncSqliteStore(store, store.path), sessionId, ranges, options)
}

/**
 * The window rules of a session of either backend read through its API alone (on SQLite too: `check`'s
 * own SQL does not read branches), as {@link assertWindowRulesThroughApi} for the conformance suite.
 *
 * @param store - a store of the suite
 * @param sessionId - the session
 * @param ranges - the protected ranges the window was planned with
 * @param options - see {@link assertWindowRules}
 * @returns the report
 */
export async function assertWindowRulesViaApi(
  store: LedgerStore,
  sessionId: string,
  ranges: ProtectedRanges = {},
  options: WindowRuleOptions = {},
): Promise<WindowRulesReport> {
  return apiWindowRules(store, sessionId, ranges, options)
}

/** The window rules read through either backend's API (see {@link assertWindowRulesOf}). */
async function apiWindowRules(
  store: LedgerStore,
  sessionId: string,
  ranges: ProtectedRanges,
  options: WindowRuleOptions,
): Promise<WindowRulesReport> {
  const { view, history, format, summaries } = await store.reading(async (s) => {
    const history: LedgerEntry[] = []
    for (;;) {
      const page = await s.history(sessionId, { fromSeq: history.length, limit: PAGE })
      history.push(...page)
      if (page.length < PAGE) break
    }
    const facts = await s.session(sessionId)
    const format = formatNamed(facts?.format)
    const summaries = await s.summaries(sessionId, { limit: 10_000 })
    if (format !== strandsFormat)
      return { history, format, summaries, view: await skeletonView(s, facts, history, format, summaries) }
    return {
      history,
      format,
      summaries,
      view: {
        session: sessionFacts(facts),
        window: await s.window(sessionId),
        alternate: await s.window(sessionId, { alternate: true }),
        summaries,
      },
    }
  })
  const rules = new WindowRules(sessionId, view, { ...options, ranges })
  // The bodies and summaries against append's validator, as checkSession holds a SQLite session to them.
  const bodies = new MessageRules(format)
  for (const e of history) {
    // Another format's rules read the skeleton its body becomes, as checkSession's do.
    const read = bodies.entry(e)
    rules.entry(format === strandsFormat ? e : read)
  }
  const r = rules.finish()
  const rows = problemList(sessionId)
  bodies.report(rows.fail)
  checkSummaryBodies(summaries, rows.fail, format)
  throwFirst([...rows.problems, ...r.problems].filter((p) => options.known?.(p) !== true))
  return { ...r, history }
}

/** The session's facts the window rules read, from what `session()` returned. */
function sessionFacts(facts: SessionSummary | undefined): SessionView['session'] {
  return facts === undefined
    ? undefined
    : {
        messageCount: facts.messageCount,
        boundary: facts.boundary,
        windowMessages: facts.windowMessages,
        summaryId: facts.summaryId,
      }
}

/**
 * What the window rules read of a PostgreSQL session of another format than Strands, as `checkSession`
 * reads a SQLite one: the window and the summaries as skeletons (`src/check/skeleton.ts`) under their
 * trackingIds, pinned messages flagged as a Strands window shows them; no alternating form.
 */
async function skeletonView(
  s: LedgerStore,
  facts: SessionSummary | undefined,
  history: readonly LedgerEntry[],
  format: BodyFormat,
  summaries: readonly SummaryRecord[],
): Promise<SessionView> {
  const uids = new Map(history.map((e) => [e.seq, e.trackingId]))
  const shown = summaries.find((x) => x.id === facts?.summaryId)?.trackingId ?? ''
  const entries = facts === undefined ? [] : await s.windowEntries(facts.id)
  return {
    session: sessionFacts(facts),
    window: entries.map((e) =>
      withPinFlag(
        skeletonOf(format, e.message, e.seq === undefined ? shown : (uids.get(e.seq) ?? '')),
        e.pinned,
      ),
    ),
    alternate: undefined,
    summaries: summaries.map((x) => ({ ...x, message: skeletonOf(format, x.message, x.trackingId) })),
  }
}

/**
 * {@link assertStepRules} on either backend's store.
 *
 * @param c - the store and the step's result
 * @returns the protected seqs the shared checker computed
 */
export async function assertStepRulesOf(
  c: Omit<RuleCheck, 'store'> & { store: LedgerStore } & Pick<WindowRuleOptions, 'throughApi' | 'known'>,
): Promise<Set<number>> {
  const report = await assertWindowRulesOf(c.store, c.sessionId, c.limits, {
    ...(c.previousBoundary === undefined ? {} : { previousBoundary: c.previousBoundary }),
    ...(c.throughApi === true ? { throughApi: true } : {}),
    known: c.known,
  })
  return stepRules(report, c)
}

/**
 * Progress: an overflow reduction that evicted nothing must have had no valid cut that removes an
 * unprotected message — no trim point after an unprotected message of the window.
 *
 * @param c - the step, the window before it, and the protected seqs
 */
export function assertProgress(
  c: Omit<RuleCheck, 'store'> & {
    before: readonly number[]
    boundaryBefore: number
    protectedSeqs: ReadonlySet<number>
  },
): void {
  throwFirst(
    checkProgress({
      sessionId: c.sessionId,
      shapes: c.archive.map(shapeOf),
      protectedSeqs: c.protectedSeqs,
      result: c.result,
      before: c.before,
      boundaryBefore: c.boundaryBefore,
    }),
  )
}
