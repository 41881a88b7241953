/**
 * The SQL the command line runs beside the store's API, declared like the store's own
 * (`src/db/typed-statement.ts`): literal text, values always bound, each with its row type and columns
 * (a test compares them with what SQLite reports). Reads for `stats` use only what every schema version
 * has; the export reads name every column of a session's rows, so that an export restores the session
 * exactly (`import-statements.ts` holds the import's writes).
 */
import type Database from 'better-sqlite3'
import { prepareAll, rows, value, type PreparedAll } from '../db/typed-statement.js'

/** A session's size as `stats` reads it (every schema version has these columns). */
export interface SizeRow {
  id: string
  messages: number
  tokens: number
  created_at: number
  updated_at: number
  last_message_at: number | null
}

/** Every column of a `sessions` row but its key. */
export interface SessionExportRow {
  pk: number
  id: string
  created_at: number
  updated_at: number
  metadata: string | null
  boundary: number
  version: number
  kept_count: number | null
  kept_tokens: number | null
  kept_first: number | null
  summary: number | null
  limits: string | null
  /** The session's message format (null: `'strands'`). */
  format: string | null
}

/** Every column of a `messages` row but its key and session. */
export interface MessageExportRow {
  seq: number
  uid: string
  role: 'user' | 'assistant'
  body: string
  tokens: number
  cum_tokens: number
  pinned: number
  kept: number
  recheck: number
  plain_user: number
  trim_point: number
  pair_start: number
  has_tool_use: number
  has_tool_result: number
  created_at: number
  window_body: string | null
  window_tokens: number | null
  repeat_of: number | null
  late: number
}

/** Every column of a `tool_calls` row but its key and session. */
export interface ToolCallExportRow {
  tool_use_id: string
  name: string
  use_seq: number
  result_seq: number | null
  status: 'success' | 'error' | null
}

/** Every column of a `pin_events` row but its key and session. */
export interface PinEventExportRow {
  seq: number
  action: 'pin' | 'unpin'
  actor: string
  reason: string | null
  at: number
}

/** Every column of a `message_edits` row but its key and session. */
export interface EditExportRow {
  seq: number
  kind: 'edit' | 'redact'
  actor: string
  reason: string | null
  at: number
  body: string | null
}

/** Every column of a `summaries` row but its session. */
export interface SummaryExportRow {
  id: number
  uid: string
  replaces: number | null
  regenerates: number | null
  from_boundary: number
  to_boundary: number
  seqs: string
  message_count: number
  body: string
  tokens: number
  model: string | null
  prompt_hash: string
  created_at: number
  ended_at: number | null
  end_reason: 'replaced' | 'regenerated' | 'dropped' | 'evicted' | null
}

/** A message as `search` scans it. */
export interface SearchRow {
  session_id: string
  seq: number
  uid: string
  body: string
  created_at: number
  in_window: number
  /** The session's message format (null: `'strands'`). */
  format: string | null
}

/** How many rows of each table a session has. */
export interface CountsRow {
  tool_calls: number
  pin_events: number
  edits: number
  summaries: number
}

const MESSAGE_COLUMNS = {
  seq: true,
  uid: true,
  role: true,
  body: true,
  tokens: true,
  cum_tokens: true,
  pinned: true,
  kept: true,
  recheck: true,
  plain_user: true,
  trim_point: true,
  pair_start: true,
  has_tool_use: true,
  has_tool_result: true,
  created_at: true,
  window_body: true,
  window_tokens: true,
  repeat_of: true,
  late: true,
} as const

const SEARCH_COLUMNS = {
  session_id: true,
  seq: true,
  uid: true,
  body: true,
  created_at: true,
  in_window: true,
  format: true,
} as const

/** An eviction log row as `export` reads it. */
export interface EvictionExportRow {
  from_seq: number
  to_seq: number
  version: number
  at: number
  cut: string
  reason: string
  summary: number | null
}

