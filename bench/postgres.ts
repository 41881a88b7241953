/**
 * `npm run bench -- --postgres` — the PostgreSQL backend on a local server (an embedded one from the
 * npm registry, started for the run, unless `--url` names one), against a raw node-postgres baseline
 * measured in the same process:
 *
 *   a. append one agent turn (4 messages, one call), applyWindow() after it, and window() — in a session of
 *      1,000 archived messages and in one of 1,000,000 (`--quick`: 100,000): the ratio large / small is the
 *      flat-cost target (≤ 1.3);
 *   b. each of those against the raw baseline doing the same inserts and selects: one INSERT of the 4 rows
 *      (unnest) with the session row's bump, one statement; the newest 40 rows' flags and a boundary
 *      UPDATE; `ORDER BY seq DESC LIMIT 40` + JSON.parse;
 *   c. throughput: 8 writer processes, each appending turns and applying the window, to a session of its
 *      own and then all to one shared session (messages per second, and per-call p50 / p99 / max).
 *
 * The large session is filled server-side (`INSERT … SELECT generate_series`: the archive's rows as the
 * store writes them, then ANALYZE, as autovacuum would; ANALYZE again after the warm-up gives tool_calls
 * its first rows), so filling takes seconds, not the hours a million
 * appends would. Medians over `--runs` runs (default 5); always exits 0 (measured, not asserted).
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { openPostgresContextStore, type PostgresContextStore } from '../src/backends/postgres/index.js'
import type { MessageData } from '../src/index.js'
import { createDatabase } from '../test/postgres/server.js'
import { takeUrl, withBenchServer } from './postgres-server.js'
import { parseOptions } from './args.js'
import { TurnFactory } from './fixtures.js'
import { median, pair, renderTable, summarize, type PairRun, type Row } from './harness.js'
import { machine } from './machine.js'
import { serialize } from './baseline.js'

const WINDOW = 40
const SELF_DIR = fileURLToPath(new URL('.', import.meta.url))

function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

/** Fills `sessionId` server-side with `n` archived messages (alternating plain user / assistant text, ~500 B). */
const FILL_SQL = `WITH s AS (
  INSERT INTO context_ledger.sessions (id, created_at, updated_at, boundary, kept_count, kept_tokens, kept_first, limits)
  VALUES ($1::text, $3::bigint, $3::bigint, $2::int, 0, 0, 0, $4::text) RETURNING pk
)
INSERT INTO context_ledger.messages (session, seq, uid, role, body, tokens, cum_tokens, plain_user, trim_point,
  pair_start, has_tool_use, has_tool_result, created_at)
SELECT s.pk, g, $1::text || '-' || g, CASE WHEN g % 2 = 0 THEN 'user' ELSE 'assistant' END,
  json_build_object('role', CASE WHEN g % 2 = 0 THEN 'user' ELSE 'assistant' END,
    'content', json_build_array(json_build_object('text', repeat(md5(g::text), 13))),
    'trackingId', $1::text || '-' || g)::text,
  120, 120 * (g + 1), g % 2 = 0, g % 2 = 0, false, false, false, $3::bigint
FROM s, generate_series(0, $2::int - 1) AS g`

/** The raw baseline: one statement for a turn's rows and the session's bump. */
const RAW_APPEND = `WITH s AS (UPDATE raw_sessions SET n = n + cardinality($2::text[]) WHERE id = $1::text RETURNING id, n)
INSERT INTO raw_messages (session, seq, uid, role, body, tokens)
SELECT s.id, s.n - cardinality($2::text[]) + u.ord - 1, u.uid, u.role, u.body, u.tokens
FROM s, unnest($2::text[], $3::text[], $4::text[], $5::int[]) WITH ORDINALITY AS u(uid, role, body, tokens, ord)`
const RAW_FLAGS = `SELECT seq, role, tokens FROM raw_messages WHERE session = $1::text ORDER BY seq DESC LIMIT 40`
const RAW_BOUNDARY = `UPDATE raw_sessions SET boundary = greatest(boundary, n - 40) WHERE id = $1::text`
const RAW_WINDOW = `SELECT body FROM raw_messages WHERE session = $1::text ORDER BY seq DESC LIMIT 40`

async function setupRaw(pool: pg.Pool): Promise<void> {
  await pool.query(
    `CREATE TABLE raw_sessions (id text PRIMARY KEY, n int NOT NULL DEFAULT 0, boundary int NOT NULL DEFAULT 0)`,
  )
  await pool.query(`CREATE TABLE raw_messages (session text NOT NULL, seq int NOT NULL, uid text NOT NULL, role text NOT NULL,
    body text NOT NULL, tokens int NOT NULL, PRIMARY KEY (session, seq))`)
}

