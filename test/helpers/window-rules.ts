/**
 * The window-rule oracle: one checker for every rule of the window (docs/design.md, "Window rules"),
 * computed from the archive independently of the store's planner. It walks the session's history itself
 * to link tool calls and find protected messages, then compares with what `window()` returns. It throws
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
 * - the boundary never moves backward (given the boundary seen before);
 * - with a summary (docs/design.md, "Summaries"): the window is the kept rows, then the session's current
 *   summary, then the tail; the summary is a user message of text carrying the ledger's marker, counted as
 *   one message; exactly the current summary has no `endReason`; its chain (`replaces`, down to the raw
 *   messages) folds each message at most once (but a kept row that protection brought back after a fold
 *   and that lost it again), never a message of the window's tail, never the call in flight, and every
 *   link lies before the one that replaced it; the newest turn's opening is in the window or folded into
 *   the summary the window shows.
 *
 * Rules about the limits, checked against what one `applyWindow()` / `reduce()` returned
 * ({@link assertStepRules}, {@link assertProgress}): the window is bounded but for what must stay,
 * `exceedsLimit` and `protectedExceedsLimit` tell the truth, and an overflow reduction makes progress
 * whenever a valid cut could.
 */
import {
  isSummaryMessage,
  type ContextStore,
  type LedgerEntry,
  type SessionSummary,
  type StoredMessageData,
  type SummaryRecord,
  type WindowLimits,
  type WindowResult,
} from '../../src/index.js'
import type { LedgerStore } from './backend.js'
import { isTrimPointAt, linkCalls, protectedSet, requiredSet, toolIds, withLead } from './window-facts.js'

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

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

function fail(sessionId: string, rule: string, detail: string): never {
  throw new Error(`window rule broken in session "${sessionId}": ${rule} — ${detail}`)
}

/**
 * The provider-strict form `window({ alternate: true })`: roles alternate, it starts with a user message
 * without toolResult, every toolResult answers a toolUse of the message right before it, every toolUse is
 * answered by the message right after it (but a call in flight in the newest message), and it holds
 * exactly the window's blocks.
 */
