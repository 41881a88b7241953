/**
 * Keeping the full-text index in step with the archive (docs/design.md, "Recall").
 *
 * Messages are indexed in batches, not one by one. Indexing the ~2 KB of text of one turn in its own
 * commit cost ~7.4 WAL frames (~7.8 KB) and ~110 µs: FTS5 writes a new segment, rewrites its structure
 * and averages records and a docsize row, and merges segments — per commit. So an append records
 * nothing in the index; the messages wait above the watermark (`search_state.indexed_to`), and a batch
 * indexes all of them as ONE insert from the view and moves the watermark, in one write transaction, so
 * the fixed cost of a commit to the index is paid once per batch.
 *
 * When. Off the append path, at idle: once {@link SEARCH_BATCH_ROWS} messages (or
 * {@link SEARCH_BATCH_CHARS} characters of bodies) wait after a write commits, the store schedules one
 * pass for the event loop's next turn (`setImmediate`, in `ledger.ts`) — an agent awaits its model
 * between appends, and the pass runs there, in a short write transaction of its own. A batch carried by
 * the append that completed it made one append in 8 of a Strands turn ~1.5 ms slower (a mean of 1.92× the
 * store without an index, against a 1.5× limit). Only a caller that never yields to the event loop (a
 * tight loop of appends) lets more wait: once {@link SEARCH_PENDING_MAX_ROWS} messages or
 * {@link SEARCH_PENDING_MAX_CHARS} characters wait, the write transaction indexes them itself before it
 * commits, as every batch was indexed before — so what a search reads of the waiting messages itself
 * (`search.ts`) stays bounded. `close()` indexes the rest.
 *
 * Every index entry is written by a store transaction, together with the watermark that says it is
 * there: a failed append leaves none (its rows were never committed; a batch inside it is rolled back
 * with it), and a failed pass leaves the messages waiting, searchable, for the next one.
 *
 * Summaries are indexed in the transaction that writes them (a fold is rare, and already a big write).
 * Anything that takes an entry out of the index (a redaction, a prune, a deleted session) touches only
 * indexed messages: a message above the watermark has no entry, and its batch reads its body as it is
 * then — a message erased before its batch is indexed erased.
 */
import type { Statements } from '../db/statements.js'

/**
 * How many messages waiting above the watermark make a batch, which the store indexes at the next turn
 * of the event loop: eight 4-message turns. Chosen by measurement (docs/benchmarks.md, "The full-text
 * index on the write path"): one segment per 32 messages keeps a Strands turn within its bytes.
 */
export const SEARCH_BATCH_ROWS = 32

/** What the store's operations call of the full-text index inside their writes. */
export type SearchHooks = Pick<
  SearchIndexWriter,
  'replaceBody' | 'messageAppended' | 'summaryInserted' | 'removeSession' | 'sessionDeleted'
>

/**
 * Message bodies of at least this many characters (64 Ki) waiting make a batch too, however few the
 * messages: a search reads the waiting messages itself, so one large message waiting (a 10 MB tool
 * result) would slow every search until its batch landed.
 */
export const SEARCH_BATCH_CHARS = 64 * 1024

/**
 * The most messages that wait above the watermark after a write: a write transaction that would leave
 * this many indexes them itself (a caller that never yields to the event loop, where the batch would be
 * indexed). Eight batches: a search reads the waiting messages itself, and 256 of them cost it ~2 ms
 * (English-like text) to ~4.5 ms (row a's random text) — docs/benchmarks.md, "The full-text index on
 * the write path".
 */
export const SEARCH_PENDING_MAX_ROWS = 8 * SEARCH_BATCH_ROWS

/**
 * The most characters of message bodies this connection's writes leave waiting above the watermark: a
 * write transaction that would leave this many (128 Ki, ~5 ms of a search's time) indexes them itself.
 * Counted per connection (what its own commits appended since it last saw nothing waiting), so a
 * message at least this large is indexed by the append that writes it.
 */
