/**
 * The store-wide calls the session store makes besides one session's (those go through the port): list
 * the ledger's sessions, delete one, prune — as Promises over either backend.
 */
import type { ContextStore } from '../../store/context-store.js'
import type { DeleteSessionResult, PruneOptions, PruneResult } from '../../store/retention-options.js'
import type { SessionSummary } from '../../store/store-types.js'
import type { AdapterStore } from '../session-options.js'
import { isAsyncStore } from '../strands/async-ledger.js'
import { later } from '../port.js'

/** The store-wide calls, awaited. */
export interface StoreCalls {
  /** Every session of the ledger. */
  sessions(): Promise<SessionSummary[]>
  /** One session, or undefined. */
  session(sessionId: string): Promise<SessionSummary | undefined>
  /** Deletes one session. */
  deleteSession(sessionId: string): Promise<DeleteSessionResult>
  /** Retention over one session or all. */
  prune(options: PruneOptions): Promise<PruneResult>
}

function sqliteCalls(store: ContextStore): StoreCalls {
  return {
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
    sessions: () => store.sessions(),
    session: (id) => store.session(id),
    deleteSession: (id) => store.deleteSession(id),
    prune: (options) => store.prune(options),
  }
}
