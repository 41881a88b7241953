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
import type Database from 'better-sqlite3'
import {
  CREATE_PENDING_INDEX,
  PENDING_SEARCH_STATEMENTS,
  type SearchParams,
} from '../db/recall-statements.js'
import { prepareAll, type PreparedAll } from '../db/typed-statement.js'
import type { SearchHitRow } from '../db/rows.js'
import { ContextLedgerError } from '../errors.js'
import { checkKeys, checkSessionId, invalidOption } from './check-args.js'
import { messageHit, summaryHit } from './search-hits.js'
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
import { invalidQuery, toFtsQuery, type FtsQuery } from './search-query.js'
import type { SearchHit } from './search-types.js'
import { describeValue } from '../messages/limits.js'

/** `syntax: 'tsquery'` on SQLite: the PostgreSQL store's raw syntax, named as such. */
function refuseTsquery(): never {
  throw invalidOption(
    'options.syntax',
    "'tsquery' is the PostgreSQL store's raw syntax; on SQLite raw queries use syntax: 'fts5' (FTS5 query syntax)",
  )
}

/** The tools whose calls and results a search leaves out by default: the recall tools themselves. */
export const RECALL_TOOL_NAMES: readonly string[] = Object.freeze(['search_history', 'read_history'])

/** The most hits one search returns. */
export const MAX_SEARCH_LIMIT = 1000

const OPTION_KEYS = [
  'sessionId',
  'role',
  'pinned',
  'inWindow',
  'toolName',
  'excludeTools',
  'since',
  'until',
  'limit',
  'offset',
  'syntax',
  'match',
  'summaries',
  'endedSummaries',
] as const

type Pending = PreparedAll<typeof PENDING_SEARCH_STATEMENTS>

const pendingByConnection = new WeakMap<Database.Database, Pending>()

/** The pending rows' statements of a connection, its temporary tables created on first use. */
function pendingStatements(db: Database.Database): Pending {
  let st = pendingByConnection.get(db)
  if (st === undefined) {
    db.exec(CREATE_PENDING_INDEX)
    st = prepareAll(db, PENDING_SEARCH_STATEMENTS)
    pendingByConnection.set(db, st)
  }
  return st
}

function instant(value: unknown, field: string): number | null {
  if (value === undefined) return null
  const ms = value instanceof Date ? value.getTime() : value
  if (typeof ms !== 'number' || !Number.isFinite(ms))
    throw invalidOption(field, 'expected a Date or ms since the epoch')
  return ms
}

function flag(value: unknown, field: string): number | null {
  if (value === undefined) return null
  if (typeof value !== 'boolean') throw invalidOption(field, `expected true or false, got ${typeof value}`)
  return value ? 1 : 0
}

function count(value: unknown, field: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max)
    throw invalidOption(field, `expected an integer from ${min} to ${max}, got ${describeValue(value)}`)
  return value
}

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback
  if (typeof value !== 'string' || !allowed.includes(value as T))
    throw invalidOption(field, `expected one of ${allowed.map((a) => `'${a}'`).join(', ')}`)
  return value as T
}

/** Checked search options. */
interface Checked {
  readonly sessionId: string | undefined
  readonly params: Omit<SearchParams, 'q' | 'session' | 'limit'>
  readonly limit: number
  readonly offset: number
  readonly syntax: 'plain' | 'fts5'
  readonly match: 'all' | 'any'
  readonly summaries: boolean
}

/**
 * Checks search options.
 *
 * @param options - what the caller passed
 * @returns them, as the statements bind them
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the bad field
 */
