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
 *
 * The window always keeps the newest turn: from the latest trim point on, or — when that does not fit —
 * its minimal valid form (its opening user message, then the turn's latest tool round or call in flight
 * onward). It stays even when it alone exceeds a limit; the plan then says `exceedsLimit`.
 *
 * The cost does not grow with the archive or the number of pins: the rows kept before the boundary are
 * used as a count and a token total, and only the rows whose protection may have changed (see
 * {@link Protection}) and the tail are looked at one by one.
 */
import type { LedgerView, TokenCorrection } from './ledger-view.js'
import { Protection, sortedUnique } from './protection.js'
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
  /**
   * The limits cannot be met: everything goes but the protected messages and the newest turn (its
   * minimal valid form).
   */
  | 'newest-turn'
  /** The session has no message that can open a window: everything unprotected goes. */
  | 'protected-only'
  /** The boundary stays; messages kept before it that are no longer protected leave. */
  | 'released'

/** Why nothing was evicted. */
export type NothingEvictedReason =
  /** The window already fits its limits (only for `apply`). */
  | 'within-limits'
  /** Every message in the window is protected. */
  | 'all-protected'
  /** What is left besides protected messages is the newest turn in its minimal form, which always stays. */
  | 'newest-turn'
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
  /** Tokens in the new window, counting what it shows (a window replacement with its own count). */
  readonly windowTokens: number
  /** How the boundary was chosen; undefined when it did not move. */
  readonly cut: CutKind | undefined
  /** Set when nothing was evicted. */
  readonly reason: NothingEvictedReason | undefined
  /** True when the protected messages alone exceed `windowSize` or `tokenBudget`. */
  readonly protectedExceedsLimit: boolean
  /**
   * True when the new window exceeds `windowSize` or `tokenBudget` — because the protected messages or
   * the newest turn alone do (they always stay), or by the one anchor message the tool-pair fallback
   * keeps, or by a current turn with no trim point.
   */
  readonly exceedsLimit: boolean
  /** Number of protected messages (pins, ranges, their tool partners, and a validity lead). */
  readonly protectedCount: number
}

/** A row the plan marks kept, and whether later plans must re-derive its protection. */
export interface KeptMark {
  readonly seq: number
  readonly recheck: boolean
}

/** How the kept rows change: what a store writes, or an in-memory state applies. */
export interface KeptChanges {
  /** Rows to mark kept (not kept now), with their recheck mark. */
  readonly keep: readonly KeptMark[]
  /** Kept rows that leave the window. */
  readonly release: readonly number[]
  /** Kept rows that stay, whose recheck mark changes. */
  readonly remark: readonly KeptMark[]
  /** Rows kept after the change. */
  readonly keptCount: number
  /** Their window tokens. */
  readonly keptTokens: number
  /** True when every kept row was examined: the marks now match these protected ranges. */
  readonly complete: boolean
}

/** A plan with the changes to the kept rows, for whoever applies it. */
export interface CutDecision {
  /** What the caller sees (`kept` is filled in by whoever holds the whole kept set). */
  readonly plan: Omit<WindowPlan, 'kept'>
  /** How the kept rows change. */
  readonly changes: KeptChanges
}

/**
 * Rows kept after a plan: the settled ones, the stale ones too when `withStale`, and `extra` (rows
 * before the new boundary, kept now or not).
 */
interface KeptSet {
  readonly withStale: boolean
  readonly extra: readonly number[]
}

/** Tokens of the tail from `c` on, as the window counts them. */
class TailTokens {
  private readonly corrections: readonly TokenCorrection[]
  private readonly suffix: number[]

  constructor(private readonly view: LedgerView) {
    this.corrections = view.corrections(view.boundary, view.count)
    this.suffix = new Array<number>(this.corrections.length + 1).fill(0)
    for (let i = this.corrections.length - 1; i >= 0; i--)
      this.suffix[i] = (this.suffix[i + 1] as number) + (this.corrections[i] as TokenCorrection).delta
  }