/** The statements that read, by name. */
export const CLI_READS = {
  sessionPk: value<[id: string], number>('SELECT pk FROM sessions WHERE id = ?', 'pk'),
  // Whether the file has the full-text index and the eviction log (schema 9, migration 0008_recall).
  hasSearchIndex: value<[], number>(
    "SELECT 1 AS found FROM sqlite_schema WHERE type = 'table' AND name = 'search_index'",
    'found',
  ),
  hasEvictionLog: value<[], number>(
    "SELECT 1 AS found FROM sqlite_schema WHERE type = 'table' AND name = 'eviction_log'",
    'found',
  ),
  bodyBySeq: value<[session: number, seq: number], string>(
    'SELECT body FROM messages WHERE session = ? AND seq = ?',
    'body',
  ),
  summaryCounts: rows<[], { id: string; count: number }>(
    `SELECT s.id, count(x.id) AS count FROM sessions s JOIN summaries x ON x.session = s.pk GROUP BY s.pk`,
    { id: true, count: true },
  ),
  // The newest message of each session by its seq index: one seek per session, on every schema version.
  sizes: rows<[], SizeRow>(
    `SELECT s.id, coalesce(t.seq + 1, 0) AS messages, coalesce(t.cum_tokens, 0) AS tokens, s.created_at,
      s.updated_at, t.created_at AS last_message_at
    FROM sessions s LEFT JOIN messages t
      ON t.session = s.pk AND t.seq = (SELECT max(seq) FROM messages WHERE session = s.pk)
    ORDER BY s.id`,
    { id: true, messages: true, tokens: true, created_at: true, updated_at: true, last_message_at: true },
  ),
  // A scan of every body: a prefilter on the JSON text (the body as stored); the text itself is matched
  // in JavaScript. No full-text index exists yet.
  searchAll: rows<[pattern: string], SearchRow>(
    `SELECT s.id AS session_id, m.seq, m.uid, m.body, m.created_at, (m.seq >= s.boundary OR m.kept = 1) AS in_window,
      s.format
    FROM messages m JOIN sessions s ON s.pk = m.session
    WHERE m.body LIKE ? ESCAPE '\\' ORDER BY s.id, m.seq`,
    SEARCH_COLUMNS,
  ),
  searchSession: rows<[session: number, pattern: string], SearchRow>(
    `SELECT s.id AS session_id, m.seq, m.uid, m.body, m.created_at, (m.seq >= s.boundary OR m.kept = 1) AS in_window,
      s.format
    FROM messages m JOIN sessions s ON s.pk = m.session
    WHERE m.session = ? AND m.body LIKE ? ESCAPE '\\' ORDER BY m.seq`,
    SEARCH_COLUMNS,
  ),
  keptBefore: value<[session: number, boundary: number], number>(
    'SELECT seq FROM messages WHERE session = ? AND kept = 1 AND seq < ? ORDER BY seq',
    'seq',
  ),
  cumAt: value<[session: number, seq: number], number>(
    'SELECT cum_tokens FROM messages WHERE session = ? AND seq = ?',
    'cum_tokens',
  ),
  createdAt: value<[session: number, seq: number], number>(
    'SELECT created_at FROM messages WHERE session = ? AND seq = ?',
    'created_at',
  ),
  redactedIn: value<[session: number, from: number, to: number], number>(
    `SELECT count(DISTINCT seq) AS count FROM message_edits WHERE session = ? AND kind = 'redact'
    AND seq >= ? AND seq < ?`,
    'count',
  ),
  sessionIds: value<[], string>('SELECT id FROM sessions ORDER BY id', 'id'),
  exportSession: rows<[id: string], SessionExportRow>(
    `SELECT pk, id, created_at, updated_at, metadata, boundary, version, kept_count, kept_tokens, kept_first,
      summary, limits, format FROM sessions WHERE id = ?`,
    {
      pk: true,
      id: true,
      created_at: true,
      updated_at: true,
      metadata: true,
      boundary: true,
      version: true,
      kept_count: true,
      kept_tokens: true,
      kept_first: true,
      summary: true,
      limits: true,
      format: true,
    },
  ),
  exportCounts: rows<[{ s: number }], CountsRow>(
    `SELECT (SELECT count(*) FROM tool_calls WHERE session = @s) AS tool_calls,
      (SELECT count(*) FROM pin_events WHERE session = @s) AS pin_events,
      (SELECT count(*) FROM message_edits WHERE session = @s) AS edits,
      (SELECT count(*) FROM summaries WHERE session = @s) AS summaries`,
    { tool_calls: true, pin_events: true, edits: true, summaries: true },
  ),
  messageCount: value<[session: number], number>(
    'SELECT coalesce(max(seq) + 1, 0) AS count FROM messages WHERE session = ?',
    'count',
  ),
  exportMessages: rows<[session: number], MessageExportRow>(
    `SELECT seq, uid, role, body, tokens, cum_tokens, pinned, kept, recheck, plain_user, trim_point, pair_start,
      has_tool_use, has_tool_result, created_at, window_body, window_tokens, repeat_of, late
    FROM messages WHERE session = ? ORDER BY seq`,
    MESSAGE_COLUMNS,
  ),
  exportToolCalls: rows<[session: number], ToolCallExportRow>(
    'SELECT tool_use_id, name, use_seq, result_seq, status FROM tool_calls WHERE session = ? ORDER BY id',
    { tool_use_id: true, name: true, use_seq: true, result_seq: true, status: true },
  ),
  // The session's eviction log in key order (none on a file from before it: see hasEvictionLog).
  exportEvictions: rows<[session: number], EvictionExportRow>(
    'SELECT from_seq, to_seq, version, at, cut, reason, summary FROM eviction_log WHERE session = ? ORDER BY to_seq, version DESC',
    { from_seq: true, to_seq: true, version: true, at: true, cut: true, reason: true, summary: true },
  ),
  exportPinEvents: rows<[session: number], PinEventExportRow>(
    'SELECT seq, action, actor, reason, at FROM pin_events WHERE session = ? ORDER BY id',
    { seq: true, action: true, actor: true, reason: true, at: true },
  ),
  exportEdits: rows<[session: number], EditExportRow>(
    'SELECT seq, kind, actor, reason, at, body FROM message_edits WHERE session = ? ORDER BY id',
    { seq: true, kind: true, actor: true, reason: true, at: true, body: true },
  ),
  exportSummaries: rows<[session: number], SummaryExportRow>(
    `SELECT id, uid, replaces, regenerates, from_boundary, to_boundary, seqs, message_count, body, tokens, model,
      prompt_hash, created_at, ended_at, end_reason FROM summaries WHERE session = ? ORDER BY id`,
    {
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
    },
  ),
}

/** The read statements, prepared. */
export type CliReads = PreparedAll<typeof CLI_READS>

/**
 * Prepares the read statements (a file at this version's schema).
 *
 * @param db - the connection
 * @returns them
 */
export function prepareReads(db: Database.Database): CliReads {
  return prepareAll(db, CLI_READS)
}
