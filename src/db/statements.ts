/**
 * Every SQL statement the store runs, declared once with its types (see `typed-statement.ts`) and
 * prepared once per connection. Text only, values always bound: nothing here is built by concatenation.
 * Hot statements are written to hit the indexes declared in `schema.ts` (a test checks each one's
 * `EXPLAIN QUERY PLAN` is a SEARCH); partial indexes need the literal `= 1` terms below, which is why
 * those flags are not bound parameters.
 */
import type Database from 'better-sqlite3'
import type {
  SummaryRow,
  EditRow,
  FlagsRow,
  MessageRow,
  NewestRow,
  PinEventRow,
  PinnedRow,
  SessionForAppendRow,
  WindowRow,
} from './rows.js'
import {
  prepareAll,
  rows,
  sqlTexts,
  value,
  write,
  type CallableAll,
  type ColumnsOf,
  type PreparedAll,
} from './typed-statement.js'
import { LOG_CLOCK } from './log-clock.js'
import { RECALL_STATEMENTS } from './recall-statements.js'
import { SEARCH_WRITE_STATEMENTS } from './search-statements.js'
import { VIEW_STATEMENTS } from './view-statements.js'

export type * from './rows.js'

/**
 * A session as the store reads it. The message count and token total are not stored on the session:
 * they are the newest message's seq + 1 and prefix sum (one index seek), so an append does not rewrite
 * the session row — one page less in every commit. The newest message's flags come along for appends.
 */
const SESSION_SELECT = `SELECT s.pk, s.id, s.created_at, s.metadata, s.boundary, s.version,
    s.kept_count, s.kept_tokens, s.kept_first, s.summary, x.tokens AS summary_tokens, s.limits, s.format,
    coalesce(t.seq + 1, s.fork_seq + 1, 0) AS message_count,
    coalesce(t.cum_tokens, s.fork_tokens, 0) AS total_tokens,
    max(s.updated_at, coalesce(t.created_at, 0)) AS updated_at, s.parent, s.fork_seq, s.kind,
    t.role AS last_role, t.has_tool_use AS last_has_tool_use, t.has_tool_result AS last_has_tool_result,
    t.plain_user AS last_plain_user, t.trim_point AS last_trim_point, t.pair_start AS last_pair_start
  FROM sessions s LEFT JOIN messages t
    ON t.session = s.pk AND t.seq = (SELECT seq FROM messages WHERE session = s.pk ORDER BY seq DESC LIMIT 1)
  LEFT JOIN summaries x ON x.id = s.summary`

const SESSION_COLUMNS: ColumnsOf<SessionForAppendRow> = {
  pk: true,
  id: true,
  created_at: true,
  metadata: true,
  boundary: true,
  version: true,
  kept_count: true,
  kept_tokens: true,
  kept_first: true,
  summary: true,
  summary_tokens: true,
  limits: true,
  format: true,
  message_count: true,
  total_tokens: true,
  updated_at: true,
  parent: true,
  fork_seq: true,
  kind: true,
  last_role: true,
  last_has_tool_use: true,
  last_has_tool_result: true,
  last_plain_user: true,
  last_trim_point: true,
  last_pair_start: true,
}

/** What an entry is built from (also what a prune reads, see `lifecycle-statements.ts`). */
export const ENTRY_SELECT = `SELECT seq, uid, body, tokens, pinned, kept, created_at, window_body, window_tokens,
    repeat_of, late FROM messages`

/** The columns of {@link ENTRY_SELECT}. */
export const ENTRY_COLUMNS: ColumnsOf<MessageRow> = {
  seq: true,
  uid: true,
  body: true,
  tokens: true,
  pinned: true,
  kept: true,
  created_at: true,
  window_body: true,
  window_tokens: true,
  repeat_of: true,
  late: true,
}

/** A pinned message with its session and the latest pin event (who, when, why). */
const PINNED_SELECT = `SELECT s.id AS session_id, s.format, m.seq, m.uid, m.body, m.kept, s.boundary,
      e.actor, e.reason, e.at
    FROM messages m JOIN sessions s ON s.pk = m.session
    LEFT JOIN pin_events e ON e.id = (SELECT id FROM pin_events
      WHERE session = m.session AND seq = m.seq AND action = 'pin' ORDER BY id DESC LIMIT 1)`

