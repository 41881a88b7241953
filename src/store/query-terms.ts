/**
 * Counting a query's words, whatever its syntax: the bound on a search's work (docs/api.md,
 * `MAX_QUERY_TERMS`). A word is what the index's tokenizer would make a term of — a run of letters,
 * digits and marks (FTS5's unicode61 and PostgreSQL's parser both split on everything else) — so a
 * quoted phrase or a hyphenated token counts each of its words. In raw syntax (FTS5's, or PostgreSQL's
 * `to_tsquery`) operators, column filters and a NEAR distance are no words; a prefix term (`abc*`,
 * `abc:*`) is one, and must have at least {@link MIN_PREFIX_LENGTH} characters.
 */

/** The most words (index terms) one query may hold, in phrases, joined tokens or raw syntax alike. */
export const MAX_QUERY_TERMS = 64

/** The fewest characters before a raw prefix term's `*` (a shorter one expands to much of the vocabulary). */
export const MIN_PREFIX_LENGTH = 3

/** A character that can be part of a token (unicode61 keeps letters, digits and marks). */
export const WORDLIKE = /[\p{L}\p{N}\p{M}\p{Co}]/u

const WORDS = /[\p{L}\p{N}\p{M}\p{Co}]+/gu

/** What a query holds: its words, and its prefix terms' stems (without the `*`). */
export interface QueryTerms {
  /** How many words (terms) it holds. */
  readonly words: number
  /** Each prefix term's last word, as given. */
  readonly prefixes: readonly string[]
}

/**
 * The words of a text, as the index's tokenizer would split it.
 *
 * @param text - a phrase, a token or a raw operand
 * @returns its words, in order
 */
export function wordsOf(text: string): string[] {
  return text.match(WORDS) ?? []
}

/** Adds an operand's words (and, for a prefix term, its last word) to a tally. */
function tally(into: { words: number; prefixes: string[] }, text: string, prefix: boolean): void {
  const found = wordsOf(text)
  into.words += found.length
  if (prefix) into.prefixes.push(found.at(-1) ?? '')
}

/** FTS5's bareword characters: ASCII letters, digits, `_`, 0x1A, and every non-ASCII character. */
const BAREWORD_CHAR = /[\w\u0080-\uffff]/u
const BAREWORD = { test: (c: string): boolean => BAREWORD_CHAR.test(c) || c === '\u001a' }

/**
 * The terms of a raw FTS5 query. Strings (`"…"`, `""` a quote) and barewords are terms, their words
 * counted; `AND`, `OR`, `NOT`, `NEAR(` are operators, a bareword before `:` a column, `{…}` a column set,
 * the bareword after a NEAR group's `,` its distance. Anything else FTS5 itself refuses or ignores.
 *
 * @param query - the raw query
 * @returns its words and prefix terms
 */
export function fts5Terms(query: string): QueryTerms {
  const t = { words: 0, prefixes: [] as string[] }
  let i = 0
  let afterComma = false
  const next = (): string => query.slice(i).match(/^\s*(.?)/u)?.[1] ?? ''
  while (i < query.length) {
    const c = query.charAt(i)
    if (c === '"') {
      let end = i + 1
      for (; end < query.length && (query[end] !== '"' || query[end + 1] === '"'); end++)
        if (query[end] === '"') end++
      const text = query.slice(i + 1, end).replaceAll('""', '"')
      i = end + 1
      tally(t, text, next() === '*')
    } else if (c === '{') {
      const close = query.indexOf('}', i)
      i = close < 0 ? query.length : close + 1
    } else if (BAREWORD.test(c)) {
      let end = i
      while (end < query.length && BAREWORD.test(query.charAt(end))) end++
      const word = query.slice(i, end)
      i = end
      const follows = next()
      const operator =
        word === 'AND' || word === 'OR' || word === 'NOT' || (word === 'NEAR' && follows === '(')
      if (!operator && !afterComma && follows !== ':') tally(t, word, follows === '*')
    } else i++
    if (!/\s/u.test(c)) afterComma = c === ','
  }
  return t
}

/**
 * The terms of a raw `to_tsquery` query: its operands between `&`, `|`, `!`, `(`, `)` and `<->`/`<N>`,
 * a quoted operand (`'…'`) as one, a `:` suffix (weights, `*` for a prefix) no word.
 *
 * @param query - the raw query
 * @returns its words and prefix terms
 */
export function tsqueryTerms(query: string): QueryTerms {
  const t = { words: 0, prefixes: [] as string[] }
  const operand = /'((?:[^'\\]|''|\\.)*)'?|<[^>]*>?|([^\s&|!()<':]+)|(:[*a-dA-D]*)|./gsu
  let last: string | undefined
  for (const m of query.matchAll(operand)) {
    if (m[3] !== undefined) {
      if (last !== undefined) tally(t, last, m[3].includes('*'))
      last = undefined
      continue
    }
    if (last !== undefined) tally(t, last, false)
    last = m[1] ?? m[2]
  }
  if (last !== undefined) tally(t, last, false)
  return t
}
