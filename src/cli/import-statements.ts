/**
 * The SQL `import` writes a session's rows with, declared like the store's own statements
 * (`src/db/typed-statement.ts`): every column of each row, the searchable text (`messages.text`,
 * `summaries.text`) and the session's format included, values always bound.
 */
import type Database from 'better-sqlite3'
import { RAISE_LOG_CLOCK } from '../db/log-clock.js'
import { prepareAll, value, write, type PreparedAll } from '../db/typed-statement.js'

/** The statements `import` writes with, by name. */
export const CLI_WRITES = {
  // The log clock at least the session's clocks (its fork's, its log entries'): entries written later must
  // not look older than an imported fork (src/db/log-clock.ts).
  raiseClock: write<[bound: number]>(RAISE_LOG_CLOCK),
  insertSession: write<
    [
      {
        id: string
        createdAt: number
        updatedAt: number
        metadata: string | null
        boundary: number
        version: number
        keptCount: number | null
        keptTokens: number | null
        keptFirst: number | null
        limits: string | null
        format: string | null
        parent: number | null
        forkSeq: number | null
        kind: string
        forkedAt: number | null
        forkActor: string | null
        forkReason: string | null
        forkVersion: number | null
        forkTokens: number | null
        forkTrimPoint: number | null
        forkPairStart: number | null
        forkSummary: number | null
        forkSummaryEndedAt: number | null
        forkSummaryEndReason: string | null
      },
    ]
  >(`INSERT INTO sessions (id, created_at, updated_at, metadata, boundary, version, kept_count, kept_tokens,
      kept_first, summary, limits, format, parent, fork_seq, kind, forked_at, fork_actor, fork_reason, fork_version,
      fork_tokens, fork_trim_point, fork_pair_start, fork_summary, fork_summary_ended_at, fork_summary_end_reason)
    VALUES (@id, @createdAt, @updatedAt, @metadata, @boundary, @version, @keptCount, @keptTokens, @keptFirst, NULL,
      @limits, @format, @parent, @forkSeq, @kind, @forkedAt, @forkActor, @forkReason, @forkVersion, @forkTokens,
      @forkTrimPoint, @forkPairStart, @forkSummary, @forkSummaryEndedAt, @forkSummaryEndReason)`),
  insertMessage: write<
    [
      session: number,
      seq: number,
      uid: string,
      role: string,
      body: string,
      tokens: number,
      cumTokens: number,
      pinned: number,
      kept: number,
      recheck: number,
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
  >(`INSERT INTO messages (session, seq, uid, role, body, tokens, cum_tokens, pinned, kept, recheck, plain_user,
      trim_point, pair_start, has_tool_use, has_tool_result, created_at, window_body, window_tokens, repeat_of, late,
      text)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  insertToolCall: write<
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
  insertEviction: write<
    [
      session: number,
      toSeq: number,
      version: number,
      fromSeq: number,
      at: number,
      cut: string,
      reason: string,
      summary: number | null,
      clock: number | null,
    ]
  >(
    'INSERT INTO eviction_log (session, to_seq, version, from_seq, at, cut, reason, summary, clock) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  ),
  insertPinEvent: write<
    [
      session: number,
      seq: number,
      action: string,
      actor: string,
      reason: string | null,
      at: number,
      version: number | null,
    ]
  >('INSERT INTO pin_events (session, seq, action, actor, reason, at, version) VALUES (?, ?, ?, ?, ?, ?, ?)'),
  insertEdit: write<
    [
      session: number,
      seq: number,
      kind: string,
      actor: string,
      reason: string | null,
      at: number,
      body: string | null,
      version: number | null,
    ]
  >(
    'INSERT INTO message_edits (session, seq, kind, actor, reason, at, body, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
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
      endedAt: number | null,
      endReason: string | null,
      text: string | null,
    ]
  >(`INSERT INTO summaries (session, uid, replaces, regenerates, from_boundary, to_boundary, seqs, message_count,
      body, tokens, model, prompt_hash, created_at, ended_at, end_reason, text)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  setSummary: write<[summary: number | null, pk: number]>('UPDATE sessions SET summary = ? WHERE pk = ?'),
  // A branch's own state on a row it inherits; its owner is the lineage's (`owner`).
  insertBranchRow: write<
    [
      session: number,
      seq: number,
      owner: number,
      pinned: number,
      kept: number,
      recheck: number,
      windowBody: string | null,
      windowTokens: number | null,
    ]
  >(`INSERT INTO branch_rows (session, seq, owner, pinned, kept, recheck, window_body, window_tokens)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
}

/**
 * Prepares the write statements.
 *
 * @param db - a writable connection
 * @returns them
 */
export function prepareWrites(db: Database.Database): PreparedAll<typeof CLI_WRITES> {
  return prepareAll(db, CLI_WRITES)
}

/** What `import` reads of the file it writes to, by name. */
export const IMPORT_READS = {
  // A summary named by its session's id and its trackingId (a branch's inherited summary).
  summaryByName: value<[sessionId: string, uid: string], number>(
    'SELECT x.id FROM summaries x JOIN sessions s ON s.pk = x.session WHERE s.id = ? AND x.uid = ?',
    'id',
  ),
}
