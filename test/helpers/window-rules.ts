/**
 * The window-rule oracle: one checker for every rule of the window (docs/design.md, "Window rules"),
 * computed from the archive independently of the store's planner. The rules of every moment are the
 * shared checker of `src/check/window-rules.ts` (which `context-ledger check` runs too): it walks the
 * session's history to link tool calls and find protected messages, then compares with what `window()`
 * returns. This helper reads the store for it, adds what only a test knows (the acknowledged appends),
 * and the rules about the limits of one step. It throws
 * an `Error` naming the session, the rule and the seqs involved, so it works in vitest, in fast-check
 * properties and in child-process workers (it does not import vitest).
 *
 * Rules that hold at every moment ({@link assertWindowRules}):
 * - the archive is dense (seq 0..n-1), trackingIds are unique, and every message the caller recorded as
 *   appended is there byte-identical (`JSON.stringify` with its trackingId);
 * - the window is in seq order: kept messages before the boundary, then every message from the boundary;
 * - it starts with a user message that carries no toolResult;
 * - every toolResult has its toolUse earlier in the window;
 * - every toolUse has its result later in the window, except in the session's newest message when that
 *   is an assistant message (a call in flight);
 * - the alternating form (`window({ alternate: true })`) alternates roles and keeps every block;
 * - every protected message (pinned, first N, last N, tool partners of those, transitively) is in it;
 * - the newest turn's opening message (the latest user message that can open a window) is in it, so the
 *   window is never empty while the session has such a message;
 * - `session().windowMessages` agrees with the window's length;
 * - the boundary never moves backward (given the boundary seen before).
 *
 * Rules about the limits, checked against what one `applyWindow()` / `reduce()` returned
 * ({@link assertStepRules}, {@link assertProgress}): the window is bounded but for what must stay,
 * `exceedsLimit` and `protectedExceedsLimit` tell the truth, and an overflow reduction makes progress
 * whenever a valid cut could.
 */
import type {
  ContextStore,
  LedgerEntry,
  StoredMessageData,
  WindowLimits,
  WindowResult,
} from '../../src/index.js'
import { isTrimPointAt, requiredSet, shapeOf, withLead } from '../../src/check/archive-facts.js'
import { checkWindowRules, describeProblem } from '../../src/check/window-rules.js'

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
}

const PAGE = 5000

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

