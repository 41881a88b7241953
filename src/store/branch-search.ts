/**
 * `search()` with a `sessionId` that names a branch (docs/design.md, "Branches" and "Recall"): the
 * branch's conversation — its ancestors' rows up to each fork point, then its own, never a sibling's —
 * each part one owner's seq range `[lo, hi]` and the rowid range of its messages (a part's ids grow with
 * its seqs). One FTS5 query ranks the matches of the parts' ranges (bm25 uses the whole index's
 * statistics, so the ranking is each part's merged; one query reads the terms' doclists for their weights
 * once, where a query per part read them once per part), and the filters are checked in that order by
 * key — as the branch sees each row: its own window state on an inherited row (`branch_rows`) — until
 * enough pass (`search-merge.ts`); when they reject most, one query per part joins every match of its
 * range. A hit carries the branch's id and its seq in the
 * branch's conversation, its place in the branch's window and its pin there, and the summary the
 * branch's eviction log says it was folded into.
 */
import type { SearchParams } from '../db/recall-statements.js'
import type { SessionForAppendRow } from '../db/statements.js'
import type { BranchSearchParams } from '../db/branch-recall-statements.js'
import { branchEvictionOf } from './branch-evictions.js'
import { branchPending, branchRecall, branchView, type BranchView } from './branch-recall.js'
import type { SqliteLedger } from './ledger.js'
import { messageRowHit, summaryRowHit } from './search-hits.js'
import { found1, type Found, type SearchScope } from './search-scope.js'
import { bestPassingInParts, type PartSource } from './search-merge.js'
import type { SearchHit } from './search-types.js'

/** One part of a branch's conversation, with its rowid range. */
type Part = Pick<BranchSearchParams, 'owner' | 'lo' | 'hi' | 'id_lo' | 'id_hi'>

/** The parts of a branch's conversation that hold a message, each with the ids of its first and last. */
function partsOf(ledger: SqliteLedger, view: BranchView): Part[] {
  const st = branchRecall(ledger.db)
  const parts: Part[] = []
  for (const s of view.lineage.segments) {
    const part = { owner: s.owner, lo: s.lo, hi: Number.isFinite(s.hi) ? s.hi : Number.MAX_SAFE_INTEGER }
    const ids = st.partIdRange.get(part)
    if (ids?.id_lo == null || ids.id_hi == null) continue
    parts.push({ ...part, id_lo: ids.id_lo, id_hi: ids.id_hi })
  }
  return parts
}

/**
 * The scope of a search in a branch.
 *
 * @param ledger - the open ledger, inside the search's read transaction
 * @param row - the branch's session row
 * @returns the scope
 */
export function branchScope(ledger: SqliteLedger, row: SessionForAppendRow): SearchScope {
  const db = ledger.db
  const st = branchRecall(db)
  const view = branchView(db, row)
  const parts = partsOf(ledger, view)
  const bind = (params: SearchParams, part: Part): BranchSearchParams => {
    const { session: _session, ...rest } = params
    return { ...rest, branch: view.pk, ...part }
  }
  return {
    indexed: (params) => {
      if (parts.length === 0) return []
      const hull = {
        lo: Math.min(...parts.map((p) => p.id_lo)),
        hi: Math.max(...parts.map((p) => p.id_hi)),
        parts: JSON.stringify(parts.map((p) => [p.id_lo, p.id_hi])),
      }
      return bestPassingInParts(
        params.limit,
        (k) => st.branchIndexTop.all({ q: params.q, limit: k, ...hull }),
        parts.map((part): PartSource => {
          const p = bind(params, part)
          return {
            idLo: part.id_lo,
            idHi: part.id_hi,
            passes: (doc) => st.branchMessagePasses.get({ ...p, id: doc }) !== undefined,
            joinAll: () => st.branchSearchMessages.all(p),
          }
        }),
      )
    },
    summaries: (params) =>
      st.branchSearchSummaries.all({ ...params, branch: view.pk }).map((r) => found1(r, false)),
    pending: (params) =>
      parts.flatMap((part) => branchPending(db).branchSearchPending.all(bind(params, part))),
    hit: (f, snippet) => branchHit(ledger, view, f, snippet),
  }
}

/** A hit as the branch sees it: its seq, its place in the branch's window, its pin, its fold. */
function branchHit(ledger: SqliteLedger, view: BranchView, f: Found, snippet: string): SearchHit | undefined {
  const st = branchRecall(ledger.db)
  if (f.doc < 0) {
    const x = st.branchHitSummary.get({ id: -f.doc, branch: view.pk })
    if (x === undefined) return undefined
    return summaryRowHit(view.id, x, { score: f.score, snippet })
  }
  const m = st.branchHitMessage.get({ id: f.doc, branch: view.pk })
  if (m === undefined) return undefined
  const log = m.in_window === 1 ? undefined : branchEvictionOf(ledger.db, view, m.seq)
  return messageRowHit(view.id, m, { score: f.score, snippet }, log?.row.summary ?? null)
}
