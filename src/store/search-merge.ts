/**
 * The best documents that pass the filters among several rowid ranges of the index — a branch's lineage
 * parts (src/store/branch-search.ts) — ranked by one full-text query over all of them. FTS5's bm25 uses
 * the index's own statistics, never the range's, so one query whose matches are kept to the parts' ranges
 * ranks exactly as the per-part rankings merged would; and it reads each query term's doclist for its
 * weights once, where a query per part read it once per part (most of a deep branch's search time). The
 * filters are checked by key on that one ranking, as {@link bestPassing} does for one range; when they
 * reject most, each part joins every match and the parts' best are merged.
 */
import type { SearchHitRow } from '../db/rows.js'
import { bestPassing, type Found } from './search-scope.js'

/** One part of a branch's conversation: a rowid range of the index and its checks. */
export interface PartSource {
  /** The id of the part's first message. */
  readonly idLo: number
  /** The id of its last. */
  readonly idHi: number
  /** Whether a match of the part's range is the part's and passes the filters, by key. */
  passes(doc: number): boolean
  /** Every match of the part joined to its row and filtered, best first (at most `limit`). */
  joinAll(): SearchHitRow[]
}

/** `(score, doc)` order, the order of the index's statements and of the search's merge. */
function before(a: SearchHitRow, b: SearchHitRow): number {
  return a.score - b.score || a.doc - b.doc
}

/**
 * The best `limit` documents of all the parts that pass the filters, best first.
 *
 * @param limit - how many are wanted
 * @param top - FTS5's best `k` matches within the parts' ranges, unfiltered (`ORDER BY score, doc`)
 * @param parts - the parts
 * @returns the best that pass, as {@link bestPassing} over the parts' union would return them
 */
export function bestPassingInParts(
  limit: number,
  top: (k: number) => SearchHitRow[],
  parts: readonly PartSource[],
): Found[] {
  return bestPassing(
    limit,
    top,
    (doc) => parts.some((p) => doc >= p.idLo && doc <= p.idHi && p.passes(doc)),
    () =>
      parts
        .flatMap((p) => p.joinAll())
        .sort(before)
        .slice(0, limit),
  )
}
