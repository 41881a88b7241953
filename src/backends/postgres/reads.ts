/**
 * The PostgreSQL store's reads: each one statement (one round trip, one snapshot), returning what the
 * SQLite store's reads return — entries, the window, session summaries, the pin and edit logs, summaries
 * — through the same converters (`src/store/entries.ts`). Sessions are listed in byte order of their
 * ids (`COLLATE "C"`), as SQLite's BINARY collation orders them.
 */
import type { MessageRow, SessionRow } from '../../db/statements.js'
import { lineageOf, SEQ_END } from './lineage-sql.js'

/**
 * The window: kept rows before the boundary, the summary, then the tail, in one statement; each row
 * carries its sort key `k` (its seq; the summary's is `boundary - 0.5`) and the session's format (what
 * shows its bodies).
 */
export const WINDOW_SQL = `WITH s AS (SELECT pk, boundary, summary, format, parent FROM context_ledger.sessions
  WHERE id = $1::text)
SELECT w.k, w.body, w.pinned, (SELECT format FROM s) AS format FROM (
  SELECT m.seq::float8 AS k, coalesce(m.window_body, m.body) AS body, m.pinned
    FROM s JOIN context_ledger.messages m ON m.session = s.pk AND m.kept AND m.seq < s.boundary
  UNION ALL
  SELECT s.boundary - 0.5, x.body, false FROM s JOIN context_ledger.summaries x ON x.id = s.summary
  UNION ALL
  SELECT m.seq, coalesce(m.window_body, m.body), m.pinned
    FROM s JOIN context_ledger.messages m ON m.session = s.pk AND m.seq >= s.boundary
  -- A branch's inherited rows its window shows: each has its row of state (docs/design.md, "Branches").
  UNION ALL
  SELECT o.seq, coalesce(o.window_body, m.body), o.pinned
    FROM s JOIN context_ledger.branch_rows o ON o.session = s.pk AND (o.kept AND o.seq < s.boundary OR o.seq >= s.boundary)
    JOIN context_ledger.messages m ON m.session = o.owner AND m.seq = o.seq
    WHERE s.parent IS NOT NULL
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

/**
 * The archive from a seq on: a branch's through its lineage, each part one range of its owner's rows, with
 * the branch's own state on the rows it inherits (a root's is its own rows, as always).
 */
export const HISTORY_SQL = `WITH s AS (SELECT pk, id, boundary, parent FROM context_ledger.sessions WHERE id = $1::text),
parts AS (
  SELECT s.pk AS owner, 0 AS lo, ${SEQ_END} AS hi FROM s WHERE s.parent IS NULL
  UNION ALL
  SELECT l.owner, l.lo, l.hi FROM (SELECT pk FROM s WHERE parent IS NOT NULL) b CROSS JOIN LATERAL ${lineageOf('b.pk')} l
  WHERE l.lo <= l.hi AND l.hi >= $2::int
)
SELECT s.id AS session_id, s.boundary, m.seq, m.uid, m.body, m.tokens,
  CASE WHEN m.session = s.pk THEN m.pinned ELSE coalesce(o.pinned, false) END AS pinned,
  CASE WHEN m.session = s.pk THEN m.kept ELSE coalesce(o.kept, false) END AS kept, m.created_at,
  CASE WHEN m.session = s.pk OR o.session IS NULL THEN m.window_body ELSE o.window_body END AS window_body,
  CASE WHEN m.session = s.pk OR o.session IS NULL THEN m.window_tokens ELSE o.window_tokens END AS window_tokens,
  m.repeat_of, m.late
FROM s CROSS JOIN parts p CROSS JOIN LATERAL (SELECT * FROM context_ledger.messages
  WHERE session = p.owner AND seq >= greatest(p.lo, $2::int) AND seq <= p.hi ORDER BY seq LIMIT $3::int) m
