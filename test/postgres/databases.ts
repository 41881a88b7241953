/**
 * A database of its own for each test of a file, on the `postgres` project's server, and the stores
 * opened on them: all closed and dropped after the file.
 */
import { afterAll, inject } from 'vitest'
import { openPostgresContextStore, type PostgresContextStore } from '../../src/backends/postgres/index.js'
import { createDatabase } from './server.js'

/** What {@link useDatabases} gives a test file. */
export interface TestDatabases {
  /** The server's admin connection string. */
  readonly adminUrl: string
  /** Creates an empty database; returns its connection string. */
  readonly database: () => Promise<string>
  /** Opens a store on a connection string (closed after the file). */
  readonly open: (url: string) => Promise<PostgresContextStore>
  /** Closes `store` after the file. */
  readonly track: (store: PostgresContextStore) => PostgresContextStore
}

/**
 * Registers the `afterAll` that closes the stores and drops the databases.
 *
 * @returns the file's databases
 */
export function useDatabases(): TestDatabases {
  const adminUrl = inject('pgUrl')
  const drops: (() => Promise<void>)[] = []
  const stores: PostgresContextStore[] = []
  afterAll(async () => {
    for (const s of stores.splice(0)) await s.close()
    for (const drop of drops.splice(0)) await drop()
  })
  const track = (store: PostgresContextStore): PostgresContextStore => {
    stores.push(store)
    return store
  }
  return {
    adminUrl,
    database: async () => {
      const db = await createDatabase(adminUrl)
      drops.push(db.drop)
      return db.url
    },
    open: async (url) => {
      return track(await openPostgresContextStore({ connectionString: url }))
    },
    track,
  }
}
