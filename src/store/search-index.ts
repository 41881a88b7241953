/**
 * Keeping the full-text index in step with the archive inside the store's write transactions
 * (docs/design.md, "Recall").
 *
 * Messages are indexed in batches, not one by one. Indexing the ~2 KB of text of one turn in its own
 * commit cost ~7.4 WAL frames (~7.8 KB) and ~110 µs: FTS5 writes a new segment, rewrites its structure
 * and averages records and a docsize row, and merges segments — per commit. So an append records
 * nothing extra; once {@link SEARCH_BATCH_ROWS} messages wait above the watermark
 * (`search_state.indexed_to`), the write transaction that commits next also indexes all of them, as ONE
 * insert from the view, and moves the watermark — so every index entry is written inside a write
 * transaction of the store, a failed append never leaves one (the batch is rolled back with it), and
 * the fixed cost of a commit to the index is paid once per batch. `close()` indexes what still waits.
 * A search reads the messages above the watermark itself (`search.ts`), so it is always complete.
 *
 * Summaries are indexed in the transaction that writes them (a fold is rare, and already a big write).
 * Anything that takes an entry out of the index (a redaction, a prune, a deleted session) touches only
 * indexed messages: a message above the watermark has no entry, and its batch reads its body as it is
 * then — a message erased before its batch is indexed erased.
 */
import type { Statements } from '../db/statements.js'

/**
 * How many messages may wait above the watermark before the next write transaction indexes them: eight
 * 4-message turns. Chosen by measurement (docs/benchmarks.md, "The full-text index on the write path").
 */
export const SEARCH_BATCH_ROWS = 32

/** What the store's operations call of the full-text index inside their writes. */
export type SearchHooks = Pick<
  SearchIndexWriter,
  'replaceBody' | 'messageAppended' | 'summaryInserted' | 'removeSession' | 'sessionDeleted'
>

/**
 * A write transaction that appends message bodies of at least this many characters (64 Ki) indexes
 * what waits at once, without waiting for a full batch: a search reads the waiting messages itself, so
 * one large waiting message (a 10 MB tool result) would slow every search until its batch landed.
 */
export const SEARCH_INDEX_AT_ONCE_CHARS = 64 * 1024

/** The index's part of one connection's write transactions. */
export class SearchIndexWriter {
  private summariesFrom: number | undefined
  private appendedChars = 0

  /**
   * @param st - the connection's statements
   * @param batchRows - how many waiting messages make a batch (tests pass smaller ones)
   */
  constructor(
    private readonly st: Statements,
    private readonly batchRows: number = SEARCH_BATCH_ROWS,
  ) {}

  /** A write transaction starts: no summary is pending. */
  begin(): void {
    this.summariesFrom = undefined
    this.appendedChars = 0
  }

  /**
   * A message row was inserted in the current write transaction.
   *
   * @param bodyChars - the length of its stored body
   */
  messageAppended(bodyChars: number): void {
    this.appendedChars += bodyChars
  }

  /**
   * A summary row was inserted in the current write transaction.
   *
   * @param id - its id
   */
  summaryInserted(id: number | bigint): void {
    const n = Number(id)
    if (this.summariesFrom === undefined || n < this.summariesFrom) this.summariesFrom = n
  }

  /**
   * The last thing before a write transaction commits: indexes its new summaries, then — when at least
   * the batch size of messages wait above the watermark, or the transaction appended bodies of
   * {@link SEARCH_INDEX_AT_ONCE_CHARS} or more — every waiting message, in one statement, and moves the
   * watermark. (Summaries first: their documents are negative, and FTS5 writes one segment
   * for a transaction's documents in ascending order.)
   */
  beforeCommit(): void {
    this.flushSummaries()
    const state = this.st.searchState.get()
    if (state === undefined || state.last_id <= state.indexed_to) return
    if (
      state.last_id - state.indexed_to >= this.batchRows ||
      this.appendedChars >= SEARCH_INDEX_AT_ONCE_CHARS
    )
      this.indexAbove(state.indexed_to, state.last_id)
  }

  /**
   * Indexes every message waiting above the watermark, inside the caller's write transaction (`close()`).
   *
   * @returns how many message ids the watermark moved over (0 when none waited)
   */
  indexPending(): number {
    this.flushSummaries()
    const state = this.st.searchState.get()
    if (state === undefined || state.last_id <= state.indexed_to) return 0
    this.indexAbove(state.indexed_to, state.last_id)
    return state.last_id - state.indexed_to
  }

  /**
   * Replaces a message's body, its index entry with it when it has one: out with the old text, in with
   * the new. A message above the watermark has none; its batch will read the new body.
   *
   * @param session - the session's key
   * @param seq - the message
   * @param replace - writes the new body
   */
  replaceBody(session: number, seq: number, replace: () => void): void {
    this.flushSummaries()
    this.st.unindexMessage.run(session, seq)
    replace()
    this.st.indexMessage.run(session, seq)
  }

  /**
   * Takes every summary and indexed message of a session out of the index, before its rows are deleted.
   *
   * @param session - the session's key
   */
  removeSession(session: number): void {
    this.flushSummaries()
    this.st.unindexSession.run(session)
  }

  /** After a session's rows are deleted: the watermark comes down to the newest message left. */
  sessionDeleted(): void {
    this.st.clampWatermark.run()
  }

  private flushSummaries(): void {
    if (this.summariesFrom !== undefined) this.st.indexSummariesFrom.run(-this.summariesFrom)
    this.summariesFrom = undefined
  }

  private indexAbove(indexedTo: number, lastId: number): void {
    this.st.indexMessagesAbove.run(indexedTo)
    this.st.setWatermark.run(lastId)
  }
}
