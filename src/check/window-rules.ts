/**
 * The window rules that hold at every moment (docs/design.md, "Window rules"), checked from a session's
 * archive independently of the store's planner: it links tool calls and finds the protected messages
 * itself (`archive-facts.ts`), then compares with the window the store returns. Every problem found is
 * returned, naming the rule and the seqs involved; nothing throws.
 *
 * - the archive is dense (seq 0..n-1) and trackingIds are unique;
 * - the window is in seq order: kept messages before the boundary, the session's summary (if it shows
 *   one), then every message from the boundary;
 * - it starts with a user message that carries no toolResult;
 * - every toolResult has its toolUse earlier in the window;
 * - every toolUse has its result later in the window, except in the session's newest message when that
 *   is an assistant message (a call in flight);
 * - the alternating form (`window({ alternate: true })`) alternates roles and keeps every block;
 * - pinned messages carry the pin flag;
 * - every protected message (pinned, first N, last N, tool partners of those, transitively) is in it;
 * - the newest turn's opening message (the latest user message that can open a window) is in it, so the
 *   window is never empty while the session has such a message;
 * - the session's message count and window size agree with the archive and the window;
 * - the boundary never moves backward (given the boundary seen before).
 *
 * The property tests' oracle (`test/helpers/window-rules.ts`) throws the first problem; `context-ledger
 * check` lists them all.
 */
import type { StoredMessageData } from '../messages/types.js'
import { linkCalls, newestTurnStart, protectedSet, shapeOf, type MessageShape } from './archive-facts.js'

/** One broken rule. */
export interface WindowRuleProblem {
  /** The session. */
  readonly sessionId: string
  /** The rule, e.g. `'protected in window'`. */
  readonly rule: string
  /** What was seen: the seqs and values involved. */
  readonly detail: string
}

/** A session's archive as the rules need it, in seq order. */
export interface ArchiveFacts {
  /** Each message's seq as stored, by position (must be 0, 1, 2 …). */
  readonly seqs: readonly number[]
  /** Each message's trackingId, by position. */
  readonly trackingIds: readonly string[]
  /** Each message's role and tool ids, by position. */
  readonly shapes: readonly MessageShape[]
  /** The seqs of pinned messages. */
  readonly pinned: ReadonlySet<number>
}

/** What the store says about the session. */
export interface SessionFacts {
  /** Messages in the archive, by the session's count. */
  readonly messageCount: number
  /** First seq of the window's tail. */
  readonly boundary: number
  /** The window's size, by the session's count (its summary included). */
  readonly windowMessages: number
  /** The trackingId of the summary the window shows, if any. */
  readonly summaryTrackingId: string | undefined
}

/** Everything the check compares. */
export interface WindowRulesInput {
  /** The session, for messages. */
  readonly sessionId: string
  /** The archive. */
  readonly archive: ArchiveFacts
  /** The session's own facts, or undefined when the store has no session row. */
  readonly session: SessionFacts | undefined
  /** `window()`, read in the same snapshot as the archive. */
  readonly window: readonly StoredMessageData[]
  /** `window({ alternate: true })` (or `alternateRoles(window)`). */
  readonly alternate: readonly StoredMessageData[]
  /** The protected ranges in force. */
  readonly ranges: { readonly first?: number | undefined; readonly last?: number | undefined }
  /** The boundary an earlier check saw: the boundary may not be smaller now. */
  readonly previousBoundary?: number | undefined
  /** Whether to check that the newest turn's opening message is in the window (default true). */
  readonly newestTurn?: boolean | undefined
}

/** What the check found and saw. */
export interface WindowRulesResult {
  /** Every broken rule (empty when all hold). */
  readonly problems: WindowRuleProblem[]
  /** First seq of the window's tail. */
  readonly boundary: number
  /** Messages in the archive. */
  readonly messageCount: number
  /** Seqs of the window's archive messages, ascending (the summary is not one). */
  readonly windowSeqs: readonly number[]
  /** Seqs of protected messages, ascending. */
  readonly protectedSeqs: readonly number[]
}

