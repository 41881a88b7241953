/**
 * test/postgres/recycle.ts: a template copy the suite wrote to reads, once reset, as a fresh copy does —
 * and one a test changed in any other way, or that a connection still holds, is not handed out again.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { openPostgresContextStore, type PostgresContextStore } from '../../src/backends/postgres/index.js'
import { recordingSummarizer } from '../helpers/summarizers.js'
import { pgLedgerChecksum } from './checksum.js'
import { fingerprint, resetToTemplate } from './recycle.js'
import { createDatabase, query } from './server.js'

const made: { drop: () => Promise<void> }[] = []
let fresh = ''
let freshSum = ''

/** A new copy of the run's template. */
async function copy(): Promise<string> {
  const db = await createDatabase(inject('pgUrl'), inject('pgTemplate'))
  made.push(db)
  return db.url
}

/** Runs `body` on a store opened on `url`, then closes it. */
async function withStore<T>(url: string, body: (s: PostgresContextStore) => Promise<T>): Promise<T> {
  const store = await openPostgresContextStore({ connectionString: url, maxConnections: 2 })
  try {
    return await body(store)
  } finally {
    await store.close()
  }
}

/** One statement on `url`. */
async function sql(url: string, text: string): Promise<void> {
  await query(url, text)
}

/** A turn of a tool call and its answer. */
function turn(n: number) {
  return [
    { role: 'user' as const, content: [{ text: `question ${n}` }] },
    {
      role: 'assistant' as const,
      content: [{ toolUse: { name: 'look', toolUseId: `c${n}`, input: { n } } }],
    },
    {
      role: 'user' as const,
      content: [
        { toolResult: { toolUseId: `c${n}`, status: 'success' as const, content: [{ text: 'ok' }] } },
      ],
    },
    { role: 'assistant' as const, content: [{ text: `answer ${n}` }] },
  ]
}

/** Writes into every table: turns, a pin, a fork, a rewind, a cut, a summary, an edit. */
async function scribble(store: PostgresContextStore): Promise<void> {
  for (let n = 0; n < 4; n++) await store.append('root', turn(n))
  await store.pin('root', { seq: 4 })
  await store.fork('root', { atSeq: 7, newSessionId: 'branch' })
  await store.append('branch', turn(9))
  await store.rewind('root', { toSeq: 11 })
  await store.applyWindow('root', { windowSize: 4, tokenBudget: undefined, first: 0, last: 0 })
  const { PostgresConversationManager } = await import('../../src/backends/postgres/index.js')
  const manager = new PostgresConversationManager({ store, sessionId: 'branch', windowSize: 3 })
  await manager.summarizeExcess(recordingSummarizer().summarize)
  const answer = (await store.history('branch')).find((e) => e.seq === 3)
  if (answer === undefined) throw new Error('no seq 3')
  await store.setWindowContent('branch', { seq: 3 }, { ...answer.message, content: [{ text: 'shorter' }] })
}

beforeAll(async () => {
  fresh = await copy()
  freshSum = await withStore(fresh, (s) => pgLedgerChecksum(s.pool))
})
afterAll(async () => {
  for (const db of made.splice(0)) await db.drop()
})

describe('a template copy reset after a test', () => {
  it('reads as a fresh copy: the same rows, sequences, schema; identities start over', async () => {
    const template = await fingerprint(fresh)
    const url = await copy()
    const before = await withStore(url, async (s) => {
      await scribble(s)
      return { sum: await pgLedgerChecksum(s.pool), sessions: (await s.sessions()).length }
    })
    expect(before.sessions).toBe(3)
    expect(before.sum).not.toBe(freshSum)
    expect(await fingerprint(url)).not.toBe(template)

    expect(await resetToTemplate(url, template)).toBe(true)
    expect(await fingerprint(url)).toBe(template)
    // The same first write gets the same keys as on a fresh copy.
    const keys = async (u: string) =>
      withStore(u, async (s) => {
        expect(await pgLedgerChecksum(s.pool)).toBe(freshSum)
        await s.append('again', turn(0))
        await s.fork('again', { atSeq: 1, newSessionId: 'again-2' })
        const r = await s.pool.query<{ pk: number }>('SELECT pk FROM context_ledger.sessions ORDER BY pk')
        const clock = await s.pool.query<{ c: number }>('SELECT log_clock AS c FROM context_ledger.identity')
        return { pks: r.rows.map((row) => row.pk), clock: clock.rows[0]?.c }
      })
    const other = await copy()
    expect(await keys(url)).toStrictEqual(await keys(other))
  })

  it.each([
    ['a column added', 'ALTER TABLE context_ledger.messages ADD COLUMN extra int'],
    ['an index dropped', 'DROP INDEX context_ledger.messages_pinned'],
    ['a table of its own', 'CREATE TABLE public.leftover (n int); INSERT INTO public.leftover VALUES (1)'],
    ['the identity row changed', 'UPDATE context_ledger.identity SET schema_version = schema_version + 1'],
    [
      'a function replaced',
      `CREATE OR REPLACE FUNCTION context_ledger.write_conflict() RETURNS int LANGUAGE sql AS 'SELECT 1'`,
    ],
    ['a grant', 'GRANT SELECT ON context_ledger.messages TO PUBLIC'],
  ])('is not handed out again with %s', async (_what, change) => {
    const template = await fingerprint(fresh)
    const url = await copy()
    await withStore(url, async (s) => s.append('s', turn(1)))
    await sql(url, change)
    expect(await resetToTemplate(url, template)).toBe(false)
  })

  it('is not handed out again with a database setting, or while another connection is open', async () => {
    const template = await fingerprint(fresh)
    const set = await copy()
    await sql(inject('pgUrl'), `ALTER DATABASE ${new URL(set).pathname.slice(1)} SET work_mem = '8MB'`)
    expect(await resetToTemplate(set, template)).toBe(false)

    const held = await copy()
    const client = new pg.Client({ connectionString: held })
    await client.connect()
    try {
      expect(await resetToTemplate(held, template)).toBe(false)
    } finally {
      await client.end()
    }
    expect(await resetToTemplate(held, template)).toBe(true)
  })
})
