/**
 * Opening either backend's ledger from where it is — a SQLite file path or a PostgreSQL connection
 * string — as the conformance suite's {@link LedgerStore}, for test processes and child-process workers
 * alike (nothing here imports vitest). SQLite stores are wrapped in an async adapter, so a worker written
 * once against the awaited API drives both backends.
 */
import {
  openContextStore,
  PersistentConversationManager,
  type ContextStore,
  type ContextStoreOptions,
  type PersistentConversationManagerOptions,
} from '../../src/index.js'
import type { PostgresContextStore, PostgresConversationManager } from '../../src/backends/postgres/index.js'

/** The store calls the conformance suite makes: the PostgreSQL store's, which the SQLite adapter provides too. */
export type LedgerStore = Pick<
  PostgresContextStore,
  | 'limits'
  | 'readonly'
  | 'append'
  | 'applyWindow'
  | 'pin'
  | 'unpin'
  | 'setWindowContent'
  | 'editMessage'
  | 'redactMessage'
  | 'deleteSession'
  | 'prune'
  | 'planFold'
  | 'writeFold'
  | 'planRegeneration'
  | 'writeRegeneration'
  | 'dropSummary'
  | 'window'
  | 'windowEntries'
  | 'history'
  | 'message'
  | 'sessions'
  | 'session'
  | 'messageCount'
  | 'pinnedMessages'
  | 'pinEvents'
  | 'edits'
  | 'summaries'
  | 'summary'
  | 'search'
  | 'evictions'
  | 'evictionOf'
  | 'fork'
  | 'rewind'
  | 'branches'
  | 'close'
> & {
  /** Runs several reads on one committed state. */
  reading<T>(fn: (store: LedgerStore) => Promise<T>): Promise<T>
}

/** The manager calls the conformance suite makes. */
export type LedgerManager = Pick<
  PostgresConversationManager,
  | 'sessionId'
  | 'limits'
  | 'tokenCounter'
  | 'append'
  | 'applyWindow'
  | 'reduce'
  | 'window'
  | 'windowEntries'
  | 'edit'
  | 'redact'
  | 'prune'
  | 'deleteSession'
  | 'edits'
  | 'pin'
  | 'unpin'
  | 'setWindowContent'
  | 'summarize'
  | 'summarizeExcess'
  | 'resummarize'
  | 'dropSummary'
  | 'summaries'
  | 'summary'
  | 'history'
  | 'message'
  | 'search'
  | 'evictions'
> & { readonly store: LedgerStore }

/** Options of a manager, without the store. */
export type ManagerOptions = Omit<PersistentConversationManagerOptions, 'store'>

/** Turns every method of `target` into one returning a Promise (throws become rejections). */
function asyncOf(target: object, extra: Record<string, unknown> = {}): unknown {
  return new Proxy(target, {
    get(t, key, receiver) {
      if (typeof key === 'string' && key in extra) return extra[key]
      const value: unknown = Reflect.get(t, key, receiver)
      if (typeof value !== 'function') return value
      // The call runs now, in the executor: what it throws becomes the rejection, as it is.
      return (...args: unknown[]) =>
        new Promise((resolve) => {
          resolve((value as (...a: unknown[]) => unknown).apply(t, args))
        })
    },
  })
}

const sqliteStores = new WeakMap<object, { store: ContextStore; path: string }>()

/**
 * The async adapter over a SQLite store: the calls of {@link LedgerStore}, each returning a Promise.
 *
 * @param store - an open SQLite store
 * @param path - its file
 * @returns the adapter
 */
export function asyncSqliteStore(store: ContextStore, path: string): LedgerStore {
  const adapter = asyncOf(store, {
    reading: async <T>(fn: (s: LedgerStore) => Promise<T>): Promise<T> => {
      // One read transaction, as the SQLite reads see one snapshot; the reads inside run synchronously.
      const db = store.connection()
      db.exec('BEGIN')
      try {
        return await fn(adapter)
      } finally {
        db.exec('COMMIT')
      }
    },
    close: () => {
      store.close()
      return Promise.resolve()
    },
  }) as LedgerStore
  sqliteStores.set(adapter, { store, path })
  return adapter
}

/**
 * The async adapter over a SQLite manager.
 *
 * @param manager - a manager of a SQLite store
 * @param store - the store's adapter
 * @returns the adapter
 */
export function asyncSqliteManager(
  manager: PersistentConversationManager,
  store: LedgerStore,
): LedgerManager {
  const adapter = asyncOf(manager, {
    store,
    sessionId: manager.sessionId,
    limits: manager.limits,
  }) as LedgerManager
  sqliteManagers.set(adapter, manager)
  return adapter
}

const sqliteManagers = new WeakMap<object, PersistentConversationManager>()

/**
 * The manager itself behind a suite manager: the SQLite manager behind an adapter (its calls answer at
 * once), or the PostgreSQL manager as it is — what code taking either backend's manager gets in real use.
 *
 * @param manager - a manager of the suite
 * @returns the manager behind it
 */
export function coreManagerOf(
  manager: LedgerManager,
): PersistentConversationManager | PostgresConversationManager {
  return sqliteManagers.get(manager) ?? (manager as PostgresConversationManager)
}

/**
 * The store itself behind a suite store: the SQLite store behind an adapter, or the PostgreSQL store.
 *
 * @param store - a store of the suite
 * @returns the store behind it
 */
export function coreStoreOf(store: LedgerStore): ContextStore | PostgresContextStore {
  return sqliteStores.get(store)?.store ?? (store as PostgresContextStore)
}

/**
 * The SQLite store and file behind an adapter, if it is one.
 *
 * @param store - a store
 * @returns the SQLite store and its path, or undefined for a PostgreSQL store
 */
export function sqliteOf(store: LedgerStore): { store: ContextStore; path: string } | undefined {
  return sqliteStores.get(store)
}

/** Whether a location is a PostgreSQL connection string. */
export function isPostgres(location: string): boolean {
  return /^postgres(ql)?:\/\//.test(location)
}

/**
 * Opens the ledger at `location`.
 *
 * @param location - a SQLite file path or a PostgreSQL connection string
 * @param options - validation limits and `readonly`
 * @returns the store
 */
export async function openLedger(
  location: string,
  options: Pick<ContextStoreOptions, 'limits' | 'readonly'> = {},
): Promise<LedgerStore> {
  if (!isPostgres(location)) return asyncSqliteStore(openContextStore(location, options), location)
  const { openPostgresContextStore } = await import('../../src/backends/postgres/index.js')
  return openPostgresContextStore({ connectionString: location, maxConnections: 4, ...options })
}

/**
 * A manager of one session of either backend's store.
 *
 * @param store - a store from {@link openLedger} (or the suite's backend)
 * @param options - the session, limits and token counter
 * @returns the manager
 */
export async function managerOf(store: LedgerStore, options: ManagerOptions): Promise<LedgerManager> {
  const sqlite = sqliteOf(store)
  if (sqlite !== undefined)
    return asyncSqliteManager(new PersistentConversationManager({ ...options, store: sqlite.store }), store)
  const { PostgresConversationManager } = await import('../../src/backends/postgres/index.js')
  return new PostgresConversationManager({ ...options, store: store as PostgresContextStore })
}
