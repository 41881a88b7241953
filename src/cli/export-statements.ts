/**
 * The SQL `export` reads a session with, declared like the store's own statements
 * (`src/db/typed-statement.ts`): every column of each of the session's rows, so that an import restores it
 * exactly — its place in a tree of branches and its own state on the rows it inherits included.
 */
import { rows, value } from '../db/typed-statement.js'

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
  /** The parent's id (null for a root) and the other columns of a fork (docs/design.md, "Branches"). */
  parent_id: string | null
  fork_seq: number | null
  kind: 'root' | 'fork' | 'abandoned'
  forked_at: number | null
  fork_actor: string | null
  fork_reason: string | null
  fork_version: number | null
  fork_tokens: number | null
  fork_trim_point: number | null
  fork_pair_start: number | null
  fork_summary: number | null
  fork_summary_ended_at: number | null
  fork_summary_end_reason: 'replaced' | 'regenerated' | 'dropped' | 'evicted' | null
}

/** A branch's own state on a row it inherits (every column of `branch_rows` but its keys and owner). */
export interface BranchRowExportRow {
  seq: number
  pinned: number
  kept: number
  recheck: number
  window_body: string | null
  window_tokens: number | null
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
  version: number | null
}

/** Every column of a `message_edits` row but its key and session. */
export interface EditExportRow {
  seq: number
  kind: 'edit' | 'redact'
  actor: string
  reason: string | null
  at: number
  body: string | null
  version: number | null
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

/** An eviction log row as `export` reads it. */
export interface EvictionExportRow {
  from_seq: number
  to_seq: number
  version: number
  at: number
  cut: string
  reason: string
  summary: number | null
  /** The log clock it was written at (null: before branches). */
  clock: number | null
}

/** The statements `export` reads with, by name. */
export const EXPORT_READS = {
  exportSession: rows<[id: string], SessionExportRow>(
    `SELECT s.pk, s.id, s.created_at, s.updated_at, s.metadata, s.boundary, s.version, s.kept_count,
      s.kept_tokens, s.kept_first, s.summary, s.limits, s.format, p.id AS parent_id, s.fork_seq, s.kind,
      s.forked_at, s.fork_actor, s.fork_reason, s.fork_version, s.fork_tokens, s.fork_trim_point,
      s.fork_pair_start, s.fork_summary, s.fork_summary_ended_at, s.fork_summary_end_reason
    FROM sessions s LEFT JOIN sessions p ON p.pk = s.parent WHERE s.id = ?`,
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
      parent_id: true,
      fork_seq: true,
      kind: true,
      forked_at: true,
      fork_actor: true,
      fork_reason: true,
      fork_version: true,
      fork_tokens: true,
      fork_trim_point: true,
      fork_pair_start: true,
      fork_summary: true,
      fork_summary_ended_at: true,
      fork_summary_end_reason: true,
    },
  ),
  // A summary by its id, named as an export names a summary of another session: its session and uid.
  summaryName: rows<[id: number], { session_id: string; uid: string }>(
    'SELECT s.id AS session_id, x.uid FROM summaries x JOIN sessions s ON s.pk = x.session WHERE x.id = ?',
    { session_id: true, uid: true },
  ),
  // A session's id by its key (the abandoned branch a rewind's row names).
  sessionIdByPk: value<[pk: number], string>('SELECT id FROM sessions WHERE pk = ?', 'id'),
  // The whole tree below a session (itself first), parents before children, children by when they were made.
  subtree: rows<[pk: number], { id: string; parent: number | null; pk: number }>(
    `WITH RECURSIVE d (pk, path) AS (
      SELECT ?, ''
      UNION ALL
      SELECT s.pk, d.path || printf('%020d.%020d/', coalesce(s.forked_at, 0), s.pk)
      FROM sessions s JOIN d ON s.parent = d.pk)
    SELECT s.id, s.parent, s.pk FROM d JOIN sessions s ON s.pk = d.pk ORDER BY d.path`,
    { id: true, parent: true, pk: true },
  ),
  exportBranchRows: rows<[session: number], BranchRowExportRow>(
    'SELECT seq, pinned, kept, recheck, window_body, window_tokens FROM branch_rows WHERE session = ? ORDER BY seq',
    { seq: true, pinned: true, kept: true, recheck: true, window_body: true, window_tokens: true },
  ),
  branchRowCount: value<[session: number], number>(
    'SELECT count(*) AS n FROM branch_rows WHERE session = ?',
    'n',
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
    'SELECT from_seq, to_seq, version, at, cut, reason, summary, clock FROM eviction_log WHERE session = ? ORDER BY to_seq, version DESC',
    {
      from_seq: true,
      to_seq: true,
      version: true,
      at: true,
      cut: true,
      reason: true,
      summary: true,
      clock: true,
    },
  ),
  exportPinEvents: rows<[session: number], PinEventExportRow>(
    'SELECT seq, action, actor, reason, at, version FROM pin_events WHERE session = ? ORDER BY id',
    { seq: true, action: true, actor: true, reason: true, at: true, version: true },
  ),
  exportEdits: rows<[session: number], EditExportRow>(
    'SELECT seq, kind, actor, reason, at, body, version FROM message_edits WHERE session = ? ORDER BY id',
    { seq: true, kind: true, actor: true, reason: true, at: true, body: true, version: true },
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
