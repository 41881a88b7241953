/**
 * A connection the server ends (`pg_terminate_backend`, a failover, idle reaping) while the store holds it
 * must not end the process: node-postgres emits `'error'` on a client whose connection dies, and an
 * emitter without a listener throws it as an uncaught exception. The store listens on every client it
 * checks out (a snapshot of `store.reading`, the transaction of a locked write or a migration) and on its
 * pool, destroys a client that broke, and fails the call with a `ContextLedgerError` or runs it again.
 *
 * Found with writer processes whose backends were killed every 150 ms; tested the same way (8 writer
 * processes, a backend killed every 100–200 ms, seeded), and deterministically in this process: a snapshot
 * and a migration transaction whose backend is terminated while they hold it.
 * `CONTEXT_LEDGER_LONG=1`: more iterations per writer and more kills.
 */
import type { ChildProcess } from 'node:child_process'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { openPostgresContextStore } from '../../src/backends/postgres/index.js'
import { MIGRATION_LOCK } from '../../src/backends/postgres/migrate.js'
import { ERROR_CODES } from '../../src/index.js'
import { useNoUncaught } from '../helpers/no-uncaught.js'
import { refusalOf } from '../helpers/refusal.js'
import { collect, LONG, readyLatch, useWorker, type WorkerExit } from '../reliability/support.js'
import { rng } from '../reliability/workers/worker-kit.js'
import { useDatabases } from './databases.js'

const { database, track } = useDatabases()
const uncaught = useNoUncaught()
const WRITERS = 8
const ITERATIONS = LONG ? 600 : 60
const MAX_KILLS = LONG ? 2_000 : 250
const SEED = Number(process.env.CONTEXT_LEDGER_SEED ?? Date.now() % 1_000_000)
/** The codes docs/postgres.md says a call that lost its connection fails with. */
const DOCUMENTED = ['STORAGE_ERROR', 'DATABASE_BUSY']

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  return client
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Waits until the server has a backend of `url`'s database matching `where`, and terminates it.
 *
 * @returns the pid terminated
 */
async function terminateWhen(admin: pg.Client, where: string): Promise<number> {
  for (let i = 0; i < 500; i++) {
    const r = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND ${where}`,
    )
    const pid = r.rows[0]?.pid
    if (pid !== undefined) {
      await admin.query('SELECT pg_terminate_backend($1)', [pid])
      // Gone on the server once it no longer lists it; the client hears of it over its socket.
      while ((await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount !== 0)
        await sleep(5)
      return pid
    }
    await sleep(10)
  }
  throw new Error(`no backend where ${where}`)
}

describe('a connection the server ends while the store holds it', () => {
  it('mid-snapshot: the reading fails with STORAGE_ERROR, the process lives, the next reading works', async () => {
    const url = await database()
    const store = await openPostgresContextStore({ connectionString: url })
    track(store)
    await store.append('s', { role: 'user', content: [{ text: 'hello' }] })
    const admin = await connect(url)
    const error = await refusalOf(() =>
      store.reading(async (snapshot) => {
        await snapshot.history('s')
        // This reading's connection is idle in its transaction: the only one of the database.
        await terminateWhen(admin, `state = 'idle in transaction'`)
        // Most likely the client has read the server's goodbye by the next call (if not, that call meets
        // the closed socket: the same failure).
        await sleep(50)
        return snapshot.window('s')
      }),
    )
    expect(error.code).toBe('STORAGE_ERROR')
    expect(uncaught).toStrictEqual([])
    // The broken connection went, not back to the pool: every later call gets a live one.
    for (let i = 0; i < 12; i++)
      expect(await store.reading(async (snapshot) => (await snapshot.history('s')).length)).toBe(1)
    await admin.end()
  })

  it('mid-transaction (a migration waiting for the lock): opening fails with STORAGE_ERROR, the process lives, opening again works', async () => {
    const url = await database()
    const holder = await connect(url)
    await holder.query('BEGIN')
    // Another worker migrating: it holds the migration's advisory lock until it commits.
    await holder.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK])
    const admin = await connect(url)
    const opening = refusalOf(() => openPostgresContextStore({ connectionString: url }))
    await terminateWhen(admin, `wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock%'`)
    const error = await opening
    expect(error.code).toBe('STORAGE_ERROR')
    await holder.query('ROLLBACK')
    expect(uncaught).toStrictEqual([])
    const store = await openPostgresContextStore({ connectionString: url })
    track(store)
    expect(await store.append('s', { role: 'user', content: [{ text: 'migrated' }] })).toHaveLength(1)
    await holder.end()
    await admin.end()
  })
})

