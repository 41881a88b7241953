/**
 * Counting a query's words (src/store/query-terms.ts): raw FTS5 and `to_tsquery` operators, column
 * filters and NEAR distances are no words; phrases and joined tokens count each word; prefixes are found.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fts5Terms, tsqueryTerms, wordsOf } from '../../src/store/query-terms.js'

const word = fc
  .stringMatching(/^[a-zé][a-z0-9é]{0,7}$/u)
  .filter((w) => !['AND', 'OR', 'NOT', 'NEAR'].includes(w))

describe('query terms', () => {
  it('counts FTS5 terms, not its operators, columns or NEAR distance', () => {
    expect(fts5Terms('a AND b OR NOT c')).toStrictEqual({ words: 3, prefixes: [] })
    expect(fts5Terms('text:NEAR(one two, 100000) OR {text}: three')).toStrictEqual({ words: 3, prefixes: [] })
    expect(fts5Terms('"one ""two"" th-ree" * OR abc* OR ^x_y')).toStrictEqual({
      words: 7,
      prefixes: ['ree', 'abc'],
    })
    expect(fts5Terms('NEAR NEAR')).toStrictEqual({ words: 2, prefixes: [] })
  })

  it('counts to_tsquery operands, not its operators or weights', () => {
    expect(tsqueryTerms("a & (b | !c) <-> d <2> 'e f''g' & h:*AB & ij:A")).toStrictEqual({
      words: 9,
      prefixes: ['h'],
    })
  })

  it('counts every word, however the words are joined', () => {
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 80 }),
        fc.constantFrom(' OR ', ' AND ', ' ', ' NOT '),
        fc.constantFrom(' | ', ' & ', ' <-> ', ' & !'),
        fc.constantFrom(' ', '-', '_', '.', '—'),
        (ws, fts5Op, tsOp, joiner) => {
          expect(fts5Terms(ws.join(fts5Op)).words).toBe(ws.length)
          expect(fts5Terms(`"${ws.join(' ')}"`).words).toBe(ws.length)
          expect(tsqueryTerms(ws.join(tsOp)).words).toBe(ws.length)
          expect(tsqueryTerms(`'${ws.join(' ')}'`).words).toBe(ws.length)
          expect(wordsOf(ws.join(joiner))).toStrictEqual(ws)
        },
      ),
    )
  })
})
