/**
 * The reading half of `ContextStore`: the connection it holds and every call that only reads, which a
 * store opened with `readonly: true` answers too. `ContextStore` extends it with the writes. Each method
 * delegates to the module that does the job (`reads.ts`, `lifecycle.ts`).
 */
import type Database from 'better-sqlite3'
import type { MessageLimits } from '../messages/schema.js'
import type { StoredMessageData } from '../messages/types.js'
import type { Statements } from '../db/statements.js'
import type { HistoryOptions, MessageRef, PinnedMessagesOptions } from './check-args.js'
import { SqliteLedger } from './ledger.js'
import { backupDatabase, checkBackupArgs, type BackupOptions, type BackupResult } from './lifecycle.js'
import {
  readEdits,
  readHistory,
  readMessage,
  readPinEvents,
  readPinnedMessages,
  readSession,
  readSessions,
  readWindow,
  readWindowEntries,
} from './reads.js'
import { resolveStoreOptions, type ContextStoreOptions } from './store-options.js'
import { readSummaries, readSummary, type SummaryRecord } from './summaries.js'
import { explainWindow, type WindowExplanation } from './explain.js'
import { readEvictionOf, readEvictions } from './recall-reads.js'
import { searchLedger } from './search.js'
import type { EvictionRecord, EvictionsOptions, SearchHit, SearchOptions } from './search-types.js'
import { checkSummariesOptions, type SummariesOptions } from './check-args.js'
import type {
  LedgerEntry,
  MessageEdit,
  PinEvent,
  PinnedMessage,
  SessionSummary,
  WindowEntry,
  WindowReadOptions,
} from './store-types.js'

/** The reads of a ledger file; see {@link ContextStore}, which is what `openContextStore` returns. */
export abstract class ContextStoreReader {
  /** The file path (or `':memory:'`). */
  readonly path: string
  /** The validation limits every incoming message must meet (frozen). */
  readonly limits: Readonly<MessageLimits>
  /** Opened with `readonly: true`: every write call throws `READ_ONLY`. */
  readonly readonly: boolean
  /**
   * The open file every call works on.
   *
   * @internal
   */
  protected readonly ledger: SqliteLedger
  /** The prepared statements, also here so that a test helper can count their executions. */
  private readonly st: Statements

  /**
   * @param path - a file path or `':memory:'`
   * @param options - connection and validation options
   */
  protected constructor(path: string, options: ContextStoreOptions) {
    this.ledger = new SqliteLedger(path, resolveStoreOptions(path, options))
    this.path = path
    this.limits = this.ledger.limits
    this.readonly = this.ledger.readonly
    this.st = this.ledger.st
  }

  /** Whether the store is still open. */
  get open(): boolean {
    return this.ledger.db.open
  }

  /** Closes the file. Further calls throw `STORE_CLOSED`. Closing twice is harmless. */
  close(): void {
    // A redaction whose checkpoint a reader held up is finished now, if no reader still holds it up.
    this.ledger.close()
  }

  /**
   * The underlying better-sqlite3 connection, for read-only queries the API does not cover. Writing
   * through it bypasses every invariant.
   *
   * @returns the connection
   */
  connection(): Database.Database {
    this.ledger.ensureOpen()
    return this.ledger.db
  }

  /**
   * Copies the ledger file, while it is in use, with SQLite's online backup API: the copy is one consistent
   * state including what the write-ahead log holds (copying the file itself misses that). It is written
   * beside the destination and renamed into place once complete. Works on a read-only store too.
   *
   * @param destination - the copy's path; must differ from the store's
   * @param options - `overwrite: true` to replace an existing file (and its -wal/-shm; it must not be open);
   *   `compact: true` to rebuild the copy packed with the page size new ledgers get (1 KiB)
   * @returns the destination's absolute path and the pages copied
   * @throws ContextLedgerError `INVALID_OPTIONS` naming `destination` (also when it exists and `overwrite`
   *   is not true), `options.overwrite` or `options.compact`; `STORAGE_ERROR`, `STORAGE_FULL` when the
   *   copy cannot be written
   */
  async backup(destination: string, options: BackupOptions = {}): Promise<BackupResult> {
    this.ledger.ensureOpen()
    const target = checkBackupArgs(this.path, destination, options)
    return backupDatabase(this.ledger.db, this.path, target)
  }

  /**
   * The messages the model should see, in order. Pinned messages carry `metadata.custom.pinned = true`.
   *
   * @param sessionId - the session
   * @param options - `alternate: true` merges runs of same-role messages so that roles strictly alternate
   *   (for providers such as Bedrock Converse); the archive is unchanged
   * @returns the window (empty for an unknown session)
   */
  window(sessionId: string, options: WindowReadOptions = {}): StoredMessageData[] {
    return readWindow(this.ledger, sessionId, options)
  }

  /**
   * The window with where each row comes from: its seq (undefined for the summary row), the message
   * exactly as `window()` returns it, and whether it is pinned — in one statement, so one committed state.
   *
   * @param sessionId - the session
   * @returns the window's rows in order (empty for an unknown session)
   */
  windowEntries(sessionId: string): WindowEntry[] {
    return readWindowEntries(this.ledger, sessionId)
  }

  /**
   * The archive, evicted messages included, in seq order.
   *
   * @param sessionId - the session
   * @param options - `fromSeq` (default 0) and `limit` (default 100)
   * @returns entries, oldest first
   */
  history(sessionId: string, options?: HistoryOptions): LedgerEntry[] {
    return readHistory(this.ledger, sessionId, options)
  }