/**
 * A client whose connection dies in the same read as its first ReadyForQuery: the server's goodbye can
 * arrive in the one packet that completes the connection, and node-postgres parses both before any
 * Promise continuation runs. The pool takes its own listener off as it hands the client out, so a listener
 * attached after `await pool.connect()` comes too late; this client emits its `'error'` at that moment.
 */
class DiesOnConnect extends pg.Client {
  /** Whether new connections die as they are made. */
  static armed = false

  override connect(): Promise<pg.Client>
  override connect(callback: (err: Error) => void): void
  override connect(callback?: (err: Error) => void): Promise<pg.Client> | undefined {
    if (callback === undefined) return super.connect()
    super.connect((err: Error | null) => {
      // The pool's callback: it takes its listener off and hands the client over.
      callback(err as Error)
      if (err !== null || !DiesOnConnect.armed) return
      this.emit('error', new Error('terminating connection due to administrator command'))
      // And the server closes the socket, as it does after its goodbye.
      ;(this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy()
    })
    return undefined
  }
}

describe('a connection the server ends as it is made', () => {
  it('in the packet that completes it: the call fails typed, the process lives', async () => {
    const url = await database()
    const pool = new pg.Pool({ connectionString: url, max: 2, idleTimeoutMillis: 20, Client: DiesOnConnect })
    const store = await openPostgresContextStore({ pool })
    await store.append('s', { role: 'user', content: [{ text: 'hello' }] })
    // The connections made so far time out of the pool: the next call makes a new one.
    while (pool.totalCount > 0) await sleep(5)
    DiesOnConnect.armed = true
    try {
      const error = await refusalOf(() => store.reading((snapshot) => snapshot.history('s')))
      expect(error.code).toBe('STORAGE_ERROR')
      expect(uncaught).toStrictEqual([])
    } finally {
      DiesOnConnect.armed = false
    }
    expect(await store.reading((snapshot) => snapshot.history('s'))).toHaveLength(1)
    await store.close()
    await pool.end()
  })
})

describe('a connection the server ends while idle in the pool', () => {
  for (const own of [false, true])
    it(`${own ? 'a pool the caller gave (no listener of its own)' : 'the pool the store made'}: the pool drops it, the process lives, the next call connects anew`, async () => {
      const url = await database()
      const pool = own ? new pg.Pool({ connectionString: url, max: 3 }) : undefined
      const store = await openPostgresContextStore(own ? { pool } : { connectionString: url })
      await store.append('s', { role: 'user', content: [{ text: 'hello' }] })
      // Three idle connections in the pool.
      await Promise.all([1, 2, 3].map(() => store.reading((snapshot) => snapshot.history('s'))))
      expect(store.pool.idleCount).toBeGreaterThan(0)
      const admin = await connect(url)
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      )
      // The pool hears of each over its socket and drops it.
      while (store.pool.idleCount > 0) await sleep(5)
      expect(uncaught).toStrictEqual([])
      expect(await store.history('s')).toHaveLength(1)
      const storePool = store.pool
      await store.close()
      // The store's listener goes with it: the caller's pool is theirs again.
      if (pool !== undefined) {
        expect(pool.listenerCount('error')).toBe(0)
        await pool.end()
      } else {
        // Its own pool keeps it: a client the pool forgot at end() can still hear the server's goodbye,
        // which the pool passes on as its 'error' (an open/close loop under kills died of it).
        expect(() => storePool.emit('error', new Error('terminating connection'))).not.toThrow()
      }
      await admin.end()
    })
})

const launch = useWorker('dropped-connection-writer')