  private readonly memo = new Map<number, number>()

  /** Window tokens of `[c, count)`, for `c` at or after the boundary. */
  from(c: number): number {
    let tokens = this.memo.get(c)
    if (tokens === undefined) this.memo.set(c, (tokens = this.compute(c)))
    return tokens
  }

  private compute(c: number): number {
    let lo = 0
    let hi = this.corrections.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if ((this.corrections[mid] as TokenCorrection).seq < c) lo = mid + 1
      else hi = mid
    }
    return this.view.totalTokens - this.view.tokensBefore(c) + (this.suffix[lo] as number)
  }
}

/**
 * Smallest `c` in `[lo, hi]` with `ok(c)`, for `ok` false then true; `hi + 1` when never.
 */
function firstTrue(lo: number, hi: number, ok: (c: number) => boolean): number {
  let a = lo
  let z = hi + 1
  while (a < z) {
    const mid = a + ((z - a) >> 1)
    if (ok(mid)) z = mid
    else a = mid + 1
  }
  return a
}

/**
 * Decides the window after an `applyWindow()` or a `reduce()`.
 *
 * @param view - the session's ledger and current window state
 * @param limits - window size, token budget and protected ranges
 * @param mode - `apply` (enforce limits) or `overflow` (the model refused: make progress)
 * @returns the plan and the changes to the kept rows
 */
