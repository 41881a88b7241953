/**
 * What only the PostgreSQL backend has to show (the conformance suite checks the rest on both): the round
 * trips each call takes, flat in the archive's size; what opening does with fresh, current, newer and
 * foreign databases, and with workers opening one at once; writers that lose their connection mid-write,
 * before and after the commit; and many async writers on one session at once.
 */
import pg from 'pg'
import { beforeAll, describe, expect, it } from 'vitest'
import { openPostgresContextStore, type PostgresContextStore } from '../../src/backends/postgres/index.js'
import { readPgMigrations } from '../../src/backends/postgres/migrate.js'
import type { MessageData } from '../../src/index.js'
import { refusalOf } from '../helpers/refusal.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'
import { pgLedgerChecksum } from './checksum.js'
import { CuttingProxy } from './cutting-proxy.js'
import { useDatabases } from './databases.js'

const { database, open, track } = useDatabases()

const turn = (i: number): MessageData[] => [
  { role: 'user', content: [{ text: `question ${i}` }] },
  { role: 'assistant', content: [{ toolUse: { toolUseId: `c${i}`, name: 'look', input: { i } } }] },
  {
    role: 'user',
    content: [{ toolResult: { toolUseId: `c${i}`, status: 'success', content: [{ text: 'ok' }] } }],
  },
  { role: 'assistant', content: [{ text: `answer ${i}` }] },
]

/** What migration 0005 (branches) added, taken away by hand: back to schema 4's tables. */
const UNDO_BRANCHES = `DROP TABLE context_ledger.branch_rows;
  DROP FUNCTION context_ledger.write_conflict();
  ALTER TABLE context_ledger.pin_events DROP COLUMN version;
  ALTER TABLE context_ledger.message_edits DROP COLUMN version;
  ALTER TABLE context_ledger.eviction_log DROP COLUMN clock;
  DROP INDEX context_ledger.sessions_children;
  ALTER TABLE context_ledger.identity DROP COLUMN log_clock;
  ALTER TABLE context_ledger.sessions ${[
    'parent',
    'fork_seq',
    'kind',
    'forked_at',
    'fork_actor',
    'fork_reason',
    'fork_version',
    'fork_tokens',
    'fork_trim_point',
    'fork_pair_start',
    'fork_summary',
    'fork_summary_ended_at',
    'fork_summary_end_reason',
  ]
    .map((c) => `DROP COLUMN ${c}`)
    .join(', ')};`

/** Round trips a call takes. */
async function trips(store: PostgresContextStore, fn: () => Promise<unknown>): Promise<number> {
  const before = store.roundTrips
  await fn()
  return store.roundTrips - before
}

describe('round trips', () => {
  it('append 2, applyWindow 2 (1 when nothing moves), window 1 — the same with 40 and with 4,000 archived messages', async () => {
    const store = await open(await database())
    const counts: Record<string, number[]> = {}
    for (const archived of [40, 4000]) {
      const sessionId = `rt-${archived}`
      const m = store.manager({ sessionId, windowSize: 20, protectedMessages: { first: 1, last: 2 } })
      const turns = archived / 4
      for (let i = 0; i < turns; i += 25)
        await m.append(Array.from({ length: Math.min(25, turns - i) }, (_, k) => turn(i + k)).flat())
      await m.applyWindow()
      await m.pin({ seq: 1 })
      expect((await store.session(sessionId))?.messageCount).toBe(archived)
      const seen = {
        append: await trips(store, () => m.append({ role: 'user', content: [{ text: 'next' }] })),
        appendBatch: await trips(store, () => m.append(turn(10_000))),
        applyWindow: await trips(store, () => m.applyWindow()),
        applyWithinLimits: await trips(store, () => m.applyWindow()),
        window: await trips(store, () => m.window()),
        pin: await trips(store, () => m.pin({ seq: archived - 3 })),
      }
      for (const [k, v] of Object.entries(seen)) (counts[k] ??= []).push(v)
    }
    expect(counts).toStrictEqual({
      append: [2, 2],
      appendBatch: [2, 2],
      applyWindow: [2, 2],
      applyWithinLimits: [1, 1],
      window: [1, 1],
      pin: [2, 2],
    })
  })
})