describe('writer processes whose backends are terminated', () => {
  it(`${WRITERS} writers × ${ITERATIONS} calls, a backend killed every 100–200 ms: every process exits 0, every acknowledged message is there once, every failure typed (seed ${SEED})`, async () => {
    const url = await database()
    // The schema first: the writers' opens are not what this test kills.
    await (await openPostgresContextStore({ connectionString: url })).close()
    const acked = new Map<string, string[]>()
    const failures: string[] = []
    const done: string[] = []
    const ready = readyLatch(WRITERS)
    const children: ChildProcess[] = []
    const exits: Promise<WorkerExit>[] = []
    for (let w = 0; w < WRITERS; w++) {
      const child = launch([url, String(w), String(ITERATIONS), String(SEED)])
      children.push(child)
      exits.push(
        collect(child, (line) => {
          const [tag, a, b] = line.split(' ', 3)
          if (tag === 'R') ready.arrive()
          else if (tag === 'A' && a !== undefined && b !== undefined)
            acked.set(a, [...(acked.get(a) ?? []), b])
          else if (tag === 'E' || tag === 'X') failures.push(`writer ${w}: ${line}`)
          else if (tag === 'D') done.push(line)
        }),
      )
    }
    let running = WRITERS
    for (const exit of exits) void exit.then(() => running--)
    await Promise.race([ready.all, Promise.race(exits)])
    expect(ready.arrived()).toBe(WRITERS)
    for (const child of children) child.stdin?.write('go\n')

    // Kill backends until every writer has finished: sometimes one at random, sometimes every one that
    // holds a transaction open (a snapshot or a locked write: a checked-out connection).
    const killer = await connect(url)
    const r = rng(SEED)
    let kills = 0
    const deadline = Date.now() + (LONG ? 1_200_000 : 180_000)
    while (running > 0 && kills < MAX_KILLS && Date.now() < deadline) {
      await sleep(r.int(100, 200))
      const { rows } = await killer.query<{ pid: number; tx: boolean }>(
        `SELECT pid, xact_start IS NOT NULL AS tx FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
         ORDER BY pid`,
      )
      const inTx = rows.filter((row) => row.tx)
      const targets =
        r.chance(0.5) && inTx.length > 0 ? inTx : rows.slice(r.int(0, rows.length - 1)).slice(0, 1)
      for (const { pid } of targets) await killer.query('SELECT pg_terminate_backend($1)', [pid])
      kills += targets.length
    }
    await killer.end()
    const results = await Promise.all(exits)

    // Every writer exited by itself with 0: none died of an uncaught connection error.
    const died = results.flatMap((result, w) =>
      result.code === 0 && result.signal === null && result.stderr === ''
        ? []
        : [{ writer: w, code: result.code, signal: result.signal, stderr: result.stderr.slice(0, 2000) }],
    )
    expect(died).toStrictEqual([])
    expect(done).toHaveLength(WRITERS)
    expect(kills).toBeGreaterThan(0)
    // The writers lost connections and took the session's lock (a transaction on a checked-out client).
    const [reconnects, locked] = [1, 2].map((k) =>
      done.reduce((sum, line) => sum + Number(line.split(' ')[k]), 0),
    )
    expect(reconnects).toBeGreaterThan(0)
    expect(locked).toBeGreaterThan(0)
    // Every failure a ContextLedgerError with a code docs/postgres.md names for a lost connection.
    const codes = failures.map((line) => line.split(' ')[3])
    expect(failures.filter((line, i) => !DOCUMENTED.includes(codes[i] ?? ''))).toStrictEqual([])
    expect(codes.every((code) => (ERROR_CODES as readonly string[]).includes(code ?? ''))).toBe(true)

    // Every acknowledged message in the ledger exactly once; no message twice.
    const store = await openPostgresContextStore({ connectionString: url })
    track(store)
    for (const [sessionId, ids] of acked) {
      const stored: string[] = []
      for (let from = 0; ;) {
        const page = await store.history(sessionId, { fromSeq: from, limit: 500 })
        stored.push(...page.map((e) => e.message.trackingId))
        if (page.length < 500) break
        from += page.length
      }
      expect(new Set(stored).size).toBe(stored.length)
      const missing = ids.filter((id) => !stored.includes(id))
      expect({ sessionId, missing }).toStrictEqual({ sessionId, missing: [] })
    }
    expect(uncaught).toStrictEqual([])
  }, 600_000)
})