export function planCut(view: LedgerView, limits: WindowLimits, mode: ReduceMode): CutDecision {
  const n = view.count
  const b = view.boundary
  const budget = limits.tokenBudget
  const p = new Protection(view, limits)
  const tailTokens = new TailTokens(view)

  // The current window: the kept rows, the protected rows to restore, then the tail.
  const headCount = view.keptCount + p.restore.length
  const currentSize = headCount + n - b
  const currentTokens = view.keptTokens + p.sumTokens(p.restore) + tailTokens.from(b)
  let firstUnprotected: number | undefined = p.stale[0]
  if (firstUnprotected === undefined)
    for (let s = b; s < n; s++)
      if (!p.inTail(s)) {
        firstUnprotected = s
        break
      }
  const windowAt = (i: number): number => {
    if (i >= headCount) return b + i - headCount
    return sortedUnique([...view.firstKept(i + 1), ...p.restore])[i] as number
  }

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
  const overLimit = currentSize > limits.windowSize || (budget !== undefined && currentTokens > budget)

  // The newest turn: its opening (the latest trim point), whether that is a plain user message (only one
  // can stand alone as an anchor), and where the turn's minimal form resumes. Looked up when needed.
  let newestTurn: { start: number; plain: boolean; resume: number } | null | undefined
  const newest = (): { start: number; plain: boolean; resume: number } | null => {
    if (newestTurn !== undefined) return newestTurn
    const start = view.lastTrimPoint(0, n, false)
    if (start === undefined) return (newestTurn = null)
    const plain = view.isPlainUser(start)
    let resume = start
    if (plain)
      resume = view.endsInToolUse && n - 1 > start ? n - 1 : (view.lastPairStart(start + 1, n) ?? start)
    return (newestTurn = { start, plain, resume })
  }
  /** Keeps the newest turn's opening when a cut passes it (only a plain user message can stand alone). */
  const withNewest = (kept: KeptSet, boundary: number): KeptSet => {
    const turn = newest()
    return turn !== null && turn.plain && turn.start < boundary
      ? { ...kept, extra: [...kept.extra, turn.start] }
      : kept
  }

  const keptSetTokens = (
    kept: KeptSet,
  ): { count: number; tokens: number; keep: number[]; release: number[] } => {
    const extra = sortedUnique(kept.extra)
    p.load(extra)
    const extraSet = new Set(extra)
    const release = kept.withStale ? [] : p.stale.filter((s) => !extraSet.has(s))
    const keep = extra.filter((s) => !p.isKept(s))
    return {
      count: view.keptCount - release.length + keep.length,
      tokens: view.keptTokens - p.sumTokens(release) + p.sumTokens(keep),
      keep,
      release,
    }
  }

  const finish = (boundary: number, keptSet: KeptSet, cut: CutKind | undefined): CutDecision => {
    const extra = sortedUnique(keptSet.extra)
    const { count, tokens, keep, release } = keptSetTokens({ ...keptSet, extra })
    const tailKept = extra.filter((s) => s >= b && s < boundary).length
    const evicted = release.length + boundary - b - tailKept
    const restored = keep.filter((s) => s < b).length
    const windowMessages = count + n - boundary
    const windowTokens = tokens + tailTokens.from(boundary)
    const moved = boundary !== b || evicted > 0
    let reason: NothingEvictedReason | undefined
    if (evicted === 0)
      reason =
        mode === 'apply' && !overLimit
          ? 'within-limits'
          : firstUnprotected === undefined
            ? 'all-protected'
            : onlyNewestTurnLeft()
              ? 'newest-turn'
              : 'no-valid-cut'
    // Kept rows that stay and were looked at get their recheck mark brought up to date.
    const released = new Set(release)
    const stays = sortedUnique([...p.examinedKept(), ...extra.filter((s) => p.isKept(s))])
    const remark: KeptMark[] = []
    for (const s of stays) {
      if (released.has(s)) continue
      const recheck = p.needsRecheck(s)
      if (recheck !== p.fact(s).recheck) remark.push({ seq: s, recheck })
    }
    return {
      plan: {
        boundary,
        evicted,
        restored,
        windowMessages,
        windowTokens,
        cut: moved ? cut : undefined,
        reason,
        protectedExceedsLimit,
        exceedsLimit: windowMessages > limits.windowSize || (budget !== undefined && windowTokens > budget),
        protectedCount: p.size,
      },
      changes: {
        keep: keep.map((seq) => ({ seq, recheck: p.needsRecheck(seq) })),
        release,
        remark,
        keptCount: count,
        keptTokens: tokens,
        complete: p.complete,
      },
    }
  }
  /** Whether everything in the window besides protected messages belongs to the newest turn's minimal form. */
  function onlyNewestTurnLeft(): boolean {
    const turn = newest()
    if (turn === null) return false
    const resume = turn.resume
    const inFloor = (s: number): boolean => s === turn.start || s >= resume
    if (!p.stale.every(inFloor)) return false
    for (let s = b; s < Math.min(resume, n); s++) if (!p.inTail(s) && !inFloor(s)) return false
    return true
  }

  const unchanged = (): CutDecision => finish(b, { withStale: true, extra: p.restore }, undefined)
  /** The protected rows before `c` (≥ the boundary), as the kept set after a cut at `c`. */
  const keepBefore = (c: number): KeptSet => ({ withStale: false, extra: p.additionsBelow(c) })
  const fitsBudget = (kept: KeptSet, c: number): boolean =>
    budget === undefined || keptSetTokens(kept).tokens + tailTokens.from(c) <= budget

  // When the limits cannot be met: everything unprotected goes but the newest turn's minimal form — and
  // a call in flight, whose result will be appended next and must follow it in the window.
  const newestTurnOnly = (): CutDecision => {
    const turn = newest()
    if (turn === null) {
      if (!view.endsInToolUse) return finish(n, keepBefore(n), 'protected-only')
      const cut = Math.max(b, n - 1)
      const kept = keepBefore(cut)
      const call = cut > n - 1 && p.isKept(n - 1) ? [n - 1] : []
      return finish(cut, { ...kept, extra: [...kept.extra, ...call] }, 'protected-only')
    }
    const cut = Math.max(b, turn.resume)
    const floor: number[] = []
    if (turn.start < cut) floor.push(turn.start)
    for (let s = turn.resume; s < cut; s++) floor.push(s)
    const kept = keepBefore(cut)
    return finish(cut, { ...kept, extra: [...kept.extra, ...floor] }, 'newest-turn')
  }

  if (mode === 'apply' && !overLimit) return unchanged()
  if (firstUnprotected === undefined) return unchanged()

  // Where the new tail may start at the earliest: the first cut at or after the boundary after which the
  // protected messages and what follows fit the limits.
  const unprotectedFrom = (c: number): { count: number; tokens: number } => ({
    count: n - c - (p.tail.length - (p.countBelow(c) - p.headSize)),
    tokens: tailTokens.from(c) - (p.tokens - p.tokensBelow(c)),
  })
  const byCount = firstTrue(b, n, (c) => p.size + unprotectedFrom(c).count <= limits.windowSize)
  const byTokens =
    budget === undefined ? b : firstTrue(b, n, (c) => p.tokens + unprotectedFrom(c).tokens <= budget)
  const limitStart = Math.max(byCount, byTokens)
  if (limitStart > n || (limitStart === n && b < n)) return newestTurnOnly()
  let start = limitStart
  if (mode === 'overflow') {
    // Strands cuts from the window's third message when the window already fits; and an overflow must
    // always remove at least one unprotected message.
    if (!overLimit) start = Math.max(start, currentSize >= 3 ? windowAt(2) : n)
    start = Math.min(n, Math.max(start, firstUnprotected + 1))
  }

  // The limits are met by letting go of rows kept before the boundary (unpinned, or no longer in a
  // protected range) while protected ones stay and open the window validly.
  if (start <= b) {
    const call = inFlight.filter((s) => s < b)
    const released = p.headSize + call.filter((s) => !p.has(s)).length
    if (released > 0 || b === n)
      return finish(b, withNewest({ withStale: false, extra: [...p.restore, ...call] }, b), 'released')
  }

  const trim = view.firstTrimPoint(start, n)
  if (trim !== undefined) return finish(trim, keepBefore(trim), 'trim-point')

  // No trim point in the rest of the session: the current turn is tool rounds only. The cut may land on a
  // toolUse whose result follows, with the turn's opening user message kept as the anchor (it must be a
  // plain user message: one holding a toolUse cannot be separated from its answer).
  const pair = view.firstPairStart(start, n)
  if (pair !== undefined && (newest() === null || newest()?.plain === true)) {
    const kept = withNewest(keepBefore(pair), pair)
    if ((kept.extra.length > 0 || p.headSize > 0) && fitsBudget(kept, pair))
      return finish(pair, kept, 'tool-pair')
  }
  const latest = view.lastTrimPoint(b, start, false)
  if (latest !== undefined) {
    const kept = keepBefore(latest)
    if (fitsBudget(kept, latest)) {
      const decision = finish(latest, kept, 'latest-trim-point')
      if (decision.plan.evicted > 0) return decision
    }
  }
  // No valid cut keeps the window within the budget: the budget is a hard limit (windowSize is not,
  // for a turn without a trim point), so everything goes but what must stay.
  if (budget !== undefined && currentTokens > budget) return newestTurnOnly()
  return unchanged()
}

/**
 * The protected messages (with their tool partners and validity lead) that lie before the boundary but
 * are not kept yet: what a new pin must bring back into the window at once. Looks only at the rows whose
 * protection may have changed, never at every pin.
 *
 * @param view - the session's ledger and current window state
 * @param limits - the protected ranges in force
 * @param changed - rows whose protection just changed (the new pin)
 * @returns the changes to the kept rows (nothing is released)
 */
export function protectedToRestore(
  view: LedgerView,
  limits: WindowLimits,
  changed: readonly number[],
): KeptChanges {
  const p = new Protection(view, limits, changed)
  const keep = p.restore.map((seq) => ({ seq, recheck: p.needsRecheck(seq) }))
  const remark: KeptMark[] = []
  for (const s of p.examinedKept()) {
    const recheck = p.needsRecheck(s)
    if (recheck !== p.fact(s).recheck) remark.push({ seq: s, recheck })
  }
  return {
    keep,
    release: [],
    remark,
    keptCount: view.keptCount + keep.length,
    keptTokens: view.keptTokens + p.sumTokens(p.restore),
    complete: p.complete,
  }
}
