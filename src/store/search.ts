/**
 * `ContextStore.search()`: full-text search over the whole archive (docs/design.md, "Recall").
 *
 * In one read transaction — one snapshot — three queries are merged by bm25 score: the messages of the
 * index (`search_index`), the summaries of the index, and the pending messages above the index's
 * watermark, put for this search into a temporary FTS5 table with the same tokenizer (they are at most
 * a batch; the temporary table lives in the connection's temp schema, never in the file). So a search
 * is always complete, whatever the watermark. Each query is driven by the text match; the filters are
 * checked on each matching document's row, reached by key.
 */
import type { SearchParams } from '../db/recall-statements.js'
import type { SearchHitRow } from '../db/rows.js'
import { ContextLedgerError } from '../errors.js'
import { branchScope } from './branch-search.js'
import { messageRowHit, summaryRowHit } from './search-hits.js'
import type { Ledger, SqliteLedger } from './ledger.js'
import {
  indexAverages,
  occurrences,
  pendingScores,
  phraseCounts,
  readVarint,
  termsByDoc,
  type Occurrences,
} from './pending-scores.js'
import { checkIndexTokens } from './query-tokens.js'
import { checkSearchOptions, type Checked } from './search-options.js'
import { invalidQuery, toFtsQuery, type FtsQuery } from './search-query.js'
import {
  bestPassing,
  found1,
  pendingStatements,
  type Found,
  type Pending,
  type SearchScope,
} from './search-scope.js'
import type { SearchHit } from './search-types.js'

export { checkSearchOptions, MAX_SEARCH_LIMIT, RECALL_TOOL_NAMES } from './search-options.js'

/** Whether an error is FTS5 refusing a query (a syntax error, an unknown column, a bad NEAR …). */
function isQueryError(error: unknown): error is Error {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== 'SQLITE_ERROR') return false
  return /fts5|syntax error|no such column|unterminated|unknown special query|malformed MATCH/i.test(
    error.message,
  )
}

/**
 * Searches the archive.
 *
 * @param ledger - the open ledger
 * @param query - what to find
 * @param options - filters, paging, syntax (unchecked: checked here)
 * @returns the hits, best first
 * @throws ContextLedgerError `INVALID_QUERY` for a query FTS5 refuses (or too long), `INVALID_OPTIONS`
 */
export function searchLedger(ledger: SqliteLedger, query: unknown, options: unknown): SearchHit[] {
  ledger.ensureOpen()
  const o = checkSearchOptions(options)
  const fts = toFtsQuery(query, o.syntax, o.match)
  if (fts === undefined) return []
  checkIndexTokens(query as string, o.syntax, pendingStatements(ledger.db))
  try {
    return ledger.read(() => run(ledger, fts, o), 'search the archive', o.sessionId)
  } catch (error) {
    const cause =
      error instanceof ContextLedgerError ? ((error as { cause?: unknown }).cause ?? error) : error
    if (isQueryError(cause))
      throw invalidQuery(
        `${cause.message.replace(/^fts5: /, '')} (in ${JSON.stringify(fts.text.slice(0, 200))})`,
        cause,
      )
    throw error
  }
}

/**
 * Where a search with these options looks: a branch's lineage (`branch-search.ts`) when `sessionId`
 * names a branch; else the index's own statements, which read the whole file or one trunk session
 * exactly as before branches (their plans are pinned by the query-plan tests).
 *
 * @returns the scope, or undefined when `sessionId` names no session
 */
function scopeOf(ledger: SqliteLedger, o: Checked, pst: Pending): SearchScope | undefined {
  let session: number | null = null
  if (o.sessionId !== undefined) {
    const row = ledger.keys.sessionRow(o.sessionId)
    if (row === undefined) return undefined
    if (row.parent !== null) return branchScope(ledger, row)
    session = row.pk
  }
  const st = ledger.st
  const at = (params: SearchParams): SearchParams => ({ ...params, session })
  return {
    indexed: (params) => indexedMessages(ledger, at(params)),
    summaries: (params) => st.searchSummaries.all(at(params)).map((r) => found1(r, false)),
    pending: (params) => pst.searchPending.all(at(params)),
    hit: (f, snippet) => toHit(ledger, f, snippet),
  }
}

