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

const SEARCH_COLUMNS = {
  session_id: true,
  seq: true,
  uid: true,
  body: true,
  created_at: true,
  in_window: true,
  format: true,
} as const

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
