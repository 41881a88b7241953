/**
 * Every SQL statement the store runs, prepared once per connection. Text only, values always bound:
 * nothing here is built by concatenation. Hot statements are written to hit the indexes declared in
 * `schema.ts` (a test checks each one's `EXPLAIN QUERY PLAN` is a SEARCH); partial indexes need the
 * literal `= 1` terms below, which is why those flags are not bound parameters.
 */
import type Database from 'better-sqlite3'

/** A session row as the store reads it. */
export interface SessionRow {
  pk: number
  id: string
  boundary: number
  message_count: number
  total_tokens: number
  version: number
  created_at: number
  updated_at: number
  metadata: string | null
  /** Kept rows and their window tokens; null on a session from before they were recorded. */
  kept_count: number | null
  kept_tokens: number | null
  /** The first-N range the kept rows' recheck marks were derived for; null when unknown. */
  kept_first: number | null
}

/** A session row with the flags of its newest message (null when it has none), as every session read returns it. */
export interface SessionForAppendRow extends SessionRow {
  last_role: 'user' | 'assistant' | null
  last_has_tool_use: number | null
  last_has_tool_result: number | null
  last_plain_user: number | null
  last_trim_point: number | null
  last_pair_start: number | null
}

/** The columns of a message row that entries are built from. */
export interface MessageRow {
  seq: number
  uid: string
  body: string
  tokens: number
  pinned: number
  kept: number
  created_at: number
  window_body: string | null
  repeat_of: number | null
  late: number
  window_tokens: number | null
}

/** The flags of a message row that appends and the window rules read. */
export interface FlagsRow {
  role: 'user' | 'assistant'
  has_tool_use: number
  has_tool_result: number
  trim_point: number
  plain_user: number
  tokens: number
}

/** What the window planner reads about a row (see `RowFacts`). */
export interface FactsRow {
  seq: number
  kept: number
  recheck: number
  pinned: number
  window_tokens: number
}

/** A window row: just what materializing needs. */
export interface WindowRow {
  seq: number
  body: string
  pinned: number
}

/**
 * A session as the store reads it. The message count and token total are not stored on the session:
 * they are the newest message's seq + 1 and prefix sum (one index seek), so an append does not rewrite
 * the session row — one page less in every commit. The newest message's flags come along for appends.
 */
const SESSION_SELECT = `SELECT s.pk, s.id, s.created_at, s.metadata, s.boundary, s.version,
    s.kept_count, s.kept_tokens, s.kept_first,
    coalesce(t.seq + 1, 0) AS message_count, coalesce(t.cum_tokens, 0) AS total_tokens,
    max(s.updated_at, coalesce(t.created_at, 0)) AS updated_at,
    t.role AS last_role, t.has_tool_use AS last_has_tool_use, t.has_tool_result AS last_has_tool_result,
    t.plain_user AS last_plain_user, t.trim_point AS last_trim_point, t.pair_start AS last_pair_start
  FROM sessions s LEFT JOIN messages t
    ON t.session = s.pk AND t.seq = (SELECT seq FROM messages WHERE session = s.pk ORDER BY seq DESC LIMIT 1)`

/** What an entry is built from. */
const ENTRY_COLUMNS =
  'seq, uid, body, tokens, pinned, kept, created_at, window_body, window_tokens, repeat_of, late'

/** A pinned message with its session and the latest pin event (who, when, why). */
const PINNED_SELECT = `SELECT s.id AS session_id, m.seq, m.uid, m.body, m.kept, s.boundary,
      e.actor, e.reason, e.at
    FROM messages m JOIN sessions s ON s.pk = m.session
    LEFT JOIN pin_events e ON e.id = (SELECT id FROM pin_events
      WHERE session = m.session AND seq = m.seq AND action = 'pin' ORDER BY id DESC LIMIT 1)`

