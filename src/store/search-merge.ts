/**
 * The best documents that pass the filters over several rowid ranges of the index at once — a branch's
 * lineage parts (src/store/branch-search.ts). FTS5's bm25 uses the index's own statistics, never the
 * range's, so the scores of different ranges compare, and one ranking across the parts is the ranking of
 * one query over their union. Each part gives FTS5's best `k` unfiltered; they are merged by
 * `(score, doc)` and checked in that order, by key, until `limit` pass — a search checks about `limit`
 * candidates whatever the lineage's depth, where checking each part's best apart checked `limit` per
 * part. A merged candidate is only trusted up to the worst fetched candidate of each part that may hold
 * more; past it, the part that bounds the merge is asked for twice as many; and when the filters reject
 * most of a part (past `MAX_CANDIDATES`), that part joins every match, as `bestPassing` does for one range.
 */
import type { SearchHitRow } from '../db/rows.js'
import { found1, MAX_CANDIDATES, type Found } from './search-scope.js'

/** One rowid range of the index. */
export interface RangeSource {
  /** FTS5's best `k` matches of the range, unfiltered, best first (`ORDER BY score, doc`). */
  top(k: number): SearchHitRow[]
  /** Whether a match of the range passes the filters (and is the scope's), by key. */
  passes(doc: number): boolean
  /** Every match of the range joined to its row and filtered, best first (at most `limit`). */
  joinAll(): SearchHitRow[]
}

/** `(score, doc)` order, the order of `searchIndexTop` and of the search's merge. */
function before(a: SearchHitRow, b: SearchHitRow): number {
  return a.score - b.score || a.doc - b.doc
}

/**
 * The best `limit` documents of all the ranges that pass the filters, best first.
 *
 * @param limit - how many are wanted
 * @param sources - the ranges (disjoint)
 * @returns the best that pass, as {@link bestPassing} over the ranges' union would return them
 */
export function bestPassingMerged(limit: number, sources: readonly RangeSource[]): Found[] {
  const ks = sources.map(() => limit * 2 + 8)
  const got = sources.map((s, i) => s.top(ks[i] ?? 0))
  const verdict = new Map<number, boolean>()
  for (;;) {
    // Trusted up to the worst fetched candidate of every part that may hold more.
    let bound: SearchHitRow | undefined
    let tightest = -1
    got.forEach((rows, i) => {
      const last = rows[rows.length - 1]
      if (last === undefined || rows.length < (ks[i] ?? 0)) return
      if (bound === undefined || before(last, bound) < 0) {
        bound = last
        tightest = i
      }
    })
    const merged = got.flatMap((rows, i) => rows.map((r) => ({ r, i }))).sort((a, b) => before(a.r, b.r))
    const pass: SearchHitRow[] = []
    for (const { r, i } of merged) {
      if (bound !== undefined && before(r, bound) > 0) break
      let ok = verdict.get(r.doc)
      if (ok === undefined) {
        ok = sources[i]?.passes(r.doc) ?? false
        verdict.set(r.doc, ok)
      }
      if (ok) pass.push(r)
      if (pass.length >= limit) return pass.map((x) => found1(x, false))
    }
    const src = sources[tightest]
    if (src === undefined) return pass.map((x) => found1(x, false))
    // Only the part that bounds the merge is asked for more; past the cap, it joins every match instead
    // (its best `limit` that pass: the rest of it cannot be among the best `limit` of all).
    const k = (ks[tightest] ?? 0) * 2
    if (k <= MAX_CANDIDATES) {
      ks[tightest] = k
      got[tightest] = src.top(k)
    } else {
      const joined = src.joinAll()
      for (const r of joined) verdict.set(r.doc, true)
      ks[tightest] = Infinity
      got[tightest] = joined
    }
  }
}
