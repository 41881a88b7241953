/**
 * `search()` on PostgreSQL (docs/design.md, "Recall"): full-text search over the whole archive with
 * PostgreSQL's own text search — the stored `search_vector` of messages and summaries (migrations 0001
 * and 0002: `to_tsvector('english', search_text(body))`, GIN-indexed), `ts_rank` for the order and
 * `ts_headline` for the snippets. The same options, checks and hit shape as SQLite's `store.search()`
 * (src/store/search.ts), in one statement (one round trip): the matching messages and summaries pass the
 * filters in SQL, the page is cut in SQL, and only the page's rows are read again for their snippet.
 *
 * Differences from SQLite (FTS5), to document for users:
 * - `score` is `-ts_rank(vector, query, 1)`: negative, lower is better, as FTS5's bm25 — but a different
 *   function (term frequency over log document length; no inverse document frequency), so scores are not
 *   comparable across backends and equal-looking hits may order differently.
 * - raw syntax is `syntax: 'tsquery'` (PostgreSQL's `to_tsquery`: `&`, `|`, `!`, `<->`, `prefix:*`);
 *   `'fts5'` is refused on PostgreSQL, and `'tsquery'` on SQLite.
 * - stop words (`the`, `is`, …) are not indexed by the `english` configuration: a query of stop words
 *   alone finds nothing; accents are not folded (`cafe` does not find `café`).
 */
import { ContextLedgerError } from '../../errors.js'
import { invalidOption } from '../../store/check-args.js'
import { checkSearchOptions } from '../../store/search.js'
import { invalidQuery, toFtsQuery } from '../../store/search-query.js'
import type { SearchHit, SearchOptions } from '../../store/search-types.js'
import { messageHit, summaryHit } from '../../store/search-hits.js'
import { sqlState } from './pg-errors.js'
import { lineageOf } from './lineage-sql.js'
import { SEARCH_TEXT_CHARS } from './schema.js'

/** `SearchOptions` on PostgreSQL: raw query syntax is PostgreSQL's `to_tsquery`, not FTS5's. */
export interface PgSearchOptions extends Omit<SearchOptions, 'syntax'> {
  /**
   * `'plain'` (default): words and `"quoted phrases"`, taken literally (each a `phraseto_tsquery`).
   * `'tsquery'`: PostgreSQL's `to_tsquery` syntax; a syntax error is `INVALID_QUERY`.
   */
  syntax?: 'plain' | 'tsquery' | undefined
}

/** The text search configuration of `search_vector` (migration 0002): queries must be parsed with it. */
const CONFIG = "'english'::regconfig"

/**
 * `ts_headline`'s options: the matched words in `**bold**` as SQLite's snippets; one passage of 12 to 24
 * words around the best cover of the query (a short text whole). Unlike FTS5's snippets, PostgreSQL marks
 * no `…` where it left text out (its fragment mode does, but cuts even a short text to its matches).
 */
const HEADLINE = 'StartSel=**, StopSel=**, MaxWords=24, MinWords=12'

/** A row of the search statement. */
interface PgHitRow {
  kind: 'message' | 'summary'
  score: number
  session_id: string
  seq: number
  uid: string
  role: 'user' | 'assistant'
  pinned: boolean
  in_window: boolean
  summary_id: number | null
  seqs: string | null
  end_reason: string | null
  created_at: number
  snippet: string | null
  /** For a message out of the window: the summary its last departure folded it into, if any. */
  folded: number | null
}

/** A time filter within what a bigint column and a Date can hold (the same matches). */
function clampTime(ms: number | null): number | null {
  return ms === null ? null : Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, ms))
}

/** A statement and its values. */
export interface PgSearchStatement {
  readonly text: string
  readonly values: readonly unknown[]
  readonly sessionId: string | undefined
  /** The query as the user gave it, for messages. */
  readonly query: string
}

/**
 * Checks a search and builds its statement.
 *
 * @param query - what to find
 * @param options - filters, paging, syntax (unchecked)
 * @returns the statement, or undefined when nothing can match (plain input without a word)
 * @throws ContextLedgerError `INVALID_QUERY`, `INVALID_OPTIONS`
 */
