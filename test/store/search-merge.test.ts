/**
 * `bestPassingMerged` (src/store/search-merge.ts), the one ranking of a branch search across its lineage
 * parts, against a brute-force scan: every match of every part that passes, sorted by `(score, doc)`, the
 * first `limit`. Scores are drawn from a few values so ties (broken by doc) are common, and the filters
 * reject from none to all of the matches, so the merge's re-fetches and its join-every-match fallback run.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { SearchHitRow } from '../../src/db/rows.js'
import { bestPassingMerged, type RangeSource } from '../../src/store/search-merge.js'
import { MAX_CANDIDATES } from '../../src/store/search-scope.js'

const byRank = (a: SearchHitRow, b: SearchHitRow): number => a.score - b.score || a.doc - b.doc

/** A part over its matches: `top` as FTS5's `ORDER BY score, doc LIMIT k`, `joinAll` as the join. */
function source(
  rows: SearchHitRow[],
  passes: (doc: number) => boolean,
  limit: number,
  calls: number[],
): RangeSource {
  const sorted = [...rows].sort(byRank)
  return {
    top: (k) => {
      calls.push(k)
      return sorted.slice(0, k)
    },
    passes,
    joinAll: () => sorted.filter((r) => passes(r.doc)).slice(0, limit),
  }
}

const partsArb = fc.array(
  fc.array(fc.record({ score: fc.integer({ min: -6, max: 0 }), pass: fc.boolean() }), { maxLength: 120 }),
  { minLength: 1, maxLength: 12 },
)

describe('bestPassingMerged', () => {
  it('returns what a brute-force scan of every part returns', () => {
    fc.assert(
      fc.property(
        partsArb,
        fc.integer({ min: 1, max: 30 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (raw, limit, rejectShare) => {
          let doc = 1
          const passing = new Set<number>()
          const parts = raw.map((rows) =>
            rows.map((r) => {
              const d = doc++
              if (r.pass || (d * 7919) % 1000 >= rejectShare * 1000) passing.add(d)
              return { doc: d, score: r.score }
            }),
          )
          const calls: number[] = []
          const got = bestPassingMerged(
            limit,
            parts.map((rows) => source(rows, (d) => passing.has(d), limit, calls)),
          )
          const want = parts
            .flat()
            .filter((r) => passing.has(r.doc))
            .sort(byRank)
            .slice(0, limit)
          expect(got.map((f) => [f.doc, f.score, f.pending])).toEqual(
            want.map((r) => [r.doc, r.score, false]),
          )
          expect(Math.max(0, ...calls)).toBeLessThanOrEqual(MAX_CANDIDATES)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('checks about `limit` candidates, not `limit` per part, when most pass', () => {
    const checked: number[] = []
    const parts = Array.from({ length: 11 }, (_, p) =>
      Array.from({ length: 200 }, (_, i) => ({ doc: p * 1000 + i + 1, score: -((i * 11 + p) % 97) })),
    )
    const got = bestPassingMerged(
      20,
      parts.map((rows) =>
        source(
          rows,
          (d) => {
            checked.push(d)
            return true
          },
          20,
          [],
        ),
      ),
    )
    expect(got).toHaveLength(20)
    expect(checked).toHaveLength(20)
  })
})