function checkAlternating(
  sessionId: string,
  window: readonly StoredMessageData[],
  alternate: readonly StoredMessageData[],
  endsWithNewest: boolean,
): void {
  const blocks = (ms: readonly StoredMessageData[]): string[] =>
    ms.flatMap((m) => m.content.map((b) => JSON.stringify(b))).sort()
  if (JSON.stringify(blocks(window)) !== JSON.stringify(blocks(alternate)))
    fail(sessionId, 'alternate keeps every block', `${window.length} messages became ${alternate.length}`)
  alternate.forEach((m, i) => {
    const prev = alternate[i - 1]
    if (prev !== undefined && prev.role === m.role)
      fail(sessionId, 'alternate roles', `messages ${i - 1} and ${i} are both ${m.role}`)
    const uses = new Set(prev === undefined ? [] : toolIds(prev).uses)
    for (const id of toolIds(m).results)
      if (!uses.has(id))
        fail(sessionId, 'alternate toolResult follows its toolUse', `message ${i} answers ${id}`)
    const next = alternate[i + 1]
    const answered = new Set(next === undefined ? [] : toolIds(next).results)
    const inFlight = next === undefined && endsWithNewest && m.role === 'assistant'
    for (const id of toolIds(m).uses)
      if (!answered.has(id) && !inFlight)
        fail(sessionId, 'alternate toolUse answered next', `message ${i} calls ${id}`)
  })
  const first = alternate[0]
  if (first !== undefined && (first.role !== 'user' || toolIds(first).results.length > 0))
    fail(sessionId, 'alternate start', JSON.stringify(first))
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

/** What the rules are checked on: one committed state of a session, read at once. */
export interface RuleState {
  /** The whole archive. */
  readonly history: readonly LedgerEntry[]
  /** `window()`. */
  readonly window: readonly StoredMessageData[]
  /** `window({ alternate: true })`. */
  readonly alternate: readonly StoredMessageData[]
  /** `session()`. */
  readonly summary: SessionSummary | undefined
  /** `summaries()`, newest first. */
  readonly summaries: readonly SummaryRecord[]
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
  // One read transaction: the archive, the window and the summary come from one committed state even
  // while other connections write.
  const state = store
    .connection()
    .transaction(() => ({
      history: readHistory(store, sessionId),
      window: store.window(sessionId),
      alternate: store.window(sessionId, { alternate: true }),
      summary: store.session(sessionId),
      summaries: store.summaries(sessionId, { limit: 10_000 }),
    }))
    .deferred()
  return checkWindowRules(state, sessionId, ranges, options)
}

/**
 * Reads one committed state of a session from either backend's store (in one snapshot).
 *
 * @param store - an open store (SQLite through the async adapter, or PostgreSQL)
 * @param sessionId - the session
 * @returns the state
 */
export async function readRuleState(store: LedgerStore, sessionId: string): Promise<RuleState> {
  return store.reading(async (s) => {
    const history: LedgerEntry[] = []
    for (;;) {
      const page = await s.history(sessionId, { fromSeq: history.length, limit: PAGE })
      history.push(...page)
      if (page.length < PAGE) break
    }
    return {
      history,
      window: await s.window(sessionId),
      alternate: await s.window(sessionId, { alternate: true }),
      summary: await s.session(sessionId),
      summaries: await s.summaries(sessionId, { limit: 10_000 }),
    }
  })
}

/**
 * {@link assertWindowRules} on either backend's store.
 *
 * @param store - an open store
 * @param sessionId - the session to check
 * @param ranges - the protected ranges in force
 * @param options - acknowledged appends and the boundary seen before
 * @returns what was seen
 */
export async function assertWindowRulesOf(
  store: LedgerStore,
  sessionId: string,
  ranges: ProtectedRanges = {},
  options: WindowRuleOptions = {},
): Promise<WindowRulesReport> {
  return checkWindowRules(await readRuleState(store, sessionId), sessionId, ranges, options)
}

/**
 * The rules of every moment, checked on one state of a session.
 *
 * @param state - what was read
 * @param sessionId - the session
 * @param ranges - the protected ranges in force
 * @param options - acknowledged appends and the boundary seen before
 * @returns what was seen
 */
export function checkWindowRules(
  state: RuleState,
  sessionId: string,
  ranges: ProtectedRanges = {},
  options: WindowRuleOptions = {},
): WindowRulesReport {
  const { history, window, alternate, summary, summaries } = state
  const n = history.length

  // Archive: dense, unique, byte-identical.
  const seqOf = new Map<string, number>()
  history.forEach((e, i) => {
    if (e.seq !== i) fail(sessionId, 'archive dense', `entry ${i} has seq ${e.seq}`)
    if (seqOf.has(e.trackingId))
      fail(
        sessionId,
        'archive unique',
        `trackingId ${e.trackingId} at seq ${seqOf.get(e.trackingId)} and ${i}`,
      )
    if (e.message.trackingId !== e.trackingId)
      fail(
        sessionId,
        'archive identity',
        `seq ${i} stores trackingId ${e.message.trackingId} for ${e.trackingId}`,
      )
    seqOf.set(e.trackingId, i)
  })
  if (options.appended !== undefined) {
    for (const [trackingId, json] of options.appended) {
      const seq = seqOf.get(trackingId)
      if (seq === undefined) fail(sessionId, 'archive complete', `acknowledged ${trackingId} is missing`)
      const stored = JSON.stringify((history[seq] as LedgerEntry).message)
      if (stored !== json)
        fail(sessionId, 'archive byte-identical', `seq ${seq} (${trackingId}) is ${stored}, appended ${json}`)
    }
  }
  if (summary === undefined) {
    if (n > 0 || window.length > 0 || summaries.length > 0)
      fail(sessionId, 'session exists', 'messages or summaries without a session row')
    return {
      boundary: 0,
      messageCount: 0,
      windowSeqs: [],
      protectedSeqs: [],
      history,
      summary: undefined,
      chainSeqs: [],
      summaries,
    }
  }
  if (summary.messageCount !== n)
    fail(sessionId, 'message count', `session says ${summary.messageCount}, archive has ${n}`)
  const boundary = summary.boundary
  if (boundary < 0 || boundary > n) fail(sessionId, 'boundary in range', `boundary ${boundary} of ${n}`)
  if (options.previousBoundary !== undefined && boundary < options.previousBoundary)
    fail(
      sessionId,
      'boundary monotonic',
      `boundary moved back from ${options.previousBoundary} to ${boundary}`,
    )

  // Summaries: exactly the current one is open, and the window shows it.
  const current = checkSummaryRecords(sessionId, summary.summaryId, summaries)
  const summaryAt = current === undefined ? -1 : window.findIndex((m) => m.trackingId === current.trackingId)
  if (current !== undefined) {
    if (summaryAt < 0) fail(sessionId, 'summary in window', `summary ${current.id} is not in window()`)
    const shown = window[summaryAt] as StoredMessageData
    if (!sameJson(shown, current.message))
      fail(sessionId, 'summary shown as recorded', `window shows ${JSON.stringify(shown)}`)
    if (
      shown.role !== 'user' ||
      !isSummaryMessage(shown) ||
      shown.content.length === 0 ||
      shown.content.some((b) => !('text' in b))
    )
      fail(sessionId, 'summary message', `summary ${current.id} is ${JSON.stringify(shown)}`)
    if (seqOf.has(current.trackingId))
      fail(sessionId, 'summary not archived', `summary ${current.id} shares a trackingId with the archive`)
  }
  // The window's archived messages (the summary is none of them).
  const raw = window.filter((_, i) => i !== summaryAt)

  // Shape: kept rows before the boundary, then the summary, then the whole tail, in seq order.
  const windowSeqs = raw.map((m, i) => {
    const seq = seqOf.get(m.trackingId)
    if (seq === undefined)
      fail(sessionId, 'window from archive', `window[${i}] ${m.trackingId} is not archived`)
    return seq
  })
  for (let i = 1; i < windowSeqs.length; i++)
    if ((windowSeqs[i] as number) <= (windowSeqs[i - 1] as number))
      fail(sessionId, 'window order', `window seqs ${windowSeqs.join(',')}`)
  const tail = windowSeqs.filter((s) => s >= boundary)
  if (tail.length !== n - boundary || (tail.length > 0 && tail[0] !== boundary))
    fail(sessionId, 'window tail', `boundary ${boundary}, ${n} messages, window tail ${tail.join(',')}`)
  if (summary.windowMessages !== window.length)
    fail(sessionId, 'window size', `session() says ${summary.windowMessages}, window() has ${window.length}`)
  if (current !== undefined) {
    const keptCount = windowSeqs.filter((s) => s < boundary).length
    if (summaryAt !== keptCount)
      fail(
        sessionId,
        'summary between kept rows and tail',
        `summary at window[${summaryAt}], ${keptCount} kept rows (window seqs ${windowSeqs.join(',')}, boundary ${boundary})`,
      )
  }
  const windowSet = new Set(windowSeqs)
  history.forEach((e) => {
    if (e.inWindow !== windowSet.has(e.seq))
      fail(sessionId, 'entry inWindow', `seq ${e.seq} says inWindow ${e.inWindow}`)
  })
  raw.forEach((m, i) => {
    const entry = history[windowSeqs[i] as number] as LedgerEntry
    const pinFlag = m.metadata?.custom?.pinned === true
    if (entry.pinned && !pinFlag) fail(sessionId, 'pin flag', `pinned seq ${entry.seq} lacks the pin flag`)
  })

  // Valid for providers.
  const first = window[0]
  if (first !== undefined && (first.role !== 'user' || toolIds(first).results.length > 0))
    fail(sessionId, 'window start', `window starts with seq ${windowSeqs[0]}: ${JSON.stringify(first)}`)
  // With a summary shown, the window opens with it or a kept row; the tail may then open with any message
  // a summary can be followed by — the checks below (no toolResult without its toolUse before it, no
  // toolUse without its result after it) say exactly that.
  const seqAt = (i: number): number | string =>
    i === summaryAt
      ? `summary ${current?.id}`
      : (windowSeqs[i < summaryAt || summaryAt < 0 ? i : i - 1] as number)
  const inWindow = linkCalls(window)
  const linkedResults = new Map<number, number>()
  for (const [, r] of inWindow.links) linkedResults.set(r, (linkedResults.get(r) ?? 0) + 1)
  window.forEach((m, i) => {
    if (toolIds(m).results.length > (linkedResults.get(i) ?? 0))
      fail(sessionId, 'toolResult after its toolUse', `seq ${seqAt(i)} answers a call not in the window`)
  })
  for (const i of inWindow.open) {
    const seq = seqAt(i)
    const m = window[i] as StoredMessageData
    if (!(seq === n - 1 && m.role === 'assistant'))
      fail(sessionId, 'toolUse answered', `seq ${seq} has a toolUse with no result after it in the window`)
  }
  // A toolUse and its result are never split by the summary (a provider that does not merge same-role
  // messages would refuse the result after a user message).
  if (summaryAt >= 0)
    for (const [u, r] of inWindow.links)
      if (u < summaryAt && r > summaryAt)
        fail(sessionId, 'summary splits a tool pair', `seq ${seqAt(u)} and seq ${seqAt(r)}`)

  checkAlternating(sessionId, window, alternate, windowSeqs.at(-1) === n - 1)

  // Protection, derived from the archive alone.
  const archive = history.map((e) => e.message)
  const prot = protectedSet(archive, new Set(history.filter((e) => e.pinned).map((e) => e.seq)), ranges)
  const chainSeqs = current === undefined ? [] : checkChain(sessionId, current, summaries, n, boundary)
  const chainSet = new Set(chainSeqs)
  // The newest turn stays: its opening message is the latest one that can open a window — or a fold took
  // it into the summary the window shows (a fold by ratio may, as Strands' summarizer does).
  if (options.newestTurn !== false) {
    let newest = -1
    for (let s = n - 1; s >= 0 && newest < 0; s--) if (isTrimPointAt(archive, s)) newest = s
    if (newest >= 0 && !windowSet.has(newest) && !chainSet.has(newest))
      fail(sessionId, 'newest turn in window', `seq ${newest} opens the newest turn but is not in the window`)
  }
  const protectedSeqs = [...prot].sort((a, b) => a - b)
  const missing = protectedSeqs.filter((s) => !windowSet.has(s))
  if (missing.length > 0)
    fail(sessionId, 'protected in window', `protected seqs ${missing.join(',')} are not in the window`)

  if (current !== undefined) {
    // A folded message is out of the window — unless protection brought it back since (a pin, a wider
    // protected range), which the summary cannot undo.
    // A folded message is out of the window: never in the tail (only dropping the summary moves the
    // boundary back), and before it only as a kept row that protection brought back since (a pin, a wider
    // protected range, a lead), which the summary cannot undo.
    const back = windowSeqs.filter((s) => chainSet.has(s) && s >= boundary)
    if (back.length > 0)
      fail(
        sessionId,
        'folded out of the window',
        `seqs ${back.join(',')} are in the window's tail and in summary ${current.id}`,
      )
    // A call in flight never folds.
    const last = archive[n - 1]
    if (
      last !== undefined &&
      last.role === 'assistant' &&
      toolIds(last).uses.length > 0 &&
      chainSet.has(n - 1)
    )
      fail(sessionId, 'call in flight never folds', `seq ${n - 1} is folded into summary ${current.id}`)
    if (options.foldCoverage === true)
      for (let s = current.fromBoundary; s < current.toBoundary; s++)
        if (!chainSet.has(s) && !windowSet.has(s))
          fail(
            sessionId,
            'fold coverage',
            `seq ${s} left the window at summary ${current.id} but is not in it`,
          )
  }

  return {
    boundary,
    messageCount: n,
    windowSeqs,
    protectedSeqs,
    history,
    summary: current,
    chainSeqs,
    summaries,
  }
}

/**
 * The summary records agree with the session: ids newest first, exactly the current one open (no
 * `endReason`, no `endedAt`), ended ones with both; returns the current one.
 */
function checkSummaryRecords(
  sessionId: string,
  summaryId: number | undefined,
  summaries: readonly SummaryRecord[],
): SummaryRecord | undefined {
  for (let i = 1; i < summaries.length; i++)
    if ((summaries[i] as SummaryRecord).id >= (summaries[i - 1] as SummaryRecord).id)
      fail(sessionId, 'summaries newest first', summaries.map((x) => x.id).join(','))
  let current: SummaryRecord | undefined
  for (const r of summaries) {
    if (r.sessionId !== sessionId) fail(sessionId, 'summary session', `summary ${r.id} says ${r.sessionId}`)
    if (r.current !== (r.id === summaryId))
      fail(
        sessionId,
        'summary current',
        `summary ${r.id} says current ${r.current}, session shows ${summaryId}`,
      )
    if (r.current) current = r
    const open = r.endReason === undefined
    if (open !== (r.endedAt === undefined))
      fail(
        sessionId,
        'summary ended',
        `summary ${r.id}: endReason ${r.endReason}, endedAt ${String(r.endedAt)}`,
      )
    if (open !== r.current)
      fail(
        sessionId,
        'only the current summary is open',
        `summary ${r.id} (current ${r.current}) ended ${r.endReason}`,
      )
    if (r.message.trackingId !== r.trackingId)
      fail(sessionId, 'summary identity', `summary ${r.id} message ${r.message.trackingId}`)
    if (r.regenerates !== undefined) {
      const old = summaries.find((x) => x.id === r.regenerates)
      if (
        old !== undefined &&
        (old.endReason !== 'regenerated' || !sameJson(old.seqs, r.seqs) || old.replaces !== r.replaces)
      )
        fail(
          sessionId,
          'regeneration',
          `summary ${r.id} regenerates ${old.id} (${old.endReason}) with other messages`,
        )
    }
  }
  if (summaryId !== undefined && current === undefined)
    fail(
      sessionId,
      'current summary recorded',
      `the session shows summary ${summaryId}, summaries() lacks it`,
    )
  return current
}

/**
 * The chain of the current summary: its seqs and those of every summary it replaced, down to the raw
 * messages. Each link's ranges are half-open, ascending, within the archive and before the boundary it
 * left; `messageCount` counts them; no message is folded twice; a replaced summary ended as `'replaced'`
 * and lies before the one that replaced it.
 */
function checkChain(
  sessionId: string,
  current: SummaryRecord,
  summaries: readonly SummaryRecord[],
  n: number,
  boundary: number,
): number[] {
  const byId = new Map(summaries.map((r) => [r.id, r]))
  const seen = new Map<number, SummaryRecord>()
  if (current.toBoundary > boundary)
    fail(
      sessionId,
      'summary boundary',
      `summary ${current.id} ends at ${current.toBoundary}, boundary ${boundary}`,
    )
  for (let link = current, hops = 0; ; hops++) {
    if (hops > summaries.length) fail(sessionId, 'summary chain acyclic', `at summary ${link.id}`)
    if (link.fromBoundary > link.toBoundary)
      fail(sessionId, 'summary boundaries', `summary ${link.id}: ${link.fromBoundary} → ${link.toBoundary}`)
    let count = 0
    let last = -1
    for (const [lo, hi] of link.seqs) {
      if (!(
        Number.isInteger(lo) &&
        Number.isInteger(hi) &&
        lo > last &&
        lo < hi &&
        hi <= link.toBoundary &&
        hi <= n
      ))
        fail(
          sessionId,
          'summary seqs',
          `summary ${link.id} has ${JSON.stringify(link.seqs)} (to ${link.toBoundary}, ${n} messages)`,
        )
      last = hi
      count += hi - lo
      for (let s = lo; s < hi; s++) {
        // A message folds twice in one chain only when protection brought it back between the folds and
        // the later one took it as a kept row that lost its protection (before that fold's boundary).
        const newer = seen.get(s)
        if (newer !== undefined && s >= newer.fromBoundary)
          fail(
            sessionId,
            'folded once per chain',
            `seq ${s} is in summary ${link.id} and summary ${newer.id}`,
          )
        seen.set(s, newer ?? link)
      }
    }
    if (count !== link.messageCount)
      fail(
        sessionId,
        'summary messageCount',
        `summary ${link.id} says ${link.messageCount}, seqs hold ${count}`,
      )
    if (link.replaces === undefined) break
    const older = byId.get(link.replaces)
    if (older === undefined)
      fail(sessionId, 'summary chain complete', `summary ${link.id} replaces ${link.replaces}, not recorded`)
    if (older.id >= link.id || older.endReason !== 'replaced' || older.toBoundary > link.fromBoundary)
      fail(
        sessionId,
        'summary chain order',
        `summary ${link.id} (from ${link.fromBoundary}) replaces ${older.id} (${older.endReason}, to ${older.toBoundary})`,
      )
    link = older
  }
  return [...seen.keys()].sort((a, b) => a - b)
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
  return checkStepRules(report, c)
}

/**
 * {@link assertStepRules} on either backend's store.
 *
 * @param c - the store and the step's result
 * @returns the protected seqs the shared checker computed
 */
export async function assertStepRulesOf(
  c: Omit<RuleCheck, 'store'> & { store: LedgerStore },
): Promise<Set<number>> {
  const report = await assertWindowRulesOf(c.store, c.sessionId, c.limits, {
    ...(c.previousBoundary === undefined ? {} : { previousBoundary: c.previousBoundary }),
  })
  return checkStepRules(report, c)
}

/**
 * The rules about the limits a step's result claims, on the state the rules of every moment were checked on.
 *
 * @param report - what that check saw
 * @param c - the step
 * @returns the protected seqs
 */
function checkStepRules(report: WindowRulesReport, c: Omit<RuleCheck, 'store'>): Set<number> {
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
  const shown = c.summaryTokens === undefined ? 0 : 1
  const windowCount = c.windowSeqs.length + shown
  const windowTokens = c.windowSeqs.reduce((a, s) => a + (c.tokens[s] ?? 0), c.summaryTokens ?? 0)
  if (r.windowMessages !== windowCount)
    fail(id, 'result windowMessages', `${r.windowMessages} for a window of ${windowCount}`)
  if (r.windowTokens !== windowTokens)
    fail(id, 'result windowTokens', `${r.windowTokens} for a window of ${windowTokens} tokens`)
  const exceeds = windowCount > c.limits.windowSize || windowTokens > (c.limits.tokenBudget ?? Infinity)
  if (r.exceedsLimit !== exceeds) fail(id, 'result exceedsLimit', `says ${r.exceedsLimit}, is ${exceeds}`)
  // What may break a limit: what must stay (the protected set with its validity lead, a call in flight
  // with a user message before it) and the newest turn — from the latest trim point on.
  const required = requiredSet(c.archive, prot)
  let newest = -1
  for (let s = c.archive.length - 1; s >= 0 && newest < 0; s--) if (isTrimPointAt(c.archive, s)) newest = s
  const beyond: (number | string)[] = c.windowSeqs.filter(
    (s) => !required.has(s) && (newest < 0 || s < newest),
  )
  if (shown === 1) beyond.push('the summary')
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
  const boundary = report.boundary
  const anchor = r.cut === 'tool-pair' || (newest >= 0 && newest < boundary) ? 1 : 0
  if (
    c.mode === 'apply' &&
    r.reason !== 'no-valid-cut' &&
    r.cut !== 'latest-trim-point' &&
    !r.protectedExceedsLimit &&
    windowCount > c.limits.windowSize + anchor
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
  c: Omit<RuleCheck, 'store'> & {
    before: readonly number[]
    boundaryBefore: number
    protectedSeqs: ReadonlySet<number>
  },
): void {
  if (c.result === undefined || c.result.evicted > 0) return
  const prot = withLead(c.archive, c.protectedSeqs)
  const unprotected = c.before.filter((s) => !prot.has(s))
  if (unprotected.length === 0) return
  const firstUnprotected = Math.min(...unprotected)
  for (let t = Math.max(c.boundaryBefore, firstUnprotected + 1); t < c.archive.length; t++)
    if (isTrimPointAt(c.archive, t))
      fail(c.sessionId, 'progress', `trim point ${t} would have let unprotected ${firstUnprotected} go`)
}
