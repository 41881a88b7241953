/**
 * The SQL the checker runs beside the store's read API, for the ledger's own bookkeeping (columns the
 * API does not return: running token sums, the derived flags, the tool-call links, the pin log's last
 * word, the session's JSON columns), declared like the store's statements (`src/db/typed-statement.ts`):
 * literal text, values bound, each with its row type and columns. Every one reads what the current
 * schema has; none reads a body but where the API could not parse one.
 */
import type { EvictionRow } from '../db/rows.js'
import { rows, value } from '../db/typed-statement.js'

/** A session's row as the checker reads it. */
export interface CheckSessionRow {
  pk: number
  boundary: number
  summary: number | null
  kept_count: number | null
  kept_tokens: number | null
  limits: string | null
  metadata: string | null
  format: string | null
}

/** A message's bookkeeping columns (no body). */
export interface CheckMessageRow {
  seq: number
  role: string
  tokens: number
  cum_tokens: number
  pinned: number
  kept: number
  plain_user: number
  trim_point: number
  pair_start: number
  has_tool_use: number
  has_tool_result: number
  window_tokens: number | null
  late: number
}

/** A message's stored texts, read where the API could not parse them. */
export interface CheckBodyRow {
  seq: number
  uid: string
  role: string
  body: string
  window_body: string | null
  pinned: number
  kept: number
}

/** A tool-call link. */
export interface CheckToolCallRow {
  id: number
  tool_use_id: string
  name: string
  use_seq: number
  result_seq: number | null
  status: string | null
}

/** A pin event. */
export interface CheckPinEventRow {
  id: number
  seq: number
  action: string
  actor: string
  reason: string | null
}

/** An edit log row (`body`: the edited form; null for a redaction). */
export interface CheckEditRow {
  id: number
  seq: number
  kind: string
  body: string | null
}

/** The last pin event of a message. */
export interface CheckPinRow {
  seq: number
  action: string
}

/** A summary's stored JSON, read where the API could not parse it. */
export interface CheckSummaryRow {
  id: number
  seqs: string
  body: string
}