export function searchStatement(query: unknown, options: unknown): PgSearchStatement | undefined {
  // The syntax is PostgreSQL's own; every other option is checked as SQLite checks it.
  let syntax: 'plain' | 'tsquery' = 'plain'
  let rest = options
  if (typeof options === 'object' && options !== null && !Array.isArray(options)) {
    const given = (options as { syntax?: unknown }).syntax
    if (given !== undefined && given !== 'plain' && given !== 'tsquery')
      throw invalidOption(
        'options.syntax',
        given === 'fts5'
          ? "FTS5 syntax is SQLite's; on PostgreSQL raw queries use syntax: 'tsquery' (to_tsquery)"
          : "expected one of 'plain', 'tsquery'",
      )
    if (given === 'tsquery') syntax = 'tsquery'
    rest = { ...options, syntax: undefined }
  }
  const o = checkSearchOptions(rest)
  const parsed = toFtsQuery(query, syntax, o.match)
  if (parsed === undefined) return undefined
  const p = o.params
  const values: unknown[] = [
    o.sessionId ?? null,
    p.role,
    p.pinned === null ? null : p.pinned === 1,
    p.in_window === null ? null : p.in_window === 1,
    // Beyond ±2^53 ms no time is stored (nor can a Date hold one): clamped, as bigint would refuse them.
    clampTime(p.since),
    clampTime(p.until),
    p.tool,
    p.skip === null ? null : (JSON.parse(p.skip) as string[]),
    p.ended === 0,
    o.summaries,
    o.limit,
    o.offset,
  ]
  let tsquery: string
  if (parsed.phrases === undefined) {
    values.push(parsed.text)
    tsquery = `to_tsquery(${CONFIG}, $${values.length}::text)`
  } else {
    const terms = parsed.phrases.map((phrase) => {
      values.push(phrase)
      return `phraseto_tsquery(${CONFIG}, $${values.length}::text)`
    })
    tsquery = terms.join(o.match === 'all' ? ' && ' : ' || ')
  }
  return { text: searchSql(tsquery), values, sessionId: o.sessionId, query: parsed.text }
}

/**
 * The search statement. `$1` session id, `$2` role, `$3` pinned, `$4` in the window, `$5` since, `$6`
 * until (ms), `$7` tool name, `$8` tools left out (text[]), `$9` leave out ended summaries, `$10` search
 * summaries, `$11` limit, `$12` offset; the query's own values after them.
 */
