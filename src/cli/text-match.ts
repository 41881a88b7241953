/**
 * Finding a query in a message's text ignoring letter case, for `search`'s scan, in every script — and
 * the SQL `LIKE` prefilter that must never drop a message the match would find.
 *
 * SQLite's `LIKE` ignores the case of ASCII letters only (`É` and `é` differ to it), and it runs on the
 * stored JSON, where `"` and `\` are escaped and a line break is `\n`. So the prefilter is the query's
 * longest run of characters whose every case variant is ASCII and that JSON writes as they are: printable
 * ASCII but the space, `"` and `\`, and but `k` and `s` (whose variants include the Kelvin sign and the
 * long s). The match itself is a Unicode case-insensitive one (`σίσυφος` finds `ΣΊΣΥΦΟΣ`, `école`
 * finds `ÉCOLE`).
 */

/** Characters outside the prefilter's set (see the module comment). */
const NOT_FOLDED_BY_LIKE = /[^!#-[\]-~]|[KkSs]/u

/**
 * The LIKE pattern that prefilters stored bodies for a query.
 *
 * @param query - the text searched for
 * @returns `%piece%` with LIKE's wildcards escaped by `\`; `%` when no character of the query can
 *   prefilter
 */
export function likePattern(query: string): string {
  const pieces = query.split(NOT_FOLDED_BY_LIKE)
  const longest = pieces.reduce((a, b) => (b.length > a.length ? b : a), '')
  return longest === '' ? '%' : `%${longest.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/**
 * Where a query first occurs in a text, ignoring letter case in every script.
 *
 * @param text - the text
 * @param query - what to find (not empty)
 * @returns its index and the length of the text it matched, or undefined
 */
export function findIgnoringCase(text: string, query: string): { at: number; length: number } | undefined {
  const pattern = new RegExp(query.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'), 'iu')
  const m = pattern.exec(text)
  return m === null ? undefined : { at: m.index, length: m[0].length }
}
