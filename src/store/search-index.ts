/**
 * Keeping the full-text index in step with the archive inside the store's write transactions.
 *
 * New messages and summaries are indexed once per transaction, just before it commits, not one by one:
 * FTS5 writes what it holds as a new segment of its index at every savepoint, and the Strands adapter
 * writes an invocation's messages as savepoints of one transaction — indexing each as it is appended
 * would write a segment per message. The transaction records the first id it inserted; before the
 * commit, every row from that id on is indexed in one statement (rows inserted after a savepoint rolled
 * back are simply not there). Anything that takes an entry out of the index (a redaction, a prune, a
 * deleted session) indexes what is pending first, so it never deletes an entry that is not in.
 */
import type { Statements } from '../db/statements.js'

/** The pending part of the index of one connection's current write transaction. */
export class SearchIndexWriter {
  private messagesFrom: number | undefined
  private summariesFrom: number | undefined

  /**
   * @param st - the connection's statements
   */
  constructor(private readonly st: Statements) {}

  /** A write transaction starts: nothing is pending. */
  begin(): void {
    this.messagesFrom = undefined
    this.summariesFrom = undefined
  }

  /** Whether rows wait to be indexed (only inside a write transaction). */
  get pending(): boolean {
    return this.messagesFrom !== undefined || this.summariesFrom !== undefined
  }

  /**
   * A message row was inserted in the current write transaction.
   *
   * @param id - its rowid
   */
  messageInserted(id: number | bigint): void {
    const n = Number(id)
    if (this.messagesFrom === undefined || n < this.messagesFrom) this.messagesFrom = n
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
   * Indexes every row inserted since the transaction began (summaries, then messages: ascending docs).
   * Run before the commit, and before any entry leaves the index.
   */
  flush(): void {
    if (this.summariesFrom !== undefined) this.st.indexSummariesFrom.run(-this.summariesFrom)
    if (this.messagesFrom !== undefined) this.st.indexMessagesFrom.run(this.messagesFrom)
    this.begin()
  }

  /**
   * Replaces a message's body, its index entry with it: out with the old text, in with the new.
   *
   * @param session - the session's key
   * @param seq - the message
   * @param replace - writes the new body
   */
  replaceBody(session: number, seq: number, replace: () => void): void {
    this.flush()
    this.st.unindexMessage.run(session, seq)
    replace()
    this.st.indexMessage.run(session, seq)
  }

  /**
   * Takes every message and summary of a session out of the index, before its rows are deleted.
   *
   * @param session - the session's key
   */
  removeSession(session: number): void {
    this.flush()
    this.st.unindexSession.run(session)
  }
}
