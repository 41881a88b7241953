/**
 * What a branch inherits of its parent's window state when it starts at `atSeq` (a fork, or a session
 * after a rewind), as docs/design.md ("Branches") defines it: at the parent's newest message, exactly the
 * parent's state; earlier, the state restricted to seqs ≤ atSeq — the pins and the kept rows before the
 * new boundary — with the boundary moved back where the newest turn (from its latest trim point, the
 * fork-point row counted as the newest) or the last-N range of the parent's last limits begins; the
 * summary stays only when the boundary it sits at does (and, after a rewind, while it is still the
 * session's: it stands for no message after `atSeq`, and a branch rewound to before its fork point keeps
 * only an inherited one); a rewound session without its summary starts its tail at a trim point; then the
 * window is planned with the parent's last limits, as an `applyWindow` would.
 */
import type { StoredMessageData } from '../../src/index.js'
import { applyWindowModel, copyBranch, viewOf, type BranchState } from './branch-model.js'

/** How the branch starts: a fork, or the session itself after a rewind (`before`: to before its fork point). */
export type Restriction = { readonly fork: true } | { readonly fork: false; readonly before: boolean }

/**
 * The state a branch starting at `atSeq` inherits.
 *
 * @param parent - the parent's state (not changed)
 * @param atSeq - the last seq inherited
 * @param how - a fork, or a rewind
 * @returns the branch's own copy
 */
export function restrictBranch(parent: BranchState, atSeq: number, how: Restriction): BranchState {
  const b = copyBranch(parent)
  if (how.fork && b.summary !== undefined) b.summary = { ...b.summary, own: false }
  const n = atSeq + 1
  if (n >= parent.archive.length) return b
  const cut = <T>(xs: T[]): T[] => xs.slice(0, n)
  b.archive = cut<StoredMessageData>(b.archive)
  b.tokens = cut(b.tokens)
  b.forms = cut(b.forms)
  b.pinned = cut(b.pinned)
  b.pinLog = b.pinLog.filter((e) => e.seq < n)
  // The latest trim point at or before a seq, the fork-point row a trim point as the newest row.
  const view = viewOf({ ...b, boundary: n, kept: [] })
  const atOrBefore = (s: number): number | undefined => view.lastTrimPoint(0, Math.min(s, atSeq) + 1, false)
  let from = Math.min(parent.boundary, n)
  const turn = atOrBefore(atSeq)
  if (turn !== undefined) from = Math.min(from, turn)
  const last = parent.limits?.last ?? 0
  if (last > 0) {
    const start = atOrBefore(Math.max(0, n - last))
    if (start !== undefined) from = Math.min(from, start)
  }
  const shown = parent.summary
  const mine = how.fork || (shown !== undefined && shown.toBoundary <= n && (!shown.own || !how.before))
  const keep = from === parent.boundary && mine
  if (!how.fork && !keep && shown !== undefined) from = atOrBefore(from) ?? from
  b.boundary = from
  b.kept = parent.kept.filter((s) => s < from)
  if (!keep) b.summary = undefined
  if (parent.limits !== undefined) applyWindowModel(b, parent.limits, 'apply')
  return b
}
