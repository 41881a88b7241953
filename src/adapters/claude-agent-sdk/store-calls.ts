/**
 * The store-wide calls the session store makes besides one session's (those go through the port): list
 * the ledger's sessions, delete one, prune, fork one and read its tree — as Promises over either backend.
 */
import type { DeleteSessionOptions } from '../../store/branches/types.js'
import type { BranchInfo, ContextStore, ForkOptions } from '../../store/context-store.js'
import type { DeleteSessionResult, PruneOptions, PruneResult } from '../../store/retention-options.js'
import type { SessionSummary } from '../../store/store-types.js'
import type { AdapterStore } from '../session-options.js'
import { isAsyncStore, type AsyncContextStore } from '../strands/async-ledger.js'
import { later } from '../port.js'

/** The store-wide calls, awaited. */
export interface StoreCalls {
  /** Makes a branch of a session (one row: no message is copied). */
  fork(sessionId: string, options: ForkOptions): Promise<BranchInfo>
  /** The tree holding a session, root first, then depth first. */
  branches(sessionId: string): Promise<BranchInfo[]>
  /** Every session of the ledger. */
  sessions(): Promise<SessionSummary[]>
  /** One session, or undefined. */
  session(sessionId: string): Promise<SessionSummary | undefined>
  /** Deletes one session (with `subtree`, every session below it too). */
  deleteSession(sessionId: string, options?: DeleteSessionOptions): Promise<DeleteSessionResult>
  /** Retention over one session or all. */
  prune(options: PruneOptions): Promise<PruneResult>
}

/** The branch calls of PostgreSQL's store, described by shape (`context-ledger/postgres`, never loaded here). */
interface AsyncBranching {
  fork(sessionId: string, options: ForkOptions): Promise<BranchInfo>
  branches(sessionId: string): Promise<BranchInfo[]>
  deleteSession(sessionId: string, options?: DeleteSessionOptions): Promise<DeleteSessionResult>
}

function sqliteCalls(store: ContextStore): StoreCalls {
  return {
    fork: (id, options) => later(() => store.fork(id, options)),
    branches: (id) => later(() => store.branches(id)),
    sessions: () => later(() => store.sessions()),
    session: (id) => later(() => store.session(id)),
    deleteSession: (id, options) => later(() => store.deleteSession(id, options)),
    prune: (options) => later(() => store.prune(options)),
  }
}

function asyncCalls(store: AsyncContextStore): StoreCalls {
  // Declared by br-pg's store; until AsyncContextStore names them, by shape.
  const branching = store as unknown as AsyncBranching
  return {
    fork: (id, options) => branching.fork(id, options),
    branches: (id) => branching.branches(id),
    sessions: () => store.sessions(),
    session: (id) => store.session(id),
    deleteSession: (id, options) => branching.deleteSession(id, options),
    prune: (options) => store.prune(options),
  }
}

/**
 * The store-wide calls of a store.
 *
 * @param store - SQLite's or PostgreSQL's
 * @returns its calls, each returning a Promise
 */
export function storeCalls(store: AdapterStore): StoreCalls {
  return isAsyncStore(store) ? asyncCalls(store) : sqliteCalls(store)
}