/** The statements, by name. */
export const CHECK_READS = {
  hasEvictionLog: value<[], number>(
    "SELECT 1 AS found FROM sqlite_schema WHERE type = 'table' AND name = 'eviction_log'",
    'found',
  ),
  sessionVersion: value<[pk: number], number>('SELECT version FROM sessions WHERE pk = ?', 'version'),
  sessionKind: value<[pk: number], string>('SELECT kind FROM sessions WHERE pk = ?', 'kind'),
  summaryIds: value<[session: number], number>('SELECT id FROM summaries WHERE session = ?', 'id'),
  // Each summary's own folded seqs (JSON half-open ranges), for the fold rows of the eviction log.
  // A branch's inherited summaries, as `summaries()` lists them: the one it showed at the fork and the
  // chains below it and below each of its own summaries (the ancestors' summaries they replaced or
  // regenerated — a rewind's abandoned branch owns the summary that replaced one the session kept): its
  // fold rows may name them (a rewind hands the abandoned branch such rows).
  inheritedSummarySeqs: rows<[session: number], { id: number; seqs: string }>(
    `WITH RECURSIVE me (pk) AS (SELECT ?), chain (id) AS (
      SELECT fork_summary FROM sessions JOIN me USING (pk) WHERE fork_summary IS NOT NULL
      UNION
      SELECT x.replaces FROM summaries x JOIN me ON x.session = me.pk WHERE x.replaces IS NOT NULL
      UNION
      SELECT x.regenerates FROM summaries x JOIN me ON x.session = me.pk WHERE x.regenerates IS NOT NULL
      UNION
      SELECT x.replaces FROM chain JOIN summaries x ON x.id = chain.id WHERE x.replaces IS NOT NULL
      UNION
      SELECT x.regenerates FROM chain JOIN summaries x ON x.id = chain.id WHERE x.regenerates IS NOT NULL)
    SELECT x.id, x.seqs FROM chain JOIN summaries x ON x.id = chain.id`,
    { id: true, seqs: true },
  ),
  summarySeqs: rows<[session: number], { id: number; seqs: string }>(
    'SELECT id, seqs FROM summaries WHERE session = ?',
    { id: true, seqs: true },
  ),
  // The latest append time among a run's messages (null when none is left: pruned).
  runCreatedAt: value<[session: number, from: number, to: number], number | null>(
    'SELECT max(created_at) AS at FROM messages WHERE session = ? AND seq >= ? AND seq <= ?',
    'at',
  ),
  evictions: rows<[session: number], EvictionRow>(
    'SELECT from_seq, to_seq, version, at, cut, reason, summary FROM eviction_log WHERE session = ? ORDER BY to_seq, version DESC',
    { from_seq: true, to_seq: true, version: true, at: true, cut: true, reason: true, summary: true },
  ),
  session: rows<[id: string], CheckSessionRow>(
    'SELECT pk, boundary, summary, kept_count, kept_tokens, limits, metadata, format FROM sessions WHERE id = ?',
    {
      pk: true,
      boundary: true,
      summary: true,
      kept_count: true,
      kept_tokens: true,
      limits: true,
      metadata: true,
      format: true,
    },
  ),
  messages: rows<[session: number], CheckMessageRow>(
    `SELECT seq, role, tokens, cum_tokens, pinned, kept, plain_user, trim_point, pair_start, has_tool_use,
      has_tool_result, window_tokens, late FROM messages WHERE session = ? ORDER BY seq`,
    {
      seq: true,
      role: true,
      tokens: true,
      cum_tokens: true,
      pinned: true,
      kept: true,
      plain_user: true,
      trim_point: true,
      pair_start: true,
      has_tool_use: true,
      has_tool_result: true,
      window_tokens: true,
      late: true,
    },
  ),
  bodies: rows<[session: number, from: number, to: number], CheckBodyRow>(
    `SELECT seq, uid, role, body, window_body, pinned, kept FROM messages
    WHERE session = ? AND seq >= ? AND seq < ? ORDER BY seq`,
    { seq: true, uid: true, role: true, body: true, window_body: true, pinned: true, kept: true },
  ),
  toolCalls: rows<[session: number], CheckToolCallRow>(
    'SELECT id, tool_use_id, name, use_seq, result_seq, status FROM tool_calls WHERE session = ? ORDER BY id',
    { id: true, tool_use_id: true, name: true, use_seq: true, result_seq: true, status: true },
  ),
  pinEvents: rows<[session: number], CheckPinEventRow>(
    'SELECT id, seq, action, actor, reason FROM pin_events WHERE session = ? ORDER BY id',
    { id: true, seq: true, action: true, actor: true, reason: true },
  ),
  edits: rows<[session: number], CheckEditRow>(
    'SELECT id, seq, kind, body FROM message_edits WHERE session = ? ORDER BY id',
    { id: true, seq: true, kind: true, body: true },
  ),
  // How many rows of a log come before a row: its place among the export's lines of that log.
  toolCallsBefore: value<[session: number, id: number], number>(
    'SELECT count(*) AS n FROM tool_calls WHERE session = ? AND id < ?',
    'n',
  ),
  pinEventsBefore: value<[session: number, id: number], number>(
    'SELECT count(*) AS n FROM pin_events WHERE session = ? AND id < ?',
    'n',
  ),
  editsBefore: value<[session: number, id: number], number>(
    'SELECT count(*) AS n FROM message_edits WHERE session = ? AND id < ?',
    'n',
  ),
  // The newest event of each message that has one, by the pin log's index.
  lastPins: rows<[session: number], CheckPinRow>(
    `SELECT e.seq, e.action FROM pin_events e WHERE e.session = ?
      AND e.id = (SELECT max(id) FROM pin_events WHERE session = e.session AND seq = e.seq)
    ORDER BY e.seq`,
    { seq: true, action: true },
  ),
  duplicateUids: value<[session: number], string>(
    'SELECT uid FROM messages WHERE session = ? GROUP BY uid HAVING count(*) > 1',
    'uid',
  ),
  summaries: rows<[session: number], CheckSummaryRow>(
    'SELECT id, seqs, body FROM summaries WHERE session = ? ORDER BY id',
    { id: true, seqs: true, body: true },
  ),
}
