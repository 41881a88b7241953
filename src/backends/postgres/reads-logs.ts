/**
 * The PostgreSQL store's reads of pins, logs and summaries, each one statement, answering a branch as the
 * SQLite store does (docs/design.md, "Branches"): its pinned rows are its own and the inherited rows it
 * pins; its pin and edit logs are its own entries and its ancestors' from before each fork (by seq and by
 * the log clock, `lineage-sql.ts`); its summaries are its own and the one it showed at its fork.
 */
import type { SummaryRow } from '../../db/statements.js'
import { conversationRow, INHERITED_ENTRY, lineageOf } from './lineage-sql.js'

/** The filters of {@link PINNED_SQL} on a pin `e` (its latest pin event). */
const PIN_FILTERS = `($2::text IS NULL OR coalesce(e.actor, 'append') = $2::text)
  AND ($3::text IS NULL OR strpos(lower(coalesce(e.reason, '')), lower($3::text)) > 0)
  AND ($4::bigint IS NULL OR coalesce(e.at, 0) >= $4::bigint)
  AND ($5::bigint IS NULL OR coalesce(e.at, 0) < $5::bigint)`

/**
 * Pinned messages (`$1` a session id or null for all), filtered by their latest pin's actor (`$2`; a pin
 * with no event is the append's), reason (`$3`, contained, letter case ignored), and time (`$4` at or
 * after, `$5` before); null: no filter. As SQLite's `pinnedFiltered`. A branch's inherited pins carry the
 * latest pin event it sees (its own, or an ancestor's from before the fork).
 */
export const PINNED_SQL = `SELECT * FROM (
SELECT s.id AS session_id, s.format, m.seq, m.uid, m.body, m.kept, s.boundary, e.actor, e.reason, e.at
FROM context_ledger.messages m JOIN context_ledger.sessions s ON s.pk = m.session
LEFT JOIN LATERAL (SELECT actor, reason, at FROM context_ledger.pin_events
  WHERE session = m.session AND seq = m.seq AND action = 'pin' ORDER BY id DESC LIMIT 1) e ON true
WHERE m.pinned AND ($1::text IS NULL OR s.id = $1::text) AND ${PIN_FILTERS}
UNION ALL
SELECT s.id, s.format, o.seq, m.uid, m.body, o.kept, s.boundary, e.actor, e.reason, e.at
FROM context_ledger.branch_rows o JOIN context_ledger.sessions s ON s.pk = o.session
JOIN context_ledger.messages m ON m.session = o.owner AND m.seq = o.seq
LEFT JOIN LATERAL (SELECT e.actor, e.reason, e.at FROM ${lineageOf('s.pk')} l
  JOIN context_ledger.pin_events e ON e.session = l.owner AND e.seq = o.seq AND e.action = 'pin'
  WHERE ${INHERITED_ENTRY} ORDER BY e.id DESC LIMIT 1) e ON true
WHERE o.pinned AND ($1::text IS NULL OR s.id = $1::text) AND ${PIN_FILTERS}
) p ORDER BY session_id COLLATE "C", seq`

/** A pinned row as read. */
export interface PgPinnedRow {
  session_id: string
  /** Its session's message format (null: `'strands'`). */
  format: string | null
  seq: number
  uid: string
  body: string
  kept: boolean
  boundary: number
  actor: string | null
  reason: string | null
  at: number | null
}

/** The session `$1` and its lineage, as CTEs `s` and `lin` (`owner`, `depth`, `lo`, `hi`, `clock`). */
const LINEAGE = `WITH s AS (SELECT pk FROM context_ledger.sessions WHERE id = $1::text),
lin AS (SELECT l.* FROM s CROSS JOIN LATERAL ${lineageOf('s.pk')} l)`

/**
 * A session's pin log: its own events and its ancestors' from before each fork, in the order written; each
 * names the session that wrote it and the message's trackingId in this session's conversation.
 */