describe('the snapshot query', () => {
  it('is planned from estimates the window bounds, not the archive, and once per connection of the store', async () => {
    const url = await database()
    const store = await open(url)
    const m = store.manager({ sessionId: 'est', windowSize: 20, protectedMessages: { first: 1, last: 2 } })
    for (let i = 0; i < 1000; i += 50)
      await m.append(Array.from({ length: 50 }, (_, k) => turn(i + k)).flat())
    await m.applyWindow()
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    try {
      await admin.query('ANALYZE')
      // The plan every connection of the store makes once and keeps (a generic plan: no values).
      const { SNAPSHOT_SQL } = await import('../../src/backends/postgres/snapshot-query.js')
      const plan = (
        await admin.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON, GENERIC_PLAN) ${SNAPSHOT_SQL}`)
      ).rows[0]?.['QUERY PLAN']
      // What a step holds in memory is sized by what the planner expects of it. (The recursive walk of
      // tool links is left out: PostgreSQL expects ten times its first step, 2,010 rows, whatever the data.)
      const holding = ['Aggregate', 'Hash', 'SetOp', 'Memoize', 'Sort', 'CTE Scan']
      const estimates: number[] = []
      const walk = (node: unknown): void => {
        if (Array.isArray(node)) node.forEach(walk)
        else if (typeof node === 'object' && node !== null) {
          const n = node as Record<string, unknown>
          if (
            typeof n['Plan Rows'] === 'number' &&
            holding.includes(String(n['Node Type'])) &&
            n['CTE Name'] !== 'walk'
          ) {
            estimates.push(n['Plan Rows'])
          }
          Object.values(n).forEach(walk)
        }
      }
      walk(plan)
      expect(estimates.length).toBeGreaterThan(20)
      // 4,000 messages archived: no step holding rows may expect a quarter of them (set-returning functions
      // guessed at 1,000 rows each, multiplied, had the plan expect millions; a range such as seq >= the
      // boundary, a third of the session), and every call planned or sized hash tables for them.
      expect(Math.max(...estimates)).toBeLessThan(1000)
      // The store's own connections plan each statement once (generic plans), on its indexes.
      const [settings] = (
        await store.pool.query<{ mode: string; seqscan: string }>(
          "SELECT current_setting('plan_cache_mode') AS mode, current_setting('enable_seqscan') AS seqscan",
        )
      ).rows
      expect(settings).toStrictEqual({ mode: 'force_generic_plan', seqscan: 'off' })
    } finally {
      await admin.end()
    }
  })
})

describe('opening', () => {
  it('creates the schema in an empty database, and leaves what else the database holds alone', async () => {
    const url = await database()
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    await client.query('CREATE TABLE public.app_users (id int PRIMARY KEY, name text)')
    await client.query("INSERT INTO public.app_users VALUES (1, 'ada')")
    const store = await open(url)
    await store.append('s', { role: 'user', content: [{ text: 'hello' }] })
    const identity = await client.query('SELECT application_id, schema_version FROM context_ledger.identity')
    expect(identity.rows).toStrictEqual([
      { application_id: 0x434c4447, schema_version: readPgMigrations().length },
    ])
    expect((await client.query('SELECT * FROM public.app_users')).rows).toStrictEqual([
      { id: 1, name: 'ada' },
    ])
    await client.end()
  })

  it('migrates once when several workers open an empty database at the same moment', async () => {
    const url = await database()
    const opened = await Promise.all(Array.from({ length: 6 }, () => open(url)))
    await Promise.all(
      opened.map((s, i) => s.append(`w${i}`, { role: 'user', content: [{ text: `from ${i}` }] })),
    )
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    const identity = await client.query('SELECT schema_version FROM context_ledger.identity')
    expect(identity.rows).toStrictEqual([{ schema_version: readPgMigrations().length }])
    const sessions = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM context_ledger.sessions',
    )
    expect(sessions.rows[0]?.n).toBe(6)
    await client.end()
  })

  it('brings a ledger of schema 1 (before search) up to date on open: its archive becomes searchable', async () => {
    const url = await database()
    const store = await open(url)
    await store.append('s', [
      { role: 'user', content: [{ text: 'the replication lag \u0000 on eu-west' }] },
      { role: 'assistant', content: [{ text: 'forty ms' }] },
    ])
    await store.close()
    // Back to schema 1 by hand: what migrations 0001 to 0005 added is gone, the rows stay.
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    await client.query(`${UNDO_BRANCHES}
      ALTER TABLE context_ledger.messages DROP COLUMN search_vector;
      ALTER TABLE context_ledger.summaries DROP COLUMN search_vector;
      ALTER TABLE context_ledger.messages DROP COLUMN text;
      ALTER TABLE context_ledger.summaries DROP COLUMN text;
      ALTER TABLE context_ledger.sessions DROP COLUMN format;
      DROP FUNCTION context_ledger.search_vector(text, text);
      DROP FUNCTION context_ledger.search_vector(text);
      DROP FUNCTION context_ledger.search_text(text);
      DROP TABLE context_ledger.eviction_log;
      UPDATE context_ledger.identity SET schema_version = 1`)
    const reopened = await open(url)
    expect((await reopened.search('replication lag')).map((h) => [h.seq, h.snippet])).toStrictEqual([
      [0, 'the **replication** **lag**   on eu-west'],
    ])
    // The eviction log starts empty, and the next cut writes it.
    expect(await reopened.evictions('s')).toStrictEqual([])
    await reopened.append('s', { role: 'user', content: [{ text: 'and now?' }] })
    await reopened.applyWindow('s', { windowSize: 1, tokenBudget: undefined, first: 0, last: 0 })
    expect((await reopened.evictions('s')).map((r) => [r.fromSeq, r.toSeq])).toStrictEqual([[0, 1]])
    const identity = await client.query('SELECT schema_version FROM context_ledger.identity')
    expect(identity.rows).toStrictEqual([{ schema_version: readPgMigrations().length }])
    await client.end()
  })

  it('brings a ledger of schema 4 (before formats) up to date unchanged: same rows, same search', async () => {
    const url = await database()
    const store = await open(url)
    await store.append('s', [
      { role: 'user', content: [{ text: 'the replication lag on eu-west' }] },
      { role: 'assistant', content: [{ text: 'forty ms' }] },
    ])
    await store.close()
    // Back to schema 4 by hand: what migrations 0004 and 0005 added is gone, the rows and their vectors stay.
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    const rows =
      'SELECT session, seq, uid, body, search_vector::text AS v FROM context_ledger.messages ORDER BY seq'
    const before = (await client.query(rows)).rows
    await client.query(`${UNDO_BRANCHES}
      ALTER TABLE context_ledger.messages ALTER COLUMN search_vector
        SET EXPRESSION AS (context_ledger.search_vector(body));
      ALTER TABLE context_ledger.summaries ALTER COLUMN search_vector
        SET EXPRESSION AS (context_ledger.search_vector(body));
      ALTER TABLE context_ledger.messages DROP COLUMN text;
      ALTER TABLE context_ledger.summaries DROP COLUMN text;
      ALTER TABLE context_ledger.sessions DROP COLUMN format;
      DROP FUNCTION context_ledger.search_vector(text, text);
      UPDATE context_ledger.identity SET schema_version = 4`)
    const reopened = await open(url)
    expect((await client.query(rows)).rows).toStrictEqual(before)
    expect((await reopened.search('replication lag')).map((h) => h.seq)).toStrictEqual([0])
    const formats = await client.query('SELECT format FROM context_ledger.sessions')
    expect(formats.rows).toStrictEqual([{ format: null }])
    // The Strands session takes Strands messages as before; another format is refused.
    await reopened.append('s', { role: 'user', content: [{ text: 'and now?' }] })
    await expect(
      reopened.append('s', { role: 'user', content: 'hi' }, { format: 'ai-sdk/model' }),
    ).rejects.toMatchObject({ code: 'FORMAT_MISMATCH' })
    await client.end()
  })

  it('brings a ledger of schema 5 (before branches) up to date: every session a root, its logs kept', async () => {
    const url = await database()
    const store = await open(url)
    await store.append('s', [
      { role: 'user', content: [{ text: 'the replication lag on eu-west' }] },
      { role: 'assistant', content: [{ text: 'forty ms' }] },
    ])
    await store.pin('s', { seq: 0 }, { actor: 'ops', reason: 'the question' })
    await store.close()
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    const rows = 'SELECT session, seq, uid, body, pinned FROM context_ledger.messages ORDER BY seq'
    const before = (await client.query(rows)).rows
    await client.query(`${UNDO_BRANCHES} UPDATE context_ledger.identity SET schema_version = 5`)
    const reopened = await open(url)
    expect((await client.query(rows)).rows).toStrictEqual(before)
    const sessions = await client.query(
      'SELECT kind, parent, fork_seq, fork_version FROM context_ledger.sessions',
    )
    expect(sessions.rows).toStrictEqual([{ kind: 'root', parent: null, fork_seq: null, fork_version: null }])
    // The log clock starts at 0 (no fork yet); the first fork takes 1.
    const clock = 'SELECT log_clock FROM context_ledger.identity'
    expect((await client.query(clock)).rows).toStrictEqual([{ log_clock: 0 }])
    expect(await reopened.fork('s', { atSeq: 1, newSessionId: 'b' })).toMatchObject({ parentId: 's' })
    expect((await client.query(clock)).rows).toStrictEqual([{ log_clock: 1 }])
    expect((await reopened.pinEvents('s')).map((e) => [e.seq, e.action, e.actor])).toStrictEqual([
      [0, 'pin', 'ops'],
    ])
    expect(await reopened.window('s')).toHaveLength(2)
    await client.end()
  })

  it('refuses a ledger of a newer schema, untouched', async () => {
    const url = await database()
    const store = await open(url)
    await store.append('s', { role: 'user', content: [{ text: 'hello' }] })
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    await client.query('UPDATE context_ledger.identity SET schema_version = 999')
    const pool = new pg.Pool({ connectionString: url })
    const before = await pgLedgerChecksum(pool)
    const error = await refusalOf(() => openPostgresContextStore({ connectionString: url }))
    expect(error.code).toBe('SCHEMA_TOO_NEW')
    expect(await pgLedgerChecksum(pool)).toBe(before)
    await pool.end()
    await client.end()
  })

  it('refuses a schema "context_ledger" that is not a ledger, or is another application’s, untouched', async () => {
    for (const setup of [
      ['CREATE SCHEMA context_ledger', 'CREATE TABLE context_ledger.orders (id int, total numeric)'],
      [
        'CREATE SCHEMA context_ledger',
        'CREATE TABLE context_ledger.identity (id smallint PRIMARY KEY, application_id int, schema_version int)',
        'INSERT INTO context_ledger.identity VALUES (1, 42, 1)',
      ],
    ]) {
      const url = await database()
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      for (const sql of setup) await client.query(sql)
      const catalog = async (): Promise<unknown> =>
        (
          await client.query(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'context_ledger' ORDER BY 1",
          )
        ).rows
      const before = await catalog()
      const error = await refusalOf(() => openPostgresContextStore({ connectionString: url }))
      expect(error.code).toBe('NOT_A_LEDGER')
      expect(await catalog()).toStrictEqual(before)
      await client.end()
    }
  })

  it('readonly refuses writes and an empty database; mustExist refuses an empty database', async () => {
    const url = await database()
    expect(
      (await refusalOf(() => openPostgresContextStore({ connectionString: url, readonly: true }))).code,
    ).toBe('NOT_A_LEDGER')
    expect(
      (await refusalOf(() => openPostgresContextStore({ connectionString: url, mustExist: true }))).code,
    ).toBe('NOT_A_LEDGER')
    const writer = await open(url)
    await writer.append('s', { role: 'user', content: [{ text: 'hello' }] })
    const reader = await openPostgresContextStore({ connectionString: url, readonly: true })
    track(reader)
    expect(await reader.window('s')).toHaveLength(1)
    expect(
      (await refusalOf(() => reader.append('s', { role: 'user', content: [{ text: 'no' }] }))).code,
    ).toBe('READ_ONLY')
  })
})

describe('many writers on one session', () => {
  it('serializes 200 concurrent appends and window applications: dense seqs, nothing lost or duplicated', async () => {
    const url = await database()
    const a = await open(url)
    const b = await open(url)
    const limits = { windowSize: 10, protectedMessages: { first: 1 } }
    const managers = [a.manager({ sessionId: 's', ...limits }), b.manager({ sessionId: 's', ...limits })]
    const sent: string[] = []
    await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const m = managers[i % 2] as (typeof managers)[number]
        const trackingId = `m-${i}`
        sent.push(trackingId)
        await m.append({ role: 'user', content: [{ text: `message ${i}` }], trackingId })
        if (i % 7 === 0) await m.applyWindow()
      }),
    )
    const history = await a.history('s', { limit: 1000 })
    expect(history.map((e) => e.seq)).toStrictEqual(history.map((_, i) => i))
    expect(history.map((e) => e.trackingId).sort()).toStrictEqual([...sent].sort())
    await assertWindowRulesOf(a, 's', limits.protectedMessages)
    expect(a.stats.conflicts + b.stats.conflicts).toBeGreaterThan(0)
  })
})

describe('a dropped connection', () => {
  let url = ''
  beforeAll(async () => {
    url = await database()
  })

  it('killed mid-transaction (the write waiting on a lock): the store writes again on a new connection, once', async () => {
    const store = await open(url)
    await store.append('killed', { role: 'user', content: [{ text: 'first' }] })
    const holder = new pg.Client({ connectionString: url })
    await holder.connect()
    await holder.query('BEGIN')
    await holder.query("SELECT 1 FROM context_ledger.sessions WHERE id = 'killed' FOR UPDATE")
    const pending = store.append('killed', {
      role: 'user',
      content: [{ text: 'second' }],
      trackingId: 'second',
    })
    // The write is in the server, waiting for the row lock: end its connection there.
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    let pid: number | undefined
    for (let i = 0; i < 200 && pid === undefined; i++) {
      const r = await admin.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'WITH RECURSIVE guard%'",
      )
      pid = r.rows[0]?.pid
      if (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(pid).toBeDefined()
    await admin.query('SELECT pg_terminate_backend($1)', [pid])
    await holder.query('COMMIT')
    const [entry] = await pending
    expect(entry?.seq).toBe(1)
    const history = await store.history('killed')
    expect(history.map((e) => e.message.content)).toStrictEqual([[{ text: 'first' }], [{ text: 'second' }]])
    expect(store.stats.reconnects).toBeGreaterThan(0)
    await admin.end()
    await holder.end()
  })

  it('after the commit, before the answer: the retry finds the rows written and appends nothing twice', async () => {
    const target = new URL(url)
    const proxy = new CuttingProxy({ host: target.hostname, port: Number(target.port) })
    const port = await proxy.listen()
    const through = new URL(url)
    through.port = String(port)
    const store = await openPostgresContextStore({ connectionString: through.toString() })
    track(store)
    for (const minted of [false, true]) {
      const sessionId = minted ? 'cut-minted' : 'cut'
      await store.append(sessionId, { role: 'user', content: [{ text: 'first' }] })
      proxy.arm()
      // With and without a caller-given trackingId: the store minted one for the second, and finds it.
      const entries = await store.append(sessionId, [
        { role: 'assistant', content: [{ text: 'second' }], ...(minted ? {} : { trackingId: 'a-2' }) },
        { role: 'user', content: [{ text: 'third' }], ...(minted ? {} : { trackingId: 'u-3' }) },
      ])
      expect(entries.map((e) => e.seq)).toStrictEqual([1, 2])
      const history = await store.history(sessionId)
      expect(history.map((e) => e.message.content[0])).toStrictEqual([
        { text: 'first' },
        { text: 'second' },
        { text: 'third' },
      ])
      expect(history.map((e) => e.trackingId)).toStrictEqual([
        history[0]?.trackingId,
        entries[0]?.trackingId,
        entries[1]?.trackingId,
      ])
    }
    expect(proxy.cuts).toBe(2)
    expect(store.stats.reconnects).toBeGreaterThanOrEqual(2)
    await store.close()
    await proxy.close()
  })
})

describe('search on PostgreSQL', () => {
  it('indexes a text whose words make over 1 MB of tsvector in the part that fits, instead of refusing it', async () => {
    const url = await database()
    const store = await open(url)
    // Hyphenated words of 4-byte letters: each indexed whole and in parts, ~7 bytes of tsvector a character.
    const letter = (i: number): string =>
      String.fromCodePoint(0x20000 + (i % 40000)) + String.fromCodePoint(0x20000 + Math.floor(i / 40000))
    let text = 'openingword '
    for (let i = 0; text.length < 300_000;)
      text += `${Array.from({ length: 200 }, () => letter(i++)).join('-')} `
    const [entry] = await store.append('s', { role: 'user', content: [{ text: `${text} closingword` }] })
    expect(entry?.seq).toBe(0)
    // The first part is searchable; the rest is stored whole, not searchable (documented).
    expect((await store.search('openingword')).map((h) => h.seq)).toStrictEqual([0])
    expect(await store.search('closingword')).toStrictEqual([])
    expect((await store.message('s', { seq: 0 })).message.content).toStrictEqual([
      { text: `${text} closingword` },
    ])
  })

  it('answers a query over its limits with INVALID_QUERY, and a NUL in a name with INVALID_OPTIONS', async () => {
    const store = await open(await database())
    await store.append('s', { role: 'user', content: [{ text: 'alpha beta' }] })
    for (const q of ['alpha <1000000> beta', 'alpha <-1> beta'])
      expect((await refusalOf(() => store.search(q, { syntax: 'tsquery' }))).code, q).toBe('INVALID_QUERY')
    expect((await refusalOf(() => store.search('alpha', { sessionId: 'a\u0000b' }))).code).toBe(
      'INVALID_OPTIONS',
    )
    expect((await refusalOf(() => store.search('alpha', { toolName: 'a\u0000b' }))).code).toBe(
      'INVALID_OPTIONS',
    )
    const error = await refusalOf(() => store.append('a\u0000b', { role: 'user', content: [{ text: 'x' }] }))
    expect(error.code).toBe('INVALID_OPTIONS')
    expect(error.message).toMatch(/NUL/)
  })
})
