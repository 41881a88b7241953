/**
 * The window rules (docs/design.md, "Window rules") as one decision over a {@link LedgerView}: which
 * messages are protected, where the new boundary goes, and which messages before it stay. The SQL store
 * and the pure `planWindow` both call this, so they cannot drift apart; only the lookups differ.
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
import { remarks } from './kept-changes.js'
import type { LedgerView } from './ledger-view.js'
import type { CutDecision, CutKind, FoldRequest, NothingEvictedReason, ReduceMode } from './plan-types.js'
import { Protection, sortedUnique } from './protection.js'
import { firstTrue, TailTokens } from './tail-tokens.js'
import type { WindowLimits } from './window-options.js'

// The plan's types and the kept-row changes are read from here by the store and the root entry.
export type {
  CutDecision,
  CutKind,
  FoldRequest,
  NothingEvictedReason,
  ReduceMode,
  WindowPlan,
} from './plan-types.js'
export { protectedToRestore, type KeptChanges, type KeptMark } from './kept-changes.js'

/**
 * Rows kept after a plan: the settled ones, the stale ones too when `withStale`, and `extra` (rows
 * before the new boundary, kept now or not).
 */
interface KeptSet {
  readonly withStale: boolean
  readonly extra: readonly number[]
}

/**
 * Decides the window after an `applyWindow()` or a `reduce()` — or, with `fold`, which oldest part of the
 * window a new summary takes in (the cut is `'fold'`; `folded` lists the messages it takes).
 *
 * @param view - the session's ledger and current window state
 * @param limits - window size, token budget and protected ranges
 * @param mode - `apply` (enforce limits) or `overflow` (the model refused: make progress); ignored with `fold`
 * @param fold - plan a fold into a summary instead of a cut
 * @returns the plan and the changes to the kept rows
 */
