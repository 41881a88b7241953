/**
 * The archive the search benchmarks search (bench/recall-search.ts on SQLite, bench/postgres-search.ts on
 * PostgreSQL): English-like text drawn from a 5,000-word vocabulary with a Zipf distribution (a few words
 * in most messages, most words rare), from a seeded generator, so both backends search the same text.
 */

/** The vocabulary's size. */
export const VOCABULARY = 5_000

/**
 * A seeded pseudo-random generator (mulberry32).
 *
 * @param seed - the seed
 * @returns numbers in [0, 1)
 */
export function prng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

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
