/**
 * The store-wide calls the session store makes besides one session's (those go through the port): list
 * the ledger's sessions, delete one, prune, fork one — as Promises over either backend.
 */
import type { ContextStore } from '../../store/context-store.js'
import type { DeleteSessionResult, PruneOptions, PruneResult } from '../../store/retention-options.js'
import type { SessionSummary } from '../../store/store-types.js'
import type { AdapterStore } from '../session-options.js'
import { isAsyncStore } from '../strands/async-ledger.js'
import { later } from '../port.js'

/** A fork the adapter asks the ledger for (the core's `ForkOptions`, the fields it uses). */
export interface LedgerForkOptions {
  /** The last seq the branch inherits. */
  readonly atSeq: number
  /** The branch's ledger id. */
  readonly newSessionId: string
  /** Who forks. */
  readonly actor?: string
  /** Why. */
  readonly reason?: string
  /** The branch's metadata. */
  readonly metadata?: unknown
}

/** A session of a ledger tree (the core's `BranchInfo`, the fields the adapter reads). */
export interface LedgerBranch {
  /** Its ledger id. */
  readonly sessionId: string
  /** Its parent's, or null for a root. */
  readonly parentId: string | null
  /** `'root'`, `'fork'` or `'abandoned'`. */
  readonly kind: string
}

/** The core's branch calls, described by shape (either backend). */
interface Branching {
  fork(sessionId: string, options: LedgerForkOptions): unknown
  branches(sessionId: string): LedgerBranch[] | Promise<LedgerBranch[]>
}

/** The store-wide calls, awaited. */
export interface StoreCalls {
  /** Makes a branch of a session (one row: no message is copied). */
  fork(sessionId: string, options: LedgerForkOptions): Promise<void>
  /** The tree holding a session, root first. */
  branches(sessionId: string): Promise<LedgerBranch[]>
  /** Every session of the ledger. */
  sessions(): Promise<SessionSummary[]>
  /** One session, or undefined. */
  session(sessionId: string): Promise<SessionSummary | undefined>
  /** Deletes one session. */
  deleteSession(sessionId: string): Promise<DeleteSessionResult>
  /** Retention over one session or all. */
  prune(options: PruneOptions): Promise<PruneResult>
}

/** The store's `fork`, awaited (SQLite's answers at once, PostgreSQL's with a Promise). */
async function forkOn(store: AdapterStore, sessionId: string, options: LedgerForkOptions): Promise<void> {
  await Promise.resolve()
  await (store as unknown as Branching).fork(sessionId, options)
}

/** The store's `branches`, awaited. */
async function branchesOn(store: AdapterStore, sessionId: string): Promise<LedgerBranch[]> {
  await Promise.resolve()
  return (store as unknown as Branching).branches(sessionId)
}

function sqliteCalls(store: ContextStore): StoreCalls {
  return {
    fork: (id, options) => forkOn(store, id, options),
    branches: (id) => branchesOn(store, id),
    sessions: () => later(() => store.sessions()),
    session: (id) => later(() => store.session(id)),
    deleteSession: (id) => later(() => store.deleteSession(id)),
    prune: (options) => later(() => store.prune(options)),
  }
}

/**
 * The store-wide calls of a store.
 *
 * @param store - SQLite's or PostgreSQL's
 * @returns its calls, each returning a Promise
 */
export function storeCalls(store: AdapterStore): StoreCalls {
  if (!isAsyncStore(store)) return sqliteCalls(store)
  return {
    fork: (id, options) => forkOn(store, id, options),
    branches: (id) => branchesOn(store, id),
    sessions: () => store.sessions(),
    session: (id) => store.session(id),
    deleteSession: (id) => store.deleteSession(id),
    prune: (options) => store.prune(options),
  }
}