export function planCut(
  view: LedgerView,
  limits: WindowLimits,
  mode: ReduceMode,
  fold?: FoldRequest,
): CutDecision {
  const n = view.count
  const b = view.boundary
  const budget = limits.tokenBudget
  const p = new Protection(view, limits)
  const tailTokens = new TailTokens(view)

  // The current window: the kept rows, the protected rows to restore, the summary, then the tail. The
  // summary stays only while the boundary does (`summaryAt`).
  const summary = view.summaryTokens === undefined ? 0 : 1
  const summaryTokens = view.summaryTokens ?? 0
  const summaryAt = (c: number): { count: number; tokens: number } =>
    c === b ? { count: summary, tokens: summaryTokens } : { count: 0, tokens: 0 }
  const headCount = view.keptCount + p.restore.length
  const currentSize = headCount + summary + n - b
  const currentTokens = view.keptTokens + p.sumTokens(p.restore) + summaryTokens + tailTokens.from(b)
  let firstUnprotected: number | undefined = p.stale[0]
  if (firstUnprotected === undefined)
    for (let s = b; s < n; s++)
      if (!p.inTail(s)) {
        firstUnprotected = s
        break
      }
  // The seq at window position `i` (the summary's position counts as the boundary's).
  const windowAt = (i: number): number => {
    if (i >= headCount) return b + Math.max(0, i - headCount - summary)
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
    // Before the current boundary, out of the window, with a summary that stays (the boundary does not
    // move): a fold took the opening into that summary, which opens the window and stands for it — it
    // does not come back. (Kept, it stays.)
    const folded = summary === 1 && boundary === b && turn !== null && turn.start < b && !p.isKept(turn.start)
    return turn !== null && turn.plain && turn.start < boundary && !folded
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
    // The summary goes with any cut that moves the boundary, and whenever only what must stay is left.
    let shown =
      cut === 'newest-turn' || cut === 'protected-only' || cut === 'summary' || cut === 'fold'
        ? { count: 0, tokens: 0 }
        : summaryAt(boundary)
    // The summary is not what must stay: a window still over its limits with it (what the cut keeps
    // must stay — protected rows, the newest turn) does without it.
    if (
      shown.count > 0 &&
      (mode === 'overflow' || overLimit) &&
      (count + shown.count + n - boundary > limits.windowSize ||
        (budget !== undefined && tokens + shown.tokens + tailTokens.from(boundary) > budget))
    )
      shown = { count: 0, tokens: 0 }
    const summaryEvicted = summary === 1 && shown.count === 0
    const windowMessages = count + shown.count + n - boundary
    const windowTokens = tokens + shown.tokens + tailTokens.from(boundary)
    const moved = boundary !== b || evicted > 0 || summaryEvicted
    let reason: NothingEvictedReason | undefined
    if (evicted === 0 && !summaryEvicted)
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
    const remark = remarks(
      p,
      stays.filter((s) => !released.has(s)),
    )
    return {
      plan: {
        boundary,
        evicted,
        summaryEvicted,
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
    budget === undefined || keptSetTokens(kept).tokens + summaryAt(c).tokens + tailTokens.from(c) <= budget

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
    const kept = keepBefore(cut)
    return finish(cut, { ...kept, extra: [...kept.extra, ...newestBelow(cut)] }, 'newest-turn')
  }
  /** The rows of the newest turn's minimal form before `cut`, which must stay as kept rows. */
  function newestBelow(cut: number): number[] {
    const turn = newest()
    const floor: number[] = []
    if (turn === null) return floor
    if (turn.start < cut) floor.push(turn.start)
    for (let s = turn.resume; s < cut; s++) floor.push(s)
    return floor
  }

  /** What is left from `c` (at or after the boundary) on besides protected rows. */
  const unprotectedFrom = (c: number): { count: number; tokens: number } => ({
    count: n - c - (p.tail.length - (p.countBelow(c) - p.headSize)),
    tokens: tailTokens.from(c) - (p.tokens - p.tokensBelow(c)),
  })
  /** Nothing changes, for `reason`. */
  const nothing = (reason: NothingEvictedReason): CutDecision => {
    const d = unchanged()
    return { ...d, plan: { ...d.plan, reason } }
  }
  /**
   * A fold up to `c`: protected rows before it stay (kept), every other row in `[b, c)` and every kept row
   * that lost its protection go into the summary, with the summary the window shows.
   */
  const foldAt = (target: number): CutDecision => {
    // A call in flight stays: its result is appended next and must follow it in the window.
    const c = view.endsInToolUse && target >= n && n - 1 >= b ? n - 1 : target
    const decision = finish(c, keepBefore(c), 'fold')
    if (decision.plan.evicted === 0 && summary === 0) return nothing('all-protected')
    const keep = new Set(decision.changes.keep.map((k) => k.seq))
    const folded = [...decision.changes.release]
    for (let s = b; s < c; s++) if (!keep.has(s)) folded.push(s)
    return { ...decision, folded: sortedUnique(folded) }
  }
  /**
   * The first message at or after `from` a summary may be followed by, with no call folded before it and
   * answered from it on: in a format whose step comes as several messages (a Claude transcript's
   * attachments and model blocks between a call and its result), a message without tool blocks may sit
   * inside a tool pair.
   */
  const splitPoint = (from: number): number | undefined => {
    let c = view.firstSplitPoint(from, n)
    while (c !== undefined && c > b && view.crossingPartners(b, c).some((s) => s >= (c as number)))
      c = view.firstSplitPoint(c + 1, n)
    return c
  }
  const planFold = (request: FoldRequest): CutDecision => {
    if (request.kind === 'before') {
      if (request.seq <= b) return nothing('too-few-messages')
      if (request.seq >= n) return foldAt(n)
      const c = splitPoint(request.seq)
      return c === undefined ? nothing('no-valid-cut') : foldAt(c)
    }
    if (request.kind === 'ratio') {
      // Strands takes the oldest share of the window, protected messages included; they stay, so with
      // protected rows at the window's front (after a first fold, pins stand before the summary) its share
      // can hold nothing else, and overflow recovery makes no progress at all. Here the share is of what
      // may fold: the protected rows before the boundary neither count nor take places. Without them (no
      // pins, no protected ranges: Strands' case) this is Strands' rule exactly.
      const len = currentSize - p.headSize
      const k = Math.min(Math.max(1, Math.floor(len * request.ratio)), len - request.preserve)
      if (k <= 0) return nothing('too-few-messages')
      // The rows kept before the boundary that lost their protection, then the summary, then the tail.
      const at = k - p.stale.length - summary
      if (at < 0) return foldAt(b)
      // A split in the tail (at its first message when the kept rows and the summary are exactly the
      // oldest k) is moved forward past what a summary cannot be followed by, as Strands does.
      if (b + at >= n) return foldAt(n)
      const c = splitPoint(b + at)
      return c === undefined ? nothing('no-valid-cut') : foldAt(c)
    }
    if (!overLimit && p.stale.length === 0) return unchanged()
    const tokens = request.tokenBudget
    // The new summary takes one place and about as many tokens as the one it replaces.
    const byCountAfter = firstTrue(b, n, (c) => p.size + unprotectedFrom(c).count + 1 <= request.windowSize)
    const byTokensAfter =
      tokens === undefined
        ? b
        : firstTrue(b, n, (c) => p.tokens + unprotectedFrom(c).tokens + request.reserveTokens <= tokens)
    const start = Math.max(byCountAfter, byTokensAfter)
    const decision = foldAt(start >= n ? n : (splitPoint(start) ?? n))
    // Folding the summary alone gains nothing here: the new one takes its place (and is planned at its
    // tokens).
    if (decision.plan.cut === 'fold' && decision.plan.evicted === 0)
      return nothing(firstUnprotected === undefined ? 'all-protected' : 'no-valid-cut')
    return decision
  }
  if (fold !== undefined) return planFold(fold)

  if (mode === 'apply' && !overLimit) return unchanged()
  /**
   * Only the summary leaves: what else the window holds must stay — and the newest turn, when a fold took
   * it into the summary, comes back (the newest turn always stays).
   */
  const summaryOut = (): CutDecision =>
    summary === 1
      ? finish(b, { withStale: true, extra: [...p.restore, ...newestBelow(b)] }, 'summary')
      : unchanged()
  if (firstUnprotected === undefined) return summaryOut()

  // Where the new tail may start at the earliest: the first cut at or after the boundary after which the
  // protected messages and what follows fit the limits.
  // An over-limit window is brought down to the low-water mark (when one is set), so the following turns
  // append without moving its start; an overflow makes room as Strands does.
  const low = mode === 'apply' ? (limits.lowWaterMark ?? 1) : 1
  const sizeTarget = Math.max(1, Math.floor(limits.windowSize * low))
  const tokenTarget = budget === undefined ? undefined : Math.max(1, Math.floor(budget * low))
  const byCount = firstTrue(b, n, (c) => p.size + unprotectedFrom(c).count + summaryAt(c).count <= sizeTarget)
  const byTokens =
    tokenTarget === undefined
      ? b
      : firstTrue(b, n, (c) => p.tokens + unprotectedFrom(c).tokens + summaryAt(c).tokens <= tokenTarget)
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
  // No cut of the tail helps: what may go without one goes — kept rows that lost their protection, and the
  // summary — and the newest turn's opening comes back when a fold took it.
  if (p.stale.length > 0)
    return finish(
      b,
      { withStale: false, extra: [...p.restore, ...newestBelow(b)] },
      summary === 1 ? 'summary' : 'released',
    )
  return summaryOut()
}
