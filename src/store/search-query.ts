/**
 * Turning what a user or a model typed into an FTS5 query that cannot fail or inject (docs/design.md,
 * "Recall"). Plain input — the default — becomes quoted phrases: each `"double-quoted run"` one phrase,
 * every other whitespace-separated word one phrase of one word, joined by AND (`match: 'all'`) or OR
 * (`match: 'any'`). Inside a phrase every character but the quote is literal to FTS5, so `NEAR(`, `-`,
 * `*`, `col:x` and `AND` are just words (and those without letters or digits are no words at all: the
 * tokenizer drops them). Raw input (`syntax: 'fts5'`, or PostgreSQL's `'tsquery'`) is passed on as it is
 * once its words are counted (query-terms.ts); FTS5 then reports its syntax errors, which the search
 * turns into `INVALID_QUERY`. Either way a query holds at most `MAX_QUERY_TERMS` words.
 */
import { ContextLedgerError } from '../errors.js'
import {
  MAX_QUERY_TERMS,
  MIN_PREFIX_LENGTH,
  WORDLIKE,
  fts5Terms,
  tsqueryTerms,
  wordsOf,
  type QueryTerms,
} from './query-terms.js'

export { MAX_QUERY_TERMS, MIN_PREFIX_LENGTH } from './query-terms.js'

/** The longest query accepted, in UTF-16 code units. */
export const MAX_QUERY_LENGTH = 4096

/**
 * The most words a query may hold — the old name of {@link MAX_QUERY_TERMS}, kept for callers that
 * import it. It counts words, not phrases: a quoted phrase counts each of its words.
 *
 * @deprecated use {@link MAX_QUERY_TERMS}
 */
export const MAX_QUERY_PHRASES = MAX_QUERY_TERMS

/** A query made ready for FTS5. */
export interface FtsQuery {
  /** The FTS5 query text. */
  readonly text: string
  /** For plain input: the phrases' texts (unquoted), in order; undefined for raw FTS5 syntax. */
  readonly phrases: readonly string[] | undefined
}

/**
 * The `INVALID_QUERY` error.
 *
 * @param problem - what is wrong, in a sentence
 * @param cause - the FTS5 error, when there is one
 * @returns the error to throw
 */
export function invalidQuery(problem: string, cause?: unknown): ContextLedgerError<'INVALID_QUERY'> {
  return new ContextLedgerError('INVALID_QUERY', `Invalid search query: ${problem}`, {
    path: 'query',
    ...(cause === undefined ? {} : { cause }),
  })
}

/**
 * The phrases of plain input: double-quoted runs, then words (an unbalanced quote is a word character).
 *
 * @param input - what was typed
 * @returns the phrases, without the ones that hold no word
 */
export function plainPhrases(input: string): string[] {
  const phrases: string[] = []
  // Quoted runs first; what is left is split on whitespace. A lone quote is kept as a character, which
  // the tokenizer drops.
  const re = /"([^"]*)"|(\S+)/gu
  for (const m of input.replaceAll('\u0000', ' ').matchAll(re)) {
    const phrase = (m[1] ?? m[2] ?? '').trim()
    if (WORDLIKE.test(phrase)) phrases.push(phrase)
  }
  return phrases
}

/**
 * Refuses a query beyond the bounds on a search's work: more than {@link MAX_QUERY_TERMS} words, or a
 * prefix term shorter than {@link MIN_PREFIX_LENGTH} characters.
 *
 * @param terms - what the query holds
 * @throws ContextLedgerError `INVALID_QUERY` naming the bound
 */
function checkTerms(terms: QueryTerms): void {
  if (terms.words > MAX_QUERY_TERMS)
    throw invalidQuery(
      `it has ${terms.words} words; at most ${MAX_QUERY_TERMS} are accepted (MAX_QUERY_TERMS; every word ` +
        'of a phrase or a hyphenated token counts)',
    )
  // A prefix's length in characters (code points), not UTF-16 units; a word holds no emoji.
  const length = (p: string): number => Array.from(p).length
  const short = terms.prefixes.find((p) => length(p) < MIN_PREFIX_LENGTH)
  if (short !== undefined)
    throw invalidQuery(
      `the prefix "${short}" is ${length(short)} character${length(short) === 1 ? '' : 's'} long; ` +
        `a prefix needs at least ${MIN_PREFIX_LENGTH} (MIN_PREFIX_LENGTH)`,
    )
}

/**
 * Makes a user's query ready for FTS5 (or, raw, for PostgreSQL's `to_tsquery`).
 *
 * @param input - the query (checked: a string of at most {@link MAX_QUERY_LENGTH} characters)
 * @param syntax - `'plain'` (escaped), `'fts5'` or `'tsquery'` (raw, each counted in its own syntax)
 * @param match - for plain input, whether every phrase must match (`'all'`) or any (`'any'`)
 * @returns the query, or undefined when plain input holds no word (nothing can match)
 * @throws ContextLedgerError `INVALID_QUERY` for a query that is not a string, too long, with more than
 *   {@link MAX_QUERY_TERMS} words, or (raw) with a prefix shorter than {@link MIN_PREFIX_LENGTH}
 */
export function toFtsQuery(
  input: unknown,
  syntax: 'plain' | 'fts5' | 'tsquery',
  match: 'all' | 'any',
): FtsQuery | undefined {
  if (typeof input !== 'string')
    throw invalidQuery(`expected a string, got ${input === null ? 'null' : typeof input}`)
  if (input.length > MAX_QUERY_LENGTH)
    throw invalidQuery(`it is ${input.length} characters long; at most ${MAX_QUERY_LENGTH} are accepted`)
  if (syntax !== 'plain') {
    if (input.includes('\u0000')) throw invalidQuery('it contains a NUL character')
    checkTerms(syntax === 'fts5' ? fts5Terms(input) : tsqueryTerms(input))
    return input.trim() === '' ? undefined : { text: input, phrases: undefined }
  }
  const given = plainPhrases(input)
  if (given.length === 0) return undefined
  checkTerms({ words: given.reduce((n, p) => n + wordsOf(p).length, 0), prefixes: [] })
  // A phrase said twice (in any case) matches what it matches once: each is looked up and scored once.
  const seen = new Set<string>()
  const phrases = given.filter((p) => !seen.has(p.toLowerCase()) && seen.add(p.toLowerCase()))
  const quoted = phrases.map((p) => `"${p.replaceAll('"', '""')}"`)
  return { text: quoted.join(match === 'all' ? ' AND ' : ' OR '), phrases }
}
