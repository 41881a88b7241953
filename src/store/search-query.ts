/**
 * Turning what a user or a model typed into an FTS5 query that cannot fail or inject (docs/design.md,
 * "Recall"). Plain input — the default — becomes quoted phrases: each `"double-quoted run"` one phrase,
 * every other whitespace-separated word one phrase of one word, joined by AND (`match: 'all'`) or OR
 * (`match: 'any'`). Inside a phrase every character but the quote is literal to FTS5, so `NEAR(`, `-`,
 * `*`, `col:x` and `AND` are just words (and those without letters or digits are no words at all: the
 * tokenizer drops them). Raw input (`syntax: 'fts5'`) is passed on as it is; FTS5 then reports its syntax
 * errors, which the search turns into `INVALID_QUERY`.
 */
import { ContextLedgerError } from '../errors.js'

/** The longest query accepted, in UTF-16 code units. */
export const MAX_QUERY_LENGTH = 4096

/** The most phrases a plain query may hold. */
export const MAX_QUERY_PHRASES = 64

/** A query made ready for FTS5. */
export interface FtsQuery {
  /** The FTS5 query text. */
  readonly text: string
  /** For plain input: the phrases' texts (unquoted), in order; undefined for raw FTS5 syntax. */
  readonly phrases: readonly string[] | undefined
}

/** A character that can be part of a token (unicode61 keeps letters, digits and marks). */
const WORDLIKE = /[\p{L}\p{N}\p{M}\p{Co}]/u

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
 * Makes a user's query ready for FTS5.
 *
 * @param input - the query (checked: a string of at most {@link MAX_QUERY_LENGTH} characters)
 * @param syntax - `'plain'` (escaped) or `'fts5'` (raw)
 * @param match - for plain input, whether every phrase must match (`'all'`) or any (`'any'`)
 * @returns the FTS5 query, or undefined when plain input holds no word (nothing can match)
 * @throws ContextLedgerError `INVALID_QUERY` for a query that is not a string, too long, or (plain) has
 *   more than {@link MAX_QUERY_PHRASES} phrases
 */
export function toFtsQuery(
  input: unknown,
  syntax: 'plain' | 'fts5',
  match: 'all' | 'any',
): FtsQuery | undefined {
  if (typeof input !== 'string')
    throw invalidQuery(`expected a string, got ${input === null ? 'null' : typeof input}`)
  if (input.length > MAX_QUERY_LENGTH)
    throw invalidQuery(`it is ${input.length} characters long; at most ${MAX_QUERY_LENGTH} are accepted`)
  if (syntax === 'fts5') {
    if (input.includes('\u0000')) throw invalidQuery('it contains a NUL character')
    return input.trim() === '' ? undefined : { text: input, phrases: undefined }
  }
  const given = plainPhrases(input)
  if (given.length === 0) return undefined
  if (given.length > MAX_QUERY_PHRASES)
    throw invalidQuery(`it has ${given.length} words or phrases; at most ${MAX_QUERY_PHRASES} are accepted`)
  // A phrase said twice (in any case) matches what it matches once: each is looked up and scored once.
  const seen = new Set<string>()
  const phrases = given.filter((p) => !seen.has(p.toLowerCase()) && seen.add(p.toLowerCase()))
  const quoted = phrases.map((p) => `"${p.replaceAll('"', '""')}"`)
  return { text: quoted.join(match === 'all' ? ' AND ' : ' OR '), phrases }
}