export function checkSearchOptions(options: unknown): Checked {
  const o = options === undefined ? {} : checkKeys(options, 'options', OPTION_KEYS)
  if (o.sessionId !== undefined) checkSessionId(o.sessionId, 'options.sessionId')
  const role = o.role === undefined ? null : oneOf(o.role, 'options.role', ['user', 'assistant'], 'user')
  if (o.toolName !== undefined && (typeof o.toolName !== 'string' || o.toolName === ''))
    throw invalidOption('options.toolName', 'expected a non-empty string')
  let skip: readonly string[] = RECALL_TOOL_NAMES
  if (o.excludeTools !== undefined) {
    if (!Array.isArray(o.excludeTools) || !o.excludeTools.every((t) => typeof t === 'string'))
      throw invalidOption('options.excludeTools', 'expected an array of tool names')
    skip = o.excludeTools
  }
  if (o.summaries !== undefined && typeof o.summaries !== 'boolean')
    throw invalidOption('options.summaries', 'expected true or false')
  return {
    sessionId: o.sessionId,
    params: {
      role,
      pinned: flag(o.pinned, 'options.pinned'),
      in_window: flag(o.inWindow, 'options.inWindow'),
      since: instant(o.since, 'options.since'),
      until: instant(o.until, 'options.until'),
      tool: o.toolName ?? null,
      skip: skip.length === 0 ? null : JSON.stringify(skip),
      ended:
        o.endedSummaries === undefined || flag(o.endedSummaries, 'options.endedSummaries') === 1 ? null : 0,
    },
    limit: count(o.limit, 'options.limit', 20, 1, MAX_SEARCH_LIMIT),
    offset: count(o.offset, 'options.offset', 0, 0, Number.MAX_SAFE_INTEGER),
    syntax:
      o.syntax === 'tsquery'
        ? refuseTsquery()
        : oneOf(o.syntax, 'options.syntax', ['plain', 'fts5'], 'plain'),
    match: oneOf(o.match, 'options.match', ['all', 'any'], 'all'),
    summaries: o.summaries ?? true,
  }
}

/** A hit before its row is read: where it was found, and its score. */
interface Found {
  readonly doc: number
  readonly score: number
  readonly pending: boolean
}

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

function run(ledger: SqliteLedger, fts: FtsQuery, o: Checked): SearchHit[] {
  const st = ledger.st
  let session: number | null = null
  if (o.sessionId !== undefined) {
    const pk = ledger.keys.sessionRow(o.sessionId)?.pk
    if (pk === undefined) return []
    session = pk
  }
  const want = o.offset + o.limit
  const params: SearchParams = { ...o.params, q: fts.text, session, limit: want }
  const found: Found[] = indexedMessages(ledger, params)
  if (o.summaries) found.push(...st.searchSummaries.all(params).map((r) => found1(r, false)))
  const state = st.searchState.get()
  const pst = pendingStatements(ledger.db)
  if (state !== undefined && state.last_id > state.indexed_to) {
    pst.clearPending.run()
    pst.fillPending.run(state.indexed_to)
    // Every pending match, not the best `want` of them: the temporary table's own bm25 (its statistics
    // are the pending rows' alone) does not rank them as the index's statistics do, so cutting before
    // re-scoring would drop rows that rank high once re-scored, and a page would depend on its size.
    const hits = pst.searchPending.all({ ...params, limit: -1 })
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
    .map((f) => toHit(ledger, f, snippets.get(f.doc) ?? ''))
    .filter((h): h is SearchHit => h !== undefined)
}

/** Candidates examined by filtering FTS5's best before the search joins every match instead. */
const MAX_CANDIDATES = 4096

/**
 * The best messages of the index that match and pass the filters. FTS5 ranks alone first (joining every
 * match to its row before sorting costs a row lookup per match); the filters are checked on its best,
 * by key, taking twice as many while too few pass — and when the filters reject most matches (a session
 * among many), one query joins every match.
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
  for (let k = params.limit * 2 + 8; k <= MAX_CANDIDATES; k *= 2) {
    const top = st.searchIndexTop.all({ q: params.q, limit: k, lo, hi })
    const pass = filtered
      ? top.filter((r) => st.messagePasses.get({ ...params, id: r.doc }) !== undefined)
      : top
    if (pass.length >= params.limit || top.length < k)
      return pass.slice(0, params.limit).map((r) => found1(r, false))
  }
  return st.searchMessages.all(params).map((r) => found1(r, false))
}

function found1(r: SearchHitRow, pending: boolean): Found {
  return { doc: r.doc, score: r.score, pending }
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
    return summaryHit({
      sessionId: x.session_id,
      id: x.id,
      uid: x.uid,
      seqs: x.seqs,
      toBoundary: x.to_boundary,
      score: f.score,
      snippet,
      inWindow: x.in_window === 1,
      endReason: x.end_reason,
      createdAt: x.created_at,
    })
  }
  const m = st.hitMessage.get(f.doc)
  if (m === undefined) return undefined
  const log = m.in_window === 1 ? undefined : st.evictionOf.get({ session: m.session_pk, n: m.seq })
  return messageHit({
    sessionId: m.session_id,
    seq: m.seq,
    uid: m.uid,
    role: m.role,
    score: f.score,
    snippet,
    inWindow: m.in_window === 1,
    pinned: m.pinned === 1,
    folded: log?.summary ?? null,
    createdAt: m.created_at,
  })
}
