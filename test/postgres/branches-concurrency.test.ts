/**
 * Branches on PostgreSQL under concurrency and lost connections (docs/design.md, "Branches on
 * PostgreSQL"): two connections forking or rewinding the same session at once each get a valid result or a
 * typed error, and the tree they leave holds every message exactly once, each session reading a prefix of
 * the conversation they share; a connection the server ends while a fork, a rewind or an append in a
 * branch waits on a lock leaves the ledger as before or the whole write, never part of it.
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import type { PostgresContextStore } from '../../src/backends/postgres/index.js'
import { ContextLedgerError, type MessageData } from '../../src/index.js'
import { useNoUncaught } from '../helpers/no-uncaught.js'
import { pgLedgerChecksum } from './checksum.js'
import { useDatabases } from './databases.js'

const { database, open } = useDatabases()
const uncaught = useNoUncaught()

/** One turn: a question, a tool call, its result, an answer (seqs 4t … 4t + 3). */
function turn(t: number | string): MessageData[] {
  return [
    { role: 'user', content: [{ text: `question ${t}` }] },
    { role: 'assistant', content: [{ toolUse: { name: 'look', toolUseId: `c${t}`, input: { t } } }] },
    {
      role: 'user',
      content: [{ toolResult: { toolUseId: `c${t}`, status: 'success', content: [{ text: `found ${t}` }] } }],
    },
    { role: 'assistant', content: [{ text: `answer ${t}` }] },
  ]
}

/** The messages of a session's conversation, as JSON. */
async function conversation(store: PostgresContextStore, id: string): Promise<string[]> {
  return (await store.history(id, { limit: 10_000 })).map((e) => JSON.stringify(e.message))
}

/** How many message rows the ledger holds. */
async function rowCount(store: PostgresContextStore): Promise<number> {
  const r = await store.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM context_ledger.messages')
  return r.rows[0]?.n ?? -1
}

/**
 * Every session of the tree holding `root` (but `except`) reads a prefix of `original` as long as its
 * message count, and the ledger holds `rows` message rows (a rewind moves rows, a fork writes none).
 */
async function assertTree(
  store: PostgresContextStore,
  root: string,
  original: string[],
  rows: number,
  except?: string,
): Promise<void> {
  for (const b of await store.branches(root)) {
    const c = await conversation(store, b.sessionId)
    expect(c.length, b.sessionId).toBe(b.messageCount)
    if (b.sessionId !== except) expect(c, b.sessionId).toStrictEqual(original.slice(0, c.length))
  }
  expect(await rowCount(store)).toBe(rows)
}

/** The outcome of a call: its value, or the code of the ContextLedgerError it failed with. */
async function outcome<T>(p: Promise<T>): Promise<{ value: T } | { code: string }> {
  try {
    return { value: await p }
  } catch (error) {
    if (error instanceof ContextLedgerError) return { code: error.code }
    throw error
  }
}

/** Two stores on one fresh ledger (two pools: two processes, as far as the server can tell). */
async function twoStores(): Promise<[PostgresContextStore, PostgresContextStore]> {
  const url = await database()
  return [await open(url), await open(url)]
}