const PINNED_COLUMNS: ColumnsOf<PinnedRow> = {
  session_id: true,
  format: true,
  seq: true,
  uid: true,
  body: true,
  kept: true,
  boundary: true,
  actor: true,
  reason: true,
  at: true,
}

export { LOG_CLOCK } from './log-clock.js'

/** What a summary is read with. */
const SUMMARY_SELECT = `SELECT id, uid, replaces, regenerates, from_boundary, to_boundary, seqs, message_count,
    body, tokens, model, prompt_hash, created_at, ended_at, end_reason FROM summaries`

const SUMMARY_COLUMNS: ColumnsOf<SummaryRow> = {
  id: true,
  uid: true,
  replaces: true,
  regenerates: true,
  from_boundary: true,
  to_boundary: true,
  seqs: true,
  message_count: true,
  body: true,
  tokens: true,
  model: true,
  prompt_hash: true,
  created_at: true,
  ended_at: true,
  end_reason: true,
}

/** A seq range `[from, to)` of one session: (session, from, to). */
type Range = [session: number, from: number, to: number]

/** Every statement of the store, by name. */
export const STATEMENTS = {
  ...VIEW_STATEMENTS,
  ...SEARCH_WRITE_STATEMENTS,
  ...RECALL_STATEMENTS,
  sessionById: rows<[id: string], SessionForAppendRow>(`${SESSION_SELECT} WHERE s.id = ?`, SESSION_COLUMNS),
  sessionByPk: rows<[pk: number], SessionForAppendRow>(`${SESSION_SELECT} WHERE s.pk = ?`, SESSION_COLUMNS),
  insertSession: write<
    [id: string, createdAt: number, updatedAt: number, metadata: string | null, format: string | null]
  >(
    `INSERT INTO sessions (id, created_at, updated_at, metadata, format, kept_count, kept_tokens)
    VALUES (?, ?, ?, ?, ?, 0, 0)`,
  ),
  sessionBoundary: write<[boundary: number, updatedAt: number, pk: number]>(
    'UPDATE sessions SET boundary = ?, updated_at = ?, version = version + 1 WHERE pk = ?',
  ),
  sessionTouch: write<[updatedAt: number, pk: number]>(
    'UPDATE sessions SET updated_at = ?, version = version + 1 WHERE pk = ?',
  ),
  setSessionLimits: write<[limits: string, pk: number]>('UPDATE sessions SET limits = ? WHERE pk = ?'),
  // An append's `sessionMetadata`: the caller's notes on the session, not the window (no version move).
  setSessionMetadata: write<[metadata: string, pk: number]>('UPDATE sessions SET metadata = ? WHERE pk = ?'),
  // The summary the window shows changes with the window: the version moves too.
  setSessionSummary: write<[summary: number | null, updatedAt: number, pk: number]>(
    'UPDATE sessions SET summary = ?, updated_at = ?, version = version + 1 WHERE pk = ?',
  ),
  insertSummary: write<
    [
      session: number,
      uid: string,
      replaces: number | null,
      regenerates: number | null,
      fromBoundary: number,
      toBoundary: number,
      seqs: string,
      messageCount: number,
      body: string,
      tokens: number,
      model: string | null,
      promptHash: string,
      createdAt: number,
      text: string | null,
    ]
  >(`INSERT INTO summaries (session, uid, replaces, regenerates, from_boundary, to_boundary, seqs, message_count,
      body, tokens, model, prompt_hash, created_at, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  endSummary: write<[at: number, reason: 'replaced' | 'regenerated' | 'dropped' | 'evicted', id: number]>(
    'UPDATE summaries SET ended_at = ?, end_reason = ? WHERE id = ?',
  ),
  reopenSummary: write<[id: number]>('UPDATE summaries SET ended_at = NULL, end_reason = NULL WHERE id = ?'),
  summaryById: rows<[session: number, id: number], SummaryRow>(
    `${SUMMARY_SELECT} WHERE session = ? AND id = ?`,
    SUMMARY_COLUMNS,
  ),
  summaryByUid: rows<[session: number, uid: string], SummaryRow>(
    `${SUMMARY_SELECT} WHERE session = ? AND uid = ?`,
    SUMMARY_COLUMNS,
  ),
  // Newest first: a session's summaries are few next to its messages (one per fold).
  summariesOf: rows<[session: number, limit: number], SummaryRow>(
    `${SUMMARY_SELECT} WHERE session = ? ORDER BY id DESC LIMIT ?`,
    SUMMARY_COLUMNS,
  ),
  summaryCount: value<[session: number], number>(
    'SELECT count(*) AS count FROM summaries WHERE session = ?',
    'count',
  ),
  setKeptTotals: write<[count: number, tokens: number, first: number | null, pk: number]>(
    'UPDATE sessions SET kept_count = ?, kept_tokens = ?, kept_first = ? WHERE pk = ?',
  ),
  allSessions: rows<[], SessionForAppendRow>(`${SESSION_SELECT} ORDER BY s.id`, SESSION_COLUMNS),

  insertMessage: write<
    [
      session: number,
      seq: number,
      uid: string,
      role: 'user' | 'assistant',
      body: string,
      tokens: number,
      cumTokens: number,
      pinned: number,
      plainUser: number,
      trimPoint: number,
      pairStart: number,
      hasToolUse: number,
      hasToolResult: number,
      createdAt: number,
      windowBody: string | null,
      windowTokens: number | null,
      repeatOf: number | null,
      late: number,
      text: string | null,
    ]
  >(`INSERT INTO messages (session, seq, uid, role, body, tokens, cum_tokens, pinned, kept,
      plain_user, trim_point, pair_start, has_tool_use, has_tool_result, created_at, window_body, window_tokens, repeat_of, late, text)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  messageByUid: rows<[session: number, uid: string], MessageRow>(
    `${ENTRY_SELECT} WHERE session = ? AND uid = ?`,
    ENTRY_COLUMNS,
  ),
  messageBySeq: rows<[session: number, seq: number], MessageRow>(
    `${ENTRY_SELECT} WHERE session = ? AND seq = ?`,
    ENTRY_COLUMNS,
  ),
  // The session's newest rows, newest first, with the trackingId a re-sent occurrence was sent under: what
  // a retried batch is compared with.
  newestRows: rows<[session: number, limit: number], NewestRow>(
    `SELECT m.seq, m.uid, m.body, m.tokens, m.pinned, m.kept, m.created_at, m.window_body, m.window_tokens,
      m.repeat_of, m.late, o.uid AS sent_as
    FROM messages m LEFT JOIN messages o ON o.session = m.session AND o.seq = m.repeat_of
    WHERE m.session = ? ORDER BY m.seq DESC LIMIT ?`,
    { ...ENTRY_COLUMNS, sent_as: true },
  ),
  idsAnsweredBy: value<[session: number, resultSeq: number], string>(
    'SELECT tool_use_id FROM tool_calls WHERE session = ? AND result_seq = ?',
    'tool_use_id',
  ),
  // The occurrences of a message sent again (rare: only a redaction asks; walks the session).
  repeatsOf: value<[session: number, seq: number], number>(
    'SELECT seq FROM messages WHERE session = ? AND repeat_of = ?',
    'seq',
  ),
  flagsBySeq: rows<[session: number, seq: number], FlagsRow>(
    'SELECT role, has_tool_use, has_tool_result, pinned, kept, plain_user FROM messages WHERE session = ? AND seq = ?',
    { role: true, has_tool_use: true, has_tool_result: true, pinned: true, kept: true, plain_user: true },
  ),
  setCutFlags: write<[trimPoint: number, pairStart: number, session: number, seq: number]>(
    'UPDATE messages SET trim_point = ?, pair_start = ? WHERE session = ? AND seq = ?',
  ),

  setPinned: write<[pinned: number, session: number, seq: number]>(
    'UPDATE messages SET pinned = ? WHERE session = ? AND seq = ?',
  ),
  // A row's recheck mark only means something while it is kept: both are written together.
  setKept: write<[kept: number, recheck: number, session: number, seq: number]>(
    'UPDATE messages SET kept = ?, recheck = ? WHERE session = ? AND seq = ?',
  ),
  setRecheck: write<[recheck: number, session: number, seq: number]>(
    'UPDATE messages SET recheck = ? WHERE session = ? AND seq = ?',
  ),
  history: rows<[session: number, fromSeq: number, limit: number], MessageRow>(
    `${ENTRY_SELECT} WHERE session = ? AND seq >= ? ORDER BY seq LIMIT ?`,
    ENTRY_COLUMNS,
  ),

  // The window: kept rows before the boundary, the summary (if any), then the tail, read in one statement
  // so that a concurrent writer cannot slip between the parts. The summary sorts just before the
  // session's boundary: after every kept row, before the tail. (Not before its own `to_boundary`: an
  // append may move the boundary past it and keep a pinned message it skipped.) ORDER BY costs nothing:
  // SQLite merges the parts, each already in order (MERGE (UNION ALL), no temporary B-tree).
  window: rows<[{ s: number }], WindowRow>(
    `SELECT seq, coalesce(window_body, body) AS body, pinned FROM messages
      WHERE session = @s AND kept = 1 AND seq < (SELECT boundary FROM sessions WHERE pk = @s)
    UNION ALL
    SELECT (SELECT boundary FROM sessions WHERE pk = @s) - 0.5 AS seq, body, 0 AS pinned FROM summaries
      WHERE id = (SELECT summary FROM sessions WHERE pk = @s)
    UNION ALL
    SELECT seq, coalesce(window_body, body) AS body, pinned FROM messages
      WHERE session = @s AND seq >= (SELECT boundary FROM sessions WHERE pk = @s)
    ORDER BY seq`,
    { seq: true, body: true, pinned: true },
  ),
  // The window forms of a set of seqs (what a summary is made from), one index seek each.
  windowRowsOfSeqs: rows<[{ s: number; seqs: string }], WindowRow>(
    `SELECT m.seq, coalesce(m.window_body, m.body) AS body, m.pinned
    FROM json_each(@seqs) j CROSS JOIN messages m ON m.session = @s AND m.seq = j.value`,
    { seq: true, body: true, pinned: true },
  ),
  // Kept marks in a seq range cleared: rows that become the tail again when a summary is dropped.
  unkeepRange: write<Range>(
    'UPDATE messages SET kept = 0, recheck = 0 WHERE session = ? AND kept = 1 AND seq >= ? AND seq < ?',
  ),
  setWindowBody: write<[body: string | null, tokens: number | null, session: number, seq: number]>(
    'UPDATE messages SET window_body = ?, window_tokens = ? WHERE session = ? AND seq = ?',
  ),
  setKeptTokens: write<[delta: number, pk: number]>(
    'UPDATE sessions SET kept_tokens = kept_tokens + ? WHERE pk = ? AND kept_tokens IS NOT NULL',
  ),
  insertToolCall: write<[session: number, toolUseId: string, name: string, useSeq: number]>(
    'INSERT INTO tool_calls (session, tool_use_id, name, use_seq) VALUES (?, ?, ?, ?)',
  ),
  // Whether a call with this id is still waiting for its result (a second one could never be told apart).
  openCallById: value<[session: number, toolUseId: string], 1>(
    `SELECT 1 AS found FROM tool_calls INDEXED BY tool_calls_open
    WHERE session = ? AND tool_use_id = ? AND result_seq IS NULL LIMIT 1`,
    'found',
  ),
  // Links a toolResult to the latest unanswered toolUse with its id, in one statement. INDEXED BY: without
  // statistics SQLite may prefer walking tool_calls_use, which reads every call of the session.
  answerToolCall: write<[resultSeq: number, status: 'success' | 'error', session: number, toolUseId: string]>(
    `UPDATE tool_calls SET result_seq = ?, status = ? WHERE id = (
    SELECT id FROM tool_calls INDEXED BY tool_calls_open
    WHERE session = ? AND tool_use_id = ? AND result_seq IS NULL ORDER BY use_seq DESC LIMIT 1)`,
  ),
  // Only for a result whose call is not waiting (rare): walks the session's calls, newest first.
  madeCall: value<[session: number, toolUseId: string], string>(
    'SELECT name FROM tool_calls WHERE session = ? AND tool_use_id = ? ORDER BY use_seq DESC LIMIT 1',
    'name',
  ),
  // Every call of the session still waiting for its result, in call order (normally those of the newest
  // call message: an append answers or repairs them); names for the repair row.
  openCalls: rows<[session: number], { tool_use_id: string; name: string }>(
    // The partial index of open calls: without it the planner walks every call of the session.
    'SELECT tool_use_id, name FROM tool_calls INDEXED BY tool_calls_open WHERE session = ? AND result_seq IS NULL ORDER BY id',
    { tool_use_id: true, name: true },
  ),
  setBody: write<[body: string, text: string | null, session: number, seq: number]>(
    'UPDATE messages SET body = ?, text = ?, window_body = NULL WHERE session = ? AND seq = ?',
  ),
  insertEdit: write<
    [
      session: number,
      seq: number,
      kind: 'edit' | 'redact',
      actor: string,
      reason: string | null,
      at: number,
      body: string | null,
    ]
  >(
    // With the log clock, as the pin log.
    `INSERT INTO message_edits (session, seq, kind, actor, reason, at, body, version)
    VALUES (?, ?, ?, ?, ?, ?, ?, ${LOG_CLOCK})`,
  ),
  eraseEditBodies: write<[session: number, seq: number]>(
    'UPDATE message_edits SET body = NULL WHERE session = ? AND seq = ?',
  ),
  edits: rows<[session: number], EditRow>(
    `SELECT e.seq, m.uid, e.kind, e.actor, e.reason, e.at, e.body FROM message_edits e
    JOIN messages m ON m.session = e.session AND m.seq = e.seq WHERE e.session = ? ORDER BY e.id`,
    { seq: true, uid: true, kind: true, actor: true, reason: true, at: true, body: true },
  ),

  insertPinEvent: write<
    [session: number, seq: number, action: 'pin' | 'unpin', actor: string, reason: string | null, at: number]
  >(
    // With the log clock (a branch inherits its ancestors' entries from before its fork: schema.ts).
    `INSERT INTO pin_events (session, seq, action, actor, reason, at, version)
    VALUES (?, ?, ?, ?, ?, ?, ${LOG_CLOCK})`,
  ),
  // One session's pins seek the partial pinned index; all sessions' pins walk it (only pinned rows).
  pinnedMessages: rows<[session: number], PinnedRow>(
    `${PINNED_SELECT} WHERE m.pinned = 1 AND m.session = ? ORDER BY m.seq`,
    PINNED_COLUMNS,
  ),
  allPinnedMessages: rows<[], PinnedRow>(
    `${PINNED_SELECT} WHERE m.pinned = 1 ORDER BY s.id, m.seq`,
    PINNED_COLUMNS,
  ),
  pinEvents: rows<[session: number], PinEventRow>(
    `SELECT s.id AS session_id, e.seq, m.uid, e.action, e.actor, e.reason, e.at
    FROM pin_events e JOIN sessions s ON s.pk = e.session
    JOIN messages m ON m.session = e.session AND m.seq = e.seq
    WHERE e.session = ? ORDER BY e.id`,
    { session_id: true, seq: true, uid: true, action: true, actor: true, reason: true, at: true },
  ),
}

/** The SQL text of every statement, by name, for tests of plans. */
export const STATEMENT_SQL = sqlTexts(STATEMENTS)

/** The statements as the store's operations call them: prepared on a connection, or answered from a snapshot. */
export type Statements = CallableAll<typeof STATEMENTS>

/**
 * Prepares every statement once for a connection.
 *
 * @param db - an open, migrated connection
 * @returns the prepared statements, by name
 */
export function prepareStatements(db: Database.Database): PreparedAll<typeof STATEMENTS> {
  return prepareAll(db, STATEMENTS)
}