/**
 * Checks every rule of the window that holds at all times, for one session.
 *
 * @param input - the archive, the session's facts and the window, read in one snapshot
 * @returns the problems found (none when every rule holds), and what was seen
 */
export function checkWindowRules(input: WindowRulesInput): WindowRulesResult {
  const { sessionId, archive, session, window } = input
  const problems: WindowRuleProblem[] = []
  const fail = (rule: string, detail: string): void => {
    problems.push({ sessionId, rule, detail })
  }
  const n = archive.shapes.length

  // Archive: dense, unique.
  const seqOf = new Map<string, number>()
  archive.trackingIds.forEach((trackingId, i) => {
    if (archive.seqs[i] !== i) fail('archive dense', `entry ${i} has seq ${String(archive.seqs[i])}`)
    const earlier = seqOf.get(trackingId)
    if (earlier !== undefined) fail('archive unique', `trackingId ${trackingId} at seq ${earlier} and ${i}`)
    else seqOf.set(trackingId, i)
  })
  const empty = { problems, boundary: 0, messageCount: n, windowSeqs: [], protectedSeqs: [] }
  if (session === undefined) {
    if (n > 0 || window.length > 0) fail('session exists', 'messages without a session row')
    return empty
  }
  if (session.messageCount !== n)
    fail('message count', `session says ${session.messageCount}, archive has ${n}`)
  const boundary = session.boundary
  if (boundary < 0 || boundary > n) fail('boundary in range', `boundary ${boundary} of ${n}`)
  if (input.previousBoundary !== undefined && boundary < input.previousBoundary)
    fail('boundary monotonic', `boundary moved back from ${input.previousBoundary} to ${boundary}`)

  // Shape: kept rows before the boundary, the summary, then the whole tail, in seq order.
  const summaryId = session.summaryTrackingId
  let summaryAt = -1
  const positions: number[] = []
  const windowSeqs: number[] = []
  window.forEach((m, i) => {
    if (summaryId !== undefined && m.trackingId === summaryId && summaryAt < 0) {
      summaryAt = i
      return
    }
    const seq = seqOf.get(m.trackingId)
    if (seq === undefined) fail('window from archive', `window[${i}] ${m.trackingId} is not archived`)
    else {
      positions.push(i)
      windowSeqs.push(seq)
    }
  })
  if (summaryId !== undefined && summaryAt < 0)
    fail('summary in window', `the session shows summary ${summaryId}, the window lacks it`)
  for (let i = 1; i < windowSeqs.length; i++)
    if ((windowSeqs[i] as number) <= (windowSeqs[i - 1] as number))
      fail('window order', `window seqs ${windowSeqs.join(',')}`)
  const tail = windowSeqs.filter((s) => s >= boundary)
  if (tail.length !== n - boundary || (tail.length > 0 && tail[0] !== boundary))
    fail('window tail', `boundary ${boundary}, ${n} messages, window tail ${tail.join(',')}`)
  if (summaryAt >= 0) {
    const before = windowSeqs.filter((_, k) => (positions[k] as number) < summaryAt)
    if (before.some((s) => s >= boundary) || windowSeqs.length - before.length !== tail.length)
      fail('summary between kept rows and tail', `summary at window[${summaryAt}], boundary ${boundary}`)
  }
  if (session.windowMessages !== window.length)
    fail('window size', `session says ${session.windowMessages}, window() has ${window.length}`)
  positions.forEach((i, k) => {
    const seq = windowSeqs[k] as number
    if (archive.pinned.has(seq) && window[i]?.metadata?.custom?.pinned !== true)
      fail('pin flag', `pinned seq ${seq} lacks the pin flag`)
  })

  // Valid for providers.
  const shapes = window.map(shapeOf)
  const seqAt = (i: number): string =>
    i === summaryAt ? 'the summary' : `seq ${String(windowSeqs[positions.indexOf(i)])}`
  const first = shapes[0]
  if (first !== undefined && (first.role !== 'user' || first.results.length > 0))
    fail('window start', `window starts with ${seqAt(0)}: ${JSON.stringify(window[0])}`)
  const inWindow = linkCalls(shapes)
  const linkedResults = new Map<number, number>()
  for (const [, r] of inWindow.links) linkedResults.set(r, (linkedResults.get(r) ?? 0) + 1)
  shapes.forEach((m, i) => {
    if (m.results.length > (linkedResults.get(i) ?? 0))
      fail('toolResult after its toolUse', `${seqAt(i)} answers a call not in the window`)
  })
  for (const i of inWindow.open) {
    const m = shapes[i] as MessageShape
    if (!(i === window.length - 1 && windowSeqs.at(-1) === n - 1 && m.role === 'assistant'))
      fail('toolUse answered', `${seqAt(i)} has a toolUse with no result after it in the window`)
  }

  checkAlternating(fail, window, input.alternate, windowSeqs.at(-1) === n - 1)

  // Protection, derived from the archive alone.
  const prot = protectedSet(archive.shapes, archive.pinned, input.ranges)
  const windowSet = new Set(windowSeqs)
  if (input.newestTurn !== false) {
    const newest = newestTurnStart(archive.shapes)
    if (newest !== undefined && !windowSet.has(newest))
      fail('newest turn in window', `seq ${newest} opens the newest turn but is not in the window`)
  }
  const protectedSeqs = [...prot].sort((a, b) => a - b)
  const missing = protectedSeqs.filter((s) => !windowSet.has(s))
  if (missing.length > 0)
    fail('protected in window', `protected seqs ${missing.join(',')} are not in the window`)

  return { problems, boundary, messageCount: n, windowSeqs, protectedSeqs }
}

