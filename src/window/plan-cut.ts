/**
 * The window rules (DESIGN §4) as one decision over a {@link LedgerView}: which messages are protected,
 * where the new boundary goes, and which messages before it stay. The SQL store and the pure
 * `planWindow` both call this, so they cannot drift apart; only the lookups differ.
 *
 * With no pins and no protected ranges the decision reproduces Strands 1.19's sliding window exactly:
 * the cut is the first valid trim point at or after `len - windowSize` (or from the window's third
 * message on an overflow within the window), with its tool-pair fallback that keeps the nearest plain user
 * message as an anchor. Where Strands would give up, we cut at the latest trim point before the start
 * instead, so the window stays bounded by the current turn.
 */
import type { LedgerView } from './ledger-view.js'
import type { WindowLimits } from './window-options.js'

/** `apply` enforces the limits; `overflow` must make progress because the model refused the input. */
export type ReduceMode = 'apply' | 'overflow'

/** How the new boundary was chosen. */
export type CutKind =
  /** The first valid trim point at or after the required start (the normal case). */
  | 'trim-point'
  /** Strands' fallback: a toolUse/toolResult pair, with a plain user message kept as the anchor. */
  | 'tool-pair'
  /** No trim point after the start: the latest one before it (Strands would have given up). */
  | 'latest-trim-point'
  /** Protected messages alone reach the limit: everything unprotected leaves. */
  | 'protected-only'
  /** The boundary stays; messages kept before it that are no longer protected leave. */
  | 'released'

/** Why nothing was evicted. */
export type NothingEvictedReason =
  /** The window already fits its limits (only for `apply`). */
  | 'within-limits'
  /** Every message in the window is protected. */
  | 'all-protected'
  /** No cut point exists that keeps the window valid for a provider. */
  | 'no-valid-cut'

/** The decided window state. */
export interface WindowPlan {
  /** The new boundary: first seq of the tail. Never smaller than the old one. */
  readonly boundary: number
  /** Seqs before the new boundary that stay in the window, ascending. */
  readonly kept: readonly number[]
  /** Messages that were in the window before and are not now. */
  readonly evicted: number
  /** Messages that were not in the window before and are now (newly protected ones). */
  readonly restored: number
  /** Messages in the new window. */
  readonly windowMessages: number
  /** Tokens in the new window. */
  readonly windowTokens: number
  /** How the boundary was chosen; undefined when it did not move. */
  readonly cut: CutKind | undefined
  /** Set when nothing was evicted. */
  readonly reason: NothingEvictedReason | undefined
  /** True when the protected messages alone exceed `windowSize` or `tokenBudget`. */
  readonly protectedExceedsLimit: boolean
  /** Number of protected messages (pins, ranges, their tool partners, and a validity lead). */
  readonly protectedCount: number
}

/** A sorted set of protected seqs with their tokens and prefix sums. */
class ProtectedSet {
  readonly seqs: number[]
  private readonly members: Set<number>
  private readonly prefix: number[]

  private readonly tokenOf = new Map<number, number>()

  constructor(
    seqs: Iterable<number>,
    private readonly view: LedgerView,
  ) {
    this.members = new Set(seqs)
    this.seqs = [...this.members].sort((a, b) => a - b)
    const tokens = view.tokensOf(this.seqs)
    this.prefix = [0]
    tokens.forEach((t, i) => {
      this.prefix.push((this.prefix.at(-1) as number) + t)
      this.tokenOf.set(this.seqs[i] as number, t)
    })
  }

  /** Total tokens of `seqs`; members' counts are already known, others are looked up once. */
  sumTokens(seqs: readonly number[]): number {
    const unknown = seqs.filter((s) => !this.tokenOf.has(s))
    if (unknown.length > 0) {
      const fetched = this.view.tokensOf(unknown)
      unknown.forEach((s, i) => this.tokenOf.set(s, fetched[i] as number))
    }
    return seqs.reduce((a, s) => a + (this.tokenOf.get(s) as number), 0)
  }

