/**
 * A two-word `store.search()` over an archive of 1,000,000 messages (100,000 with `--quick`): p50 and
 * p99 of the call, against the 20 ms limit (docs/benchmarks.md, "Recall"). The archive is 1,000 sessions
 * of English-like text drawn from a 5,000-word vocabulary with a Zipf distribution (bench/recall-corpus.ts), appended through the store (the index built batch by batch, as an agent's
 * appends build it), plus the pending rows above the watermark. Queries are pairs of words drawn from the
 * vocabulary at the same distribution — common pairs match tens of thousands of messages — with the
 * default `limit` of 20: over the whole archive, in one session, and over evicted messages only (each
 * session's window holds its last 40 messages); and over the whole archive again with the most messages
 * a search may find waiting above the watermark (`SEARCH_PENDING_MAX_ROWS` − 1: a writer that never
 * yields to the event loop), which it reads itself.
 *
 *   npx tsx bench/recall-search.ts [--quick] [--queries N]
 */
import { openContextStore, type MessageData } from '../src/index.js'
import { SEARCH_PENDING_MAX_ROWS } from '../src/store/search-index.js'
import { parseOptions } from './args.js'
import { Scratch } from './harness.js'
import {
  corpus,
  searchTable,
  standardSearchRows,
  stopPairs,
  twoWordQueries,
  WIDE_OPTIONS,
  wideQueries,
} from './recall-corpus.js'

const options = parseOptions(
  process.argv.slice(2).filter((a, i, all) => a !== '--file' && all[i - 1] !== '--file'),
  {
    quick: { type: 'flag' },
    queries: { type: 'integer', min: 1 },
  },
)
// --file <path>: an archive this bench built before (kept with RECALL_BENCH_KEEP=path): only the queries run.
const fileAt = process.argv.indexOf('--file')
const FILE = fileAt < 0 ? undefined : process.argv[fileAt + 1]
const MESSAGES = options.quick ? 100_000 : 1_000_000
const SESSIONS = 1_000
const QUERIES = options.queries ?? 200
const c = corpus(7)
const sentence = (n: number): string => c.sentence(n)

const scratch = new Scratch()
const KEEP = process.env.RECALL_BENCH_KEEP
try {
  const file = FILE ?? KEEP ?? scratch.file('search.db')
  const store = openContextStore(file)
  const started = performance.now()
  if (FILE === undefined) {
    const perSession = MESSAGES / SESSIONS
    for (let s = 0; s < SESSIONS; s++) {
      const batch: MessageData[] = []
      for (let i = 0; i < perSession; i++)
        batch.push({ role: i % 2 === 0 ? 'user' : 'assistant', content: [{ text: sentence(20 + (i % 30)) }] })
      store.append(`session-${s}`, batch)
      // As an agent's session: all but the last 40 messages evicted.
      store.applyWindow(`session-${s}`, { windowSize: 40, tokenBudget: undefined, first: 0, last: 0 })
      if ((s + 1) % 100 === 0)
        process.stderr.write(`  ${((s + 1) * perSession).toLocaleString('en-US')} messages appended\n`)
    }
    // A few messages wait above the watermark, as they do between batches.
    store.append('session-0', [{ role: 'user', content: [{ text: sentence(25) }] }])
  }
  const messages = store.connection().prepare<[], number>('SELECT count(*) FROM messages').pluck().get() ?? 0
  const appendSeconds = (performance.now() - started) / 1000
  // The queries: two words said together in a message of the archive, both outside the 100 most frequent
  // words; and, apart, pairs of the 20 most frequent words — words in most messages, which bm25 must score
  // in each (bench/recall-corpus.ts).
  const db = store.connection()
  const textOf = db
    .prepare<[number], string>("SELECT body ->> '$.content[0].text' FROM messages WHERE id = ?")
    .pluck()
  const queries = await twoWordQueries(c, QUERIES, (x) => textOf.get(1 + Math.floor(x * messages)) ?? '')
  const time = (q: string, opts: Parameters<typeof store.search>[1]): number => {
    const t = performance.now()
    store.search(q, opts)
    return performance.now() - t
  }
  // Warm the page cache as a long-running process has it.
  for (const q of queries.slice(0, 50)) store.search(q)
  const all: number[] = []
  const one: number[] = []
  const evicted: number[] = []
  queries.forEach((q, i) => {
    all.push(time(q, {}))
    one.push(time(q, { sessionId: `session-${i % SESSIONS}` }))
    evicted.push(time(q, { inWindow: false }))
  })
  const stopwords = stopPairs.map((q) => time(q, {}))
  const wide = wideQueries(c, 10).map((q) => time(q, WIDE_OPTIONS))
  // The most a search reads above the watermark itself: a writer that never yields to the event loop
  // leaves up to SEARCH_PENDING_MAX_ROWS − 1 messages waiting (src/store/search-index.ts).
  const waitingNow = (): number =>
    db
      .prepare<[], number>(
        'SELECT (SELECT coalesce(max(id), 0) FROM messages) - indexed_to FROM search_state WHERE id = 1',
      )
      .pluck()
      .get() ?? 0
  const fewWaiting = waitingNow()
  const more = SEARCH_PENDING_MAX_ROWS - 1 - fewWaiting
  if (more > 0)
    store.append(
      'session-0',
      Array.from({ length: more }, (_, i) => ({
        role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: [{ text: sentence(20 + (i % 30)) }],
      })),
    )
  const manyWaiting = waitingNow()
  const capped = queries.map((q) => time(q, {}))
  console.log(
    `Two-word search over ${messages.toLocaleString('en-US')} messages (${SESSIONS} sessions${FILE === undefined ? `, appended in ${appendSeconds.toFixed(0)} s` : ''}), ${QUERIES} queries, limit 20:\n`,
  )
  for (const line of searchTable([
    ...standardSearchRows({ all, one, evicted, stopwords }),
    ["64 words, match 'any', limit 1000 (10 queries)", wide],
    [`two words said together, whole archive, ${manyWaiting} messages waiting (not ${fewWaiting})`, capped],
  ]))
    console.log(line)
  store.close()
} finally {
  scratch.dispose()
}