function run(ledger: SqliteLedger, fts: FtsQuery, o: Checked): SearchHit[] {
  const st = ledger.st
  const pst = pendingStatements(ledger.db)
  const scope = scopeOf(ledger, o, pst)
  if (scope === undefined) return []
  const want = o.offset + o.limit
  const params: SearchParams = { ...o.params, q: fts.text, session: null, limit: want }
  const found: Found[] = scope.indexed(params)
  if (o.summaries) found.push(...scope.summaries(params))
  const state = st.searchState.get()
  if (state !== undefined && state.last_id > state.indexed_to) {
    pst.clearPending.run()
    pst.fillPending.run(state.indexed_to)
    // Every pending match, not the best `want` of them: the temporary table's own bm25 (its statistics
    // are the pending rows' alone) does not rank them as the index's statistics do, so cutting before
    // re-scoring would drop rows that rank high once re-scored, and a page would depend on its size.
    const hits = scope.pending({ ...params, limit: -1 })
    found.push(...scorePending(ledger, pst, fts, hits))
  }
  found.sort((a, b) => a.score - b.score || a.doc - b.doc)
  const page = found.slice(o.offset, want)
  pst.clearSnippets.run()
  for (const f of page) pst.fillSnippet.run(f.doc, (pst.hitText.get(f.doc) ?? '').replaceAll('\u0000', ' '))
  const snippets = new Map(
    page.length === 0 ? [] : pst.pageSnippets.all(fts.text).map((r) => [r.doc, r.snippet]),
  )
  return page
    .map((f) => scope.hit(f, snippets.get(f.doc) ?? ''))
    .filter((h): h is SearchHit => h !== undefined)
}

/**
 * The best messages of the index that match and pass the filters (see {@link bestPassing}). `session`
 * also narrows FTS5 to the session's rowid range (a session's ids grow with its seqs).
 */
function indexedMessages(ledger: Ledger, params: SearchParams): Found[] {
  const st = ledger.st
  const filtered = Object.entries(params).some(([k, v]) => k !== 'q' && k !== 'limit' && v !== null)
  let lo = 1
  let hi = Number.MAX_SAFE_INTEGER
  if (params.session !== null) {
    const range = st.sessionIdRange.get(params.session, params.session)
    if (range?.lo == null || range.hi == null) return []
    lo = range.lo
    hi = range.hi
  }
  return bestPassing(
    params.limit,
    (k) => st.searchIndexTop.all({ q: params.q, limit: k, lo, hi }),
    filtered ? (doc) => st.messagePasses.get({ ...params, id: doc }) !== undefined : undefined,
    () => st.searchMessages.all(params),
  )
}

/** The pending hits with the scores the index would give them (plain queries), or the temporary table's. */
function scorePending(ledger: Ledger, pst: Pending, fts: FtsQuery, hits: SearchHitRow[]): Found[] {
  if (hits.length === 0) return []
  if (fts.phrases === undefined) return hits.map((r) => found1(r, true))
  pst.clearWords.run()
  fts.phrases.forEach((p, i) => pst.addWords.run(i + 1, p))
  const words = termsByDoc(pst.wordTerms.all())
  const phrases = fts.phrases.map((_, i) =>
    (words.get(i + 1) ?? []).filter((t): t is string => t !== undefined),
  )
  const where = new Map<string, Occurrences>()
  const occurring = (term: string): Occurrences => {
    let o = where.get(term)
    if (o === undefined) where.set(term, (o = occurrences(pst.termInstances.all(term))))
    return o
  }
  const scores = pendingScores(
    {
      index: indexAverages(ledger.st.indexAverages.get()),
      pending: indexAverages(pst.pendingAverages.get()),
      phrases,
      counts: phrases.map((p) => phraseCounts(p, occurring)),
      docLength: (doc) => {
        const sz = pst.pendingDocSize.get(doc)
        return sz === undefined ? 0 : readVarint(sz, 0).value
      },
      termDocs: (term) => pst.termDocs.get(term) ?? 0,
    },
    hits.map((h) => h.doc),
  )
  return hits.map((h) => ({ doc: h.doc, score: scores.get(h.doc) ?? h.score, pending: true }))
}

function toHit(ledger: Ledger, f: Found, snippet: string): SearchHit | undefined {
  const st = ledger.st
  if (f.doc < 0) {
    const x = st.hitSummary.get(-f.doc)
    if (x === undefined) return undefined
    return summaryRowHit(x.session_id, x, { score: f.score, snippet })
  }
  const m = st.hitMessage.get(f.doc)
  if (m === undefined) return undefined
  const log = m.in_window === 1 ? undefined : st.evictionOf.get({ session: m.session_pk, n: m.seq })
  return messageRowHit(m.session_id, m, { score: f.score, snippet }, log?.summary ?? null)
}
