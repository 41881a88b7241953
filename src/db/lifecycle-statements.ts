/**
 * The statements of the data-lifecycle calls (deleting a session, pruning old message bodies), declared
 * like those of `statements.ts` but prepared on first use: most stores never delete or prune.
 */
import type Database from 'better-sqlite3'
import type { MessageRow, SessionKeyRow } from './rows.js'
import { ENTRY_COLUMNS, ENTRY_SELECT } from './statements.js'
import { prepareAll, rows, write, type PreparedAll } from './typed-statement.js'

/** How many messages one prune transaction erases at most, so a huge prune never holds the lock long. */
export const PRUNE_BATCH = 2000

/** The lifecycle statements, by name. */
export const LIFECYCLE_STATEMENTS = {
  deleteEdits: write<[session: number]>('DELETE FROM message_edits WHERE session = ?'),
  deletePinEvents: write<[session: number]>('DELETE FROM pin_events WHERE session = ?'),
  deleteToolCalls: write<[session: number]>('DELETE FROM tool_calls WHERE session = ?'),
  deleteMessages: write<[session: number]>('DELETE FROM messages WHERE session = ?'),
  deleteSummaries: write<[session: number]>('DELETE FROM summaries WHERE session = ?'),
  deleteEvictions: write<[session: number]>('DELETE FROM eviction_log WHERE session = ?'),
  deleteSession: write<[pk: number]>('DELETE FROM sessions WHERE pk = ?'),
  // Walks the (session, seq) index from where the previous batch stopped; the already-pruned test reads
  // only rows old enough, out of the window and unpinned. Already pruned: the body carries the marker where
  // its format keeps the library's notes (only prunedForm writes it: a caller's is stripped on the way in,
  // or refused at a claude-agent entry's top-level contextLedger) and the edit log holds the erasure that
  // wrote it (only the store writes the log) — so a marker forged before it was stripped is pruned.
  // A row a live branch inherits is pruned only once it is out of that branch's window too: not in its
  // tail, not kept, not pinned there (every inherited row a branch's window shows or pins has a branch
  // row: one seek of branch_rows_owner, nothing for a session without branches). An abandoned branch is
  // no conversation anyone continues: its window keeps nothing.
  pruneCandidates: rows<
    [session: number, fromSeq: number, boundary: number, before: number, limit: number],
    MessageRow
  >(
    `${ENTRY_SELECT}
      WHERE session = ? AND seq >= ? AND seq < ? AND kept = 0 AND pinned = 0 AND created_at < ?
        AND NOT ((json_extract(body, '$.metadata.custom.contextLedger.pruned') IS 1
            OR json_extract(body, '$.providerOptions.contextLedger.pruned') IS 1
            OR json_extract(body, '$.metadata.contextLedger.pruned') IS 1
            OR json_extract(body, '$.providerData.contextLedger.pruned') IS 1
            OR json_extract(body, '$.data.additional_kwargs.context_ledger.pruned') IS 1
            OR json_extract(body, '$.contextLedger.pruned') IS 1) AND EXISTS (SELECT 1
          FROM message_edits e WHERE e.session = messages.session AND e.seq = messages.seq AND e.kind = 'redact'))
        AND NOT EXISTS (SELECT 1 FROM branch_rows o JOIN sessions d ON d.pk = o.session
          WHERE o.owner = messages.session AND o.seq = messages.seq AND d.kind <> 'abandoned'
            AND (o.kept = 1 OR o.pinned = 1 OR o.seq >= d.boundary))
      ORDER BY seq LIMIT ?`,
    ENTRY_COLUMNS,
  ),
  sessionKeys: rows<[], SessionKeyRow>('SELECT pk, id FROM sessions ORDER BY pk', { pk: true, id: true }),
}

/** The rows {@link LifecycleStatements.deleteSessionRows} deleted, per table. */
export interface DeletedRows {
  /** Messages. */
  messages: number
  /** Tool-call links. */
  toolCalls: number
  /** Pin-log entries. */
  pinEvents: number
  /** Edit-log entries. */
  edits: number
  /** Summaries. */
  summaries: number
  /** Rows of the eviction log. */
  evictions: number
}

/** The lifecycle statements of one connection, prepared on first use. */
export class LifecycleStatements {
  private prepared: PreparedAll<typeof LIFECYCLE_STATEMENTS> | undefined

  /**
   * @param db - the store's connection
   */
  constructor(private readonly db: Database.Database) {}

  private get st(): PreparedAll<typeof LIFECYCLE_STATEMENTS> {
    this.prepared ??= prepareAll(this.db, LIFECYCLE_STATEMENTS)
    return this.prepared
  }

  /**
   * Deletes every row of a session, children first, inside the caller's transaction.
   *
   * @param pk - the session's key
   * @returns the rows deleted per table
   */
  deleteSessionRows(pk: number): DeletedRows {
    const st = this.st
    const edits = st.deleteEdits.run(pk).changes
    const pinEvents = st.deletePinEvents.run(pk).changes
    const toolCalls = st.deleteToolCalls.run(pk).changes
    const messages = st.deleteMessages.run(pk).changes
    const summaries = st.deleteSummaries.run(pk).changes
    const evictions = st.deleteEvictions.run(pk).changes
    st.deleteSession.run(pk)
    return { messages, toolCalls, pinEvents, edits, summaries, evictions }
  }

  /**
   * The next messages a prune erases: from seq `fromSeq`, before the session's boundary, neither kept nor
   * pinned, appended before `before`, not pruned yet; at most {@link PRUNE_BATCH}, in seq order.
   *
   * @param pk - the session's key
   * @param fromSeq - the first seq to look at
   * @param boundary - the session's boundary (read in the same transaction)
   * @param before - the cut-off, ms since the epoch
   * @returns the rows
   */
  pruneCandidates(pk: number, fromSeq: number, boundary: number, before: number): MessageRow[] {
    return this.st.pruneCandidates.all(pk, fromSeq, boundary, before, PRUNE_BATCH)
  }

  /**
   * The keys and ids of every session, in key order.
   *
   * @returns the sessions
   */
  sessionKeys(): SessionKeyRow[] {
    return this.st.sessionKeys.all()
  }
}
