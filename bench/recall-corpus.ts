/**
 * The archive the search benchmarks search (bench/recall-search.ts on SQLite, bench/postgres-search.ts on
 * PostgreSQL): English-like text drawn from a 5,000-word vocabulary with a Zipf distribution (a few words
 * in most messages, most words rare), from a seeded generator, so both backends search the same text.
 */
import { prng } from './fixtures.js'
import { median } from './harness.js'

/** The vocabulary's size. */
export const VOCABULARY = 5_000

const SYLLABLES = ['ka', 'lo', 'mi', 're', 'tu', 'sa', 'ne', 'vo', 'pi', 'da', 'ro', 'li', 'ge', 'fu', 'te']

/** The words, most frequent first. */
export const words: readonly string[] = Array.from({ length: VOCABULARY }, (_, i) => {
  let w = ''
  for (let n = i + 1; n > 0; n = Math.floor(n / SYLLABLES.length)) w += SYLLABLES[n % SYLLABLES.length] ?? ''
  return `${w}x`
})

// Zipf (s = 1): the cumulative weights, searched by bisection.
const cumulative: number[] = []
for (let i = 0, total = 0; i < VOCABULARY; i++) cumulative.push((total += 1 / (i + 1)))
const totalWeight = cumulative.at(-1) ?? 1

/** A corpus: its generator (shared with the caller's other draws) and the text it makes. */
export interface Corpus {
  /** The generator every draw takes from, in order. */
  readonly random: () => number
  /** One word, at the Zipf distribution. */
  word(): string
  /** `n` words. */
  sentence(n: number): string
}

/**
 * A corpus drawing from a seeded generator.
 *
 * @param seed - the seed (the benchmarks use 7)
 * @returns the corpus
 */
export function corpus(seed: number): Corpus {
  const random = prng(seed)
  const word = (): string => {
    const x = random() * totalWeight
    let lo = 0
    let hi = VOCABULARY - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if ((cumulative[mid] ?? 0) < x) lo = mid + 1
      else hi = mid
    }
    return words[lo] ?? 'x'
  }
  return { random, word, sentence: (n) => Array.from({ length: n }, word).join(' ') }
}

/**
 * A percentile of measured values.
 *
 * @param values - the values
 * @param p - 0 to 100
 * @returns the value at that rank
 */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
}

/**
 * The benchmark's queries: two words said together in a message of the archive (what one searches for),
 * both outside the 100 most frequent words (the stopwords of this vocabulary).
 *
 * @param c - the corpus (its generator picks the messages and words)
 * @param count - how many queries
 * @param textAt - the text of a message, by a random number in [0, 1)
 * @returns the queries
 */
export async function twoWordQueries(
  c: Corpus,
  count: number,
  textAt: (x: number) => string | Promise<string>,
): Promise<string[]> {
  const stop = new Set(words.slice(0, 100))
  const queries: string[] = []
  while (queries.length < count) {
    const text = await textAt(c.random())
    const content = text.split(' ').filter((w) => w !== '' && !stop.has(w))
    if (content.length < 2) continue
    const a = content[Math.floor(c.random() * content.length)] as string
    const b = content[Math.floor(c.random() * content.length)] as string
    if (a !== b) queries.push(`${a} ${b}`)
  }
  return queries
}

/** Pairs of the 20 most frequent words: words in most messages, which the ranking must score in each. */
export const stopPairs: readonly string[] = Array.from(
  { length: 10 },
  (_, i) => `${words[i] ?? ''} ${words[i + 10] ?? ''}`,
)

/** How many words the widest query holds: the most a query may (`MAX_QUERY_TERMS`). */
export const WIDE_WORDS = 64

/**
 * The widest queries a caller or a model may send: {@link WIDE_WORDS} words drawn at the corpus's
 * distribution, searched with `match: 'any'` and `limit: 1000` (bench/search-wide.ts measures them alone).
 *
 * @param c - the corpus
 * @param count - how many queries
 * @returns the queries
 */
export function wideQueries(c: Corpus, count: number): string[] {
  return Array.from({ length: count }, () => Array.from({ length: WIDE_WORDS }, () => c.word()).join(' '))
}

/** The options of a wide query. */
export const WIDE_OPTIONS = { match: 'any', limit: 1000 } as const

/** The search benches' limit on the p50 of a query (issue 10). */
export const SEARCH_P50_LIMIT_MS = 20

/**
 * The search benches' table: p50, p99 and max of each kind of query, against the p50 limit.
 *
 * @param rows - each kind of query and its times (ms)
 * @returns the table's lines (markdown)
 */
export function searchTable(rows: readonly (readonly [name: string, times: readonly number[]])[]): string[] {
  return [
    `| query | p50 | p99 | max | ≤ ${SEARCH_P50_LIMIT_MS} ms p50 |`,
    '|---|---:|---:|---:|---|',
    ...rows.map(
      ([name, t]) =>
        `| ${name} | ${median(t).toFixed(2)} ms | ${percentile(t, 99).toFixed(2)} ms | ${Math.max(...t).toFixed(2)} ms | ${median(t) <= SEARCH_P50_LIMIT_MS ? 'PASS' : 'MISS'} |`,
    ),
  ]
}

/** The rows every search bench prints, from its times (ms) of the same queries. */
export function standardSearchRows(t: {
  all: readonly number[]
  one: readonly number[]
  evicted: readonly number[]
  stopwords: readonly number[]
}): [string, readonly number[]][] {
  return [
    ['two words said together, whole archive', t.all],
    ['the same, one session', t.one],
    ['the same, evicted only (inWindow: false)', t.evicted],
    ['two of the 20 most frequent words (10 queries)', t.stopwords],
  ]
}
