/**
 * The conformance suite's backends. A test written once against {@link LedgerStore} and
 * {@link LedgerManager} — the PostgreSQL store's and manager's API, every call awaited — runs on
 * whichever backend its vitest project selects (`CONTEXT_LEDGER_BACKEND`): SQLite through a small async
 * adapter over the synchronous store (a temp file per store), or PostgreSQL on the server the `postgres`
 * project starts (a new database per store). Same test bodies, same assertions, two backends.
 */
import { inject } from 'vitest'
import {
  openContextStore,
  PersistentConversationManager,
  type ContextStore,
  type ContextStoreOptions,
  type PersistentConversationManagerOptions,
} from '../../src/index.js'
import type { PostgresContextStore, PostgresConversationManager } from '../../src/backends/postgres/index.js'
import { tempDir, type TempDir } from './temp-store.js'

/** Which backend the running project tests. */
export type BackendName = 'sqlite' | 'postgres'

/** The backend of this test run: `CONTEXT_LEDGER_BACKEND=postgres` in the `postgres` project. */
export const BACKEND: BackendName = process.env.CONTEXT_LEDGER_BACKEND === 'postgres' ? 'postgres' : 'sqlite'

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
> & { readonly store: LedgerStore }

/** Options of a manager, without the store. */
export type ManagerOptions = Omit<PersistentConversationManagerOptions, 'store'>

/** A backend as the suite uses it. */
export interface Backend {
  /** Its name. */
  readonly name: BackendName
  /**
   * Opens a store on a fresh, empty ledger (a new file or a new database); closed by {@link cleanup}.
   *
   * @param options - validation limits
   */
  open(options?: Pick<ContextStoreOptions, 'limits'>): Promise<LedgerStore>
  /**
   * Opens another store on the ledger of `store` (another connection, as another process would).
   *
   * @param store - a store this backend opened
   * @param options - `readonly: true` for a read-only store
   */
  reopen(store: LedgerStore, options?: { readonly?: boolean }): Promise<LedgerStore>
  /**
   * One value read with raw SQL (for what the API does not show, such as bookkeeping columns).
   *
   * @param store - a store this backend opened
   * @param sql - the query for each backend (PostgreSQL's tables are in the schema `context_ledger`)
   */
  scalar(store: LedgerStore, sql: { sqlite: string; postgres: string }): Promise<unknown>
  /**
   * A checksum of every row of the ledger of `store`: equal before and after a call means it changed nothing.
   *
   * @param store - a store this backend opened
   */
  checksum(store: LedgerStore): Promise<string>
  /** A manager of one session of `store`. */
  manager(store: LedgerStore, options: ManagerOptions): LedgerManager
  /** Where the ledger of `store` is, for child processes: a file path or a connection string. */
  location(store: LedgerStore): string
  /** Closes every store opened and removes every file or database. */
  cleanup(): Promise<void>
}

