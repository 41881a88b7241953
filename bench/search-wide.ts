/**
 * The widest search a caller (or a model) may send: 64 words with `match: 'any'` and `limit: 1000`, over
 * an archive of 50,000 messages of the search benches' prose (bench/recall-corpus.ts: 50 sessions of
 * Zipf-distributed English-like text, each session's window cut to its last 40). Prints the median and
 * max of the call, against a two-word query and the same 64 words with the default limit of 20; on SQLite
 * by default, on PostgreSQL with `--postgres` (an embedded server, or `--url`). Measured, not asserted.
 *
 *   npx tsx bench/search-wide.ts [--postgres [--url postgres://…]] [--runs N]
 */
import { openContextStore, type MessageData } from '../src/index.js'
import { openPostgresContextStore } from '../src/backends/postgres/index.js'
import { createDatabase } from '../test/postgres/server.js'
import { parseOptions } from './args.js'
import { median, Scratch } from './harness.js'
import { corpus, WIDE_OPTIONS, WIDE_WORDS, wideQueries } from './recall-corpus.js'
import { takeUrl, withBenchServer } from './postgres-server.js'

const SESSIONS = 50
const PER_SESSION = 1_000

/** What the bench needs of a store: either backend's, awaited. */
interface Searchable {
  append(sessionId: string, messages: MessageData[]): unknown
  applyWindow(
    sessionId: string,
    limits: { windowSize: number; tokenBudget: undefined; first: 0; last: 0 },
  ): unknown
  search(query: string, options: { match?: 'any'; limit?: number }): unknown
}

async function run(store: Searchable, runs: number): Promise<string[]> {
  const c = corpus(7)
  for (let s = 0; s < SESSIONS; s++) {
    const batch: MessageData[] = []
    for (let i = 0; i < PER_SESSION; i++)
      batch.push({ role: i % 2 === 0 ? 'user' : 'assistant', content: [{ text: c.sentence(20 + (i % 30)) }] })
    await store.append(`session-${s}`, batch)
    await store.applyWindow(`session-${s}`, { windowSize: 40, tokenBudget: undefined, first: 0, last: 0 })
  }
  const wide = wideQueries(c, runs)
  const narrow = Array.from({ length: runs }, () => `${c.word()} ${c.word()}`)
  const time = async (q: string, o: { match?: 'any'; limit?: number }): Promise<number> => {
    const t = performance.now()
    await store.search(q, o)
    return performance.now() - t
  }
  await time(wide[0] ?? '', WIDE_OPTIONS) // warm the caches
  const rows: [string, number[]][] = [
    ['two words, limit 20', []],
    [`${WIDE_WORDS} words, match 'any', limit 20`, []],
    [`${WIDE_WORDS} words, match 'any', limit 1000`, []],
  ]
  for (let i = 0; i < runs; i++) {
    rows[0]?.[1].push(await time(narrow[i] ?? '', {}))
    rows[1]?.[1].push(await time(wide[i] ?? '', { match: 'any', limit: 20 }))
    rows[2]?.[1].push(await time(wide[i] ?? '', WIDE_OPTIONS))
  }
  return [
    '| query | p50 | max |',
    '|---|---:|---:|',
    ...rows.map(([name, t]) => `| ${name} | ${median(t).toFixed(1)} ms | ${Math.max(...t).toFixed(1)} ms |`),
  ]
}

const { url, rest } = takeUrl(process.argv.slice(2))
const o = parseOptions(rest, { postgres: { type: 'flag' }, runs: { type: 'integer', min: 1 } })
const runs = o.runs ?? 10
const title = `Widest search over ${(SESSIONS * PER_SESSION).toLocaleString('en-US')} messages, ${runs} queries each`
if (o.postgres)
  await withBenchServer(url, async (admin) => {
    const db = await createDatabase(admin)
    const store = await openPostgresContextStore({ connectionString: db.url, maxConnections: 4 })
    try {
      const lines = await run(store, runs)
      console.log(`PostgreSQL: ${title}:\n`)
      for (const line of lines) console.log(line)
    } finally {
      await store.close()
    }
  })
else {
  const scratch = new Scratch()
  try {
    const store = openContextStore(scratch.file('wide.db'))
    const lines = await run(store, runs)
    console.log(`SQLite: ${title}:\n`)
    for (const line of lines) console.log(line)
    store.close()
  } finally {
    scratch.dispose()
  }
}