LEFT JOIN context_ledger.branch_rows o ON m.session <> s.pk AND o.session = s.pk AND o.seq = m.seq
ORDER BY m.seq LIMIT $3::int`

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

/**
 * A session with its sizes: one session (`$1` its id) or every one (`$1` null), by id. A branch's count and
 * token total fall back to its fork point's; the token sum before its boundary is read through its lineage;
 * its corrections, pins and kept rows include those on the rows it inherits.
 */
export const SESSIONS_SQL = `SELECT s.id, s.format, s.metadata, s.boundary, s.kept_count, s.kept_tokens, s.summary, x.tokens AS summary_tokens,
  s.created_at, greatest(s.updated_at, coalesce(t.created_at, 0)) AS updated_at,
  coalesce(t.seq + 1, s.fork_seq + 1, 0) AS message_count, coalesce(t.cum_tokens, s.fork_tokens, 0) AS total_tokens,
  coalesce(CASE WHEN s.parent IS NULL OR s.boundary - 1 > s.fork_seq
      THEN (SELECT cum_tokens FROM context_ledger.messages WHERE session = s.pk AND seq = s.boundary - 1)
      ELSE (SELECT m.cum_tokens FROM ${lineageOf('s.pk')} l JOIN context_ledger.messages m
        ON m.session = l.owner AND m.seq = s.boundary - 1 WHERE s.boundary - 1 BETWEEN l.lo AND l.hi) END, 0) AS before,
  coalesce((SELECT sum(window_tokens - tokens) FROM context_ledger.messages
    WHERE session = s.pk AND window_tokens IS NOT NULL AND seq >= s.boundary), 0)
    + CASE WHEN s.parent IS NULL THEN 0 ELSE coalesce((SELECT sum(o.window_tokens - m.tokens)
      FROM context_ledger.branch_rows o JOIN context_ledger.messages m ON m.session = o.owner AND m.seq = o.seq
      WHERE o.session = s.pk AND o.window_tokens IS NOT NULL AND o.seq >= s.boundary), 0) END AS correction,
  ((SELECT count(*) FROM context_ledger.messages WHERE session = s.pk AND pinned)
    + CASE WHEN s.parent IS NULL THEN 0
      ELSE (SELECT count(*) FROM context_ledger.branch_rows WHERE session = s.pk AND pinned) END)::int AS pinned,
  ((SELECT count(*) FROM context_ledger.messages WHERE session = s.pk AND kept)
    + CASE WHEN s.parent IS NULL THEN 0
      ELSE (SELECT count(*) FROM context_ledger.branch_rows WHERE session = s.pk AND kept) END)::int AS kept_rows,
  (SELECT coalesce(sum(coalesce(window_tokens, tokens)), 0) FROM context_ledger.messages
    WHERE session = s.pk AND kept AND s.kept_tokens IS NULL)
    + CASE WHEN s.parent IS NULL OR s.kept_tokens IS NOT NULL THEN 0
      ELSE (SELECT coalesce(sum(coalesce(o.window_tokens, m.tokens)), 0) FROM context_ledger.branch_rows o
        JOIN context_ledger.messages m ON m.session = o.owner AND m.seq = o.seq
        WHERE o.session = s.pk AND o.kept) END AS kept_rows_tokens,
  (SELECT id FROM context_ledger.sessions WHERE pk = s.parent) AS parent_id, s.fork_seq, s.kind
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
  /** The parent's id, the fork point and the kind (docs/design.md, "Branches"). */
  parent_id: string | null
  fork_seq: number | null
  kind: 'root' | 'fork' | 'abandoned'
}

/** How many messages a session holds (a branch without rows of its own: up to its fork point). */
export const MESSAGE_COUNT_SQL = `SELECT coalesce((SELECT m.seq + 1 FROM context_ledger.sessions s
  JOIN context_ledger.messages m ON m.session = s.pk WHERE s.id = $1::text ORDER BY m.seq DESC LIMIT 1),
  (SELECT fork_seq + 1 FROM context_ledger.sessions WHERE id = $1::text), 0) AS count`

/**
 * Locks a session's row (an append updates it first), for its delete (`branch-tree.ts`) to run after in the
 * same transaction: a statement's snapshot is taken when it starts, so rows an append committed while the
 * delete waited for the lock would be missed (and the session's delete then fail on their foreign key).
 */
export const LOCK_SESSION_SQL = 'SELECT pk FROM context_ledger.sessions WHERE id = $1::text FOR UPDATE'

/** Every session id (what a prune of all sessions walks). */
export const SESSION_IDS_SQL = 'SELECT id FROM context_ledger.sessions ORDER BY pk'