function fail(sessionId: string, rule: string, detail: string): never {
  throw new Error(describeProblem({ sessionId, rule, detail }))
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
 * Checks every window rule the ledger must keep at all times for one session (the shared checker,
 * `src/check/window-rules.ts`), and throws on the first one broken. Safe to call while other connections
 * write: it reads one committed state.
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
  // One read transaction: the archive, the window and the summary come from one committed state even
  // while other connections write.
  const { history, window, alternate, session, summaryTrackingId } = store
    .connection()
    .transaction(() => {
      const session = store.session(sessionId)
      return {
        history: readHistory(store, sessionId),
        window: store.window(sessionId),
        alternate: store.window(sessionId, { alternate: true }),
        session,
        summaryTrackingId:
          session?.summaryId === undefined
            ? undefined
            : store.summary(sessionId, session.summaryId).trackingId,
      }
    })
    .deferred()

  // Archive: every acknowledged message byte-identical; each row's body carries its own trackingId.
  history.forEach((e, i) => {
    if (e.message.trackingId !== e.trackingId)
      fail(
        sessionId,
        'archive identity',
        `seq ${i} stores trackingId ${e.message.trackingId} for ${e.trackingId}`,
      )
  })
  if (options.appended !== undefined) {
    const bySeq = new Map(history.map((e) => [e.trackingId, e]))
    for (const [trackingId, json] of options.appended) {
      const entry = bySeq.get(trackingId)
      if (entry === undefined) fail(sessionId, 'archive complete', `acknowledged ${trackingId} is missing`)
      const stored = JSON.stringify(entry.message)
      if (stored !== json)
        fail(
          sessionId,
          'archive byte-identical',
          `seq ${entry.seq} (${trackingId}) is ${stored}, appended ${json}`,
        )
    }
  }
  const result = checkWindowRules({
    sessionId,
    archive: {
      seqs: history.map((e) => e.seq),
      trackingIds: history.map((e) => e.trackingId),
      shapes: history.map((e) => shapeOf(e.message)),
      pinned: new Set(history.filter((e) => e.pinned).map((e) => e.seq)),
    },
    session:
      session === undefined
        ? undefined
        : {
            messageCount: session.messageCount,
            boundary: session.boundary,
            windowMessages: session.windowMessages,
            summaryTrackingId,
          },
    window,
    alternate,
    ranges,
    previousBoundary: options.previousBoundary,
    newestTurn: options.newestTurn,
  })
  const problem = result.problems[0]
  if (problem !== undefined) throw new Error(describeProblem(problem))
  return {
    boundary: result.boundary,
    messageCount: result.messageCount,
    windowSeqs: result.windowSeqs,
    protectedSeqs: result.protectedSeqs,
    history,
  }
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
  const id = c.sessionId
  if (!sameJson(report.windowSeqs, c.windowSeqs))
    fail(
      id,
      'window as computed',
      `window() ${report.windowSeqs.join(',')}, expected ${c.windowSeqs.join(',')}`,
    )
  const prot = new Set(report.protectedSeqs)
  const r = c.result
  if (r === undefined) return prot
  const windowTokens = c.windowSeqs.reduce((a, s) => a + (c.tokens[s] ?? 0), 0)
  if (r.windowMessages !== c.windowSeqs.length)
    fail(id, 'result windowMessages', `${r.windowMessages} for a window of ${c.windowSeqs.length}`)
  if (r.windowTokens !== windowTokens)
    fail(id, 'result windowTokens', `${r.windowTokens} for a window of ${windowTokens} tokens`)
  const exceeds =
    c.windowSeqs.length > c.limits.windowSize || windowTokens > (c.limits.tokenBudget ?? Infinity)
  if (r.exceedsLimit !== exceeds) fail(id, 'result exceedsLimit', `says ${r.exceedsLimit}, is ${exceeds}`)
  // What may break a limit: what must stay (the protected set with its validity lead, a call in flight
  // with a user message before it) and the newest turn — from the latest trim point on.
  const shapes = c.archive.map(shapeOf)
  const required = requiredSet(shapes, prot)
  let newest = -1
  for (let s = shapes.length - 1; s >= 0 && newest < 0; s--) if (isTrimPointAt(shapes, s)) newest = s
  const beyond = c.windowSeqs.filter((s) => !required.has(s) && (newest < 0 || s < newest))
  // Bounded: the budget is a hard limit for everything else.
  if (
    c.limits.tokenBudget !== undefined &&
    (c.mode === 'apply' || r.evicted > 0) &&
    windowTokens > c.limits.tokenBudget
  )
    if (beyond.length > 0)
      fail(id, 'bounded by tokenBudget', `seqs ${beyond.join(',')} are neither protected nor the newest turn`)
  // The message count may exceed windowSize only by one anchor (Strands' tool-pair anchor, or the newest
  // turn's opening kept before the boundary), when the turn has no trim point, or by what must stay.
  const boundary = c.store.session(c.sessionId)?.boundary ?? 0
  const anchor = r.cut === 'tool-pair' || (newest >= 0 && newest < boundary) ? 1 : 0
  if (
    c.mode === 'apply' &&
    r.reason !== 'no-valid-cut' &&
    r.cut !== 'latest-trim-point' &&
    !r.protectedExceedsLimit &&
    c.windowSeqs.length > c.limits.windowSize + anchor
  )
    if (beyond.length > 0)
      fail(id, 'bounded by windowSize', `seqs ${beyond.join(',')} are neither protected nor the newest turn`)
  // protectedExceedsLimit says exactly whether what must stay alone breaks a limit.
  const requiredTokens = [...required].reduce((a, s) => a + (c.tokens[s] ?? 0), 0)
  const protectedExceeds =
    required.size > c.limits.windowSize || requiredTokens > (c.limits.tokenBudget ?? Infinity)
  if (r.protectedExceedsLimit !== protectedExceeds)
    fail(id, 'result protectedExceedsLimit', `says ${r.protectedExceedsLimit}, is ${protectedExceeds}`)
  return prot
}

/**
 * Progress: an overflow reduction that evicted nothing must have had no valid cut that removes an
 * unprotected message — no trim point after an unprotected message of the window.
 *
 * @param c - the step, the window before it, and the protected seqs
 */
export function assertProgress(
  c: RuleCheck & { before: readonly number[]; boundaryBefore: number; protectedSeqs: ReadonlySet<number> },
): void {
  if (c.result === undefined || c.result.evicted > 0) return
  const shapes = c.archive.map(shapeOf)
  const prot = withLead(shapes, c.protectedSeqs)
  const unprotected = c.before.filter((s) => !prot.has(s))
  if (unprotected.length === 0) return
  const firstUnprotected = Math.min(...unprotected)
  for (let t = Math.max(c.boundaryBefore, firstUnprotected + 1); t < c.archive.length; t++)
    if (isTrimPointAt(shapes, t))
      fail(c.sessionId, 'progress', `trim point ${t} would have let unprotected ${firstUnprotected} go`)
}
