/**
 * A new branch's window (docs/design.md, "Branches"). Forking at the parent's newest message, the branch
 * shows exactly the parent's window: the same boundary, kept rows, pins, summary and kept totals. Forking
 * earlier, the parent's window state is restricted to the seqs the branch inherits and made valid: the
 * boundary moves back where the newest turn or the last-N range needs it (the branch is a new window),
 * the summary stays only if the boundary it sits at does, and the parent's last limits are applied.
 * Either way the branch gets a `branch_rows` row for every inherited row its window shows — the window's
 * rows, never the history's.
 */
import type { SessionForAppendRow } from '../../db/statements.js'
import type { WindowLimits } from '../../window/window-options.js'
import { recordedLast } from '../append.js'
import { applyPlanned } from '../apply-window.js'
import type { Ledger } from '../ledger.js'
import { piecesOf } from './lineage.js'
import { routerOf } from './tree.js'

/**
 * The latest trim point at or before `at` in a conversation whose newest row is `seq`.
 *
 * @param ledger - the open ledger (inside the transaction)
 * @param session - the session whose conversation it is (up to `seq`)
 * @param seq - the newest row
 * @param seqTrim - whether the row at `seq` is a trim point as the newest row
 * @param at - the last seq to consider
 * @returns the trim point, or undefined when there is none
 */
export function trimAtOrBefore(
  ledger: Ledger,
  session: SessionForAppendRow,
  seq: number,
  seqTrim: boolean,
  at: number,
): number | undefined {
  const st = ledger.st
  if (at < seq) return st.lastTrimPoint.get(session.pk, 0, at + 1)
  return seqTrim ? seq : st.lastTrimPoint.get(session.pk, 0, seq)
}

/**
 * Where the window of a branch forked at `seq` starts: the parent's boundary, or earlier where the newest
 * turn (from the latest trim point) or the last-N range of the parent's last limits begins.
 *
 * @param ledger - the open ledger (inside the transaction)
 * @param parent - the session forked (or rewound)
 * @param seq - the fork point: the newest message the window has
 * @param seqTrim - whether the row at `seq` is a trim point as the newest row
 * @returns the first seq of the window's tail
 */
export function validStart(
  ledger: Ledger,
  parent: SessionForAppendRow,
  seq: number,
  seqTrim: boolean,
): number {
  const atOrBefore = (s: number): number | undefined => trimAtOrBefore(ledger, parent, seq, seqTrim, s)
  let from = Math.min(parent.boundary, seq + 1)
  const turn = atOrBefore(seq)
  if (turn !== undefined) from = Math.min(from, turn)
  const last = recordedLast(parent.limits)
  if (last > 0) {
    const start = atOrBefore(Math.max(0, seq + 1 - last))
    if (start !== undefined) from = Math.min(from, start)
  }
  return from
}

/**
 * Writes the window state of the new branch `pk`, forked from `parent` at `seq`, inside the fork's
 * transaction.
 *
 * @param ledger - the open ledger
 * @param parent - the parent's row, read in this transaction (before the fork)
 * @param seq - the fork point
 * @param pk - the new branch
 * @param seqTrim - whether the fork-point row is a trim point as the branch's newest row
 */
export function copyWindow(
  ledger: Ledger,
  parent: SessionForAppendRow,
  seq: number,
  pk: number,
  seqTrim: boolean,
): void {
  const router = routerOf(ledger)
  const br = router.br
  const atEnd = seq === parent.message_count - 1
  const from = atEnd ? parent.boundary : validStart(ledger, parent, seq, seqTrim)
  const branched = router.isBranch(parent.pk)
  const view = branched ? router.view(parent.pk) : undefined
  const ownFrom = view?.ownFrom ?? 0
  if (seq >= ownFrom) {
    br.copyOwnKept.run({ b: pk, p: parent.pk, lo: ownFrom, from, f: seq })
    br.copyOwnTail.run({ b: pk, p: parent.pk, from: Math.max(from, ownFrom), f: seq })
  }
  if (view !== undefined) {
    br.copyBranchRows.run({ b: pk, p: parent.pk, from, f: seq })
    for (const p of piecesOf(view.lineage, from, seq + 1))
      if (p.segment.owner !== parent.pk)
        br.fillRange.run({ b: pk, owner: p.segment.owner, lo: p.from, hi: p.to - 1 })
  }
  const summary = from === parent.boundary ? parent.summary : null
  br.setBranchWindow.run({
    pk,
    boundary: from,
    keptCount: atEnd ? parent.kept_count : null,
    keptTokens: atEnd ? parent.kept_tokens : null,
    keptFirst: atEnd ? parent.kept_first : null,
    summary,
    limits: parent.limits,
    forkSummary: summary,
  })
  if (atEnd || parent.limits === null) return
  router.forget(pk)
  const session = ledger.st.sessionByPk.get(pk)
  if (session === undefined) throw new Error(`branch ${pk} not found after its fork`)
  applyPlanned(ledger, session, JSON.parse(parent.limits) as WindowLimits, 'apply')
}
