/**
 * The statements of branches (docs/design.md, "Branches"), declared like those of `statements.ts` and
 * prepared with them on a SQLite connection: the lineage of a session, the fork's writes, and a branch's
 * own state on the rows it inherits (`branch_rows`). A trunk session never runs one of them on its hot
 * paths; `src/store/branches/` answers the store's statements for a branch with them.
 */
import type Database from 'better-sqlite3'
import type { CorrectionRow, LinkRow, WindowRow } from './rows.js'
import { prepareAll, rows, value, write, type PreparedAll } from './typed-statement.js'
import { TICK_LOG_CLOCK } from './log-clock.js'
import { REWIND_LOG_STATEMENTS } from './rewind-log-statements.js'
import { TREE_STATEMENTS } from './tree-statements.js'

/** One session of a lineage, the branch itself first (depth 0), its root last. */
export interface LineageRow {
  pk: number
  parent: number | null
  fork_seq: number | null
  fork_version: number | null
  fork_trim_point: number | null
  fork_pair_start: number | null
  depth: number
}

/** A branch's state on one inherited row (`branch_rows`). */
export interface BranchRow {
  seq: number
  owner: number
  pinned: number
  kept: number
  recheck: number
  window_body: string | null
  window_tokens: number | null
  /** The owner's row's own tokens. */
  tokens: number
}

/** One session of a tree, as `branches()` lists it. */
export interface TreeRow {
  pk: number
  id: string
  parent: number | null
  fork_seq: number | null
  kind: 'root' | 'fork' | 'abandoned'
  created_at: number
  forked_at: number | null
  fork_actor: string | null
  fork_reason: string | null
  /** The newest own seq, or null without own rows. */
  last_seq: number | null
}

/** A log entry of one session (edits or pins), before its trackingId is looked up. */
export interface LogEntryRow {
  id: number
  seq: number
  kind: string
  actor: string
  reason: string | null
  at: number
  body: string | null
}

/** A call still waiting at a seq, or answered after it: what a fork copies into the branch. */
export interface CallRow {
  tool_use_id: string
  name: string
  use_seq: number
  result_seq: number | null
  status: 'success' | 'error' | null
}

const BRANCH_ROW_COLUMNS = {
  seq: true,
  owner: true,
  pinned: true,
  kept: true,
  recheck: true,
  window_body: true,
  window_tokens: true,
  tokens: true,
} as const

const BRANCH_ROW_SELECT = `SELECT o.seq, o.owner, o.pinned, o.kept, o.recheck, o.window_body, o.window_tokens, m.tokens
  FROM branch_rows o JOIN messages m ON m.session = o.owner AND m.seq = o.seq`

/** The boundary of session @s, as a subquery. */
const BOUNDARY = '(SELECT boundary FROM sessions WHERE pk = @s)'

/** An inherited row with its owner's message: the window form the branch shows. */
const SHOWN = `SELECT o.seq, coalesce(o.window_body, m.body) AS body, o.pinned FROM branch_rows o
    JOIN messages m ON m.session = o.owner AND m.seq = o.seq`

/** The sessions below @owner that see its row @seq (each child forked at or after it, recursively). */
const SEEING = `WITH RECURSIVE d (pk) AS (
    SELECT pk FROM sessions WHERE parent = @owner AND fork_seq >= @seq
    UNION ALL
    SELECT s.pk FROM sessions s JOIN d ON s.parent = d.pk WHERE s.fork_seq >= @seq)`

/** An upsert of one branch row: a new one starts from the owner's window form, unpinned and not kept. */
function upsert(set: string, values: string): string {
  return `INSERT INTO branch_rows (session, seq, owner, pinned, kept, recheck, window_body, window_tokens)
    SELECT @s, @seq, @owner, ${values}, m.window_body, m.window_tokens FROM messages m
    WHERE m.session = @owner AND m.seq = @seq
    ON CONFLICT (session, seq) DO UPDATE SET ${set}`
}

/** A branch, a seq and the session that owns the row. */
type RowKey = { s: number; seq: number; owner: number }

