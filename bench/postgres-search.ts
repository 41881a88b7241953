/**
 * `npm run bench -- --postgres --search [--quick] [--queries N] [--url postgres://…]`: a two-word
 * `store.search()` on PostgreSQL over an archive of 1,000,000 messages (100,000 with `--quick`) — p50 and
 * p99 of the call against the 20 ms limit, the same archive and queries as SQLite's bench
 * (bench/recall-search.ts, bench/recall-corpus.ts): 1,000 sessions of Zipf-distributed English-like text,
 * appended through the store (1,000 messages per call, each session's window cut to its last 40), then
 * ANALYZE as autovacuum would. Queries: two words said together in a message, over the whole archive, in
 * one session and over evicted messages only; apart, pairs of the 20 most frequent words. Measured, not
 * asserted: always exits 0.
 */
import pg from 'pg'
import { openPostgresContextStore } from '../src/backends/postgres/index.js'
import type { MessageData } from '../src/index.js'
import { createDatabase } from '../test/postgres/server.js'
import { takeUrl, withBenchServer } from './postgres-server.js'
import { parseOptions } from './args.js'
import {
  corpus,
  searchTable,
  standardSearchRows,
  stopPairs,
  twoWordQueries,
  WIDE_OPTIONS,
  wideQueries,
} from './recall-corpus.js'

const SESSIONS = 1_000

function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

/**
 * Runs the search bench.
 *
 * @param argv - `--quick`, `--queries N`, `--url`
 */
export async function runPostgresSearchBench(argv: readonly string[]): Promise<void> {
  const { url, rest } = takeUrl(argv)
  const o = parseOptions(rest, { quick: { type: 'flag' }, queries: { type: 'integer', min: 1 } })
  const messagesWanted = o.quick ? 100_000 : 1_000_000
  const queryCount = o.queries ?? 200
  await withBenchServer(url, async (admin) => {
    const db = await createDatabase(admin)
    const store = await openPostgresContextStore({ connectionString: db.url, maxConnections: 4 })
    const raw = new pg.Client({ connectionString: db.url })
    await raw.connect()
    try {
      const c = corpus(7)
      const perSession = messagesWanted / SESSIONS
      const started = performance.now()
      for (let s = 0; s < SESSIONS; s++) {
        const batch: MessageData[] = []
        for (let i = 0; i < perSession; i++)
          batch.push({
            role: i % 2 === 0 ? 'user' : 'assistant',
            content: [{ text: c.sentence(20 + (i % 30)) }],
          })
        await store.append(`session-${s}`, batch)
        await store.applyWindow(`session-${s}`, { windowSize: 40, tokenBudget: undefined, first: 0, last: 0 })
        if ((s + 1) % 100 === 0) log(`  ${((s + 1) * perSession).toLocaleString('en-US')} messages appended`)
      }
      await raw.query('ANALYZE')
      const appendSeconds = (performance.now() - started) / 1000
      const count = Number(
        (await raw.query<{ n: string }>('SELECT count(*) AS n FROM context_ledger.messages')).rows[0]?.n ?? 0,
      )
      const queries = await twoWordQueries(c, queryCount, async (x) => {
        const n = Math.floor(x * count)
        const r = await raw.query<{ t: string | null }>(
          `SELECT m.body::json -> 'content' -> 0 ->> 'text' AS t FROM context_ledger.messages m
          JOIN context_ledger.sessions s ON s.pk = m.session WHERE s.id = $1 AND m.seq = $2`,
          [`session-${Math.floor(n / perSession)}`, n % perSession],
        )
        return r.rows[0]?.t ?? ''
      })
      const time = async (q: string, opts: Parameters<typeof store.search>[1]): Promise<number> => {
        const t = performance.now()
        await store.search(q, opts)
        return performance.now() - t
      }
      // Warm the caches as a long-running server has them.
      for (const q of queries.slice(0, 50)) await store.search(q)
      const all: number[] = []
      const one: number[] = []
      const evicted: number[] = []
      for (const [i, q] of queries.entries()) {
        all.push(await time(q, {}))
        one.push(await time(q, { sessionId: `session-${i % SESSIONS}` }))
        evicted.push(await time(q, { inWindow: false }))
      }
      const stopwords: number[] = []
      for (const q of stopPairs) stopwords.push(await time(q, {}))
      const wide: number[] = []
      for (const q of wideQueries(c, 10)) wide.push(await time(q, WIDE_OPTIONS))
      const version =
        (await raw.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? '?'
      console.log(
        `PostgreSQL ${version}: two-word search over ${count.toLocaleString('en-US')} messages (${SESSIONS} sessions, appended in ${appendSeconds.toFixed(0)} s), ${queryCount} queries, limit 20:\n`,
      )
      for (const line of searchTable([
        ...standardSearchRows({ all, one, evicted, stopwords }),
        ["64 words, match 'any', limit 1000 (10 queries)", wide],
      ]))
        console.log(line)
    } finally {
      await raw.end()
      await store.close()
    }
  })
}
