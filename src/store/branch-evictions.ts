/**
 * The eviction log of a branch (docs/api.md, "evictions"; docs/design.md, "Branches"), and the rows a
 * rewind writes.
 *
 * A branch's log is its own rows, then what it inherits: each ancestor's rows written before the fork
 * below it on the way down (`version` up to that fork's `fork_version`) about the seqs it gives the
 * branch (up to the lineage's cut), and below the branch's boundary — rows about seqs the branch's window
 * shows again (a fork that moved the boundary back, a dropped summary) are not the branch's, as a dropped
 * summary deletes such rows of a trunk session. A run reaching past the inherited seqs is cut at them.
 * The branch's own rows are newer than every inherited one, and a nearer ancestor's newer than a farther
 * one's, so "the last time seq N left" is the first of: its own lookup, then each ancestor's, nearest
 * first. A list is ordered as a trunk's — by the run's last seq — and among rows ending at one seq, the
 * newest first (own, then nearest ancestor, then by version).
 *
 * A rewind takes the messages after a seq out of the conversation: it writes one row to the rewound
 * session's log, `cut` and `reason` `'rewind'`, `[toSeq + 1, last]`, naming in `summary` the abandoned
 * branch's session key (a rewind's row names a session, never a summary). Those seqs are used again by
 * what the session appends next, so a rewind's row is listed by `evictions()` but never answers
 * `evictionOf()`, is never inherited, and outlives a dropped summary.
 */
import type Database from 'better-sqlite3'
import type { EvictionRow } from '../db/rows.js'
import { branchRecall, type BranchView } from './branch-recall.js'

/** An eviction log row with where a branch has it from: its own log, or an ancestor's (its key). */
export interface BranchEvictionRow {
  readonly row: EvictionRow
  /** The ancestor whose log holds it, or undefined for the session's own row. */
  readonly from: number | undefined
  /** 0 for the session's own rows, the ancestor's distance up otherwise (orders rows ending at one seq). */
  readonly depth: number
}

/** The last seq of an ancestor's log a branch inherits: the lineage's cut, and below its boundary. */
function lastInherited(view: BranchView, maxSeq: number): number {
  return Math.min(maxSeq, view.boundary - 1)
}

/**
 * Why and when seq `n` of a branch's conversation last left its window.
 *
 * @param db - the connection, inside the caller's read transaction
 * @param view - the branch
 * @param n - the seq
 * @returns the row, or undefined when it never left
 */
export function branchEvictionOf(
  db: Database.Database,
  view: BranchView,
  n: number,
): BranchEvictionRow | undefined {
  const st = branchRecall(db)
  const own = st.ownEvictionOf.get({ s: view.pk, n })
  if (own !== undefined) return { row: own, from: undefined, depth: 0 }
  let depth = 0
  for (const cut of view.lineage.logs) {
    depth++
    if (n > lastInherited(view, cut.maxSeq)) continue
    const row = st.inheritedEvictionOf.get({ s: cut.pk, max_seq: cut.maxSeq, max_version: cut.maxVersion, n })
    if (row !== undefined) return { row, from: cut.pk, depth }
  }
  return undefined
}

/**
 * A branch's eviction log from a seq on: its own rows and those it inherits, at most `limit`.
 *
 * @param db - the connection, inside the caller's read transaction
 * @param view - the branch
 * @param fromSeq - the first row is the first whose run ends at or after this seq
 * @param limit - at most this many
 * @returns the rows, ordered by their run's last seq, newest first among equal
 */
export function branchEvictions(
  db: Database.Database,
  view: BranchView,
  fromSeq: number,
  limit: number,
): BranchEvictionRow[] {
  const st = branchRecall(db)
  const out: BranchEvictionRow[] = st.ownEvictionsFrom
    .all({ s: view.pk, from: fromSeq, limit })
    .map((row) => ({ row, from: undefined, depth: 0 }))
  let depth = 0
  for (const cut of view.lineage.logs) {
    depth++
    const last = lastInherited(view, cut.maxSeq)
    if (last < fromSeq) continue
    const params = { s: cut.pk, max_seq: last, max_version: cut.maxVersion }
    for (const row of st.inheritedEvictionsFrom.all({ ...params, from: fromSeq, limit }))
      out.push({ row, from: cut.pk, depth })
    // The run that reaches past the inherited seqs, if one does, cut at the last of them.
    const across = st.inheritedEvictionOf.get({ ...params, max_seq: cut.maxSeq, n: last })
    if (across !== undefined && across.to_seq > last)
      out.push({ row: { ...across, to_seq: last }, from: cut.pk, depth })
  }
  out.sort((a, b) => a.row.to_seq - b.row.to_seq || a.depth - b.depth || b.row.version - a.row.version)
  return out.slice(0, limit)
}