/** Every branch statement, by name (the fork's and the rewind's writes in `tree-statements.ts`). */
export const BRANCH_STATEMENTS = {
  ...TREE_STATEMENTS,
  ...REWIND_LOG_STATEMENTS,
  // The session and its ancestors up to the root (the depth bound stops a cycle an import left).
  lineage: rows<[pk: number], LineageRow>(
    `WITH RECURSIVE up (pk, parent, fork_seq, fork_version, fork_trim_point, fork_pair_start, depth) AS (
      SELECT pk, parent, fork_seq, fork_version, fork_trim_point, fork_pair_start, 0 FROM sessions WHERE pk = ?
      UNION ALL
      SELECT s.pk, s.parent, s.fork_seq, s.fork_version, s.fork_trim_point, s.fork_pair_start, up.depth + 1
      FROM up JOIN sessions s ON s.pk = up.parent WHERE up.depth < 100000)
    SELECT pk, parent, fork_seq, fork_version, fork_trim_point, fork_pair_start, depth FROM up ORDER BY depth`,
    {
      pk: true,
      parent: true,
      fork_seq: true,
      fork_version: true,
      fork_trim_point: true,
      fork_pair_start: true,
      depth: true,
    },
  ),
  boundaryOf: value<[pk: number], number>('SELECT boundary FROM sessions WHERE pk = ?', 'boundary'),
  // The branches pinning rows they inherit (for listings of every session's pins).
  branchesWithPins: value<[], number>('SELECT DISTINCT session FROM branch_rows WHERE pinned = 1', 'session'),
  // Whether a session is a branch (a root's parent is null; no row: undefined).
  parentOf: value<[pk: number], number | null>('SELECT parent FROM sessions WHERE pk = ?', 'parent'),
  // The whole tree below a session (itself included), each with its own newest seq.
  tree: rows<[pk: number], TreeRow>(
    `WITH RECURSIVE d (pk) AS (SELECT ? UNION ALL SELECT s.pk FROM sessions s JOIN d ON s.parent = d.pk)
    SELECT s.pk, s.id, s.parent, s.fork_seq, s.kind, s.created_at, s.forked_at, s.fork_actor, s.fork_reason,
      (SELECT seq FROM messages WHERE session = s.pk ORDER BY seq DESC LIMIT 1) AS last_seq
    FROM d JOIN sessions s ON s.pk = d.pk`,
    {
      pk: true,
      id: true,
      parent: true,
      fork_seq: true,
      kind: true,
      created_at: true,
      forked_at: true,
      fork_actor: true,
      fork_reason: true,
      last_seq: true,
    },
  ),
  // A new branch's fork clock: the log clock, bumped (so entries written from now on are not the branch's).
  tickClock: value<[], number>(TICK_LOG_CLOCK, 'log_clock'),
  setForkFlags: write<[trim: number, pair: number, pk: number]>(
    'UPDATE sessions SET fork_trim_point = ?, fork_pair_start = ? WHERE pk = ?',
  ),
  endForkSummary: write<[at: number, reason: 'replaced' | 'regenerated' | 'dropped' | 'evicted', pk: number]>(
    'UPDATE sessions SET fork_summary_ended_at = ?, fork_summary_end_reason = ? WHERE pk = ?',
  ),
  // The inherited summary the branch shows (again): an ancestor's, not ended in the branch.
  setForkSummary: write<[id: number, pk: number]>(
    `UPDATE sessions SET fork_summary = ?, fork_summary_ended_at = NULL, fork_summary_end_reason = NULL
    WHERE pk = ?`,
  ),
  forkSummaryOf: rows<
    [pk: number],
    { fork_summary: number | null; ended_at: number | null; end_reason: string | null }
  >(
    `SELECT fork_summary, fork_summary_ended_at AS ended_at, fork_summary_end_reason AS end_reason
    FROM sessions WHERE pk = ?`,
    { fork_summary: true, ended_at: true, end_reason: true },
  ),
  summaryOwner: value<[id: number], number>('SELECT session FROM summaries WHERE id = ?', 'session'),

  // A branch's rows, as the store's statements read them for it.
  branchRowsIn: rows<[session: number, from: number, to: number], BranchRow>(
    `${BRANCH_ROW_SELECT} WHERE o.session = ? AND o.seq >= ? AND o.seq < ? ORDER BY o.seq`,
    BRANCH_ROW_COLUMNS,
  ),
  branchRowsOf: rows<[{ s: number; seqs: string }], BranchRow>(
    `SELECT o.seq, o.owner, o.pinned, o.kept, o.recheck, o.window_body, o.window_tokens, m.tokens
    FROM json_each(@seqs) j CROSS JOIN branch_rows o ON o.session = @s AND o.seq = j.value
    JOIN messages m ON m.session = o.owner AND m.seq = o.seq`,
    BRANCH_ROW_COLUMNS,
  ),
  branchKeptSeqs: value<[session: number], number>(
    'SELECT seq FROM branch_rows WHERE session = ? AND kept = 1 ORDER BY seq',
    'seq',
  ),
  branchKeptTotals: rows<[session: number], { count: number; tokens: number }>(
    `SELECT count(*) AS count, coalesce(sum(coalesce(o.window_tokens, m.tokens)), 0) AS tokens
    FROM branch_rows o JOIN messages m ON m.session = o.owner AND m.seq = o.seq
    WHERE o.session = ? AND o.kept = 1`,
    { count: true, tokens: true },
  ),
  branchRecheckSeqs: value<[session: number], number>(
    'SELECT seq FROM branch_rows WHERE session = ? AND recheck = 1 ORDER BY seq',
    'seq',
  ),
  branchFirstSettled: value<[session: number], number>(
    'SELECT seq FROM branch_rows WHERE session = ? AND kept = 1 AND recheck = 0 ORDER BY seq LIMIT 1',
    'seq',
  ),
  branchPinnedIn: value<[session: number, from: number, to: number], number>(
    'SELECT seq FROM branch_rows WHERE session = ? AND pinned = 1 AND seq >= ? AND seq < ? ORDER BY seq',
    'seq',
  ),
  branchCorrections: rows<[session: number, from: number, to: number], CorrectionRow>(
    `SELECT o.seq, o.window_tokens - m.tokens AS delta FROM branch_rows o
    JOIN messages m ON m.session = o.owner AND m.seq = o.seq
    WHERE o.session = ? AND o.window_tokens IS NOT NULL AND o.seq >= ? AND o.seq < ? ORDER BY o.seq`,
    { seq: true, delta: true },
  ),
  // The window of a branch: its kept rows and tail among the inherited rows (each has a branch row), its
  // own kept rows, the summary, its own tail; one statement, like the trunk's.
  branchWindow: rows<[{ s: number }], WindowRow>(
    `${SHOWN} WHERE o.session = @s AND o.kept = 1 AND o.seq < ${BOUNDARY}
    UNION ALL
    ${SHOWN} WHERE o.session = @s AND o.seq >= ${BOUNDARY}
    UNION ALL
    SELECT seq, coalesce(window_body, body) AS body, pinned FROM messages
      WHERE session = @s AND kept = 1 AND seq < ${BOUNDARY}
    UNION ALL
    SELECT ${BOUNDARY} - 0.5 AS seq, body, 0 AS pinned FROM summaries
      WHERE id = (SELECT summary FROM sessions WHERE pk = @s)
    UNION ALL
    SELECT seq, coalesce(window_body, body) AS body, pinned FROM messages WHERE session = @s AND seq >= ${BOUNDARY}
    ORDER BY seq`,
    { seq: true, body: true, pinned: true },
  ),

  setBranchPinned: write<[RowKey & { pinned: number }]>(upsert('pinned = excluded.pinned', '@pinned, 0, 0')),
  setBranchKept: write<[RowKey & { kept: number; recheck: number }]>(
    upsert('kept = excluded.kept, recheck = excluded.recheck', '0, @kept, @recheck'),
  ),
  setBranchRecheck: write<[RowKey & { recheck: number }]>(
    upsert('recheck = excluded.recheck', '0, 0, @recheck'),
  ),
  setBranchWindowBody: write<[RowKey & { body: string | null; tokens: number | null }]>(
    `INSERT INTO branch_rows (session, seq, owner, window_body, window_tokens) VALUES (@s, @seq, @owner, @body, @tokens)
    ON CONFLICT (session, seq) DO UPDATE SET window_body = excluded.window_body, window_tokens = excluded.window_tokens`,
  ),
  deleteBranchRows: write<[session: number]>('DELETE FROM branch_rows WHERE session = ?'),
  unkeepBranchRange: write<[session: number, from: number, to: number]>(
    'UPDATE branch_rows SET kept = 0, recheck = 0 WHERE session = ? AND kept = 1 AND seq >= ? AND seq < ?',
  ),
  // Before an owner changes the window form of its row: every session below that sees the row without a
  // branch row of its own gets one holding the form it saw (one seek when the owner has no children).
  copyDownWindowBody: write<[{ owner: number; seq: number }]>(
    `${SEEING}
    INSERT OR IGNORE INTO branch_rows (session, seq, owner, window_body, window_tokens)
    SELECT d.pk, @seq, @owner, m.window_body, m.window_tokens FROM d JOIN messages m ON m.session = @owner AND m.seq = @seq`,
  ),
  // A redaction erases the row's bytes for every session that sees it: their window forms and edits.
  clearBranchWindowBodies: write<[owner: number, seq: number]>(
    'UPDATE branch_rows SET window_body = NULL, window_tokens = NULL WHERE owner = ? AND seq = ?',
  ),
  eraseSeeingEditBodies: write<[{ owner: number; seq: number }]>(
    `${SEEING}
    UPDATE message_edits SET body = NULL WHERE seq = @seq AND session IN (SELECT pk FROM d)`,
  ),
  // The sessions whose kept totals a redaction may have changed (a kept row with another window form).
  seeingKept: value<[owner: number, seq: number], number>(
    'SELECT session FROM branch_rows WHERE owner = ? AND seq = ? AND kept = 1',
    'session',
  ),
  forgetKeptTotals: write<[pk: number]>(
    'UPDATE sessions SET kept_count = NULL, kept_tokens = NULL WHERE pk = ?',
  ),

  // Tool calls a lineage session holds: answered within its part of the conversation ([lo, hi]).
  linksOfUsesHeld: rows<[{ s: number; seqs: string; lo: number; hi: number }], LinkRow>(
    `SELECT t.use_seq, t.result_seq FROM json_each(@seqs) j
    CROSS JOIN tool_calls t INDEXED BY tool_calls_use ON t.session = @s AND t.use_seq = j.value
    WHERE t.result_seq >= @lo AND t.result_seq <= @hi`,
    { use_seq: true, result_seq: true },
  ),
  crossingResultsHeld: value<[{ s: number; from: number; to: number; lo: number; hi: number }], number>(
    `SELECT result_seq FROM tool_calls WHERE session = @s AND use_seq >= @from AND use_seq < @to
    AND result_seq >= @lo AND result_seq <= @hi AND (result_seq < @from OR result_seq >= @to)`,
    'result_seq',
  ),
  madeCallUpTo: value<[session: number, toolUseId: string, maxUse: number], string>(
    `SELECT name FROM tool_calls WHERE session = ? AND tool_use_id = ? AND use_seq <= ?
    ORDER BY use_seq DESC LIMIT 1`,
    'name',
  ),
  // The calls a session holds that wait at @f: made up to it and answered after it, or not yet.
  callsOpenNow: rows<[{ s: number; f: number }], CallRow & { id: number }>(
    `SELECT id, tool_use_id, name, use_seq, result_seq, status FROM tool_calls INDEXED BY tool_calls_open
    WHERE session = @s AND result_seq IS NULL AND use_seq <= @f ORDER BY id`,
    { id: true, tool_use_id: true, name: true, use_seq: true, result_seq: true, status: true },
  ),
  callsAnsweredAfter: rows<[{ s: number; f: number }], CallRow & { id: number }>(
    `SELECT id, tool_use_id, name, use_seq, result_seq, status FROM tool_calls INDEXED BY tool_calls_answered
    WHERE session = @s AND result_seq > @f AND use_seq <= @f ORDER BY id`,
    { id: true, tool_use_id: true, name: true, use_seq: true, result_seq: true, status: true },
  ),
  insertCall: write<
    [
      session: number,
      toolUseId: string,
      name: string,
      useSeq: number,
      resultSeq: number | null,
      status: string | null,
    ]
  >(
    'INSERT INTO tool_calls (session, tool_use_id, name, use_seq, result_seq, status) VALUES (?, ?, ?, ?, ?, ?)',
  ),

  // A lineage session's log entries about seqs up to @maxSeq written up to clock @maxVersion (entries from
  // before the clock was recorded have none: they are older than every branch).
  editsUpTo: rows<[session: number, maxSeq: number, maxVersion: number], LogEntryRow>(
    `SELECT id, seq, kind, actor, reason, at, body FROM message_edits
    WHERE session = ? AND seq <= ? AND coalesce(version, 0) <= ? ORDER BY id`,
    { id: true, seq: true, kind: true, actor: true, reason: true, at: true, body: true },
  ),
  pinEventsUpTo: rows<[session: number, maxSeq: number, maxVersion: number], LogEntryRow>(
    `SELECT id, seq, action AS kind, actor, reason, at, NULL AS body FROM pin_events
    WHERE session = ? AND seq <= ? AND coalesce(version, 0) <= ? ORDER BY id`,
    { id: true, seq: true, kind: true, actor: true, reason: true, at: true, body: true },
  ),
}

/** The branch statements, prepared. */
export type BranchStatements = PreparedAll<typeof BRANCH_STATEMENTS>

/**
 * Prepares every branch statement once for a connection.
 *
 * @param db - an open, migrated connection
 * @returns the prepared statements, by name
 */
export function prepareBranchStatements(db: Database.Database): BranchStatements {
  return prepareAll(db, BRANCH_STATEMENTS)
}
