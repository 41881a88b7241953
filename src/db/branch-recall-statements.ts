/**
 * The statements of recall on a branch (docs/design.md, "Branches" and "Recall"): search and the eviction
 * log read through a branch's lineage — its ancestors' rows up to each fork point, then its own. A trunk
 * session (a root) never runs one of them: its search and log reads are `recall-statements.ts`' own, with
 * their plans. Prepared once per connection on first use (most files have no branch), like the pending
 * rows' statements.
 *
 * A branch's conversation is a few parts, each a seq range `[lo, hi]` of one owner's message rows; a
 * search runs once per part, each driven by the full-text index over the part's rowid range (a part's
 * message ids grow with its seqs), and the branch's own state on an inherited row (pinned, kept) is its
 * `branch_rows` row, when it has one.
 */
import type { EvictionRow, SearchHitRow } from './rows.js'
import type { SearchParams } from './recall-statements.js'
import { rows, value } from './typed-statement.js'

/** What a search of one part of a branch binds: the trunk's filters, the branch and the part. */
export interface BranchSearchParams extends Omit<SearchParams, 'session'> {
  /** The branch searched (its pk). */
  branch: number
  /** The session owning the part's rows. */
  owner: number
  /** The part's first seq. */
  lo: number
  /** The part's last seq. */
  hi: number
  /** The part's first message id. */
  id_lo: number
  /** The part's last message id. */
  id_hi: number
}

/** A message `m` as branch `b` sees it: its own column on its own rows, its branch row on inherited ones. */
const AS_SEEN = (column: 'pinned' | 'kept'): string =>
  `(CASE WHEN m.session = @branch THEN m.${column} ELSE coalesce(o.${column}, 0) END)`

/** The rows joined to a message: the branch's session row and its branch row on the message's seq. */
const SEEN_BY = `JOIN sessions b ON b.pk = @branch
    LEFT JOIN branch_rows o ON o.session = @branch AND o.seq = m.seq`

/** The filters on a message `m` of one part of branch `b` (the trunk's, on the branch's own state). */
const BRANCH_FILTERS = `m.session = @owner AND m.seq >= @lo AND m.seq <= @hi
    AND (@role IS NULL OR m.role = @role)
    AND (@pinned IS NULL OR ${AS_SEEN('pinned')} = @pinned)
    AND (@in_window IS NULL OR (m.seq >= b.boundary OR ${AS_SEEN('kept')} = 1) = @in_window)
    AND (@since IS NULL OR m.created_at >= @since)
    AND (@until IS NULL OR m.created_at < @until)
    AND (@tool IS NULL OR EXISTS (SELECT 1 FROM tool_calls c
      WHERE c.session = m.session AND c.name = @tool AND (c.use_seq = m.seq OR c.result_seq = m.seq)))
    AND (@skip IS NULL OR NOT EXISTS (SELECT 1 FROM tool_calls c
      WHERE c.session = m.session AND (c.use_seq = m.seq OR c.result_seq = m.seq)
        AND c.name IN (SELECT value FROM json_each(@skip))))`

const HIT_COLUMNS = { doc: true, score: true } as const

/** A message hit as a branch reports it: its seq, its place in the branch's window, its pin there. */
export interface BranchHitRow {
  seq: number
  uid: string
  role: 'user' | 'assistant'
  pinned: number
  in_window: number
  created_at: number
}

/** A summary hit as a branch reports it (the branch's own end of an inherited summary). */
export interface BranchSummaryHitRow {
  id: number
  uid: string
  seqs: string
  to_boundary: number
  in_window: number
  created_at: number
  end_reason: string | null
}

/**
 * The summaries a branch inherits (docs/api.md, "summaries"): the one its window showed at the fork
 * (`fork_summary`) and every summary it or one of its own replaced or regenerated, down the chain — each
 * with how it left the branch's window (`why`).
 */
const SUMMARY_CHAIN = `WITH RECURSIVE chain (id, why) AS (
    SELECT fork_summary, NULL FROM sessions WHERE pk = @branch AND fork_summary IS NOT NULL
    UNION SELECT replaces, 'replaced' FROM summaries WHERE session = @branch AND replaces IS NOT NULL
    UNION SELECT regenerates, 'regenerated' FROM summaries WHERE session = @branch AND regenerates IS NOT NULL
    UNION SELECT x.replaces, 'replaced' FROM chain JOIN summaries x ON x.id = chain.id WHERE x.replaces IS NOT NULL
    UNION SELECT x.regenerates, 'regenerated' FROM chain JOIN summaries x ON x.id = chain.id
      WHERE x.regenerates IS NOT NULL)`