/** Turns every method of `target` into one returning a Promise (throws become rejections). */
function asyncOf<T extends object>(target: T, extra: Record<string, unknown> = {}): unknown {
  return new Proxy(target, {
    get(t, key, receiver) {
      if (typeof key === 'string' && key in extra) return extra[key]
      const value: unknown = Reflect.get(t, key, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        try {
          return Promise.resolve((value as (...a: unknown[]) => unknown).apply(t, args))
        } catch (error) {
          return Promise.reject(error)
        }
      }
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
        return await fn(adapter as LedgerStore)
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
  return asyncOf(manager, { store, sessionId: manager.sessionId, limits: manager.limits }) as LedgerManager
}

/** The SQLite store behind an adapter. */
export function sqliteOf(store: LedgerStore): ContextStore {
  const found = sqliteStores.get(store)
  if (found === undefined) throw new Error('not a SQLite store of the suite')
  return found.store
}

function sqliteBackend(): Backend {
  let dir: TempDir | undefined
  let opened = 0
  const stores: LedgerStore[] = []
  return {
    name: 'sqlite',
    async open(options = {}) {
      dir ??= tempDir()
      const path = dir.file(`ledger-${opened++}.db`)
      const store = asyncSqliteStore(openContextStore(path, options), path)
      stores.push(store)
      return Promise.resolve(store)
    },
    async reopen(store, options = {}) {
      const path = this.location(store)
      const other = asyncSqliteStore(openContextStore(path, { limits: store.limits, ...options }), path)
      stores.push(other)
      return Promise.resolve(other)
    },
    async scalar(store, sql) {
      return Promise.resolve(sqliteOf(store).connection().prepare(sql.sqlite).pluck().get())
    },
    async checksum(store) {
      const { ledgerChecksum } = await import('../reliability/db-checksum.js')
      return ledgerChecksum(sqliteOf(store).connection())
    },
    manager(store, options) {
      return asyncSqliteManager(
        new PersistentConversationManager({ ...options, store: sqliteOf(store) }),
        store,
      )
    },
    location(store) {
      const found = sqliteStores.get(store)
      if (found === undefined) throw new Error('not a SQLite store of the suite')
      return found.path
    },
    async cleanup() {
      for (const s of stores.splice(0)) await s.close()
      dir?.cleanup()
      dir = undefined
    },
  }
}

function postgresBackend(): Backend {
  const stores: PostgresContextStore[] = []
  const databases: { url: string; drop: () => Promise<void> }[] = []
  const where = new WeakMap<object, string>()
  const adminUrl = (): string => {
    const url = inject('pgUrl') as string | undefined
    if (url === undefined) throw new Error('no PostgreSQL server: run the postgres vitest project')
    return url
  }
  const load = async () => {
    const [{ openPostgresContextStore, PostgresConversationManager }, { createDatabase }] = await Promise.all(
      [import('../../src/backends/postgres/index.js'), import('../postgres/server.js')],
    )
    return { openPostgresContextStore, PostgresConversationManager, createDatabase }
  }
  let loaded: Awaited<ReturnType<typeof load>> | undefined
  const lib = async () => (loaded ??= await load())
  return {
    name: 'postgres',
    async open(options = {}) {
      const { openPostgresContextStore, createDatabase } = await lib()
      const db = await createDatabase(adminUrl())
      databases.push(db)
      const store = await openPostgresContextStore({
        connectionString: db.url,
        maxConnections: 4,
        ...options,
      })
      stores.push(store)
      where.set(store, db.url)
      return store
    },
    async reopen(store, options = {}) {
      const { openPostgresContextStore } = await lib()
      const url = this.location(store)
      const other = await openPostgresContextStore({
        connectionString: url,
        maxConnections: 4,
        limits: store.limits,
        ...options,
      })
      stores.push(other)
      where.set(other, url)
      return other
    },
    async scalar(store, sql) {
      const result = await (store as PostgresContextStore).pool.query<Record<string, unknown>>(sql.postgres)
      const row = result.rows[0]
      return row === undefined ? undefined : Object.values(row)[0]
    },
    async checksum(store) {
      const { pgLedgerChecksum } = await import('../postgres/checksum.js')
      return pgLedgerChecksum((store as PostgresContextStore).pool)
    },
    manager(store, options) {
      if (loaded === undefined) throw new Error('open a store first')
      return new loaded.PostgresConversationManager({ ...options, store: store as PostgresContextStore })
    },
    location(store) {
      const url = where.get(store)
      if (url === undefined) throw new Error('not a PostgreSQL store of the suite')
      return url
    },
    async cleanup() {
      for (const s of stores.splice(0)) await s.close()
      for (const db of databases.splice(0)) await db.drop()
    },
  }
}

/**
 * The backend this run tests.
 *
 * @returns a fresh backend handle (its stores are its own)
 */
export function makeBackend(): Backend {
  return BACKEND === 'postgres' ? postgresBackend() : sqliteBackend()
}