export const PIN_EVENTS_SQL = `${LINEAGE}
SELECT x.id AS session_id, e.seq, ${conversationRow('e.seq', 'mm.uid')} AS uid, e.action, e.actor, e.reason, e.at
FROM lin l JOIN context_ledger.pin_events e ON e.session = l.owner AND ${INHERITED_ENTRY}
JOIN context_ledger.sessions x ON x.pk = e.session
ORDER BY e.id`

/** A session's edit log: as its pin log. */
export const EDITS_SQL = `${LINEAGE}
SELECT e.seq, ${conversationRow('e.seq', 'mm.uid')} AS uid, e.kind, e.actor, e.reason, e.at, e.body
FROM lin l JOIN context_ledger.message_edits e ON e.session = l.owner AND ${INHERITED_ENTRY}
ORDER BY e.id`

/** A summary's columns as `SummaryRow`. */
const SUMMARY_COLUMNS = `x.id, x.uid, x.replaces, x.regenerates, x.from_boundary, x.to_boundary, x.seqs,
  x.message_count, x.body, x.tokens, x.model, x.prompt_hash, x.created_at`

/**
 * A session's summaries: its own, newest first (`$2` at most), and the ones it inherits — the summary its
 * window showed at its fork and every ancestor's summary one of those replaced or regenerated, down each
 * chain (`kind` 'own' or 'linked'; {@link inheritedSummaries} orders and ends them as SQLite does). The
 * session's row comes with each (`current`, its inherited summary and the end the branch gave it).
 */
export const SUMMARIES_SQL = `WITH RECURSIVE s AS (SELECT pk, summary, fork_summary, fork_summary_ended_at,
    fork_summary_end_reason FROM context_ledger.sessions WHERE id = $1::text),
own AS (
  SELECT x.* FROM s JOIN context_ledger.summaries x ON x.session = s.pk ORDER BY x.id DESC LIMIT $2::int
),
reach (id) AS (
  SELECT fork_summary FROM s WHERE fork_summary IS NOT NULL
  UNION SELECT replaces FROM own WHERE replaces IS NOT NULL
  UNION SELECT regenerates FROM own WHERE regenerates IS NOT NULL
  UNION SELECT y.v FROM reach r JOIN context_ledger.summaries x ON x.id = r.id
    CROSS JOIN LATERAL (VALUES (x.replaces), (x.regenerates)) AS y(v)
    WHERE y.v IS NOT NULL AND x.session <> (SELECT pk FROM s)
)
SELECT q.*, s.summary AS current, s.fork_summary, s.fork_summary_ended_at, s.fork_summary_end_reason FROM s
CROSS JOIN (
  SELECT ${SUMMARY_COLUMNS}, x.ended_at, x.end_reason, 'own' AS kind FROM own x
  UNION ALL
  SELECT ${SUMMARY_COLUMNS}, x.ended_at, x.end_reason, 'linked' FROM reach r
    JOIN context_ledger.summaries x ON x.id = r.id WHERE x.session <> (SELECT pk FROM s)
) q`

/** A row of {@link SUMMARIES_SQL}. */
export type PgSummariesRow = SummaryRow & {
  kind: 'own' | 'linked'
  current: number | null
  fork_summary: number | null
  fork_summary_ended_at: number | null
  fork_summary_end_reason: SummaryRow['end_reason']
}

/**
 * A session's summaries from {@link SUMMARIES_SQL}, as SQLite's `summariesOf` lists them: the inherited
 * ones found breadth-first from the inherited summary and the own ones' links (the inherited summary with
 * the end the branch gave it; every link below it ended by the summary above it), merged with the
 * own ones newest first, at most `limit`.
 *
 * @param rows - what the statement returned
 * @param limit - at most this many
 * @returns each row and whether it is inherited
 */