/** How summary `x` left branch `b`'s window: its own end, the inherited one's in the branch, or the chain's. */
const SEEN_END = `(CASE WHEN x.session = @branch THEN x.end_reason
    WHEN x.id IS b.fork_summary THEN b.fork_summary_end_reason
    ELSE coalesce(x.end_reason, (SELECT why FROM chain WHERE chain.id = x.id AND why IS NOT NULL LIMIT 1)) END)`

/** The eviction log's columns, in the order of {@link EvictionRow}. */
const EVICTION_SELECT = 'SELECT from_seq, to_seq, version, at, cut, reason, summary FROM eviction_log'

const EVICTION_COLUMNS = {
  from_seq: true,
  to_seq: true,
  version: true,
  at: true,
  cut: true,
  reason: true,
  summary: true,
} as const

/** What a read of an ancestor's log binds: the part of it a branch inherits. */
export interface InheritedLogParams {
  /** The ancestor. */
  s: number
  /** The last seq it gives the branch (below the branch's boundary too). */
  max_seq: number
  /** The last log clock it gives the branch: below every fork clock on the way down. */
  max_version: number
}

/** The recall statements of branches, by name. */
export const BRANCH_RECALL_STATEMENTS = {
  // The ids of a part's first and last messages (two seeks of the owner's seq index): its rowid range.
  partIdRange: rows<
    [{ owner: number; lo: number; hi: number }],
    { id_lo: number | null; id_hi: number | null }
  >(
    `SELECT (SELECT id FROM messages WHERE session = @owner AND seq >= @lo ORDER BY seq LIMIT 1) AS id_lo,
      (SELECT id FROM messages WHERE session = @owner AND seq <= @hi ORDER BY seq DESC LIMIT 1) AS id_hi`,
    { id_lo: true, id_hi: true },
  ),
  // FTS5's best `limit` matches among a branch's parts, unfiltered, best first: one full-text query (bm25
  // reads each term's whole doclist once per query for its weights, so one query per part paid that once
  // per part) over the parts' rowid hull `lo`…`hi`, FTS5 taking the hull as its rowid range, each match
  // kept when its rowid lies in a part's range (`parts`: `[[id_lo, id_hi], …]`, a few rows materialized
  // once) before it is scored. A match of another session inside a part's range is checked out by key
  // (`branchMessagePasses`), as the trunk's `searchIndexTop` leaves other sessions' ids to `messagePasses`.
  branchIndexTop: rows<[{ q: string; limit: number; lo: number; hi: number; parts: string }], SearchHitRow>(
    `WITH parts (id_lo, id_hi) AS MATERIALIZED (SELECT value ->> 0, value ->> 1 FROM json_each(@parts))
    SELECT f.rowid AS doc, bm25(search_index) AS score FROM search_index f
    WHERE search_index MATCH @q AND f.rowid >= @lo AND f.rowid <= @hi
      AND EXISTS (SELECT 1 FROM parts p WHERE f.rowid >= p.id_lo AND f.rowid <= p.id_hi)
    ORDER BY score, doc LIMIT @limit`,
    HIT_COLUMNS,
  ),
  // Whether one candidate of the index (a message of the part's rowid range) is the part's and passes the
  // filters as the branch sees it, by key.
  branchMessagePasses: value<[BranchSearchParams & { id: number }], number>(
    `SELECT 1 AS passes FROM messages m ${SEEN_BY} WHERE m.id = @id AND ${BRANCH_FILTERS}`,
    'passes',
  ),
  // The part's messages of the index that match and pass the filters, best first: every match of the
  // part's rowid range joined to its row (when the filters reject most of the best candidates).
  // CROSS JOIN: FTS5's matches drive (left to itself the planner walks the part's seq range and probes
  // FTS5 once per message, a cost of the part's length instead of its matches).
  branchSearchMessages: rows<[BranchSearchParams], SearchHitRow>(
    `SELECT f.rowid AS doc, bm25(search_index) AS score
    FROM search_index f CROSS JOIN messages m ON m.id = f.rowid ${SEEN_BY}
    WHERE search_index MATCH @q AND f.rowid >= @id_lo AND f.rowid <= @id_hi AND ${BRANCH_FILTERS}
    ORDER BY score, doc LIMIT @limit`,
    HIT_COLUMNS,
  ),
  // A message hit as the branch sees it, by its id.
  branchHitMessage: rows<[{ id: number; branch: number }], BranchHitRow>(
    `SELECT m.seq, m.uid, m.role, ${AS_SEEN('pinned')} AS pinned,
      (m.seq >= b.boundary OR ${AS_SEEN('kept')} = 1) AS in_window, m.created_at
    FROM messages m ${SEEN_BY} WHERE m.id = @id`,
    { seq: true, uid: true, role: true, pinned: true, in_window: true, created_at: true },
  ),
  // The summaries a branch sees (its own, the one its window showed at the fork and the chain below
  // it: see SUMMARY_CHAIN) that match, as the trunk's filters read them, each ended as the branch sees it.
  // CROSS JOIN: FTS5's matches drive.
  branchSearchSummaries: rows<[SearchParams & { branch: number }], SearchHitRow>(
    `${SUMMARY_CHAIN}
    SELECT f.rowid AS doc, bm25(search_index) AS score
    FROM search_index f CROSS JOIN summaries x ON x.id = -f.rowid JOIN sessions b ON b.pk = @branch
    WHERE search_index MATCH @q AND f.rowid < 0
      AND (x.session = @branch OR x.id IN (SELECT id FROM chain))
      AND (@role IS NULL OR @role = 'user')
      AND (@pinned IS NULL OR @pinned = 0)
      AND (@in_window IS NULL OR (b.summary IS x.id) = @in_window)
      AND (@since IS NULL OR x.created_at >= @since)
      AND (@until IS NULL OR x.created_at < @until)
      AND @tool IS NULL
      AND (@ended IS NULL OR ${SEEN_END} IS NULL)
    ORDER BY score, doc LIMIT @limit`,
    HIT_COLUMNS,
  ),
  branchHitSummary: rows<[{ id: number; branch: number }], BranchSummaryHitRow>(
    `${SUMMARY_CHAIN}
    SELECT x.id, x.uid, x.seqs, x.to_boundary, (b.summary IS x.id) AS in_window, x.created_at,
      ${SEEN_END} AS end_reason
    FROM summaries x JOIN sessions b ON b.pk = @branch WHERE x.id = @id`,
    {
      id: true,
      uid: true,
      seqs: true,
      to_boundary: true,
      in_window: true,
      created_at: true,
      end_reason: true,
    },
  ),

  // An ancestor's log rows a branch inherits from a seq on: about seqs up to `max_seq`, written at log
  // clock `max_version` at most (rows from before the clock was recorded have none: older than every
  // branch); a range of the log's key, cut where the inherited seqs end. A rewind's rows are about the
  // conversation it took back, never inherited.
  inheritedEvictionsFrom: rows<[InheritedLogParams & { from: number; limit: number }], EvictionRow>(
    `${EVICTION_SELECT} WHERE session = @s AND to_seq >= @from AND to_seq <= @max_seq
      AND coalesce(clock, 0) <= @max_version AND cut <> 'rewind'
    ORDER BY to_seq, version DESC LIMIT @limit`,
    EVICTION_COLUMNS,
  ),
  // Why and when seq `n` last left an ancestor's window before the fork (the trunk's lookup, bounded by
  // the fork's clock; a run may reach past the inherited seqs).
  inheritedEvictionOf: rows<[InheritedLogParams & { n: number }], EvictionRow>(
    `${EVICTION_SELECT} WHERE session = @s AND to_seq >= @n AND from_seq <= @n
      AND coalesce(clock, 0) <= @max_version AND cut <> 'rewind'
    ORDER BY to_seq, version DESC LIMIT 1`,
    EVICTION_COLUMNS,
  ),
  // A session's own rows about seq `n` (the trunk's `evictionOf`, here so that a branch's own log is read
  // by its own key whatever the store's statements answer for a branch).
  ownEvictionOf: rows<[{ s: number; n: number }], EvictionRow>(
    `${EVICTION_SELECT} WHERE session = @s AND to_seq >= @n AND from_seq <= @n AND cut <> 'rewind'
    ORDER BY to_seq, version DESC LIMIT 1`,
    EVICTION_COLUMNS,
  ),
  // A session's own rows from a seq on (the trunk's `evictionsFrom`), a rewind's included.
  ownEvictionsFrom: rows<[{ s: number; from: number; limit: number }], EvictionRow>(
    `${EVICTION_SELECT} WHERE session = @s AND to_seq >= @from ORDER BY to_seq, version DESC LIMIT @limit`,
    EVICTION_COLUMNS,
  ),
  // The session ids of the sessions a lineage or a rewind's row names.
  sessionIdOf: value<[pk: number], string>('SELECT id FROM sessions WHERE pk = ?', 'id'),
}

/**
 * The search of a branch's part among the pending rows (the temporary index, see `recall-statements.ts`):
 * prepared once that table exists.
 */
export const BRANCH_PENDING_STATEMENTS = {
  branchSearchPending: rows<[BranchSearchParams], SearchHitRow>(
    `SELECT f.rowid AS doc, bm25(search_pending) AS score
    FROM temp.search_pending f CROSS JOIN main.messages m ON m.id = f.rowid
    JOIN main.sessions b ON b.pk = @branch
    LEFT JOIN main.branch_rows o ON o.session = @branch AND o.seq = m.seq
    WHERE search_pending MATCH @q AND ${BRANCH_FILTERS}
    ORDER BY score, doc LIMIT @limit`,
    HIT_COLUMNS,
  ),
}
