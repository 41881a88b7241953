/**
 * A branch's own state, checked (docs/design.md, "Branches"): what it keeps beside its own rows about the
 * rows it inherits. Its conversation is read through the store's API like any session's; these are the
 * rows the API does not show:
 *
 * - each `branch_rows` row is about an inherited seq (at most the fork point), under the session that
 *   owns that seq in the branch's lineage, whose message exists; kept only before the branch's boundary;
 *   a window form the store would write (`JSON.stringify` of a body);
 * - every inherited seq of the branch's tail has a branch row (the window reads them);
 * - `fork_tokens` is the token sum of the inherited messages, and the fork point's cut flags are what
 *   the conversation makes them (the row after the fork point is the branch's);
 * - an inherited row is pinned in the branch exactly when its pin log in the branch's view — the
 *   branch's own events about it, else the nearest ancestor's written before the fork below it — ends
 *   with a pin.
 */
import type Database from 'better-sqlite3'
import { BRANCH_STATEMENTS } from '../db/branch-statements.js'
import { prepareSpec, rows } from '../db/typed-statement.js'
import { lineageOf, segmentOf, type Lineage } from '../store/branches/lineage.js'
import { isTrimPointAt, type MessageShape } from './archive-facts.js'
import { Offenders, type Fail } from './problems.js'
import { notStoreJson } from './store-json.js'

/** A branch's fork as the checker reads it. */
interface ForkRow {
  fork_seq: number
  fork_tokens: number | null
  fork_trim_point: number | null
  fork_pair_start: number | null
  boundary: number
}

/** The statements, by name. */
export const BRANCH_CHECK_READS = {
  fork: rows<[pk: number], ForkRow>(
    `SELECT fork_seq, fork_tokens, fork_trim_point, fork_pair_start, boundary FROM sessions
    WHERE pk = ? AND parent IS NOT NULL AND fork_seq IS NOT NULL`,
    { fork_seq: true, fork_tokens: true, fork_trim_point: true, fork_pair_start: true, boundary: true },
  ),
  // Each branch row with whether its owner's message exists.
  rows: rows<
    [session: number],
    { seq: number; owner: number; pinned: number; kept: number; window_body: string | null; found: number }
  >(
    `SELECT o.seq, o.owner, o.pinned, o.kept, o.window_body,
      EXISTS (SELECT 1 FROM messages m WHERE m.session = o.owner AND m.seq = o.seq) AS found
    FROM branch_rows o WHERE o.session = ? ORDER BY o.seq`,
    { seq: true, owner: true, pinned: true, kept: true, window_body: true, found: true },
  ),
}

/** A branch as its check reads it. */
export interface BranchFacts {
  /** Its fork point. */
  readonly forkSeq: number
  /** Its boundary. */
  readonly boundary: number
  /** Its lineage. */
  readonly lineage: Lineage
  /** The row's fork columns. */
  readonly fork: ForkRow
  /** Its own pk. */
  readonly pk: number
}

/**
 * A session's facts as a branch, or undefined for a root.
 *
 * @param db - the connection, inside the check's read transaction
 * @param pk - the session's key
 * @returns the facts
 */
export function branchFactsOf(db: Database.Database, pk: number): BranchFacts | undefined {
  const fork = prepareSpec(db, BRANCH_CHECK_READS.fork).get(pk)
  if (fork === undefined) return undefined
  const lineage = lineageOf(prepareSpec(db, BRANCH_STATEMENTS.lineage).all(pk))
  return { forkSeq: fork.fork_seq, boundary: fork.boundary, lineage, fork, pk }
}

/** What the branch's own state adds to the session's bookkeeping. */
export interface BranchTotals {
  /** Kept inherited rows. */
  readonly kept: number
  /** Their window tokens. */
  readonly keptTokens: number
  /** Inherited seqs a pin event in the branch's view stands behind (the pin flag's rule). */
  readonly pinnedOnce: ReadonlySet<number>
}

/**
 * Checks a branch's own state.
 *
 * @param db - the connection, inside the check's read transaction
 * @param b - the branch
 * @param shapes - each message's role and tool ids, by seq (the whole conversation)
 * @param inheritedTokens - the tokens of the inherited messages, summed from the archive
 * @param pairStart - `pair_start` as the store derives it, by seq
 * @param fail - records a problem
 * @returns the kept totals of its branch rows, and the inherited seqs its pin log has pinned
 */
