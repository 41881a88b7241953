/**
 * `bestPassingInParts` (src/store/search-merge.ts), the one ranking of a branch search across its lineage
 * parts, against a brute-force scan: every match of every part that passes, sorted by `(score, doc)`, the
 * first `limit`. `top` is one ranking over the parts' ranges (as `branchIndexTop`), holding other
 * sessions' matches inside the ranges too, which no part passes. Scores are drawn from a few values so
 * ties (broken by doc) are common, and the filters reject from none to all of the matches, so the
 * re-fetches and the join-every-match fallback run.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { SearchHitRow } from '../../src/db/rows.js'
import { bestPassingInParts, type PartSource } from '../../src/store/search-merge.js'
import { MAX_CANDIDATES } from '../../src/store/search-scope.js'

const byRank = (a: SearchHitRow, b: SearchHitRow): number => a.score - b.score || a.doc - b.doc

/** A part over its own matches (`joinAll` as the join), its range its first to its last doc. */
function part(rows: SearchHitRow[], passes: (doc: number) => boolean, limit: number): PartSource {
  const docs = rows.map((r) => r.doc)
  const own = new Set(docs)
  return {
    idLo: Math.min(...docs),
    idHi: Math.max(...docs),
    passes: (doc) => own.has(doc) && passes(doc),
    joinAll: () =>
      [...rows]
        .sort(byRank)
        .filter((r) => passes(r.doc))
        .slice(0, limit),
  }
}

const matchArb = fc.record({
  score: fc.integer({ min: -6, max: 0 }),
  pass: fc.boolean(),
  other: fc.boolean(),
})

describe('bestPassingInParts', () => {
  it('returns what a brute-force scan of every part returns', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(matchArb, { minLength: 1, maxLength: 120 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 30 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (raw, limit, rejectShare) => {
          let doc = 1
          const passing = new Set<number>()
          const others: SearchHitRow[] = []
          const parts = raw.map((rows) =>
            rows.map((r) => {
              // Another session's match inside the part's range: in the ranking, never a hit.
              if (r.other) others.push({ doc: doc++, score: r.score })
              const d = doc++
              if (r.pass || (d * 7919) % 1000 >= rejectShare * 1000) passing.add(d)
              return { doc: d, score: r.score }
            }),
          )
          const ranked = [...parts.flat(), ...others].sort(byRank)
          const calls: number[] = []
          const got = bestPassingInParts(
            limit,
            (k) => {
              calls.push(k)
              return ranked.slice(0, k)
            },
            parts.map((rows) => part(rows, (d) => passing.has(d), limit)),
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

  it('checks a doc against every part whose range holds it (ranges of owners may overlap)', () => {
    // Part A owns 1…10 and 30, part B 11…20: B's docs lie inside A's range.
    const a = part(
      [...Array.from({ length: 10 }, (_, i) => ({ doc: i + 1, score: -1 })), { doc: 30, score: -1 }],
      () => true,
      5,
    )
    const b = part(
      Array.from({ length: 10 }, (_, i) => ({ doc: i + 11, score: -9 })),
      () => true,
      5,
    )
    const ranked = [
      ...Array.from({ length: 20 }, (_, i) => ({ doc: i + 1, score: i < 10 ? -1 : -9 })),
      { doc: 30, score: -1 },
    ].sort(byRank)
    const got = bestPassingInParts(12, (k) => ranked.slice(0, k), [a, b])
    expect(got.map((f) => f.doc)).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 1, 2])
  })

  it('asks one ranking, and checks about `limit` candidates, whatever the number of parts', () => {
    const checked: number[] = []
    const parts = Array.from({ length: 11 }, (_, p) =>
      Array.from({ length: 200 }, (_, i) => ({ doc: p * 1000 + i + 1, score: -((i * 11 + p) % 97) })),
    )
    const ranked = parts.flat().sort(byRank)
    const calls: number[] = []
    const got = bestPassingInParts(
      20,
      (k) => {
        calls.push(k)
        return ranked.slice(0, k)
      },
      parts.map((rows) =>
        part(
          rows,
          (d) => {
            checked.push(d)
            return true
          },
          20,
        ),
      ),
    )
    expect(got).toHaveLength(20)
    expect(calls).toEqual([48])
    expect(checked.length).toBeLessThanOrEqual(48)
  })
})