export const SEARCH_PENDING_MAX_CHARS = 2 * SEARCH_BATCH_CHARS

/** When messages are indexed: what makes a batch, and the bound on what may wait. */
export interface SearchBatching {
  /** Waiting messages that make a batch (indexed at idle). */
  readonly batchRows: number
  /** Waiting characters that make a batch (indexed at idle). */
  readonly batchChars: number
  /** Waiting messages a write transaction indexes itself. */
  readonly maxRows: number
  /** Waiting characters a write transaction indexes itself. */
  readonly maxChars: number
}

/** The shipped batching. */
export const SEARCH_BATCHING: SearchBatching = Object.freeze({
  batchRows: SEARCH_BATCH_ROWS,
  batchChars: SEARCH_BATCH_CHARS,
  maxRows: SEARCH_PENDING_MAX_ROWS,
  maxChars: SEARCH_PENDING_MAX_CHARS,
})

/** What a transaction leaves once committed: the characters waiting, and whether a batch does. */
interface AfterCommit {
  readonly chars: number
  readonly batchDue: boolean
}

/** The index's part of one connection's write transactions. */
export class SearchIndexWriter {
  private summariesFrom: number | undefined
  private appendedChars = 0
  /** Characters of bodies this connection's commits appended that may still wait above the watermark. */
  private waitingChars = 0
  /** What the transaction in progress leaves once it commits (set just before the commit). */
  private pending: AfterCommit | undefined

  /**
   * @param st - the connection's statements
   * @param batching - when messages are indexed (default: the shipped thresholds)
   */
  constructor(
    private readonly st: Statements,
    private readonly batching: SearchBatching = SEARCH_BATCHING,
  ) {}

  /** A write transaction starts (again, after a busy lock): no summary is pending, nothing appended. */
  begin(): void {
    this.summariesFrom = undefined
    this.appendedChars = 0
    this.pending = undefined
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
   * The last thing before a write transaction commits: indexes its new summaries, then — when
   * {@link SearchBatching.maxRows} messages or {@link SearchBatching.maxChars} characters would be left
   * waiting above the watermark — every waiting message, in one statement, and moves the watermark.
   * Otherwise the messages wait; {@link committed} then says whether they make a batch for an idle pass.
   * (Summaries first: their documents are negative, and FTS5 writes one segment for a transaction's
   * documents in ascending order.)
   */
  beforeCommit(): void {
    this.flushSummaries()
    const state = this.st.searchState.get()
    if (state === undefined || state.last_id <= state.indexed_to) {
      this.pending = { chars: 0, batchDue: false }
      return
    }
    const rows = state.last_id - state.indexed_to
    const chars = this.waitingChars + this.appendedChars
    const b = this.batching
    if (rows >= b.maxRows || chars >= b.maxChars) {
      this.indexAbove(state.indexed_to, state.last_id)
      this.pending = { chars: 0, batchDue: false }
    } else this.pending = { chars, batchDue: rows >= b.batchRows || chars >= b.batchChars }
  }

  /**
   * The transaction {@link beforeCommit} (or {@link indexPending}) ended has committed.
   *
   * @returns whether messages making a batch wait above the watermark: the store schedules a pass
   */
  committed(): boolean {
    const done = this.pending
    this.pending = undefined
    if (done === undefined) return false
    this.waitingChars = done.chars
    return done.batchDue
  }

  /** The transaction {@link beforeCommit} or {@link indexPending} ran in was rolled back. */
  rolledBack(): void {
    this.summariesFrom = undefined
    this.pending = undefined
  }

  /**
   * Indexes every message waiting above the watermark, inside the caller's write transaction (the idle
   * pass, `indexPending()`, `close()`); call {@link committed} once it commits, {@link rolledBack} if
   * it does not.
   *
   * @returns how many message ids the watermark moved over (0 when none waited)
   */
  indexPending(): number {
    this.flushSummaries()
    this.pending = { chars: 0, batchDue: false }
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