export function checkBranchState(
  db: Database.Database,
  b: BranchFacts,
  shapes: readonly MessageShape[],
  inheritedTokens: number,
  pairStart: (seq: number) => boolean,
  fail: Fail,
): BranchTotals {
  const place = new Offenders('branch rows', 'a branch row is not about a row the branch inherits')
  const keptAfter = new Offenders('kept before the boundary', 'a branch row at or after the boundary is kept')
  const forms = new Offenders(
    'body is JSON',
    'a branch row holds a window form that is not the JSON the store writes',
  )
  const pins = new Offenders('pin log', "a branch row's pinned flag disagrees with the branch's pin log")
  const { last, pinnedOnce } = lastPinsSeen(db, b)
  const seen = new Set<number>()
  for (const o of prepareSpec(db, BRANCH_CHECK_READS.rows).iterate(b.pk)) {
    seen.add(o.seq)
    const owner = segmentOf(b.lineage, o.seq)?.owner
    if (o.seq > b.forkSeq || owner !== o.owner || o.found !== 1)
      place.add(
        o.seq,
        `seq ${o.seq} under session key ${o.owner} (fork point ${b.forkSeq}, owner ${String(owner)}${o.found === 1 ? '' : ', no such message'})`,
      )
    if (o.kept === 1 && o.seq >= b.boundary) keptAfter.add(o.seq, `seq ${o.seq} (boundary ${b.boundary})`)
    if (o.window_body !== null && notStoreJson(o.window_body))
      forms.add({ seq: o.seq, field: 'windowMessage' }, `seq ${o.seq}`)
    if ((o.pinned === 1) !== (last.get(o.seq) === 'pin'))
      pins.add(o.seq, `seq ${o.seq} is ${o.pinned === 1 ? '' : 'not '}pinned in the branch`)
  }
  for (const [seq, action] of last)
    if (action === 'pin' && !seen.has(seq))
      pins.add(seq, `seq ${seq} is pinned by the pin log and has no branch row`)
  const tail = new Offenders('branch rows', 'an inherited seq of the tail has no branch row')
  for (let seq = b.boundary; seq <= b.forkSeq; seq++) if (!seen.has(seq)) tail.add(seq, `seq ${seq}`)
  for (const o of [place, keptAfter, forms, pins, tail]) o.report(fail)
  if (b.fork.fork_tokens !== inheritedTokens)
    fail(
      'token sums',
      `fork_tokens is ${String(b.fork.fork_tokens)}, the inherited messages hold ${inheritedTokens} tokens`,
    )
  const flags: [string, number | null, boolean][] = [
    ['fork_trim_point', b.fork.fork_trim_point, isTrimPointAt(shapes, b.forkSeq)],
    ['fork_pair_start', b.fork.fork_pair_start, pairStart(b.forkSeq)],
  ]
  for (const [column, stored, is] of flags)
    if ((stored === 1) !== is)
      fail('derived flags', `${column} is ${String(stored)}, the conversation makes it ${is ? 1 : 0}`, {
        seq: b.forkSeq,
      })
  const totals = prepareSpec(db, BRANCH_STATEMENTS.branchKeptTotals).get(b.pk)
  return { kept: totals?.count ?? 0, keptTokens: totals?.tokens ?? 0, pinnedOnce }
}

/**
 * The last pin event of each inherited seq in the branch's view — its own log's, else the nearest
 * ancestor's written before the fork below it — and the seqs any of those events pinned.
 */
function lastPinsSeen(
  db: Database.Database,
  b: BranchFacts,
): { last: Map<number, string>; pinnedOnce: Set<number> } {
  const last = new Map<number, string>()
  const pinnedOnce = new Set<number>()
  const upTo = prepareSpec(db, BRANCH_STATEMENTS.pinEventsUpTo)
  const read = (pk: number, maxSeq: number, maxVersion: number): Map<number, string> => {
    const mine = new Map<number, string>()
    for (const e of upTo.iterate(pk, maxSeq, maxVersion)) {
      mine.set(e.seq, e.kind)
      if (e.kind === 'pin') pinnedOnce.add(e.seq)
    }
    return mine
  }
  for (const [seq, kind] of read(b.pk, b.forkSeq, Number.MAX_SAFE_INTEGER)) last.set(seq, kind)
  for (const cut of b.lineage.logs)
    for (const [seq, kind] of read(cut.pk, cut.maxSeq, cut.maxVersion))
      if (!last.has(seq)) last.set(seq, kind)
  return { last, pinnedOnce }
}