function searchSql(tsquery: string): string {
  // A row of another format than Strands carries its text (migration 0004); a Strands row's is its body's.
  const text = `left(coalesce(b.text, "context_ledger"."search_text"(b.body)), ${SEARCH_TEXT_CHARS})`
  // The query is parsed once, in `tq`, and read where it is used as a scalar subquery: an InitPlan, whose
  // value is a parameter of the plan — it drives the GIN index and is what every row's `@@`, `ts_rank`
  // and `ts_headline` read. Written out in place instead, its `phraseto_tsquery(...)` calls are a
  // constant only in a custom plan: the store's connections plan generically (docs/postgres.md#pooling),
  // where they ran again for every row — 64 words' parses for each of 50,000 matches' `ts_rank`, 8 s.
  // (Joined to the rows instead, `tq`'s column would be a join column, and no index scan is driven by it.)
  // Every match is ranked, so what each one costs besides `ts_rank` counts: its session's window bound is
  // read only when `inWindow` is given, and a tool filter looks a message up as a call and as a result
  // on the two indexes of `tool_calls` (one probe of `session` alone scanned the session's every call).
  const q = '(SELECT tq.q FROM tq)'
  // With a session filter, hits are that session's — its conversation, as it sees each row (see `VIEW`).
  const viewer = (owner: string) => `coalesce((SELECT pk FROM s1), ${owner})`
  return `WITH RECURSIVE tq AS (SELECT ${tsquery} AS q),
  s1 AS MATERIALIZED (SELECT pk, parent, boundary, fork_summary, fork_summary_end_reason
    FROM "context_ledger"."sessions" WHERE id = $1::text),
  ${BRANCH_PARTS},
  hits AS (
    SELECT 'message' AS kind, ${viewer('m.session')} AS session, m.session AS owner, m.seq AS key,
      -ts_rank(m.search_vector, ${q}, 1) AS score
    FROM "context_ledger"."messages" m
    WHERE m.search_vector @@ ${q}
      AND ($1::text IS NULL OR m.session = (SELECT pk FROM s1)
        OR EXISTS (SELECT 1 FROM lin g WHERE g.owner = m.session AND m.seq BETWEEN g.lo AND g.hi))
      AND ($2::text IS NULL OR m.role = $2::text)
      AND ($3::boolean IS NULL OR ${SEEN_PINNED} = $3::boolean)
      AND ($4::boolean IS NULL OR ${SEEN_IN_WINDOW} = $4::boolean)
      AND ($5::bigint IS NULL OR m.created_at >= $5::bigint)
      AND ($6::bigint IS NULL OR m.created_at < $6::bigint)
      AND ($7::text IS NULL OR EXISTS (SELECT 1 FROM "context_ledger"."tool_calls" c
          WHERE c.session = m.session AND c.use_seq = m.seq AND c.name = $7::text)
        OR EXISTS (SELECT 1 FROM "context_ledger"."tool_calls" c
          WHERE c.session = m.session AND c.result_seq = m.seq AND c.name = $7::text))
      AND ($8::text[] IS NULL OR NOT EXISTS (SELECT 1 FROM "context_ledger"."tool_calls" c
          WHERE c.session = m.session AND c.use_seq = m.seq AND c.name = ANY($8::text[]))
        AND NOT EXISTS (SELECT 1 FROM "context_ledger"."tool_calls" c
          WHERE c.session = m.session AND c.result_seq = m.seq AND c.name = ANY($8::text[])))
    UNION ALL
    SELECT 'summary', ${viewer('x.session')}, x.session, x.id, -ts_rank(x.search_vector, ${q}, 1)
    FROM "context_ledger"."summaries" x
    WHERE $10::boolean AND x.search_vector @@ ${q}
      AND ($1::text IS NULL OR x.session = (SELECT pk FROM s1) OR x.id IN (SELECT id FROM chain))
      AND ($2::text IS NULL OR $2::text = 'user')
      AND ($3::boolean IS NULL OR NOT $3::boolean)
      AND ($4::boolean IS NULL OR (SELECT s.summary IS NOT DISTINCT FROM x.id FROM "context_ledger"."sessions" s
        WHERE s.pk = ${viewer('x.session')}) = $4::boolean)
      AND ($5::bigint IS NULL OR x.created_at >= $5::bigint)
      AND ($6::bigint IS NULL OR x.created_at < $6::bigint)
      AND $7::text IS NULL
      AND (NOT $9::boolean OR ${SEEN_END} IS NULL)
    ORDER BY score, session, kind, key
    LIMIT $11::int OFFSET $12::bigint
  )
  SELECT h.kind, h.score, s.id AS session_id, coalesce(m.seq, x.to_boundary) AS seq,
    coalesce(m.uid, x.uid) AS uid, coalesce(m.role, 'user') AS role,
    coalesce(CASE WHEN m.session = s.pk THEN m.pinned ELSE o.pinned END, false) AS pinned,
    CASE WHEN h.kind = 'message' THEN m.seq >= s.boundary
        OR coalesce(CASE WHEN m.session = s.pk THEN m.kept ELSE o.kept END, false)
      ELSE s.summary IS NOT DISTINCT FROM x.id END AS in_window,
    x.id AS summary_id, x.seqs, ${SEEN_END} AS end_reason, coalesce(m.created_at, x.created_at) AS created_at,
    ts_headline(${CONFIG}, ${text}, ${q}, '${HEADLINE}') AS snippet, ev.summary AS folded
  FROM hits h JOIN "context_ledger"."sessions" s ON s.pk = h.session
  LEFT JOIN "context_ledger"."messages" m ON h.kind = 'message' AND m.session = h.owner AND m.seq = h.key
  LEFT JOIN "context_ledger"."summaries" x ON h.kind = 'summary' AND x.id = h.key
  -- A branch's own state on a row it inherits (docs/design.md, "Branches").
  LEFT JOIN "context_ledger"."branch_rows" o ON m.session <> s.pk AND o.session = s.pk AND o.seq = m.seq
  CROSS JOIN LATERAL (SELECT coalesce(m.body, x.body) AS body,
    CASE WHEN h.kind = 'message' THEN m.text ELSE x.text END AS text) b
  -- A message out of the window names the summary its last departure folded it into, if a fold took it:
  -- the session's eviction log's row covering it (one descent of the log's key per hit of the page).
  LEFT JOIN LATERAL (SELECT e.summary FROM "context_ledger"."eviction_log" e
    WHERE m.seq < s.boundary AND NOT coalesce(CASE WHEN m.session = s.pk THEN m.kept ELSE o.kept END, false)
      AND e.session = s.pk AND e.to_seq >= m.seq AND e.from_seq <= m.seq
    ORDER BY e.to_seq, e.version DESC LIMIT 1) ev ON true
  ORDER BY h.score, h.session, h.kind, h.key`
}

/**
 * What a search with a branch's id reads besides the branch's own rows (both empty for a root, and without
 * a session filter): `lin`, each ancestor's part of the branch's conversation (its rows `lo`…`hi`), and
 * `chain`, the inherited summaries the branch sees — the one its window showed at the fork and those that
 * one (or a summary of the branch's) replaced or regenerated, each with why it left (SQLite's
 * `SUMMARY_CHAIN`, src/db/branch-recall-statements.ts).
 */
