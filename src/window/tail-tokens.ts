/**
 * Token sums over the tail of the session (from the boundary on), as the window counts them: stored
 * token counts plus the corrections of window replacements. Looked up by binary search and memoized, so
 * a plan's searches over cut points cost a few lookups each.
 */
import type { LedgerView, TokenCorrection } from './ledger-view.js'

/** Tokens of the tail from `c` on, as the window counts them. */
export class TailTokens {
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
export function firstTrue(lo: number, hi: number, ok: (c: number) => boolean): number {
  let a = lo
  let z = hi + 1
  while (a < z) {
    const mid = a + ((z - a) >> 1)
    if (ok(mid)) z = mid
    else a = mid + 1
  }
  return a
}
