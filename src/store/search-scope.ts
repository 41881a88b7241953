/**
 * What a search (src/store/search.ts) asks of the rows it looks in — its **scope**: the whole file or a
 * trunk session (the index's own statements, `search.ts`), or a branch's lineage (`branch-search.ts`).
 * Each scope answers the three queries a search merges by score (the index's messages, its summaries,
 * the pending rows above the watermark) and reads a hit as its session sees it; the search itself — one
 * snapshot, the merge, paging, snippets — is one code for every scope.
 */
import type Database from 'better-sqlite3'
import {
  CREATE_PENDING_INDEX,
  PENDING_SEARCH_STATEMENTS,
  type SearchParams,
} from '../db/recall-statements.js'
import type { SearchHitRow } from '../db/rows.js'
import { prepareAll, type PreparedAll } from '../db/typed-statement.js'
import type { SearchHit } from './search-types.js'

/** A hit before its row is read: where it was found, and its score. */
export interface Found {
  readonly doc: number
  readonly score: number
  readonly pending: boolean
}

/** Where a search looks, and how a hit reads there. */
export interface SearchScope {
  /** The best `params.limit` messages of the index that match and pass the filters. */
  indexed(params: SearchParams): Found[]
  /** The best `params.limit` summaries of the index that match and pass the filters. */
  summaries(params: SearchParams): Found[]
  /** Every pending message (in the temporary index) that matches and passes the filters. */
  pending(params: SearchParams): SearchHitRow[]
  /** A hit as its session sees it, or undefined when its row is gone. */
  hit(found: Found, snippet: string): SearchHit | undefined
}

/** The statements over the connection's temporary index of the pending rows. */
export type Pending = PreparedAll<typeof PENDING_SEARCH_STATEMENTS>

const pendingByConnection = new WeakMap<Database.Database, Pending>()

/**
 * The pending rows' statements of a connection, its temporary tables created on first use.
 *
 * @param db - the connection
 * @returns the statements
 */
export function pendingStatements(db: Database.Database): Pending {
  let st = pendingByConnection.get(db)
  if (st === undefined) {
    db.exec(CREATE_PENDING_INDEX)
    st = prepareAll(db, PENDING_SEARCH_STATEMENTS)
    pendingByConnection.set(db, st)
  }
  return st
}

/**
 * A found document.
 *
 * @param r - its row
 * @param pending - whether it is a pending message
 * @returns the document
 */
export function found1(r: SearchHitRow, pending: boolean): Found {
  return { doc: r.doc, score: r.score, pending }
}

/** Candidates examined by filtering FTS5's best before the search joins every match instead. */
export const MAX_CANDIDATES = 4096

/**
 * The best `limit` documents that pass the filters. FTS5 ranks alone first (joining every match to its
 * row before sorting costs a row lookup per match); the filters are checked on its best, by key, taking
 * twice as many while too few pass — and when the filters reject most matches, one query joins every
 * match.
 *
 * @param limit - how many are wanted
 * @param top - FTS5's best `k` matches, unfiltered
 * @param passes - whether a match passes the filters (undefined: no filter)
 * @param joinAll - every match joined to its row and filtered, best first (at most `limit`)
 * @returns the best that pass
 */
export function bestPassing(
  limit: number,
  top: (k: number) => SearchHitRow[],
  passes: ((doc: number) => boolean) | undefined,
  joinAll: () => SearchHitRow[],
): Found[] {
  for (let k = limit * 2 + 8; k <= MAX_CANDIDATES; k *= 2) {
    const best = top(k)
    const pass = passes === undefined ? best : best.filter((r) => passes(r.doc))
    if (pass.length >= limit || best.length < k) return pass.slice(0, limit).map((r) => found1(r, false))
  }
  return joinAll().map((r) => found1(r, false))
}