export function inheritedSummaries(
  rows: readonly PgSummariesRow[],
  limit: number,
): { row: SummaryRow; inherited: boolean; current: number | null }[] {
  const own = rows.filter((r) => r.kind === 'own').sort((a, b) => b.id - a.id)
  const linked = new Map(rows.filter((r) => r.kind === 'linked').map((r) => [r.id, r]))
  const first = rows[0]
  const out: SummaryRow[] = []
  const seen = new Set<number>()
  const queue: { id: number; above: SummaryRow | undefined }[] = []
  if (first?.fork_summary != null) queue.push({ id: first.fork_summary, above: undefined })
  for (const r of own)
    for (const id of [r.replaces, r.regenerates]) if (id !== null) queue.push({ id, above: r })
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (seen.has(next.id)) continue
    seen.add(next.id)
    const row = linked.get(next.id)
    if (row === undefined) continue
    const above = next.above
    if (above === undefined && first !== undefined)
      out.push({ ...row, ended_at: first.fork_summary_ended_at, end_reason: first.fork_summary_end_reason })
    // A link below is ended by the summary above it, whatever its owner did to it after the fork.
    else if (above !== undefined)
      out.push({
        ...row,
        ended_at: above.created_at,
        end_reason: above.regenerates === row.id ? 'regenerated' : 'replaced',
      })
    else out.push(row)
    for (const id of [row.replaces, row.regenerates]) if (id !== null) queue.push({ id, above: row })
  }
  const current = first?.current ?? null
  const mine = new Set(own.map((r) => r.id))
  return [...own, ...out]
    .sort((a, b) => b.id - a.id)
    .slice(0, limit)
    .map((row) => ({ row, inherited: !mine.has(row.id), current }))
}

/** One summary of a session: its own, or one of its ancestors' (as the ancestor's row holds it). */
export const SUMMARY_SQL = `${LINEAGE}
SELECT ${SUMMARY_COLUMNS}, x.ended_at, x.end_reason, (SELECT summary FROM context_ledger.sessions
    WHERE pk = (SELECT pk FROM s)) AS current, x.session <> (SELECT pk FROM s) AS inherited
  FROM lin l JOIN context_ledger.summaries x ON x.session = l.owner AND x.id = $2::int`

/** A summary row with the id of the summary its session's window shows, and whether an ancestor wrote it. */
export type PgSummaryRow = SummaryRow & { current: number | null; inherited: boolean }

/**
 * A summary's chain, from it down through the summaries it replaced (`$3`: only the first link); on a
 * branch the chain may go on into its ancestors' summaries.
 */
export const SUMMARY_CHAIN_SQL = `WITH RECURSIVE s AS (SELECT pk, summary, version, format FROM context_ledger.sessions
  WHERE id = $1::text),
lin AS (SELECT l.owner FROM s CROSS JOIN LATERAL ${lineageOf('s.pk')} l),
chain AS (
  SELECT x.id, x.replaces, x.seqs, x.body, 0 AS depth FROM context_ledger.summaries x
    WHERE x.id = $2::int AND x.session IN (SELECT owner FROM lin)
  UNION ALL
  SELECT y.id, y.replaces, y.seqs, y.body, c.depth + 1 FROM chain c, context_ledger.summaries y
    WHERE y.id = c.replaces AND y.id < c.id AND y.session IN (SELECT owner FROM lin)
      AND (NOT $3::boolean OR c.depth = 0)
)
SELECT s.pk, s.summary, s.version, s.format, c.id, c.replaces, c.seqs, c.body, c.depth FROM s LEFT JOIN chain c ON true
ORDER BY c.depth`

/** A link of a summary's chain. */
export interface PgChainRow {
  pk: number
  summary: number | null
  version: number
  /** The session's message format (null: `'strands'`). */
  format: string | null
  id: number | null
  replaces: number | null
  seqs: string | null
  body: string | null
  depth: number | null
}

/** Raw messages of session `$1`'s conversation in half-open seq ranges, in seq order. */
export const RANGES_SQL = `WITH lin AS (SELECT l.owner, l.lo, l.hi FROM ${lineageOf('$1::int')} l WHERE l.lo <= l.hi)
SELECT m.body FROM unnest($2::int[], $3::int[]) AS r(lo, hi) JOIN lin g ON g.lo < r.hi AND g.hi >= r.lo
  JOIN context_ledger.messages m ON m.session = g.owner AND m.seq >= greatest(r.lo, g.lo)
    AND m.seq <= least(r.hi - 1, g.hi)
ORDER BY m.seq`
