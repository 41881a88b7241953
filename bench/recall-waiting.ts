/**
 * What the messages waiting above the full-text index's watermark cost a search (docs/benchmarks.md, "The
 * full-text index on the write path"): `store.search()` reads them itself (src/store/search.ts), and the
 * store bounds them at `SEARCH_PENDING_MAX_ROWS` (256) — what a writer that never yields to the event loop
 * leaves. 20,000 indexed messages in 20 sessions, then _n_ more waiting (indexed, then taken out of the
 * index with the watermark moved back: the state a store leaves between two passes), for n from 0 to
 * 512; queries drawn half from the waiting messages, half from the indexed ones. Two kinds of text:
 * English-like (two words from a 5,000-word Zipf vocabulary, as bench/recall-search.ts) and row a's
 * random characters (one word of 3+ characters).
 *
 *   npx tsx bench/recall-waiting.ts [--queries N]
 */
import { openContextStore, type MessageData } from '../src/index.js'
import { SEARCH_PENDING_MAX_ROWS } from '../src/store/search-index.js'
import { parseOptions } from './args.js'
import { TurnFactory } from './fixtures.js'
import { corpus, percentile, words } from './recall-corpus.js'
import { median, Scratch } from './harness.js'

const options = parseOptions(process.argv.slice(2), { queries: { type: 'integer', min: 2 } })
const QUERIES = options.queries ?? 60
const WAITING = [0, 32, 64, 128, SEARCH_PENDING_MAX_ROWS, 2 * SEARCH_PENDING_MAX_ROWS]

const c = corpus(7)
const random = c.random
const stop = new Set(words.slice(0, 100))

type Kind = 'English-like' | 'row a'

function messages(kind: Kind, factory: TurnFactory, n: number): MessageData[] {
  if (kind === 'row a') return factory.turns(Math.ceil(n / 4)).slice(0, n)
  return Array.from({ length: n }, (_, i) => ({
    role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: [{ text: c.sentence(20 + (i % 30)) }],
  }))
}

function measure(kind: Kind): string[] {
  const scratch = new Scratch()
  const out: string[] = []
  try {
    const store = openContextStore(scratch.file('waiting.db'))
    const db = store.connection()
    const factory = new TurnFactory('w', 3)
    for (let s = 0; s < 20; s++) store.append(`s${s}`, messages(kind, factory, 1000))
    store.indexPending()
    const lastId = db.prepare<[], number>('SELECT max(id) FROM messages').pluck()
    const textOf = db.prepare<[number], string>('SELECT text FROM search_text WHERE doc = ?').pluck()
    const unindex = db.prepare<[number]>(
      "INSERT INTO search_index (search_index, rowid, text) SELECT 'delete', doc, text FROM search_text WHERE doc > ?",
    )
    const setWatermark = db.prepare<[number]>('UPDATE search_state SET indexed_to = ?')
    let base: number | undefined
    for (const n of WAITING) {
      if (n > 0) {
        store.append('waiting', messages(kind, factory, n))
        store.indexPending()
        const last = lastId.get() ?? 0
        unindex.run(last - n)
        setWatermark.run(last - n)
      }
      const last = lastId.get() ?? 0
      const queries: string[] = []
      while (queries.length < QUERIES) {
        const id =
          n > 0 && queries.length % 2 === 0
            ? last - Math.floor(random() * n)
            : 1 + Math.floor(random() * (last - n))
        const terms = (textOf.get(id) ?? '').split(/[^a-z0-9]+/i).filter((w) => w.length > 2 && !stop.has(w))
        if (terms.length < 2) continue
        const a = terms[Math.floor(random() * terms.length)] as string
        const b = terms[Math.floor(random() * terms.length)] as string
        if (a !== b) queries.push(kind === 'row a' ? a : `${a} ${b}`)
      }
      for (const q of queries.slice(0, 10)) store.search(q)
      const times: number[] = []
      for (let r = 0; r < 3; r++)
        for (const q of queries) {
          const t0 = performance.now()
          store.search(q)
          times.push(performance.now() - t0)
        }
      const p50 = median(times)
      base ??= p50
      out.push(
        `| ${kind} | ${n} | ${p50.toFixed(2)} ms | ${percentile(times, 90).toFixed(2)} ms | +${(p50 - base).toFixed(2)} ms |`,
      )
    }
    store.close()
  } finally {
    scratch.dispose()
  }
  return out
}

console.log(`search() with messages waiting above the watermark (20,000 indexed, ${QUERIES} queries × 3):\n`)
console.log('| text | waiting | p50 | p90 | p50 − p50 with none waiting |')
console.log('|---|---:|---:|---:|---:|')
for (const kind of ['English-like', 'row a'] as const) for (const line of measure(kind)) console.log(line)
