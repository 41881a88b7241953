/**
 * Writing the eviction log (`eviction_log`, docs/design.md, "Recall") inside the transaction of the cut
 * that takes messages out of the window.
 *
 * A cut takes out two kinds of rows: tail rows (from the old boundary up to the new one, but those kept)
 * and kept rows before the boundary that lose their protection. Tail rows leave for the first time (a
 * row at or past the boundary was never out of the window, but after a dropped summary, whose log rows
 * are deleted with it), so they are written as runs of consecutive seqs: one row per run, never one per
 * message. A kept row that leaves may have left before (it was brought back by a pin); it gets a row of
 * its own, `[s, s]`, so that the lookup of "the last time seq N left" — the first row at `to_seq >= N`
 * that covers N, newest version first — finds it before any older run that also covers N. What a cut
 * writes is proportional to what it evicts, never to the history.
 */
import type { SessionForAppendRow, Statements } from '../db/statements.js'
import type { CutKind, ReduceMode } from '../window/plan-cut.js'
import type { WindowLimits } from '../window/window-options.js'

/**
 * How the messages left: the window rule's cut (see {@link CutKind}), `'released'` for a kept row that
 * lost its protection, `'opening'` for messages an append moved the boundary past because a window
 * cannot open with them (a tool result with no call before it), or `'rewind'` for messages a rewind took
 * out of the conversation (they are the abandoned branch's now).
 */
export type EvictionCut = CutKind | 'released' | 'opening' | 'rewind'

/**
 * Why the cut happened: `'window-size'` or `'token-budget'` (the limit that was exceeded; the size is
 * named when both were), `'overflow'` (the model refused the input), `'summary'` (folded into a new
 * summary), `'unprotected'` (a cut within the limits that only released rows no longer protected), or
 * `'validity'` (an append: see `'opening'`), or `'rewind'` (see `'rewind'` above).
 */
export type EvictionReason =
  'window-size' | 'token-budget' | 'overflow' | 'summary' | 'unprotected' | 'validity' | 'rewind'

/**
 * The tail rows a cut takes out: from the old boundary up to the new one, but those it keeps.
 *
 * @param from - the old boundary
 * @param to - the new boundary
 * @param kept - seqs the cut marks kept (any order; those outside `[from, to)` are ignored)
 * @returns the seqs that leave, as half-open runs `[lo, hi)`, ascending
 */
export function tailRuns(from: number, to: number, kept: Iterable<number>): [number, number][] {
  const stops = [...kept].filter((s) => s >= from && s < to).sort((a, b) => a - b)
  const runs: [number, number][] = []
  let lo = from
  for (const s of [...stops, to]) {
    if (s > lo) runs.push([lo, s])
    lo = Math.max(lo, s + 1)
  }
  return runs
}

/**
 * Half-open runs of consecutive seqs.
 *
 * @param seqs - ascending, distinct
 * @returns the runs `[lo, hi)`
 */
export function runsOf(seqs: readonly number[]): [number, number][] {
  const runs: [number, number][] = []
  for (const s of seqs) {
    const last = runs.at(-1)
    if (last !== undefined && last[1] === s) last[1] = s + 1
    else runs.push([s, s + 1])
  }
  return runs
}

/**
 * Why a cut of `applyWindow()` or `reduce()` happened.
 *
 * @param session - the session's row before the cut
 * @param limits - the limits it was planned with
 * @param mode - `apply` or `overflow`
 * @param boundaryMoved - whether the cut moved the boundary (a cut that only releases kept rows is within
 *   the limits when they are not exceeded)
 * @returns the reason
 */
export function cutReason(
  session: SessionForAppendRow,
  limits: WindowLimits,
  mode: ReduceMode,
  boundaryMoved: boolean,
): EvictionReason {
  if (mode === 'overflow') return 'overflow'
  const size =
    (session.kept_count ?? 0) + (session.summary === null ? 0 : 1) + session.message_count - session.boundary
  if (size > limits.windowSize) return 'window-size'
  if (limits.tokenBudget !== undefined && boundaryMoved) return 'token-budget'
  return 'unprotected'
}

/**
 * Writes one cut's rows of the eviction log, after the session row's version moved in the same
 * transaction (the rows carry it).
 *
 * @param st - the connection's statements (inside the cut's write transaction)
 * @param pk - the session's key
 * @param out - what left: tail runs and released kept rows
 * @param cut - how
 * @param reason - why
 * @param at - when (ms)
 * @param summary - the summary the messages were folded into, for a fold
 */
export function recordEvictions(
  st: Statements,
  pk: number,
  out: { readonly tail: readonly [number, number][]; readonly released: readonly number[] },
  cut: EvictionCut,
  reason: EvictionReason,
  at: number,
  summary: number | null = null,
): void {
  for (const [lo, hi] of out.tail) st.insertEviction.run(hi - 1, lo, at, cut, reason, summary, pk)
  for (const s of out.released)
    st.insertEviction.run(s, s, at, cut === 'fold' ? cut : 'released', reason, summary, pk)
}
