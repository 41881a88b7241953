/**
 * One checker for the window rules of DESIGN §4, computed from the archive independently of the store's
 * planner: the checker walks the session's history itself to link tool calls and find protected
 * messages, then compares with what `window()` returns. It throws an `Error` naming the session, the rule
 * and the seqs involved, so it works in vitest, in fast-check properties and in child-process workers.
 *
 * Rules checked:
 * - the archive is dense (seq 0..n-1), trackingIds are unique, and every message the caller recorded as
 *   appended is there byte-identical (`JSON.stringify` with its trackingId);
 * - the window is in seq order: kept messages before the boundary, then every message from the boundary;
 * - it starts with a user message that carries no toolResult;
 * - every toolResult has its toolUse earlier in the window;
 * - every toolUse has its result later in the window, except in the session's newest message when that
 *   is an assistant message (a call in flight);
 * - every protected message (pinned, first N, last N, tool partners of those, transitively) is in it;
 * - the newest turn's opening message (the latest user message that can open a window) is in it, so the
 *   window is never empty while the session has such a message;
 * - `session().windowMessages` agrees with the window's length;
 * - the boundary never moves backward (given the boundary seen before).
 */
import type { ContextStore, LedgerEntry, StoredMessageData } from '../../src/index.js'

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

function fail(sessionId: string, rule: string, detail: string): never {
  throw new Error(`window rule broken in session "${sessionId}": ${rule} — ${detail}`)
}

function toolIds(message: StoredMessageData): { uses: string[]; results: string[] } {
  const uses: string[] = []
  const results: string[] = []
  for (const block of message.content) {
    if ('toolUse' in block) uses.push(block.toolUse.toolUseId)
    else if ('toolResult' in block) results.push(block.toolResult.toolUseId)
  }
  return { uses, results }
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

/**
 * Links each toolResult to the latest earlier toolUse with the same id that is still unanswered.
 *
 * @param messages - messages in order
 * @returns pairs `[useIndex, resultIndex]`, and the indices of toolUses left unanswered
 */
function linkCalls(messages: readonly StoredMessageData[]): { links: [number, number][]; open: number[] } {
  const pending = new Map<string, number[]>()
  const links: [number, number][] = []
  messages.forEach((m, i) => {
    const { uses, results } = toolIds(m)
    for (const id of results) {
      const use = pending.get(id)?.pop()
      if (use !== undefined) links.push([use, i])
    }
    for (const id of uses) pending.set(id, [...(pending.get(id) ?? []), i])
  })
  const open = [...pending.values()].flat()
  return { links, open }
}

/**
 * Checks every DESIGN §4 rule the ledger must keep at all times for one session, and throws on the first
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
  const { history, window, alternate, summary } = store
    .connection()
    .transaction(() => ({
      history: readHistory(store, sessionId),
      window: store.window(sessionId),
      alternate: store.window(sessionId, { alternate: true }),
      summary: store.session(sessionId),
    }))
    .deferred()
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
    if (n > 0 || window.length > 0) fail(sessionId, 'session exists', 'messages without a session row')
    return { boundary: 0, messageCount: 0, windowSeqs: [], protectedSeqs: [], history }
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

  // Shape: kept rows before the boundary, then the whole tail, in seq order.
  const windowSeqs = window.map((m, i) => {
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
  window.forEach((m, i) => {
    const entry = history[windowSeqs[i] as number] as LedgerEntry
    const pinFlag = m.metadata?.custom?.pinned === true
    if (entry.pinned && !pinFlag) fail(sessionId, 'pin flag', `pinned seq ${entry.seq} lacks the pin flag`)
  })

  // Valid for providers.
  const first = window[0]
  if (first !== undefined && (first.role !== 'user' || toolIds(first).results.length > 0))
    fail(sessionId, 'window start', `window starts with seq ${windowSeqs[0]}: ${JSON.stringify(first)}`)
  const inWindow = linkCalls(window)
  const linkedResults = new Map<number, number>()
  for (const [, r] of inWindow.links) linkedResults.set(r, (linkedResults.get(r) ?? 0) + 1)
  window.forEach((m, i) => {
    if (toolIds(m).results.length > (linkedResults.get(i) ?? 0))
      fail(sessionId, 'toolResult after its toolUse', `seq ${windowSeqs[i]} answers a call not in the window`)
  })
  for (const i of inWindow.open) {
    const seq = windowSeqs[i] as number
    const m = window[i] as StoredMessageData
    if (!(seq === n - 1 && m.role === 'assistant'))
      fail(sessionId, 'toolUse answered', `seq ${seq} has a toolUse with no result after it in the window`)
  }

  checkAlternating(sessionId, window, alternate, windowSeqs.at(-1) === n - 1)

  // Protection, from the archive: pins, ranges, tool partners (transitively).
  const archive = history.map((e) => e.message)
  const { links } = linkCalls(archive)
  const partners = new Map<number, number[]>()
  for (const [u, r] of links) {
    partners.set(u, [...(partners.get(u) ?? []), r])
    partners.set(r, [...(partners.get(r) ?? []), u])
  }
  const prot = new Set<number>()
  const frontier: number[] = []
  const protect = (s: number): void => {
    if (!prot.has(s)) {
      prot.add(s)
      frontier.push(s)
    }
  }
  history.forEach((e) => e.pinned && protect(e.seq))
  for (let s = 0; s < Math.min(ranges.first ?? 0, n); s++) protect(s)
  for (let s = Math.max(0, n - (ranges.last ?? 0)); s < n; s++) protect(s)
  while (frontier.length > 0) for (const q of partners.get(frontier.pop() as number) ?? []) protect(q)
  // Validity before protection: when no plain user message precedes the earliest protected one, nothing
  // before the session's first plain user message can open a window, so it (and what is tied to it by
  // tool calls) is not protected.
  const isPlainUser = (m: StoredMessageData): boolean =>
    m.role === 'user' && toolIds(m).uses.length === 0 && toolIds(m).results.length === 0
  const earliest = Math.min(...prot)
  const startsValidly = (s: number): boolean => {
    const m = archive[s] as StoredMessageData
    if (m.role !== 'user' || toolIds(m).results.length > 0) return false
    if (toolIds(m).uses.length === 0) return true
    const next = archive[s + 1]
    return next !== undefined && toolIds(next).results.length > 0
  }
  if (prot.size > 0 && !startsValidly(earliest) && !archive.slice(0, earliest).some(isPlainUser)) {
    const opener = archive.findIndex((m, s) => s >= earliest && isPlainUser(m))
    const drop = [...prot].filter((s) => s < (opener < 0 ? n : opener))
    while (drop.length > 0) {
      const s = drop.pop() as number
      if (prot.delete(s)) drop.push(...(partners.get(s) ?? []).filter((q) => prot.has(q)))
    }
  }
  const windowSet = new Set(windowSeqs)
  // The newest turn stays: its opening message is the latest one that can open a window.
  if (options.newestTurn !== false) {
    let newest = -1
    for (let s = n - 1; s >= 0 && newest < 0; s--) if (startsValidly(s)) newest = s
    if (newest >= 0 && !windowSet.has(newest))
      fail(sessionId, 'newest turn in window', `seq ${newest} opens the newest turn but is not in the window`)
  }
  const protectedSeqs = [...prot].sort((a, b) => a - b)
  const missing = protectedSeqs.filter((s) => !windowSet.has(s))
  if (missing.length > 0)
    fail(sessionId, 'protected in window', `protected seqs ${missing.join(',')} are not in the window`)

  return { boundary, messageCount: n, windowSeqs, protectedSeqs, history }
}
