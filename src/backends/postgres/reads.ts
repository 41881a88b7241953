/**
 * The PostgreSQL store's reads: each one statement (one round trip, one snapshot), returning what the
 * SQLite store's reads return — entries, the window, session summaries, the pin and edit logs, summaries
 * — through the same converters (`src/store/entries.ts`). Sessions are listed in byte order of their
 * ids (`COLLATE "C"`), as SQLite's BINARY collation orders them.
 */
import type { MessageRow, SessionRow, SummaryRow } from '../../db/statements.js'

/**
 * The window: kept rows before the boundary, the summary, then the tail, in one statement; each row
 * carries its sort key `k` (its seq; the summary's is `boundary - 0.5`) and the session's format (what
 * shows its bodies).
 */
export const WINDOW_SQL = `WITH s AS (SELECT pk, boundary, summary, format FROM context_ledger.sessions WHERE id = $1::text)
SELECT w.k, w.body, w.pinned, (SELECT format FROM s) AS format FROM (
  SELECT m.seq::float8 AS k, coalesce(m.window_body, m.body) AS body, m.pinned
    FROM s JOIN context_ledger.messages m ON m.session = s.pk AND m.kept AND m.seq < s.boundary
  UNION ALL
  SELECT s.boundary - 0.5, x.body, false FROM s JOIN context_ledger.summaries x ON x.id = s.summary
  UNION ALL
  SELECT m.seq, coalesce(m.window_body, m.body), m.pinned
    FROM s JOIN context_ledger.messages m ON m.session = s.pk AND m.seq >= s.boundary
) w ORDER BY w.k`

/** A window row. */
export interface PgWindowRow {
  /** Its seq, or the summary's `boundary - 0.5` (a float8, so a JavaScript number). */
  k: number
  body: string
  pinned: boolean
  /** The session's message format (null: `'strands'`). */
  format: string | null
}

/** The archive from a seq on. */
export const HISTORY_SQL = `SELECT s.id AS session_id, s.boundary, m.seq, m.uid, m.body, m.tokens, m.pinned, m.kept, m.created_at,
  m.window_body, m.window_tokens, m.repeat_of, m.late
  FROM context_ledger.sessions s
  JOIN context_ledger.messages m ON m.session = s.pk
  WHERE s.id = $1::text AND m.seq >= $2::int ORDER BY m.seq LIMIT $3::int`

/** A message row with its session's id and boundary, as PostgreSQL returns it. */
export interface PgEntryRow {
  session_id: string
  boundary: number
  seq: number
  uid: string
  body: string
  tokens: number
  pinned: boolean
  kept: boolean
  created_at: number
  window_body: string | null
  window_tokens: number | null
  repeat_of: number | null
  late: boolean
}

/**
 * An entry row as the SQLite rows `toEntry` takes.
 *
 * @param r - the row
 * @returns the session (id and boundary) and message rows
 */
export function entryRows(r: PgEntryRow): { session: SessionRow; row: MessageRow } {
  return {
    session: { id: r.session_id, boundary: r.boundary } as SessionRow,
    row: {
      seq: r.seq,
      uid: r.uid,
      body: r.body,
      tokens: r.tokens,
      pinned: r.pinned ? 1 : 0,
      kept: r.kept ? 1 : 0,
      created_at: r.created_at,
      window_body: r.window_body,
      window_tokens: r.window_tokens,
      repeat_of: r.repeat_of,
      late: r.late ? 1 : 0,
    },
  }
}

/** A session with its sizes: one session (`$1` its id) or every one (`$1` null), by id. */
export const SESSIONS_SQL = `SELECT s.id, s.format, s.metadata, s.boundary, s.kept_count, s.kept_tokens, s.summary, x.tokens AS summary_tokens,
  s.created_at, greatest(s.updated_at, coalesce(t.created_at, 0)) AS updated_at,
  coalesce(t.seq + 1, 0) AS message_count, coalesce(t.cum_tokens, 0) AS total_tokens,
  coalesce((SELECT cum_tokens FROM context_ledger.messages WHERE session = s.pk AND seq = s.boundary - 1), 0) AS before,
  coalesce((SELECT sum(window_tokens - tokens) FROM context_ledger.messages
    WHERE session = s.pk AND window_tokens IS NOT NULL AND seq >= s.boundary), 0) AS correction,
  (SELECT count(*) FROM context_ledger.messages WHERE session = s.pk AND pinned)::int AS pinned,
  (SELECT count(*) FROM context_ledger.messages WHERE session = s.pk AND kept)::int AS kept_rows,
  (SELECT coalesce(sum(coalesce(window_tokens, tokens)), 0) FROM context_ledger.messages
    WHERE session = s.pk AND kept AND s.kept_tokens IS NULL) AS kept_rows_tokens
FROM context_ledger.sessions s
LEFT JOIN LATERAL (SELECT seq, cum_tokens, created_at FROM context_ledger.messages
  WHERE session = s.pk ORDER BY seq DESC LIMIT 1) t ON true
LEFT JOIN context_ledger.summaries x ON x.id = s.summary
WHERE $1::text IS NULL OR s.id = $1::text
ORDER BY s.id COLLATE "C"`

