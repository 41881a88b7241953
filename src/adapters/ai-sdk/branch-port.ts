/**
 * The branch calls the AI SDK adapter makes, over either backend: `rewind` and `branches` of the store
 * (issue 26), and reading one message of another session of the tree (an alternative of a message lives
 * in the branch that owns it). SQLite's store answers at once; the PostgreSQL store's calls are awaited
 * (described by shape, so this entry loads nothing of PostgreSQL).
 */
import { isContextLedgerError } from '../../errors.js'
import type { BranchInfo, RewindOptions, RewindResult } from '../../store/context-store.js'
import type { LedgerEntry, MessageRef } from '../../store/context-store.js'
import { invalidOption } from '../../store/check-args.js'
import { later } from '../port.js'
import type { AdapterStore } from '../session-options.js'
import { isAsyncStore } from '../strands/async-ledger.js'

/** What the adapter asks of a session's tree, every call answering with a Promise. */
export interface BranchPort {
  /** Rewinds the session (see the store's `rewind`). */
  rewind(options: RewindOptions): Promise<RewindResult>
  /** The tree holding the session: root first, then depth first (see the store's `branches`). */
  branches(): Promise<BranchInfo[]>
  /** One message of a session of the tree, or undefined when it has none there. */
  messageIn(sessionId: string, ref: MessageRef): Promise<LedgerEntry | undefined>
}

/** The branch calls of a PostgreSQL store, by shape (`PostgresContextStore` has them). */
interface AsyncBranchStore {
  rewind(sessionId: string, options: RewindOptions): Promise<RewindResult>
  branches(sessionId: string): Promise<BranchInfo[]>
  message(sessionId: string, ref: MessageRef): Promise<LedgerEntry>
}

/** The entry a lookup found, or undefined for `MESSAGE_NOT_FOUND` / `SESSION_NOT_FOUND`. */
async function found(lookup: () => LedgerEntry | Promise<LedgerEntry>): Promise<LedgerEntry | undefined> {
  try {
    return await lookup()
  } catch (error) {
    if (isContextLedgerError(error, 'MESSAGE_NOT_FOUND') || isContextLedgerError(error, 'SESSION_NOT_FOUND'))
      return undefined
    throw error
  }
}

/** The PostgreSQL store's branch calls, refused with a typed error on a store that lacks them. */
function asyncBranchStore(store: object): AsyncBranchStore {
  const s = store as Partial<AsyncBranchStore>
  if (typeof s.rewind !== 'function' || typeof s.branches !== 'function' || typeof s.message !== 'function')
    throw invalidOption('store', 'this store has no branches (rewind, branches): upgrade context-ledger')
  return s as AsyncBranchStore
}

/**
 * The branch calls of one session, on either backend.
 *
 * @param store - the store
 * @param sessionId - the session
 * @returns its branch port
 */
export function branchPort(store: AdapterStore, sessionId: string): BranchPort {
  if (isAsyncStore(store)) {
    const s = () => asyncBranchStore(store)
    return {
      rewind: (options) => s().rewind(sessionId, options),
      branches: () => s().branches(sessionId),
      messageIn: (id, ref) => found(() => s().message(id, ref)),
    }
  }
  return {
    rewind: (options) => later(() => store.rewind(sessionId, options)),
    branches: () => later(() => store.branches(sessionId)),
    messageIn: (id, ref) => found(() => store.message(id, ref)),
  }
}