/**
 * The provider-strict form `window({ alternate: true })`: roles alternate, it starts with a user message
 * without toolResult, every toolResult answers a toolUse of the message right before it, every toolUse is
 * answered by the message right after it (but a call in flight in the newest message), and it holds
 * exactly the window's blocks.
 */
function checkAlternating(
  fail: (rule: string, detail: string) => void,
  window: readonly StoredMessageData[],
  alternate: readonly StoredMessageData[],
  endsWithNewest: boolean,
): void {
  const blocks = (ms: readonly StoredMessageData[]): string[] =>
    ms.flatMap((m) => m.content.map((b) => JSON.stringify(b))).sort()
  if (JSON.stringify(blocks(window)) !== JSON.stringify(blocks(alternate)))
    fail('alternate keeps every block', `${window.length} messages became ${alternate.length}`)
  const shapes = alternate.map(shapeOf)
  shapes.forEach((m, i) => {
    const prev = shapes[i - 1]
    if (prev !== undefined && prev.role === m.role)
      fail('alternate roles', `messages ${i - 1} and ${i} are both ${m.role}`)
    const uses = new Set(prev === undefined ? [] : prev.uses)
    for (const id of m.results)
      if (!uses.has(id)) fail('alternate toolResult follows its toolUse', `message ${i} answers ${id}`)
    const next = shapes[i + 1]
    const answered = new Set(next === undefined ? [] : next.results)
    const inFlight = next === undefined && endsWithNewest && m.role === 'assistant'
    for (const id of m.uses)
      if (!answered.has(id) && !inFlight) fail('alternate toolUse answered next', `message ${i} calls ${id}`)
  })
  const first = shapes[0]
  if (first !== undefined && (first.role !== 'user' || first.results.length > 0))
    fail('alternate start', JSON.stringify(alternate[0]))
}

/**
 * The first problem as one line, the way the property tests report it.
 *
 * @param p - a problem
 * @returns `window rule broken in session "…": rule — detail`
 */
export function describeProblem(p: WindowRuleProblem): string {
  return `window rule broken in session "${p.sessionId}": ${p.rule} — ${p.detail}`
}