/** A session's sizes as read. */
export interface PgSessionRow {
  id: string
  format: string | null
  metadata: string | null
  boundary: number
  kept_count: number | null
  kept_tokens: number | null
  summary: number | null
  summary_tokens: number | null
  created_at: number
  updated_at: number
  message_count: number
  total_tokens: number
  before: number
  correction: number
  pinned: number
  kept_rows: number
  kept_rows_tokens: number
}

/** How many messages a session holds. */
export const MESSAGE_COUNT_SQL = `SELECT coalesce((SELECT m.seq + 1 FROM context_ledger.sessions s
  JOIN context_ledger.messages m ON m.session = s.pk WHERE s.id = $1::text ORDER BY m.seq DESC LIMIT 1), 0) AS count`

/**
 * Pinned messages (`$1` a session id or null for all), filtered by their latest pin's actor (`$2`; a pin
 * with no event is the append's), reason (`$3`, contained, letter case ignored), and time (`$4` at or
 * after, `$5` before); null: no filter. As SQLite's `pinnedFiltered`.
 */
export const PINNED_SQL = `SELECT s.id AS session_id, s.format, m.seq, m.uid, m.body, m.kept, s.boundary, e.actor, e.reason, e.at
FROM context_ledger.messages m JOIN context_ledger.sessions s ON s.pk = m.session
LEFT JOIN LATERAL (SELECT actor, reason, at FROM context_ledger.pin_events
  WHERE session = m.session AND seq = m.seq AND action = 'pin' ORDER BY id DESC LIMIT 1) e ON true
WHERE m.pinned AND ($1::text IS NULL OR s.id = $1::text)
  AND ($2::text IS NULL OR coalesce(e.actor, 'append') = $2::text)
  AND ($3::text IS NULL OR strpos(lower(coalesce(e.reason, '')), lower($3::text)) > 0)
  AND ($4::bigint IS NULL OR coalesce(e.at, 0) >= $4::bigint)
  AND ($5::bigint IS NULL OR coalesce(e.at, 0) < $5::bigint)
ORDER BY s.id COLLATE "C", m.seq`

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

/** A session's pin log. */
export const PIN_EVENTS_SQL = `SELECT s.id AS session_id, e.seq, m.uid, e.action, e.actor, e.reason, e.at
FROM context_ledger.pin_events e JOIN context_ledger.sessions s ON s.pk = e.session
JOIN context_ledger.messages m ON m.session = e.session AND m.seq = e.seq
WHERE s.id = $1::text ORDER BY e.id`

/** A session's edit log. */
export const EDITS_SQL = `SELECT e.seq, m.uid, e.kind, e.actor, e.reason, e.at, e.body
FROM context_ledger.message_edits e JOIN context_ledger.sessions s ON s.pk = e.session
JOIN context_ledger.messages m ON m.session = e.session AND m.seq = e.seq
WHERE s.id = $1::text ORDER BY e.id`

/** A session's summaries, newest first. */
export const SUMMARIES_SQL = `SELECT x.id, x.uid, x.replaces, x.regenerates, x.from_boundary, x.to_boundary, x.seqs, x.message_count,
  x.body, x.tokens, x.model, x.prompt_hash, x.created_at, x.ended_at, x.end_reason, s.summary AS current
  FROM context_ledger.sessions s
  JOIN context_ledger.summaries x ON x.session = s.pk
  WHERE s.id = $1::text ORDER BY x.id DESC LIMIT $2::int`

/** One summary of a session. */
export const SUMMARY_SQL = `SELECT x.id, x.uid, x.replaces, x.regenerates, x.from_boundary, x.to_boundary, x.seqs, x.message_count,
  x.body, x.tokens, x.model, x.prompt_hash, x.created_at, x.ended_at, x.end_reason, s.summary AS current
  FROM context_ledger.sessions s
  JOIN context_ledger.summaries x ON x.session = s.pk
  WHERE s.id = $1::text AND x.id = $2::int`

