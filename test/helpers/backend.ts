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
} from '../../src/index.js'
import type { PostgresContextStore } from '../../src/backends/postgres/index.js'
import {
  asyncSqliteManager,
  asyncSqliteStore,
  openLedger,
  sqliteOf,
  type LedgerManager,
  type LedgerStore,
  type ManagerOptions,
} from './ledger-open.js'
import { tempDir, type TempDir } from './temp-store.js'

export type { LedgerManager, LedgerStore, ManagerOptions } from './ledger-open.js'
export { coreManagerOf, coreStoreOf } from './ledger-open.js'

/** Which backend the running project tests. */
export type BackendName = 'sqlite' | 'postgres'

/** The backend of this test run: `CONTEXT_LEDGER_BACKEND=postgres` in the `postgres` project. */
export const BACKEND: BackendName = process.env.CONTEXT_LEDGER_BACKEND === 'postgres' ? 'postgres' : 'sqlite'

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
  /** Where a new, empty ledger can be made (a file path not there yet, or an empty database). */
  freshLocation(): Promise<string>
  /**
   * Opens the ledger at a location (from {@link freshLocation} or {@link location}); closed by {@link cleanup}.
   *
   * @param location - a file path or connection string
   * @param options - `readonly`
   */
  openAt(location: string, options?: { readonly?: boolean }): Promise<LedgerStore>
  /** A manager of one session of `store`. */
  manager(store: LedgerStore, options: ManagerOptions): LedgerManager
  /** Where the ledger of `store` is, for child processes: a file path or a connection string. */
  location(store: LedgerStore): string
  /** Closes every store opened and removes every file or database. */
  cleanup(): Promise<void>
}

function sqliteStore(store: LedgerStore): ContextStore {
  const found = sqliteOf(store)
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
    async freshLocation() {
      dir ??= tempDir()
      return Promise.resolve(dir.file(`ledger-${opened++}.db`))
    },
    async openAt(location, options = {}) {
      const store = await openLedger(location, options)
      stores.push(store)
      return store
    },
    async scalar(store, sql) {
      return Promise.resolve(sqliteStore(store).connection().prepare(sql.sqlite).pluck().get())
    },
    async checksum(store) {
      const { ledgerChecksum } = await import('../reliability/db-checksum.js')
      return ledgerChecksum(sqliteStore(store).connection())
    },
    manager(store, options) {
      return asyncSqliteManager(
        new PersistentConversationManager({ ...options, store: sqliteStore(store) }),
        store,
      )
    },
    location(store) {
      const found = sqliteOf(store)
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

/** A database of the PostgreSQL backend: where it is, how to drop it, and whether it is a template copy. */
interface Database {
  readonly url: string
  readonly drop: () => Promise<void>
  readonly copy: boolean
}

/**
 * Template copies reset after a test and ready to be handed out again (test/postgres/recycle.ts), with
 * the fingerprint of a fresh copy; shared by the files a worker runs.
 */
const spares: { template?: string; ready: Database[] } = { ready: [] }

function postgresBackend(): Backend {
  const stores: PostgresContextStore[] = []
  const databases: Database[] = []
  const where = new WeakMap<object, string>()
  const adminUrl = (): string => {
    const url = inject('pgUrl') as string | undefined
    if (url === undefined) throw new Error('no PostgreSQL server: run the postgres vitest project')
    return url
  }
  const load = async () => {
    const [{ openPostgresContextStore, PostgresConversationManager }, { createDatabase }, recycle] =
      await Promise.all([
        import('../../src/backends/postgres/index.js'),
        import('../postgres/server.js'),
        import('../postgres/recycle.js'),
      ])
    return { openPostgresContextStore, PostgresConversationManager, createDatabase, recycle }
  }
  let loaded: Awaited<ReturnType<typeof load>> | undefined
  const lib = async () => (loaded ??= await load())
  return {
    name: 'postgres',
    async open(options = {}) {
      const { openPostgresContextStore, createDatabase, recycle } = await lib()
      // A copy of the run's migrated template (or one reset to read as a fresh copy): the store opens on
      // a ledger of the current schema.
      let db = spares.ready.pop()
      if (db === undefined) {
        db = { ...(await createDatabase(adminUrl(), inject('pgTemplate'))), copy: true }
        spares.template ??= await recycle.fingerprint(db.url)
      }
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
    async freshLocation() {
      const { createDatabase } = await lib()
      const db = { ...(await createDatabase(adminUrl())), copy: false }
      databases.push(db)
      return db.url
    },
    async openAt(location, options = {}) {
      const store = (await openLedger(location, options)) as PostgresContextStore
      stores.push(store)
      where.set(store, location)
      return store
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
      const reset = loaded?.recycle.resetToTemplate
      for (const db of databases.splice(0)) {
        const template = spares.template
        if (db.copy && template !== undefined && reset !== undefined && (await reset(db.url, template)))
          spares.ready.push(db)
        else await db.drop()
      }
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