const SQL = {
  sessionById: `${SESSION_SELECT} WHERE s.id = ?`,
  sessionByPk: `${SESSION_SELECT} WHERE s.pk = ?`,
  insertSession: `INSERT INTO sessions (id, created_at, updated_at, metadata, kept_count, kept_tokens)
    VALUES (?, ?, ?, ?, 0, 0)`,
  sessionBoundary: 'UPDATE sessions SET boundary = ?, updated_at = ?, version = version + 1 WHERE pk = ?',
  sessionTouch: 'UPDATE sessions SET updated_at = ?, version = version + 1 WHERE pk = ?',
  setKeptTotals: 'UPDATE sessions SET kept_count = ?, kept_tokens = ?, kept_first = ? WHERE pk = ?',
  allSessions: `${SESSION_SELECT} ORDER BY s.id`,

  insertMessage: `INSERT INTO messages (session, seq, uid, role, body, tokens, cum_tokens, pinned, kept,
      plain_user, trim_point, pair_start, has_tool_use, has_tool_result, created_at, window_body, window_tokens, repeat_of, late)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  messageByUid: `SELECT ${ENTRY_COLUMNS} FROM messages WHERE session = ? AND uid = ?`,
  messageBySeq: `SELECT ${ENTRY_COLUMNS} FROM messages WHERE session = ? AND seq = ?`,
  // The session's newest rows, newest first, with the trackingId a re-sent occurrence was sent under: what
  // a retried batch is compared with.
  newestRows: `SELECT m.seq, m.uid, m.body, m.tokens, m.pinned, m.kept, m.created_at, m.window_body, m.window_tokens,
      m.repeat_of, m.late, o.uid AS sent_as
    FROM messages m LEFT JOIN messages o ON o.session = m.session AND o.seq = m.repeat_of
    WHERE m.session = ? ORDER BY m.seq DESC LIMIT ?`,
  idsAnsweredBy: 'SELECT tool_use_id FROM tool_calls WHERE session = ? AND result_seq = ?',
  // The occurrences of a message sent again (rare: only a redaction asks; walks the session).
  repeatsOf: 'SELECT seq FROM messages WHERE session = ? AND repeat_of = ?',
  flagsBySeq: `SELECT role, has_tool_use, has_tool_result, trim_point, plain_user, tokens, pinned, kept
    FROM messages WHERE session = ? AND seq = ?`,
  setCutFlags: 'UPDATE messages SET trim_point = ?, pair_start = ? WHERE session = ? AND seq = ?',

  setPinned: 'UPDATE messages SET pinned = ? WHERE session = ? AND seq = ?',
  // A row's recheck mark only means something while it is kept: both are written together.
  setKept: 'UPDATE messages SET kept = ?, recheck = ? WHERE session = ? AND seq = ?',
  setRecheck: 'UPDATE messages SET recheck = ? WHERE session = ? AND seq = ?',
  history: `SELECT ${ENTRY_COLUMNS} FROM messages WHERE session = ? AND seq >= ? ORDER BY seq LIMIT ?`,

  // The window: kept rows before the boundary, then the tail, read in one statement so that a concurrent
  // writer cannot slip between the two halves. ORDER BY costs nothing: SQLite merges the two halves, each
  // already in index order (MERGE (UNION ALL), no temporary B-tree).
  window: `SELECT seq, coalesce(window_body, body) AS body, pinned FROM messages
      WHERE session = @s AND kept = 1 AND seq < (SELECT boundary FROM sessions WHERE pk = @s)
    UNION ALL
    SELECT seq, coalesce(window_body, body) AS body, pinned FROM messages
      WHERE session = @s AND seq >= (SELECT boundary FROM sessions WHERE pk = @s)
    ORDER BY seq`,
  setWindowBody: 'UPDATE messages SET window_body = ?, window_tokens = ? WHERE session = ? AND seq = ?',
  setKeptTokens: 'UPDATE sessions SET kept_tokens = kept_tokens + ? WHERE pk = ? AND kept_tokens IS NOT NULL',
  // Every kept row: only when the kept rows' marks must be derived again (other protected ranges, or a
  // session from before the marks existed), never on the steady path.
  keptSeqs: 'SELECT seq FROM messages WHERE session = ? AND kept = 1 ORDER BY seq',
  keptTotals: `SELECT count(*) AS count, coalesce(sum(coalesce(window_tokens, tokens)), 0) AS tokens
    FROM messages WHERE session = ? AND kept = 1`,
  firstKept: 'SELECT seq FROM messages WHERE session = ? AND kept = 1 ORDER BY seq LIMIT ?',
  keptAt: 'SELECT seq FROM messages WHERE session = ? AND kept = 1 ORDER BY seq LIMIT 1 OFFSET ?',
  anyKept: 'SELECT 1 FROM messages WHERE session = ? AND kept = 1 LIMIT 1',
  recheckSeqs: 'SELECT seq FROM messages WHERE session = ? AND recheck = 1 ORDER BY seq',
  // The earliest kept row without a recheck mark: walks the kept index past the marked ones (a few).
  firstSettled:
    'SELECT seq FROM messages WHERE session = ? AND kept = 1 AND recheck = 0 ORDER BY seq LIMIT 1',
  pinnedIn: 'SELECT seq FROM messages WHERE session = ? AND pinned = 1 AND seq >= ? AND seq < ? ORDER BY seq',
  pinnedCount: 'SELECT count(*) FROM messages WHERE session = ? AND pinned = 1',
  // Window-token corrections in a seq range, from the partial index of rows shown with a replacement.
  corrections: `SELECT seq, window_tokens - tokens AS delta FROM messages
    WHERE session = ? AND window_tokens IS NOT NULL AND seq >= ? AND seq < ? ORDER BY seq`,
  tailCorrection: `SELECT coalesce(sum(window_tokens - tokens), 0) FROM messages
    WHERE session = ? AND window_tokens IS NOT NULL AND seq >= ?`,
  cumAt: 'SELECT cum_tokens FROM messages WHERE session = ? AND seq = ?',
  firstTrimPoint: `SELECT seq FROM messages WHERE session = ? AND trim_point = 1 AND seq >= ? AND seq < ?
    ORDER BY seq LIMIT 1`,
  lastTrimPoint: `SELECT seq FROM messages WHERE session = ? AND trim_point = 1 AND seq >= ? AND seq < ?
    ORDER BY seq DESC LIMIT 1`,
  lastPairStart: `SELECT seq FROM messages WHERE session = ? AND pair_start = 1 AND seq >= ? AND seq < ?
    ORDER BY seq DESC LIMIT 1`,
  lastPlainUser: `SELECT seq FROM messages WHERE session = ? AND trim_point = 1 AND seq >= ? AND seq < ?
    AND plain_user = 1 ORDER BY seq DESC LIMIT 1`,
  firstPlainUser: `SELECT seq FROM messages WHERE session = ? AND trim_point = 1 AND plain_user = 1 AND seq >= ?
    ORDER BY seq LIMIT 1`,
  firstPairStart: `SELECT seq FROM messages WHERE session = ? AND pair_start = 1 AND seq >= ? AND seq < ?
    ORDER BY seq LIMIT 1`,
  insertToolCall: 'INSERT INTO tool_calls (session, tool_use_id, name, use_seq) VALUES (?, ?, ?, ?)',
  // Whether a call with this id is still waiting for its result (a second one could never be told apart).
  openCallById: `SELECT 1 FROM tool_calls INDEXED BY tool_calls_open
    WHERE session = ? AND tool_use_id = ? AND result_seq IS NULL LIMIT 1`,
  // Links a toolResult to the latest unanswered toolUse with its id, in one statement. INDEXED BY: without
  // statistics SQLite may prefer walking tool_calls_use, which reads every call of the session.
  answerToolCall: `UPDATE tool_calls SET result_seq = ?, status = ? WHERE id = (
    SELECT id FROM tool_calls INDEXED BY tool_calls_open
    WHERE session = ? AND tool_use_id = ? AND result_seq IS NULL ORDER BY use_seq DESC LIMIT 1)`,
  // Only for a result whose call is not waiting (rare): walks the session's calls, newest first.
  madeCall: 'SELECT name FROM tool_calls WHERE session = ? AND tool_use_id = ? ORDER BY use_seq DESC LIMIT 1',
  openCallsOfUse: `SELECT tool_use_id FROM tool_calls WHERE session = ? AND use_seq = ? AND result_seq IS NULL
    ORDER BY id`,
  // Batched lookups for a set of seqs, passed as one JSON array bound to @seqs (a value, never SQL text):
  // one statement per set instead of one per message, so a window with a thousand pins costs a few
  // statements. CROSS JOIN keeps the seqs as the outer loop (SQLite would otherwise walk every call of
  // the session and probe the array), and INDEXED BY picks the index the seq seeks.
  linksOfUses: `SELECT t.use_seq, t.result_seq FROM json_each(@seqs) j
    CROSS JOIN tool_calls t INDEXED BY tool_calls_use ON t.session = @s AND t.use_seq = j.value
    WHERE t.result_seq IS NOT NULL`,
  linksOfResults: `SELECT t.use_seq, t.result_seq FROM json_each(@seqs) j
    CROSS JOIN tool_calls t INDEXED BY tool_calls_answered ON t.session = @s AND t.result_seq = j.value`,
  factsOfSeqs: `SELECT m.seq, m.kept, m.recheck, m.pinned, coalesce(m.window_tokens, m.tokens) AS window_tokens
    FROM json_each(@seqs) j CROSS JOIN messages m ON m.session = @s AND m.seq = j.value`,
  usesOfResult: 'SELECT use_seq FROM tool_calls WHERE session = ? AND result_seq = ?',
  crossingResults: `SELECT result_seq FROM tool_calls WHERE session = ? AND use_seq >= ? AND use_seq < ?
    AND result_seq IS NOT NULL AND (result_seq < ? OR result_seq >= ?)`,
  crossingUses: `SELECT use_seq FROM tool_calls WHERE session = ? AND result_seq >= ? AND result_seq < ?
    AND (use_seq < ? OR use_seq >= ?)`,

  setBody: 'UPDATE messages SET body = ?, window_body = NULL WHERE session = ? AND seq = ?',
  insertEdit:
    'INSERT INTO message_edits (session, seq, kind, actor, reason, at, body) VALUES (?, ?, ?, ?, ?, ?, ?)',
  eraseEditBodies: 'UPDATE message_edits SET body = NULL WHERE session = ? AND seq = ?',
  edits: `SELECT e.seq, m.uid, e.kind, e.actor, e.reason, e.at, e.body FROM message_edits e
    JOIN messages m ON m.session = e.session AND m.seq = e.seq WHERE e.session = ? ORDER BY e.id`,

  insertPinEvent:
    'INSERT INTO pin_events (session, seq, action, actor, reason, at) VALUES (?, ?, ?, ?, ?, ?)',
  // One session's pins seek the partial pinned index; all sessions' pins walk it (only pinned rows).
  pinnedMessages: `${PINNED_SELECT} WHERE m.pinned = 1 AND m.session = ? ORDER BY m.seq`,
  allPinnedMessages: `${PINNED_SELECT} WHERE m.pinned = 1 ORDER BY s.id, m.seq`,
  pinEvents: `SELECT s.id AS session_id, e.seq, m.uid, e.action, e.actor, e.reason, e.at
    FROM pin_events e JOIN sessions s ON s.pk = e.session
    JOIN messages m ON m.session = e.session AND m.seq = e.seq
    WHERE e.session = ? ORDER BY e.id`,
} as const

/** Statements that return a single column: prepared in pluck mode, so they yield bare values. */
const PLUCKED: ReadonlySet<keyof typeof SQL> = new Set<keyof typeof SQL>([
  'keptSeqs',
  'firstKept',
  'keptAt',
  'anyKept',
  'recheckSeqs',
  'firstSettled',
  'pinnedIn',
  'pinnedCount',
  'tailCorrection',
  'lastPairStart',
  'cumAt',
  'firstTrimPoint',
  'lastTrimPoint',
  'lastPlainUser',
  'firstPairStart',
  'firstPlainUser',
  'openCallsOfUse',
  'madeCall',
  'openCallById',
  'repeatsOf',
  'idsAnsweredBy',
  'usesOfResult',
  'crossingResults',
  'crossingUses',
])

/** The SQL text of every statement, for tests of plans and text. */
export const STATEMENT_SQL: Readonly<Record<keyof typeof SQL, string>> = SQL

/** The statements, prepared against one connection. */
export type Statements = { readonly [K in keyof typeof SQL]: Database.Statement }

/**
 * Prepares every statement once for a connection.
 *
 * @param db - an open, migrated connection
 * @returns the prepared statements, by name
 */
export function prepareStatements(db: Database.Database): Statements {
  const out: Partial<Record<keyof typeof SQL, Database.Statement>> = {}
  for (const key of Object.keys(SQL) as (keyof typeof SQL)[]) {
    const statement = db.prepare(SQL[key])
    out[key] = PLUCKED.has(key) ? statement.pluck() : statement
  }
  return out as Statements
}
