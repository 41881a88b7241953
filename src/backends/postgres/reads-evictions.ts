/**
 * The PostgreSQL store's reads of the eviction log, each one statement, answering a branch as the SQLite
 * store does (`src/store/branch-evictions.ts`; docs/design.md, "Branches"): a session's log is its own
 * rows, then each ancestor's rows written below the fork clock on the way down (`lineage-sql.ts`) about
 * the seqs it gives the session and below the session's boundary — a run reaching past them cut there. A
 * rewind's row (cut `'rewind'`, naming the abandoned branch in `summary`) is listed but never answers
 * "why did seq N leave", and is never inherited. An unbranched session's lineage is itself: one index seek.
 */
import type { EvictionRow } from '../../db/rows.js'
import { toEvictionRecord } from '../../store/recall-reads.js'
import type { EvictionRecord } from '../../store/search-types.js'
import { lineageOf } from './lineage-sql.js'

/** The eviction log's columns, as SQLite's statements return them. */
const COLUMNS = 'x.from_seq, x.to_seq, x.version, x.at, x.cut, x.reason, x.summary'

/**
 * The session `$1` (`s`: key and boundary) and its ancestors (`anc`: each with `last`, the last seq whose
 * rows the session inherits, and `clock`, below which they were written), as CTEs.
 */
const ANCESTORS = `WITH s AS (SELECT pk, boundary FROM context_ledger.sessions WHERE id = $1::text),
anc AS (SELECT l.owner, l.depth, l.clock, least(l.hi, s.boundary - 1) AS last
  FROM s CROSS JOIN LATERAL ${lineageOf('s.pk')} l WHERE l.depth > 0)`

/** Whether row `x` of ancestor `a`'s log is one the session inherits (by clock; a rewind's never). */
const INHERITED = `coalesce(x.clock, 0) < a.clock AND x.cut <> 'rewind'`

/**
 * A session's eviction log from a seq on (`$2`), at most `$3` rows, as SQLite's `branchEvictions`: ordered
 * by the run's last seq, then own before the nearest ancestor's, newest first. Each row names the ancestor
 * it is inherited from (`inherited_from`) and, for a rewind's, the abandoned branch (`abandoned_id`).
 */
export const EVICTIONS_SQL = `${ANCESTORS}
SELECT from_seq, to_seq, version, at, cut, reason, summary, inherited_from, abandoned_id FROM (
  (SELECT ${COLUMNS}, 0 AS depth, NULL::text AS inherited_from, b.id AS abandoned_id
    FROM s JOIN context_ledger.eviction_log x ON x.session = s.pk AND x.to_seq >= $2::int
    LEFT JOIN context_ledger.sessions b ON x.cut = 'rewind' AND b.pk = x.summary
    ORDER BY x.to_seq, x.version DESC LIMIT $3::int)
  UNION ALL
  SELECT x.*, a.depth, o.id, NULL FROM anc a JOIN context_ledger.sessions o ON o.pk = a.owner
  CROSS JOIN LATERAL (SELECT ${COLUMNS} FROM context_ledger.eviction_log x
    WHERE x.session = a.owner AND x.to_seq >= $2::int AND x.to_seq <= a.last AND ${INHERITED}
    ORDER BY x.to_seq, x.version DESC LIMIT $3::int) x
  WHERE a.last >= $2::int
  UNION ALL
  -- The run that reaches past the inherited seqs, if one does, cut at the last of them.
  SELECT x.from_seq, a.last, x.version, x.at, x.cut, x.reason, x.summary, a.depth, o.id, NULL
  FROM anc a JOIN context_ledger.sessions o ON o.pk = a.owner
  CROSS JOIN LATERAL (SELECT ${COLUMNS} FROM context_ledger.eviction_log x
    WHERE x.session = a.owner AND x.to_seq >= a.last AND x.from_seq <= a.last AND ${INHERITED}
    ORDER BY x.to_seq, x.version DESC LIMIT 1) x
  WHERE a.last >= $2::int AND x.to_seq > a.last
) q ORDER BY to_seq, depth, version DESC LIMIT $3::int`

/**
 * Why and when seq `$2` of a session's conversation last left its window, as SQLite's `branchEvictionOf`:
 * its own row covering it (a rewind's never), else the nearest ancestor's it inherits.
 */
export const EVICTION_OF_SQL = `${ANCESTORS}
SELECT from_seq, to_seq, version, at, cut, reason, summary, inherited_from, NULL AS abandoned_id FROM (
  (SELECT ${COLUMNS}, 0 AS depth, NULL::text AS inherited_from
    FROM s JOIN context_ledger.eviction_log x ON x.session = s.pk AND x.to_seq >= $2::int
      AND x.from_seq <= $2::int AND x.cut <> 'rewind'
    ORDER BY x.to_seq, x.version DESC LIMIT 1)
  UNION ALL
  SELECT x.*, a.depth, o.id FROM anc a JOIN context_ledger.sessions o ON o.pk = a.owner
  CROSS JOIN LATERAL (SELECT ${COLUMNS} FROM context_ledger.eviction_log x
    WHERE x.session = a.owner AND x.to_seq >= $2::int AND x.from_seq <= $2::int AND ${INHERITED}
    ORDER BY x.to_seq, x.version DESC LIMIT 1) x
  WHERE $2::int <= a.last
) q ORDER BY depth LIMIT 1`

/** A row of {@link EVICTIONS_SQL} or {@link EVICTION_OF_SQL}. */
export type PgEvictionRow = EvictionRow & {
  /** The ancestor whose log holds it; null for the session's own row. */
  inherited_from: string | null
  /** A rewind's row: the abandoned branch's id. */
  abandoned_id: string | null
}

/**
 * A row of the log as the API returns it, naming the sessions the row names.
 *
 * @param sessionId - the session read
 * @param r - the row
 * @returns the record
 */
export function pgEvictionRecord(sessionId: string, r: PgEvictionRow): EvictionRecord {
  return toEvictionRecord(sessionId, r, {
    abandonedId: r.abandoned_id ?? undefined,
    inheritedFrom: r.inherited_from ?? undefined,
  })
}
