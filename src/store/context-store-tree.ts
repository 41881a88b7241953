/**
 * The branch calls of `ContextStore` (docs/design.md, "Branches"): fork a session at a message, rewind
 * one to an earlier message, list the tree a session belongs to. Between the reads and the other writes
 * so that each class file keeps to one job; each method delegates to `branches/`.
 */
import { ContextStoreReader } from './context-store-reader.js'
import { fork } from './branches/fork.js'
import { rewind } from './branches/rewind.js'
import { readBranches } from './branches/tree.js'
import type { BranchInfo, ForkOptions, RewindOptions, RewindResult } from './branches/types.js'

/** The reads and the branch calls of a ledger file; see {@link ContextStore}. */
export abstract class ContextStoreTree extends ContextStoreReader {
  /**
   * Makes a new session whose conversation is `sessionId`'s up to and including one message, without
   * copying a row: it reads the parent's rows up to that point and appends its own after it (seqs go on
   * from the fork point). Nothing the parent (or a sibling) writes afterwards is visible in the branch,
   * and nothing the branch writes reaches the parent. Forking at the newest message, the branch's window
   * is exactly the parent's; earlier, it is the parent's window restricted to what the branch inherits,
   * made valid with the parent's last limits. One write transaction whose size does not grow with the
   * parent's history.
   *
   * @param sessionId - the session to fork
   * @param options - `atSeq` or `trackingId` (exactly one), optional `newSessionId`, `actor`, `reason`,
   *   `metadata`
   * @returns the new branch
   * @throws ContextLedgerError `SESSION_NOT_FOUND`, `MESSAGE_NOT_FOUND` (path `atSeq` or `trackingId`),
   *   `SESSION_EXISTS` (path `newSessionId`), `INVALID_OPTIONS` naming the field, `READ_ONLY`
   */
  fork(sessionId: string, options: ForkOptions): BranchInfo {
    return fork(this.ledger, sessionId, options)
  }

  /**
   * Continues a session from an earlier message: the messages after it leave the conversation — moved,
   * not copied, into a new abandoned branch (listed by {@link branches}, still readable and searchable) —
   * and the session goes on from there under the same id. Branches forked from it after that message now
   * hang from the abandoned branch, which holds what they inherited. The session's window is restricted
   * and made valid as for a fork. Nothing is written when the message is already the newest.
   *
   * @param sessionId - the session
   * @param options - `toSeq` or `trackingId` (exactly one), optional `actor`, `reason`, `abandonedId`
   * @returns the session, the abandoned branch, and how many messages left
   * @throws ContextLedgerError `SESSION_NOT_FOUND`, `MESSAGE_NOT_FOUND` (path `toSeq` or `trackingId`),
   *   `SESSION_EXISTS` (path `abandonedId`), `INVALID_OPTIONS` naming the field, `READ_ONLY`
   */
  rewind(sessionId: string, options: RewindOptions): RewindResult {
    return rewind(this.ledger, sessionId, options)
  }

  /**
   * The tree of branches holding a session: its root first, then depth-first, each session's children
   * in the order they were made.
   *
   * @param sessionId - any session of the tree
   * @returns each session with its parent, fork point, kind, who made it, when and why
   * @throws ContextLedgerError `SESSION_NOT_FOUND`
   */
  branches(sessionId: string): BranchInfo[] {
    return readBranches(this.ledger, sessionId)
  }
}