const BRANCH_PARTS = `lin AS MATERIALIZED (SELECT l.owner, l.lo, l.hi FROM s1 CROSS JOIN LATERAL ${lineageOf('s1.pk')} l
    WHERE s1.parent IS NOT NULL AND l.depth > 0 AND l.lo <= l.hi),
  chain (id, why) AS (
    SELECT fork_summary, NULL::text FROM s1 WHERE parent IS NOT NULL AND fork_summary IS NOT NULL
    UNION SELECT x.replaces, 'replaced' FROM s1 JOIN "context_ledger"."summaries" x ON x.session = s1.pk
      WHERE s1.parent IS NOT NULL AND x.replaces IS NOT NULL
    UNION SELECT x.regenerates, 'regenerated' FROM s1 JOIN "context_ledger"."summaries" x ON x.session = s1.pk
      WHERE s1.parent IS NOT NULL AND x.regenerates IS NOT NULL
    UNION SELECT v.id, v.why FROM chain c JOIN "context_ledger"."summaries" x ON x.id = c.id
      CROSS JOIN LATERAL (VALUES (x.replaces, 'replaced'), (x.regenerates, 'regenerated')) v(id, why)
      WHERE v.id IS NOT NULL)`

/** Whether message `m` is pinned as the searched session sees it (a branch's pin of an inherited row is its own). */
const SEEN_PINNED = `(CASE WHEN $1::text IS NULL OR m.session = (SELECT pk FROM s1) THEN m.pinned
    ELSE coalesce((SELECT o.pinned FROM "context_ledger"."branch_rows" o
      WHERE o.session = (SELECT pk FROM s1) AND o.seq = m.seq), false) END)`

/** Whether message `m` is in the window of the session that sees it (its owner without a session filter). */
const SEEN_IN_WINDOW = `(CASE WHEN $1::text IS NULL OR m.session = (SELECT pk FROM s1)
    THEN m.seq >= (SELECT s.boundary FROM "context_ledger"."sessions" s WHERE s.pk = m.session) OR m.kept
    ELSE m.seq >= (SELECT boundary FROM s1) OR coalesce((SELECT o.kept FROM "context_ledger"."branch_rows" o
      WHERE o.session = (SELECT pk FROM s1) AND o.seq = m.seq), false) END)`

/** How summary `x` left the searched session's window: its own end, or the inherited one's as the branch saw it. */
const SEEN_END = `(CASE WHEN $1::text IS NULL OR x.session = (SELECT pk FROM s1) THEN x.end_reason
    WHEN x.id = (SELECT fork_summary FROM s1) THEN (SELECT fork_summary_end_reason FROM s1)
    ELSE coalesce(x.end_reason, (SELECT c.why FROM chain c WHERE c.id = x.id AND c.why IS NOT NULL LIMIT 1)) END)`

/**
 * Turns a failed search into the error to throw: a query PostgreSQL refuses (`to_tsquery`'s syntax
 * error, a value out of range, a limit exceeded) is `INVALID_QUERY`; anything else as it was.
 *
 * @param error - what the statement threw (a `ContextLedgerError` wrapping PostgreSQL's error)
 * @param query - the query, for the message
 * @returns the error
 */
export function searchError(error: unknown, query: string): unknown {
  const cause = error instanceof ContextLedgerError ? (error as { cause?: unknown }).cause : error
  // 42601: a syntax error; 22023: a value out of range in the query (a phrase distance over 16,384);
  // 54000: a query over PostgreSQL's limits (too many terms, too long a word).
  const state = sqlState(cause)
  if ((state === '42601' || state === '22023' || state === '54000') && cause instanceof Error)
    return invalidQuery(`${cause.message} (in ${JSON.stringify(query.slice(0, 200))})`, cause)
  return error
}

/**
 * The hits of a search's rows.
 *
 * @param rows - what the statement returned
 * @returns the hits, best first
 */
export function toSearchHits(rows: readonly PgHitRow[]): SearchHit[] {
  return rows.map((r) => {
    const common = {
      sessionId: r.session_id,
      uid: r.uid,
      score: r.score,
      snippet: (r.snippet ?? '').replaceAll('\u0000', ' '),
      inWindow: r.in_window,
      createdAt: r.created_at,
    }
    return r.kind === 'summary'
      ? summaryHit({
          ...common,
          id: r.summary_id ?? 0,
          seqs: r.seqs ?? '[]',
          toBoundary: r.seq,
          endReason: r.end_reason,
        })
      : messageHit({ ...common, seq: r.seq, role: r.role, pinned: r.pinned, folded: r.folded })
  })
}

export type { PgHitRow }