/** A summary row with the id of the summary its session's window shows. */
export type PgSummaryRow = SummaryRow & { current: number | null }

/** A summary's chain, from it down through the summaries it replaced (`$3`: only the first link). */
export const SUMMARY_CHAIN_SQL = `WITH RECURSIVE s AS (SELECT pk, summary, version, format FROM context_ledger.sessions WHERE id = $1::text),
chain AS (
  SELECT x.id, x.replaces, x.seqs, x.body, 0 AS depth FROM s JOIN context_ledger.summaries x
    ON x.session = s.pk AND x.id = $2::int
  UNION ALL
  SELECT y.id, y.replaces, y.seqs, y.body, c.depth + 1 FROM chain c, s, context_ledger.summaries y
    WHERE y.session = s.pk AND y.id = c.replaces AND y.id < c.id AND (NOT $3::boolean OR c.depth = 0)
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

/** Raw messages in half-open seq ranges, in seq order. */
export const RANGES_SQL = `SELECT m.body FROM unnest($2::int[], $3::int[]) AS r(lo, hi)
  JOIN context_ledger.messages m ON m.session = $1::int AND m.seq >= r.lo AND m.seq < r.hi ORDER BY m.seq`

/** Locks a session's row (an append updates it first), for {@link DELETE_SESSION_SQL} to run after. */
export const LOCK_SESSION_SQL = 'SELECT pk FROM context_ledger.sessions WHERE id = $1::text FOR UPDATE'

/**
 * Deletes a session and every row of it, in one statement, counting each table's rows. Run after
 * {@link LOCK_SESSION_SQL} in the same transaction: the statement's snapshot is taken when it starts, so
 * rows an append committed while this statement waited for the lock would be missed (and the session's
 * delete then fail on their foreign key).
 */
export const DELETE_SESSION_SQL = `WITH s AS (SELECT pk FROM context_ledger.sessions WHERE id = $1::text FOR UPDATE),
e AS (DELETE FROM context_ledger.message_edits x USING s WHERE x.session = s.pk RETURNING 1),
p AS (DELETE FROM context_ledger.pin_events x USING s WHERE x.session = s.pk RETURNING 1),
c AS (DELETE FROM context_ledger.tool_calls x USING s WHERE x.session = s.pk RETURNING 1),
m AS (DELETE FROM context_ledger.messages x USING s WHERE x.session = s.pk RETURNING 1),
y AS (DELETE FROM context_ledger.summaries x USING s WHERE x.session = s.pk RETURNING 1),
v AS (DELETE FROM context_ledger.eviction_log x USING s WHERE x.session = s.pk RETURNING 1),
b AS (DELETE FROM context_ledger.branch_rows x USING s WHERE x.session = s.pk RETURNING 1),
d AS (DELETE FROM context_ledger.sessions x USING s WHERE x.pk = s.pk RETURNING 1)
SELECT (SELECT count(*) FROM d)::int AS deleted, (SELECT count(*) FROM m)::int AS messages,
  (SELECT count(*) FROM c)::int AS tool_calls, (SELECT count(*) FROM p)::int AS pin_events,
  (SELECT count(*) FROM e)::int AS edits, (SELECT count(*) FROM y)::int AS summaries,
  (SELECT count(*) FROM v)::int AS evictions`

/** The eviction log's columns, as SQLite's statements return them. */
const EVICTION_COLUMNS = 'x.from_seq, x.to_seq, x.version, x.at, x.cut, x.reason, x.summary'

/** A session's eviction log from a seq on (`$2`), at most `$3` rows: one range scan of the log's key. */
export const EVICTIONS_SQL = `SELECT ${EVICTION_COLUMNS} FROM context_ledger.sessions s
  JOIN context_ledger.eviction_log x ON x.session = s.pk AND x.to_seq >= $2::int
  WHERE s.id = $1::text ORDER BY x.to_seq, x.version DESC LIMIT $3::int`

/** Why and when seq `$2` last left the window: the first row past it that covers it (see the migration). */
export const EVICTION_OF_SQL = `SELECT ${EVICTION_COLUMNS} FROM context_ledger.sessions s
  JOIN context_ledger.eviction_log x ON x.session = s.pk AND x.to_seq >= $2::int AND x.from_seq <= $2::int
  WHERE s.id = $1::text ORDER BY x.to_seq, x.version DESC LIMIT 1`

/** Every session id (what a prune of all sessions walks). */
export const SESSION_IDS_SQL = 'SELECT id FROM context_ledger.sessions ORDER BY pk'