describe('two connections on one session at once', () => {
  it('forking to the same new id: one fork, the other SESSION_EXISTS', async () => {
    const [a, b] = await twoStores()
    await a.append('s', [0, 1, 2, 3].flatMap(turn))
    const original = await conversation(a, 's')
    for (let i = 0; i < 4; i++) {
      const id = `f${i}`
      const results = await Promise.all([
        outcome(a.fork('s', { atSeq: 9, newSessionId: id })),
        outcome(b.fork('s', { atSeq: 11, newSessionId: id })),
      ])
      expect(results.filter((r) => 'value' in r)).toHaveLength(1)
      expect(results.filter((r) => 'code' in r)).toStrictEqual([{ code: 'SESSION_EXISTS' }])
      const made = results.find((r) => 'value' in r)
      const forkSeq = made !== undefined && 'value' in made ? made.value.forkSeq : undefined
      expect((await a.branches(id)).find((x) => x.sessionId === id)?.forkSeq).toBe(forkSeq)
    }
    await assertTree(a, 's', original, 16)
    expect(await a.branches('s')).toHaveLength(5)
    expect(uncaught).toStrictEqual([])
  })

  it('rewinding to two points: both valid in either order, or the later point gone (MESSAGE_NOT_FOUND)', async () => {
    const [a, b] = await twoStores()
    for (let i = 0; i < 4; i++) {
      const id = `s${i}`
      await a.append(id, [0, 1, 2, 3].flatMap(turn))
      const original = await conversation(a, id)
      const results = await Promise.all([
        outcome(a.rewind(id, { toSeq: 10 })),
        outcome(b.rewind(id, { toSeq: 5 })),
      ])
      for (const r of results) if ('code' in r) expect(r.code).toBe('MESSAGE_NOT_FOUND')
      // Whatever the order, the session ends at seq 5; what left it is in abandoned branches.
      expect(await conversation(a, id)).toStrictEqual(original.slice(0, 6))
      const tree = await a.branches(id)
      expect(tree.filter((x) => x.kind === 'abandoned').length).toBe(
        results.filter((r) => 'value' in r).length,
      )
      expect(Math.max(...tree.map((x) => x.messageCount))).toBe(16)
      await assertTree(a, id, original, 16 * (i + 1))
    }
    expect(uncaught).toStrictEqual([])
  })

  it('a fork and a rewind of its parent past the fork point: the fork holds its messages or is refused', async () => {
    const [a, b] = await twoStores()
    for (let i = 0; i < 4; i++) {
      const id = `s${i}`
      await a.append(id, [0, 1, 2, 3].flatMap(turn))
      const original = await conversation(a, id)
      const [forked, rewound] = await Promise.all([
        outcome(a.fork(id, { atSeq: 12, newSessionId: `${id}-f` })),
        outcome(b.rewind(id, { toSeq: 5 })),
      ])
      expect(rewound).toHaveProperty('value')
      if ('code' in forked) expect(forked.code).toBe('MESSAGE_NOT_FOUND')
      else expect(await conversation(a, `${id}-f`)).toStrictEqual(original.slice(0, 13))
      await assertTree(a, id, original, 16 * (i + 1))
    }
    expect(uncaught).toStrictEqual([])
  })
})

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until a backend of the database waits on a lock, and terminates it. */
async function terminateWaiting(admin: pg.Client): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    const r = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
        AND wait_event_type = 'Lock'`,
    )
    const pid = r.rows[0]?.pid
    if (pid !== undefined) {
      await admin.query('SELECT pg_terminate_backend($1)', [pid])
      return
    }
    await sleep(10)
  }
  throw new Error('no backend waited on a lock')
}

/** What a write must leave when it went through: `s` held 16 messages, `b` forked from it at 11. */
interface Write {
  what: string
  /** The table its writing statement writes (locked so that the statement waits there). */
  table: 'sessions' | 'messages'
  call: (store: PostgresContextStore) => Promise<unknown>
  /** The message rows after it. */
  rows: number
  /** A session it made or changed, its message count after it, and how many of `s`'s 16 it starts with. */
  after: [id: string, count: number, prefix: number]
}

const WRITES: Write[] = [
  {
    what: 'fork',
    table: 'sessions',
    call: (s) => s.fork('s', { atSeq: 9, newSessionId: 'f' }),
    rows: 16,
    after: ['f', 10, 10],
  },
  {
    what: 'rewind',
    table: 'messages',
    call: (s) => s.rewind('s', { toSeq: 9 }),
    rows: 16,
    after: ['s', 10, 10],
  },
  {
    what: 'append in a branch',
    table: 'messages',
    call: (s) => s.append('b', turn('x')),
    rows: 20,
    after: ['b', 16, 12],
  },
]

describe('a connection ended while a branch write waits on a lock', () => {
  it.each(WRITES)('$what: the ledger as before, or the whole write', async (w) => {
    const url = await database()
    const store = await open(url)
    await store.append('s', [0, 1, 2, 3].flatMap(turn))
    await store.fork('s', { atSeq: 11, newSessionId: 'b' })
    const original = await conversation(store, 's')
    const before = await pgLedgerChecksum(store.pool)
    const holder = new pg.Client({ connectionString: url })
    const admin = new pg.Client({ connectionString: url })
    await holder.connect()
    await admin.connect()
    await holder.query('BEGIN')
    // EXCLUSIVE lets the write read but not write: its writing statement waits, and is killed there.
    // The table name is one of two literals (WRITES), never input.
    await holder.query(`LOCK TABLE context_ledger.${w.table} IN EXCLUSIVE MODE`)
    const result = outcome(w.call(store))
    await terminateWaiting(admin)
    // The store may read again and wait once more: let it go (nothing of the killed statement is left).
    await holder.query('ROLLBACK')
    const done = await result
    if ('code' in done) expect(await pgLedgerChecksum(store.pool)).toBe(before)
    else {
      const [id, count, prefix] = w.after
      const c = await conversation(store, id)
      expect(c).toHaveLength(count)
      expect(c.slice(0, prefix)).toStrictEqual(original.slice(0, prefix))
      await assertTree(store, 's', original, w.rows, id)
    }
    expect(uncaught).toStrictEqual([])
    await holder.end()
    await admin.end()
  })
})
