/**
 * How the rows kept before the boundary change: what a plan hands to whoever holds the kept set (the
 * SQL store writes it, the in-memory reference applies it), and the one change that needs no plan — a
 * new pin bringing protected messages back into the window at once.
 */
import type { LedgerView } from './ledger-view.js'
import { Protection } from './protection.js'
import type { WindowLimits } from './window-options.js'

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

/**
 * The recheck marks that change among kept rows that stay: a kept row's mark says whether later plans
 * must re-derive its protection, and must match what `p` derived for it now.
 *
 * @param p - the protected set the plan derived
 * @param stays - kept rows that stay kept (the examined ones at least), ascending
 * @returns the rows whose mark changes, with their new mark
 */
export function remarks(p: Protection, stays: Iterable<number>): KeptMark[] {
  const remark: KeptMark[] = []
  for (const s of stays) {
    const recheck = p.needsRecheck(s)
    if (recheck !== p.fact(s).recheck) remark.push({ seq: s, recheck })
  }
  return remark
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
  return {
    keep,
    release: [],
    remark: remarks(p, p.examinedKept()),
    keptCount: view.keptCount + keep.length,
    keptTokens: view.keptTokens + p.sumTokens(p.restore),
    complete: p.complete,
  }
}