  /**
   * One archived message.
   *
   * @param sessionId - the session
   * @param ref - by seq, tracking id or window position
   * @returns its entry
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`
   */
  message(sessionId: string, ref: MessageRef): LedgerEntry {
    return readMessage(this.ledger, sessionId, ref)
  }

  /**
   * Every session in the file with its sizes.
   *
   * @returns sessions ordered by id
   */
  sessions(): SessionSummary[] {
    return readSessions(this.ledger)
  }

  /**
   * One session's summary.
   *
   * @param sessionId - the session
   * @returns its summary, or undefined when it does not exist yet
   */
  session(sessionId: string): SessionSummary | undefined {
    return readSession(this.ledger, sessionId)
  }

  /**
   * How many messages a session holds: one indexed read, where {@link session} also sums pins and tokens.
   *
   * @param sessionId - the session
   * @returns its message count (0 when it does not exist yet)
   * @internal The Strands adapter checks it for each message it holds.
   */
  messageCount(sessionId: string): number {
    this.ledger.ensureOpen()
    return this.ledger.read(
      () => this.ledger.keys.sessionRow(sessionId)?.message_count ?? 0,
      `read session "${sessionId}"`,
      sessionId,
    )
  }

  /**
   * Pinned messages with when, who and why they were pinned.
   *
   * @param options - `sessionId` to restrict to one session (all sessions when omitted); `actor`,
   *   `reason` (contained, letter case ignored), `since` and `until` filter on each message's latest pin
   * @returns pinned messages ordered by session and seq
   */
  pinnedMessages(options?: PinnedMessagesOptions): PinnedMessage[] {
    return readPinnedMessages(this.ledger, options)
  }

  /**
   * Full-text search over the whole archive — evicted messages, the window and summaries — ranked by
   * bm25, with a snippet around the matches (docs/api.md, "Recall"). Plain input is taken literally
   * (words and `"quoted phrases"`, all of which must match by default); `syntax: 'fts5'` accepts FTS5's
   * query syntax. The recall tools' own calls and results are left out unless `excludeTools` says
   * otherwise.
   *
   * @param query - what to find
   * @param options - filters (`sessionId`, `role`, `pinned`, `inWindow`, `toolName`, `since`, `until`),
   *   paging (`limit`, `offset`) and how to read the query (`syntax`, `match`)
   * @returns the hits, best first
   * @throws ContextLedgerError `INVALID_QUERY` for a query FTS5 refuses or one too long,
   *   `INVALID_OPTIONS` naming a bad option
   */
  search(query: string, options?: SearchOptions): SearchHit[] {
    return searchLedger(this.ledger, query, options)
  }

  /**
   * A session's eviction log: one row per run of messages a cut took out of the window — when, how
   * (`cut`), why (`reason`) and, for a fold, into which summary. Ordered by the runs' last seq.
   *
   * @param sessionId - the session
   * @param options - `fromSeq` (the first row is the first whose run ends at or after it), `limit`
   * @returns the rows (empty for an unknown session)
   * @throws ContextLedgerError `INVALID_OPTIONS` naming a bad option
   */
  evictions(sessionId: string, options?: EvictionsOptions): EvictionRecord[] {
    return readEvictions(this.ledger, sessionId, options)
  }

  /**
   * Why and when a message last left the window: the eviction log's row covering it (one seek).
   *
   * @param sessionId - the session
   * @param seq - the message
   * @returns the row, or undefined when it never left the window (or left before the log existed)
   * @throws ContextLedgerError `INVALID_OPTIONS` for a bad seq
   */
  evictionOf(sessionId: string, seq: number): EvictionRecord | undefined {
    return readEvictionOf(this.ledger, sessionId, seq)
  }

  /**
   * The pin log of a session, oldest first.
   *
   * @param sessionId - the session
   * @returns every pin and unpin
   */
  pinEvents(sessionId: string): PinEvent[] {
    return readPinEvents(this.ledger, sessionId)
  }

  /**
   * The edit log of a session, oldest first: every edit and redaction with who, when and why.
   *
   * @param sessionId - the session
   * @returns the edits (empty for an unknown session)
   */
  edits(sessionId: string): MessageEdit[] {
    return readEdits(this.ledger, sessionId)
  }

  /**
   * A session's summaries, newest first, each with exactly the messages it stands for (`seqs`, and the
   * summary it replaced). `current` marks the one the window shows.
   *
   * @param sessionId - the session
   * @param options - `limit` (default 100)
   * @returns the summaries (empty for an unknown session)
   */
  summaries(sessionId: string, options: SummariesOptions = {}): SummaryRecord[] {
    return readSummaries(this.ledger, sessionId, checkSummariesOptions(options))
  }

  /**
   * One summary of a session, by id.
   *
   * @param sessionId - the session
   * @param id - the summary's id
   * @returns it
   * @throws ContextLedgerError `SUMMARY_NOT_FOUND`
   */
  summary(sessionId: string, id: number): SummaryRecord {
    return readSummary(this.ledger, sessionId, id)
  }

  /**
   * Why each message of a session's window is there: pinned (by whom, why), in the first or last N, a tool
   * partner of a protected message, the lead, the newest turn, an anchor, the tail, the summary — with the
   * boundary and the limits the window was last applied with. For tools that show a window (the
   * `context-ledger window --explain` command); the planner's own protection rules, derived for every
   * kept row.
   *
   * @param sessionId - the session
   * @returns the explanation, or undefined when the session does not exist
   */
  explainWindow(sessionId: string): WindowExplanation | undefined {
    return explainWindow(this.ledger, sessionId)
  }
}