  has(seq: number): boolean {
    return this.members.has(seq)
  }

  get size(): number {
    return this.seqs.length
  }

  get tokens(): number {
    return this.prefix.at(-1) as number
  }

  /** Number of members below `seq`. */
  countBelow(seq: number): number {
    let lo = 0
    let hi = this.seqs.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if ((this.seqs[mid] as number) < seq) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** Tokens of the members below `seq`. */
  tokensBelow(seq: number): number {
    return this.prefix[this.countBelow(seq)] as number
  }

  /** Members below `seq`, ascending. */
  below(seq: number): number[] {
    return this.seqs.slice(0, this.countBelow(seq))
  }
}

/** Pins, the first/last ranges, and every message tied to them by tool calls (transitively). */
function protectedSeqs(view: LedgerView, limits: WindowLimits): Set<number> {
  const n = view.count
  const out = new Set<number>()
  const headEnd = Math.min(limits.first, n)
  const tailStart = Math.max(0, n - limits.last)
  for (let s = 0; s < headEnd; s++) out.add(s)
  for (let s = tailStart; s < n; s++) out.add(s)
  let frontier = [...view.pinned()]
  if (headEnd > 0) frontier.push(...view.crossingPartners(0, headEnd))
  if (tailStart < n) frontier.push(...view.crossingPartners(tailStart, n))
  frontier = frontier.filter((s) => !out.has(s))
  for (const s of frontier) out.add(s)
  while (frontier.length > 0) {
    const next = view.partners(frontier).filter((s) => !out.has(s))
    for (const s of next) out.add(s)
    frontier = next
  }
  return out
}

/**
 * The protected set plus its validity lead: a window must open with a user message, so if the earliest
 * protected message cannot, the nearest plain user message before it comes along (and counts like a
 * protected one). Messages before the session's first plain user message — an assistant greeting the
 * session opens with, say — can never open a valid window, so they (and their tool partners) are not
 * protected: keeping them would make every request invalid.
 */
function protectedWithLead(view: LedgerView, limits: WindowLimits): Set<number> {
  const base = protectedSeqs(view, limits)
  const earliest = (): number | undefined => {
    let first: number | undefined
    for (const s of base) if (first === undefined || s < first) first = s
    return first
  }
  let first = earliest()
  if (first === undefined || view.isTrimPoint(first)) return base
  let lead = view.lastTrimPoint(0, first, true)
  if (lead === undefined) {
    const opener = view.firstPlainUser(first) ?? view.count
    let dropped = [...base].filter((s) => s < opener)
    while (dropped.length > 0) {
      for (const s of dropped) base.delete(s)
      dropped = view.partners(dropped).filter((s) => base.has(s))
    }
    first = earliest()
    if (first === undefined || view.isTrimPoint(first)) return base
    lead = view.lastTrimPoint(0, first, true)
  }
  if (lead !== undefined) base.add(lead)
  return base
}

/**
 * Smallest cut `c` such that at least `k` unprotected messages lie before it, or undefined when fewer
 * than `k` exist. Walks only the protected set.
 */
function cutAfterUnprotected(k: number, p: ProtectedSet, n: number): number | undefined {
  if (k <= 0) return 0
  let x = k - 1
  for (const s of p.seqs) {
    if (s <= x) x++
    else break
  }
  return x < n ? x + 1 : undefined
}

/**
 * Smallest cut `c` such that the unprotected messages before it hold at least `needed` tokens, or
 * undefined when all of them together hold less. One index seek per gap between protected messages,
 * starting from a lower bound, so usually one or two seeks.
 */
function cutAfterUnprotectedTokens(needed: number, p: ProtectedSet, view: LedgerView): number | undefined {
  if (needed <= 0) return 0
  const lowerBound = view.seekCumulative(needed)
  if (lowerBound === undefined) return undefined
  // Gap g lies between p.seqs[g-1] and p.seqs[g]; start at the gap holding the lower bound.
  for (let g = p.countBelow(lowerBound + 1); g <= p.size; g++) {
    const gapStart = g === 0 ? 0 : (p.seqs[g - 1] as number) + 1
    const gapEnd = g === p.size ? view.count : (p.seqs[g] as number) // exclusive
    if (gapStart >= gapEnd) continue
    const protectedBefore = p.tokensBelow(gapStart)
    const s = view.seekCumulative(needed + protectedBefore)
    if (s === undefined) return undefined
    const u = Math.max(s, gapStart)
    if (u < gapEnd) return u + 1
  }
  return undefined
}

/** The current window: kept rows and newly protected rows before the boundary, then the tail. */
interface CurrentWindow {
  head: number[]
  size: number
  tokens: number
  at(i: number): number
  firstUnprotected: number | undefined
}

function currentWindow(view: LedgerView, p: ProtectedSet): CurrentWindow {
  const b = view.boundary
  const n = view.count
  const head = [...new Set([...view.kept, ...p.below(b)])].sort((x, y) => x - y)
  const tokens = p.sumTokens(head) + view.totalTokens - view.tokensBefore(b)
  const at = (i: number): number => (i < head.length ? (head[i] as number) : b + i - head.length)
  let firstUnprotected: number | undefined = head.find((s) => !p.has(s))
  if (firstUnprotected === undefined) {
    for (let s = b; s < n; s++) {
      if (!p.has(s)) {
        firstUnprotected = s
        break
      }
    }
  }
  return { head, size: head.length + n - b, tokens, at, firstUnprotected }
}

/**
 * Decides the window after an `applyWindow()` or a `reduce()`.
 *
 * @param view - the session's ledger and current window state
 * @param limits - window size, token budget and protected ranges
 * @param mode - `apply` (enforce limits) or `overflow` (the model refused: make progress)
 * @returns the new boundary, the kept rows, and what changed
 */
export function planCut(view: LedgerView, limits: WindowLimits, mode: ReduceMode): WindowPlan {
  const n = view.count
  const b = view.boundary
  const budget = limits.tokenBudget
  const p = new ProtectedSet(protectedWithLead(view, limits), view)
  const current = currentWindow(view, p)
  // A call in flight (the newest message, awaiting its result) must stay with a user message before it:
  // its result is appended next and must follow it in the window.
  const inFlight: number[] = []
  if (view.endsInToolUse && !p.has(n - 1)) {
    inFlight.push(n - 1)
    if (p.countBelow(n - 1) === 0) {
      const anchor = view.lastTrimPoint(0, n - 1, true)
      if (anchor !== undefined) inFlight.unshift(anchor)
    }
  }
  // What must stay whatever the limits: the protected set and a call in flight.
  const requiredCount = p.size + inFlight.length
  const requiredTokens = p.tokens + p.sumTokens(inFlight)
  const protectedExceedsLimit =
    requiredCount > limits.windowSize || (budget !== undefined && requiredTokens > budget)
  const overLimit = current.size > limits.windowSize || (budget !== undefined && current.tokens > budget)

  const finish = (boundary: number, kept: number[], cut: CutKind | undefined): WindowPlan => {
    const keptSet = new Set(kept)
    const oldKept = new Set(view.kept)
    let evicted = 0
    for (const s of oldKept) if (!keptSet.has(s)) evicted++
    for (let s = b; s < boundary; s++) if (!keptSet.has(s)) evicted++
    let restored = 0
    for (const s of kept) if (s < b && !oldKept.has(s)) restored++
    const windowTokens = p.sumTokens(kept) + view.totalTokens - view.tokensBefore(boundary)
    const moved = boundary !== b || evicted > 0
    const reason: NothingEvictedReason | undefined =
      evicted > 0
        ? undefined
        : mode === 'apply' && !overLimit
          ? 'within-limits'
          : current.firstUnprotected === undefined
            ? 'all-protected'
            : 'no-valid-cut'
    const windowMessages = kept.length + n - boundary
    return {
      boundary,
      kept,
      evicted,
      restored,
      windowMessages,
      windowTokens,
      cut: moved ? cut : undefined,
      reason,
      protectedExceedsLimit,
      protectedCount: p.size,
    }
  }
  const unchanged = (): WindowPlan => finish(b, current.head, undefined)

  if (mode === 'apply' && !overLimit) return unchanged()
  if (current.firstUnprotected === undefined) return unchanged()

  // Where the new tail may start at the earliest.
  const byCount = cutAfterUnprotected(n - limits.windowSize, p, n)
  const byTokens = budget === undefined ? 0 : cutAfterUnprotectedTokens(view.totalTokens - budget, p, view)
  const keepBefore = (c: number): number[] => p.below(c)
  const fitsBudget = (kept: number[], c: number): boolean =>
    budget === undefined || p.sumTokens(kept) + view.totalTokens - view.tokensBefore(c) <= budget
  // Everything unprotected goes — except a call in flight: its result will be appended next, and a
  // result must follow its toolUse in the window, so the call stays (with a user message before it).
  const protectedOnly = (): WindowPlan => {
    if (!view.endsInToolUse) return finish(n, keepBefore(n), 'protected-only')
    const anchor = inFlight.length === 2 ? inFlight.slice(0, 1) : []
    return finish(Math.max(b, n - 1), [...keepBefore(n - 1), ...anchor], 'protected-only')
  }
  const limitStart = Math.max(byCount ?? Infinity, byTokens ?? Infinity)
  if (limitStart >= n) return protectedOnly()
  let start = Math.max(b, limitStart)
  if (mode === 'overflow') {
    // Strands cuts from the window's third message when the window already fits; and an overflow must
    // always remove at least one unprotected message.
    if (!overLimit) start = Math.max(start, current.size >= 3 ? current.at(2) : n)
    start = Math.min(n, Math.max(start, current.firstUnprotected + 1))
  }

  // The limits are met by letting go of rows kept before the boundary (unpinned, or no longer in a
  // protected range) while protected ones stay and open the window validly.
  if (start <= b) {
    const kept = [...new Set([...keepBefore(b), ...inFlight.filter((s) => s < b)])].sort((x, y) => x - y)
    if (kept.length > 0 || b === n) return finish(b, kept, 'released')
  }

  const trim = view.firstTrimPoint(start, n)
  if (trim !== undefined) return finish(trim, keepBefore(trim), 'trim-point')

  // No trim point in the rest of the session: the current turn is tool rounds only.
  const pair = view.firstPairStart(start, n)
  if (pair !== undefined) {
    let kept = keepBefore(pair)
    if (kept.length === 0) {
      const anchor =
        view.lastTrimPoint(b, pair, true) ?? [...current.head].reverse().find((s) => view.isPlainUser(s))
      if (anchor !== undefined) kept = [anchor]
    }
    if (kept.length > 0 && fitsBudget(kept, pair)) return finish(pair, kept, 'tool-pair')
  }
  const latest = view.lastTrimPoint(b, start, false)
  if (latest !== undefined) {
    const kept = keepBefore(latest)
    if (fitsBudget(kept, latest)) {
      const plan = finish(latest, kept, 'latest-trim-point')
      if (plan.evicted > 0) return plan
    }
  }
  // No valid cut keeps the window within the budget: the budget is a hard limit (windowSize is not,
  // for a turn without a trim point), so everything unprotected goes.
  if (budget !== undefined && current.tokens > budget) return protectedOnly()
  return unchanged()
}

/**
 * The protected messages (with their tool partners and validity lead) that lie before the boundary but
 * are not kept yet: what a new pin must bring back into the window at once.
 *
 * @param view - the session's ledger and current window state
 * @param limits - the protected ranges in force
 * @returns seqs to mark kept, ascending
 */
export function protectedToRestore(view: LedgerView, limits: WindowLimits): number[] {
  const kept = new Set(view.kept)
  return [...protectedWithLead(view, limits)]
    .filter((s) => s < view.boundary && !kept.has(s))
    .sort((a, b) => a - b)
}
