/**
 * What a branch inherits of its parent's window state when it starts at `atSeq` (a fork, or a session
 * after a rewind): at the parent's newest message, exactly the parent's state; earlier, the state
 * restricted to seqs ≤ atSeq and made valid by the window rules with the parent's last limits — the
 * boundary may move back, to the newest turn's start or to cover the last-N range, and a summary stays
 * only when the boundary it sits at survives (BRANCH-SPEC.md, "fork").
 */
import type { StoredMessageData } from '../../src/index.js'
import { copyBranch, NO_LIMITS, viewOf, type BranchState } from './branch-model.js'

/**
 * The state a branch starting at `atSeq` inherits.
 *
 * @param parent - the parent's state (not changed)
 * @param atSeq - the last seq inherited
 * @returns the branch's own copy
 */
export function restrictBranch(parent: BranchState, atSeq: number): BranchState {
  const b = copyBranch(parent)
  const n = atSeq + 1
  if (n >= parent.archive.length) return b
  const cut = <T>(xs: T[]): T[] => xs.slice(0, n)
  b.archive = cut<StoredMessageData>(b.archive)
  b.tokens = cut(b.tokens)
  b.forms = cut(b.forms)
  b.pinned = cut(b.pinned)
  b.pinLog = b.pinLog.filter((e) => e.seq < n)
  const limits = parent.limits ?? NO_LIMITS
  let boundary = Math.min(parent.boundary, n)
  // The newest turn stays whole, and the last N messages are in the window.
  const view = viewOf({ ...b, boundary: n, kept: [] })
  const turn = view.lastTrimPoint(0, n, false)
  if (turn !== undefined) boundary = Math.min(boundary, turn)
  boundary = Math.max(0, Math.min(boundary, n - limits.last))
  b.boundary = boundary
  b.kept = parent.kept.filter((s) => s < boundary)
  if (boundary !== parent.boundary) b.summary = undefined
  return b
}