async function fillRaw(pool: pg.Pool, id: string, n: number): Promise<void> {
  await pool.query('INSERT INTO raw_sessions (id, n) VALUES ($1, $2)', [id, n])
  await pool.query(
    `INSERT INTO raw_messages SELECT $1, g, $1 || '-' || g, CASE WHEN g % 2 = 0 THEN 'user' ELSE 'assistant' END,
      json_build_object('role', CASE WHEN g % 2 = 0 THEN 'user' ELSE 'assistant' END,
        'content', json_build_array(json_build_object('text', repeat(md5(g::text), 13))),
        'trackingId', $1 || '-' || g)::text, 120 FROM generate_series(0, $2::int - 1) g`,
    [id, n],
  )
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now()
  await fn()
  return (performance.now() - t) * 1000
}

interface Sizes {
  small: number
  large: number
}

/** (a, b): the agent loop's three calls at both sizes, and against the raw baseline. */
async function benchLoop(url: string, sizes: Sizes, runs: number): Promise<Row[]> {
  const pool = new pg.Pool({ connectionString: url, max: 4 })
  pool.on('error', () => undefined)
  const store = await openPostgresContextStore({ connectionString: url, maxConnections: 4 })
  await setupRaw(pool)
  const limits = JSON.stringify({ windowSize: WINDOW, first: 0, last: 0 })
  const now = Date.now()
  for (const [id, n] of [
    ['small', sizes.small],
    ['large', sizes.large],
  ] as const) {
    const t = performance.now()
    await pool.query(FILL_SQL, [id, n, now, limits])
    await fillRaw(pool, `raw-${id}`, n)
    log(
      `  filled ${id}: ${n.toLocaleString('en-US')} messages in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    )
  }
  await pool.query('ANALYZE')
  const managers = {
    small: store.manager({ sessionId: 'small', windowSize: WINDOW }),
    large: store.manager({ sessionId: 'large', windowSize: WINDOW }),
  }
  const factory = new TurnFactory('b', 7)
  const iterations = 150
  const runsOf: Record<string, PairRun[]> = {}
  const add = (key: string, run: PairRun): void => {
    ;(runsOf[key] ??= []).push(run)
  }
  // Warm up: the prepared statements, the buffer cache.
  for (const m of Object.values(managers))
    for (let i = 0; i < 20; i++) {
      await m.append(factory.turn())
      await m.applyWindow()
      await m.window()
    }
  // The warm-up gave tool_calls its first rows (the fill has none): ANALYZE, as autovacuum soon would. Each
  // connection plans a statement once (docs/postgres.md#pooling), and a plan made while the table was
  // known to be empty scans it whole until the next ANALYZE replaces the plan.
  await pool.query('ANALYZE')
  for (let r = 0; r < runs; r++) {
    const samples: Record<string, number[]> = {}
    const note = (k: string, us: number): void => {
      ;(samples[k] ??= []).push(us)
    }
    for (let i = 0; i < iterations; i++) {
      for (const size of ['small', 'large'] as const) {
        const m = managers[size]
        const turn: MessageData[] = factory.turn()
        note(`append-${size}`, await time(() => m.append(turn)))
        note(`apply-${size}`, await time(() => m.applyWindow()))
        note(`window-${size}`, await time(() => m.window()))
        const raw = `raw-${size}`
        const rows = serialize(factory.turn())
        note(
          `rawAppend-${size}`,
          await time(() =>
            pool.query(RAW_APPEND, [
              raw,
              rows.map((x) => x.uid),
              rows.map((x) => x.role),
              rows.map((x) => x.body),
              rows.map((x) => x.tokens),
            ]),
          ),
        )
        note(
          `rawApply-${size}`,
          await time(async () => {
            await pool.query(RAW_FLAGS, [raw])
            await pool.query(RAW_BOUNDARY, [raw])
          }),
        )
        note(
          `rawWindow-${size}`,
          await time(async () => {
            const res = await pool.query<{ body: string }>(RAW_WINDOW, [raw])
            res.rows.reverse().map((x) => JSON.parse(x.body) as unknown)
          }),
        )
      }
    }
    const med = (k: string): number => median(samples[k] ?? [])
    for (const op of ['append', 'apply', 'window']) {
      const raw = `raw${op[0]?.toUpperCase() ?? ''}${op.slice(1)}`
      add(`${op}-flat`, pair(med(`${op}-large`), med(`${op}-small`)))
      add(`${op}-raw-small`, pair(med(`${op}-small`), med(`${raw}-small`)))
      add(`${op}-raw-large`, pair(med(`${op}-large`), med(`${raw}-large`)))
    }
    log(`  run ${r + 1}/${runs}`)
  }
  const large = sizes.large.toLocaleString('en-US')
  const small = sizes.small.toLocaleString('en-US')
  const names: Record<string, string> = {
    append: 'append one turn (4 messages)',
    apply: 'applyWindow() after a turn',
    window: `window() (${WINDOW} messages)`,
  }
  const rows: Row[] = []
  for (const op of ['append', 'apply', 'window']) {
    rows.push(summarize(`${names[op]}: ${large} vs ${small} archived`, runsOf[`${op}-flat`] ?? [], 1.3))
    rows.push(
      summarize(`${names[op]} vs raw pg, ${small} archived`, runsOf[`${op}-raw-small`] ?? [], undefined),
    )
    rows.push(
      summarize(`${names[op]} vs raw pg, ${large} archived`, runsOf[`${op}-raw-large`] ?? [], undefined),
    )
  }
  const rt = store.roundTrips
  await managers.large.append(factory.turn())
  const appendTrips = store.roundTrips - rt
  await managers.large.applyWindow()
  const applyTrips = store.roundTrips - rt - appendTrips
  await managers.large.window()
  const windowTrips = store.roundTrips - rt - appendTrips - applyTrips
  log(
    `  round trips in the large session: append ${appendTrips}, applyWindow ${applyTrips}, window ${windowTrips}`,
  )
  await store.close()
  await pool.end()
  return rows
}

/** (c): 8 writer processes for `seconds`, own sessions then one shared session. */
async function benchWriters(url: string, writers: number, seconds: number): Promise<string[]> {
  const out: string[] = []
  for (const mode of ['own', 'shared'] as const) {
    const children = Array.from({ length: writers }, (_, w) =>
      spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          `${SELF_DIR}postgres-writer.ts`,
          url,
          mode === 'own' ? `w-${w}` : 'shared',
          String(seconds),
          String(w),
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      ),
    )
    const results = await Promise.all(
      children.map(
        (child) =>
          new Promise<{ turns: number; latencies: number[]; conflicts: number; locked: number }>(
            (resolve) => {
              let text = ''
              child.stdout.on('data', (d: Buffer) => {
                text += d.toString()
              })
              child.on('close', () => {
                resolve(JSON.parse(text.trim().split('\n').at(-1) ?? '{}') as never)
              })
            },
          ),
      ),
    )
    const turns = results.reduce((a, r) => a + r.turns, 0)
    const all = results.flatMap((r) => r.latencies).sort((a, b) => a - b)
    const at = (q: number): number => all[Math.min(all.length - 1, Math.floor(q * all.length))] ?? 0
    const conflicts = results.reduce((a, r) => a + r.conflicts, 0)
    const locked = results.reduce((a, r) => a + r.locked, 0)
    out.push(
      `| ${writers} writers, ${mode === 'own' ? 'a session each' : 'one shared session'} | ${((turns * 4) / seconds).toFixed(0)} messages/s (${(turns / seconds).toFixed(0)} turns/s) | ` +
        `${at(0.5).toFixed(1)} / ${at(0.99).toFixed(1)} / ${(all.at(-1) ?? 0).toFixed(1)} ms | ${conflicts} lost races, ${locked} locked retries |`,
    )
  }
  return out
}

/**
 * Runs the PostgreSQL bench.
 *
 * @param argv - `--quick`, `--runs N`, `--seconds N`, `--writers N`
 */
export async function runPostgresBench(argv: readonly string[]): Promise<void> {
  const { url, rest } = takeUrl(argv)
  const o = parseOptions(rest, {
    quick: { type: 'flag' },
    runs: { type: 'integer', min: 1 },
    seconds: { type: 'integer', min: 1 },
    writers: { type: 'integer', min: 1 },
  })
  const sizes = { small: 1_000, large: o.quick ? 100_000 : 1_000_000 }
  await withBenchServer(url, async (admin) => {
    const db = await createDatabase(admin)
    log('a, b. the agent loop at two sizes, and against raw node-postgres...')
    const rows = await benchLoop(db.url, sizes, o.runs ?? 5)
    log('c. writer processes...')
    const writers = o.writers ?? 8
    const db2 = await createDatabase(admin)
    // Migrated once, before the writers start.
    await (await openPostgresContextStore({ connectionString: db2.url })).close()
    const throughput = await benchWriters(db2.url, writers, o.seconds ?? (o.quick ? 5 : 15))
    const version = new pg.Client({ connectionString: db.url })
    await version.connect()
    const v = (await version.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version
    await version.end()
    process.stdout.write(
      [
        '',
        `Machine: ${machine()}; PostgreSQL ${v ?? '?'} (${url !== undefined ? 'given by --url' : 'embedded, fsync and synchronous_commit off'})`,
        `Medians of ${o.runs ?? 5} runs (each the median of 150 calls). ratio = ours / baseline within each run, then the median.`,
        '',
        renderTable(rows),
        '',
        'Baselines: flat rows compare the same call in the large session with the small one; "vs raw pg" rows the same',
        'work done by hand with node-postgres: one INSERT … SELECT unnest of the 4 rows with the session bump (one',
        'statement); the newest 40 rows and a boundary UPDATE (two); ORDER BY seq DESC LIMIT 40 + JSON.parse (one).',
        '',
        '| writers | throughput | per call p50 / p99 / max | retries |',
        '| --- | --- | --- | --- |',
        ...throughput,
        '',
      ].join('\n'),
    )
    await db.drop()
    await db2.drop()
  })
}

// Not when imported.
export type { PostgresContextStore }
