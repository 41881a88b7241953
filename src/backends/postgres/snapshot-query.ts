/**
 * The one query that reads what a write needs of a session (its "slice", see `slice.ts`): the session
 * row, the newest messages, the rows the window planner can ask about, their tool-call links, and the
 * rows an operation names (by seq, trackingId or window position). Every part is bounded by the window,
 * the operation's own arguments or the protected ranges — never by the archive — and each is an index
 * seek or a short index range scan. One statement, so one consistent MVCC snapshot and one round trip.
 *
 * The planner's part (`plan`) holds:
 * - every row from `lo` to the end: `lo` is the lowest of the boundary − 1 (the token prefix sum before the
 *   tail), the last-N range, the newest turn's minimal form (its opening, its latest tool round) and, when
 *   a summary is dropped, the boundary it goes back to, less one;
 * - the kept rows it may re-derive (those marked for a recheck; every kept row and the first-N range when
 *   the marks were made for another range), the first `keptK` kept rows and the earliest settled one;
 * - everything tied to those rows by tool calls, transitively (a recursive walk over the links), with every
 *   call of each;
 * - for `lo` and each row outside the range, the latest trim point, plain user message and tool-pair start
 *   before it (and those rows), which is what the planner's backward searches reach outside the range.
 *
 * **Row estimates.** PostgreSQL guesses 1,000 rows for a set-returning function whose arguments it cannot
 * see (`generate_series(r.lo, p.n - 1)`), 100 for `jsonb_array_elements`, a third of the session for
 * `seq >= <expression>` (and a generic plan, made once for every session, cannot tell those sets are empty
 * for the call at hand), and ten times the first step for a recursive CTE; joined and unioned, those guesses
 * reached tens of millions of rows, and every call then spent more time planning and sizing hash tables
 * for them (to `work_mem`) than reading its few dozen rows: `applyWindow` took 23 ms. So each such set is
 * folded into an array and unnested (`unnest(ARRAY(SELECT …))`, estimated at 10 rows), and the newest rows
 * are read by seq from such a set rather than by a range. `test/postgres/postgres-store.test.ts` checks
 * that no hash table or CTE of the plan expects more rows than a test session archives.
 */

/** The parameters of {@link SNAPSHOT_SQL}, in order. */
export interface SnapshotParams {
  /** The session id. */
  readonly sessionId: string
  /** 0: no planner part; 1: only when the window's tail is empty (an append may restart it); 2: always. */
  readonly plan: 0 | 1 | 2
  /** The first-N range planned with; null: the one the kept rows were derived for. */
  readonly first: number | null
  /** The last-N range planned with; null: the one the window was last planned with. */
  readonly last: number | null
  /** Rows whose protection an operation changes (a pin). */
  readonly extra: readonly number[]
  /** How many of the first kept rows to read. */
  readonly keptK: number
  /** Read every kept row. */
  readonly allKept: boolean
  /** Rows to read whole, by trackingId. */
  readonly uids: readonly string[]
  /** Tool calls to read, by toolUseId. */
  readonly toolIds: readonly string[]
  /** How many of the newest rows to read whole. */
  readonly newest: number
  /** A row to read whole, by seq. */
  readonly refSeq: number | null
  /** A row to read whole, by trackingId. */
  readonly refUid: string | null
  /** A row to read whole, by window position. */
  readonly refIndex: number | null
  /** Read the occurrences of the named row sent again (a redaction erases them all). */
  readonly repeats: boolean
  /** A summary to read (with the one it replaced), whose folded rows come back when it is dropped. */
  readonly summaryId: number | null
  /** Read the window's rows whole (what a summary is made from). */
  readonly windowBodies: boolean
  /** How many new summary ids to allocate. */
  readonly newSummaries: number
  /** Prune candidates to read whole: from this seq on (null: none), appended before `pruneBefore`, at most `pruneLimit`. */
  readonly pruneFrom: number | null
  readonly pruneBefore: number
  readonly pruneLimit: number
}

/**
 * The parameters as bound values, in the order the SQL numbers them.
 *
 * @param p - the parameters
 * @returns the values
 */
export function snapshotValues(p: SnapshotParams): unknown[] {
  return [
    p.sessionId,
    p.plan,
    p.first,
    p.last,
    p.extra,
    p.keptK,
    p.allKept,
    p.uids,
    p.toolIds,
    p.newest,
    p.refSeq,
    p.refUid,
    p.refIndex,
    p.repeats,
    p.summaryId,
    p.windowBodies,
    p.newSummaries,
    p.pruneFrom,
    p.pruneBefore,
    p.pruneLimit,
  ]
}

/** The row the query returns (JSON columns are parsed by the driver). */
export interface SnapshotResult {
  session: SnapshotSession | null
  next_pk: number | null
  summary_ids: number[]
  n: number
  lo: number
  all_kept: boolean
  planned: boolean
  kept_k: number[]
  settled_first: number | null
  first_plain: number | null
  rows: SnapshotRow[] | null
  fulls: SnapshotFull[] | null
  prevs: SnapshotPrev[] | null
  calls: SnapshotCall[] | null
  link_seqs: number[] | null
  tool_ids: string[] | null
  uids: string[] | null
  repeat_root: number | null
  pruned: number[]
  summaries: SnapshotSummary[] | null
}

/** The session's row. */
export interface SnapshotSession {
  pk: number
  id: string
  created_at: number
  updated_at: number
  metadata: string | null
  boundary: number
  version: number
  kept_count: number | null
  kept_tokens: number | null
  kept_first: number | null
  summary: number | null
  limits: string | null
  /** The session's message format (null: `'strands'`). */
  format: string | null
  revision: number
}

/** A message's flags and counts (no body). */
export interface SnapshotRow {
  seq: number
  uid: string
  role: 'user' | 'assistant'
  tokens: number
  cum_tokens: number
  pinned: boolean
  kept: boolean
  recheck: boolean
  plain_user: boolean
  trim_point: boolean
  pair_start: boolean
  has_tool_use: boolean
  has_tool_result: boolean
  created_at: number
  window_tokens: number | null
  repeat_of: number | null
  late: boolean
}

/** A message's body, window form and (for an occurrence sent again) the trackingId it was sent under. */
export interface SnapshotFull {
  seq: number
  body: string
  window_body: string | null
  sent_as: string | null
}

/** The latest trim point, plain user message and tool-pair start before `x`. */
export interface SnapshotPrev {
  x: number
  trim: number | null
  plain: number | null
  pair: number | null
}

/** A tool call. */
export interface SnapshotCall {
  id: number
  tool_use_id: string
  name: string
  use_seq: number
  result_seq: number | null
  status: 'success' | 'error' | null
}

/** A summary's row. */
export interface SnapshotSummary {
  id: number
  uid: string
  replaces: number | null
  regenerates: number | null
  from_boundary: number
  to_boundary: number
  seqs: string
  message_count: number
  body: string
  tokens: number
  model: string | null
  prompt_hash: string
  created_at: number
  ended_at: number | null
  end_reason: 'replaced' | 'regenerated' | 'dropped' | 'evicted' | null
  /** Its searchable text, for a summary of another format than Strands (null for a Strands one). */
  text: string | null
}

/**
 * The snapshot query. `$1` session id, `$2` plan mode, `$3` first, `$4` last, `$5` extra seqs, `$6` kept
 * rows to read first, `$7` every kept row, `$8` trackingIds, `$9` toolUseIds, `$10` newest rows, `$11`–`$13`
 * the row named by seq / trackingId / window position, `$14` its repeats, `$15` a summary, `$16` the window's
 * bodies, `$17` new summary ids.
 */
export const SNAPSHOT_SQL = `WITH RECURSIVE
s AS (
  SELECT pk, id, created_at, updated_at, metadata, boundary, version, kept_count, kept_tokens, kept_first,
    summary, limits, format, revision
  FROM context_ledger.sessions WHERE id = $1::text
),
t AS (
  SELECT m.seq, m.role, m.has_tool_use FROM s CROSS JOIN LATERAL (
    SELECT seq, role, has_tool_use FROM context_ledger.messages WHERE session = s.pk ORDER BY seq DESC LIMIT 1) m
),
p AS (
  SELECT s.pk, s.boundary AS b, coalesce(t.seq + 1, 0) AS n,
    ($2::int = 2 OR ($2::int = 1 AND s.boundary = coalesce(t.seq + 1, 0))) AS plan,
    coalesce($3::int, s.kept_first, 0) AS first,
    coalesce($4::int, CASE WHEN s.limits IS NULL THEN 0
      ELSE greatest(0, coalesce((s.limits::jsonb ->> 'last')::int, 0)) END) AS last,
    ($7::boolean OR s.kept_count IS NULL OR s.kept_first IS DISTINCT FROM coalesce($3::int, s.kept_first, 0)) AS all_kept,
    (s.kept_count IS NULL OR s.kept_first IS DISTINCT FROM coalesce($3::int, s.kept_first, 0)) AS scope_all,
    coalesce(t.role = 'assistant' AND t.has_tool_use, false) AS ends_in_tool_use
  FROM s LEFT JOIN t ON true
),
dropped AS (
  SELECT x.id, x.from_boundary, x.seqs, x.replaces FROM p JOIN context_ledger.summaries x
    ON x.session = p.pk AND x.id = $15::int
),
newest_turn AS (
  SELECT
    (SELECT seq FROM context_ledger.messages WHERE session = p.pk AND (trim_point OR pair_start) AND trim_point
      ORDER BY seq DESC LIMIT 1) AS ns,
    (SELECT seq FROM context_ledger.messages WHERE session = p.pk AND (trim_point OR pair_start) AND pair_start
      ORDER BY seq DESC LIMIT 1) AS np
  FROM p WHERE p.plan
),
resume AS (
  SELECT CASE WHEN nt.ns IS NULL THEN p.n
    WHEN (SELECT plain_user FROM context_ledger.messages WHERE session = p.pk AND seq = nt.ns) THEN
      CASE WHEN p.ends_in_tool_use AND p.n - 1 > nt.ns THEN p.n - 1
        WHEN nt.np > nt.ns THEN nt.np ELSE nt.ns END
    ELSE nt.ns END AS r
  FROM p, newest_turn nt
),
r AS (
  SELECT CASE WHEN p.plan THEN greatest(0, least(p.b - 1, p.n - p.last, (SELECT r FROM resume), p.n - 1,
      coalesce((SELECT from_boundary - 1 FROM dropped), p.n))) ELSE p.n END AS lo
  FROM p
),
kept_k AS (
  SELECT seq FROM context_ledger.messages, p WHERE session = p.pk AND kept ORDER BY seq LIMIT $6::int
),
kept_all AS (
  SELECT seq FROM context_ledger.messages, p WHERE session = p.pk AND kept AND p.all_kept
),
rechecked AS (
  SELECT seq FROM context_ledger.messages, p WHERE session = p.pk AND recheck AND p.plan
),
settled AS (
  SELECT (SELECT seq FROM context_ledger.messages WHERE session = p.pk AND kept AND NOT recheck
    ORDER BY seq LIMIT 1) AS seq FROM p WHERE p.plan
),
newest_rows AS (
  SELECT m.seq FROM p CROSS JOIN LATERAL unnest(ARRAY(SELECT generate_series(p.n - CASE WHEN EXISTS (
      SELECT 1 FROM context_ledger.messages m WHERE m.session = p.pk AND m.uid = ANY($8::text[]))
    THEN $10::int ELSE 1 END, p.n - 1))) AS g(seq)
    JOIN context_ledger.messages m ON m.session = p.pk AND m.seq = g.seq
),
ref_row AS (
  SELECT m.seq, m.repeat_of FROM context_ledger.messages m, p WHERE m.session = p.pk AND (
    m.seq = $11::int OR m.uid = $12::text OR m.seq = (
      SELECT CASE WHEN $13::int < coalesce(s.kept_count, 0) THEN (SELECT seq FROM context_ledger.messages
          WHERE session = s.pk AND kept ORDER BY seq OFFSET $13::int LIMIT 1)
        ELSE s.boundary + $13::int - coalesce(s.kept_count, 0) - (s.summary IS NOT NULL)::int END FROM s))
),
repeat_rows AS (
  SELECT coalesce(x.repeat_of, x.seq) AS seq FROM ref_row x WHERE $14::boolean
  UNION
  SELECT m.seq FROM ref_row x CROSS JOIN p CROSS JOIN LATERAL (SELECT seq FROM context_ledger.messages
    WHERE session = p.pk AND repeat_of = coalesce(x.repeat_of, x.seq) OFFSET 0) m WHERE $14::boolean
),
uid_rows AS (
  SELECT m.seq FROM context_ledger.messages m, p WHERE m.session = p.pk AND m.uid = ANY($8::text[])
),
dropped_rows AS (
  SELECT g.seq FROM dropped d CROSS JOIN LATERAL unnest(ARRAY(SELECT jsonb_array_elements(d.seqs::jsonb))) e
    CROSS JOIN LATERAL unnest(ARRAY(SELECT generate_series((e ->> 0)::int, least((e ->> 1)::int, d.from_boundary) - 1))) AS g(seq)
),
pruned AS (
  SELECT unnest(ARRAY(SELECT m.seq FROM context_ledger.messages m, p
  WHERE $18::int IS NOT NULL AND m.session = p.pk AND m.seq >= $18::int AND m.seq < p.b AND NOT m.kept
    AND NOT m.pinned AND m.created_at < $19::bigint
    AND NOT (EXISTS (SELECT 1 FROM (SELECT m.body::jsonb AS j) x
        WHERE x.j #> '{metadata,custom,contextLedger,pruned}' = 'true'::jsonb
          OR x.j #> '{providerOptions,contextLedger,pruned}' = 'true'::jsonb
          OR x.j #> '{metadata,contextLedger,pruned}' = 'true'::jsonb
          OR x.j #> '{providerData,contextLedger,pruned}' = 'true'::jsonb
          OR x.j #> '{data,additional_kwargs,context_ledger,pruned}' = 'true'::jsonb
          OR x.j #> '{contextLedger,pruned}' = 'true'::jsonb) AND EXISTS (SELECT 1 FROM context_ledger.message_edits e WHERE e.session = m.session AND e.seq = m.seq AND e.kind = 'redact'))
  ORDER BY m.seq LIMIT $20::int)) AS seq
),
window_rows AS (
  SELECT seq FROM context_ledger.messages, p WHERE $16::boolean AND session = p.pk AND kept
  UNION ALL
  SELECT m.seq FROM p CROSS JOIN LATERAL unnest(ARRAY(SELECT generate_series(p.b, p.n - 1) WHERE $16::boolean))
      AS g(seq)
    JOIN context_ledger.messages m ON m.session = p.pk AND m.seq = g.seq
),
id_calls AS (
  SELECT c.use_seq FROM context_ledger.tool_calls c, p WHERE c.session = p.pk AND c.tool_use_id = ANY($9::text[])
),
seed_rows AS (
  SELECT unnest(ARRAY(SELECT generate_series(r.lo, p.n - 1) FROM p, r WHERE p.plan)) AS seq
  UNION SELECT seq FROM kept_k
  UNION SELECT seq FROM kept_all
  UNION SELECT seq FROM rechecked
  UNION SELECT seq FROM settled WHERE seq IS NOT NULL
  UNION SELECT unnest(ARRAY(SELECT generate_series(0, least(p.first, p.b) - 1) FROM p
    WHERE p.plan AND (p.scope_all OR $15::int IS NOT NULL)))
  UNION SELECT e FROM p, unnest($5::int[]) AS e WHERE e >= 0 AND e < p.n
  UNION SELECT use_seq FROM id_calls
  UNION SELECT seq FROM dropped_rows
  UNION SELECT seq FROM ref_row
),
seeds AS (
  SELECT unnest(ARRAY(SELECT seq FROM seed_rows)) AS seq
),
walk(seq) AS (
  SELECT seq FROM seeds, p WHERE p.plan
  UNION
  SELECT x.seq FROM walk c, p, LATERAL (
    SELECT result_seq AS seq FROM context_ledger.tool_calls
      WHERE session = p.pk AND use_seq = c.seq AND result_seq IS NOT NULL
    UNION ALL
    SELECT use_seq FROM context_ledger.tool_calls WHERE session = p.pk AND result_seq = c.seq) x
),
closure AS (
  SELECT unnest(ARRAY(SELECT seq FROM walk)) AS seq
),
full_rows AS (
  SELECT seq FROM newest_rows UNION SELECT seq FROM ref_row UNION SELECT seq FROM repeat_rows
  UNION SELECT seq FROM uid_rows UNION SELECT seq FROM window_rows UNION SELECT seq FROM pruned
),
full_seqs AS (
  SELECT unnest(ARRAY(SELECT seq FROM full_rows)) AS seq
),
links AS (
  SELECT seq FROM closure UNION SELECT seq FROM full_seqs
),
late_ids AS (
  SELECT DISTINCT v #>> '{}' AS id FROM full_seqs f CROSS JOIN p
    CROSS JOIN LATERAL (SELECT body FROM context_ledger.messages WHERE session = p.pk AND seq = f.seq AND late OFFSET 0) m
    CROSS JOIN LATERAL (SELECT m.body::jsonb AS j) x
    -- Where each format keeps a result's call id (Strands, AI SDK model and UI messages, Claude transcript
    -- entries): a superset of the late results' ids is only more calls read.
    CROSS JOIN LATERAL unnest(ARRAY(SELECT jsonb_path_query(x.j, '$.content[*].toolResult.toolUseId')
      UNION ALL SELECT jsonb_path_query(x.j, '$.content[*].toolCallId')
      UNION ALL SELECT jsonb_path_query(x.j, '$.parts[*].toolCallId')
      UNION ALL SELECT jsonb_path_query(x.j, '$.message.content[*].tool_use_id'))) v
),
ids AS (
  SELECT e AS id FROM unnest($9::text[]) e UNION SELECT id FROM late_ids
),
points AS (
  SELECT seq FROM seeds UNION SELECT seq FROM closure UNION SELECT seq FROM full_seqs
  UNION SELECT c.use_seq FROM ids CROSS JOIN p CROSS JOIN LATERAL (SELECT use_seq FROM context_ledger.tool_calls
    WHERE session = p.pk AND tool_use_id = ids.id OFFSET 0) c
),
call_rows AS (
  SELECT c.* FROM ids CROSS JOIN p CROSS JOIN LATERAL (SELECT id, tool_use_id, name, use_seq, result_seq, status
    FROM context_ledger.tool_calls WHERE session = p.pk AND tool_use_id = ids.id OFFSET 0) c
  UNION
  SELECT c.* FROM links l CROSS JOIN p CROSS JOIN LATERAL (SELECT id, tool_use_id, name, use_seq, result_seq, status
    FROM context_ledger.tool_calls WHERE session = p.pk AND use_seq = l.seq OFFSET 0) c
  UNION
  SELECT c.* FROM links l CROSS JOIN p CROSS JOIN LATERAL (SELECT id, tool_use_id, name, use_seq, result_seq, status
    FROM context_ledger.tool_calls WHERE session = p.pk AND result_seq = l.seq OFFSET 0) c
  -- Every call still waiting: an append answers or repairs them (normally the newest call message's).
  UNION
  SELECT c.id, c.tool_use_id, c.name, c.use_seq, c.result_seq, c.status FROM p
    JOIN context_ledger.tool_calls c ON c.session = p.pk AND c.result_seq IS NULL
),
prev_at AS (
  SELECT x FROM (SELECT seq AS x FROM points, r, p WHERE seq < r.lo AND p.plan UNION SELECT r.lo FROM r, p WHERE p.plan) q
),
prevs AS (
  SELECT a.x,
    (SELECT seq FROM context_ledger.messages WHERE session = p.pk AND (trim_point OR pair_start) AND trim_point
      AND seq < a.x ORDER BY seq DESC LIMIT 1) AS trim,
    (SELECT seq FROM context_ledger.messages WHERE session = p.pk AND (trim_point OR pair_start) AND trim_point
      AND plain_user AND seq < a.x ORDER BY seq DESC LIMIT 1) AS plain,
    (SELECT seq FROM context_ledger.messages WHERE session = p.pk AND (trim_point OR pair_start) AND pair_start
      AND seq < a.x ORDER BY seq DESC LIMIT 1) AS pair
  FROM prev_at a, p
),
all_seqs AS (
  SELECT unnest(ARRAY(SELECT generate_series(r.lo, p.n - 1) FROM p, r)) AS seq
  UNION SELECT seq FROM points
  UNION SELECT trim FROM prevs WHERE trim IS NOT NULL
  UNION SELECT plain FROM prevs WHERE plain IS NOT NULL
  UNION SELECT pair FROM prevs WHERE pair IS NOT NULL
)
SELECT
  (SELECT row_to_json(s) FROM s) AS session,
  (SELECT nextval(pg_get_serial_sequence('context_ledger.sessions', 'pk'))::int WHERE NOT EXISTS (SELECT 1 FROM s)) AS next_pk,
  ARRAY(SELECT nextval(pg_get_serial_sequence('context_ledger.summaries', 'id'))::int
    FROM generate_series(1, $17::int)) AS summary_ids,
  coalesce((SELECT n FROM p), 0) AS n,
  coalesce((SELECT lo FROM r), 0) AS lo,
  coalesce((SELECT all_kept FROM p), false) AS all_kept,
  coalesce((SELECT plan FROM p), false) AS planned,
  ARRAY(SELECT seq FROM kept_k ORDER BY seq) AS kept_k,
  (SELECT seq FROM settled) AS settled_first,
  (SELECT (SELECT seq FROM context_ledger.messages WHERE session = p.pk AND (trim_point OR pair_start)
      AND trim_point AND plain_user ORDER BY seq LIMIT 1) FROM p WHERE p.plan) AS first_plain,
  (SELECT json_agg(json_build_object('seq', m.seq, 'uid', m.uid, 'role', m.role, 'tokens', m.tokens,
      'cum_tokens', m.cum_tokens, 'pinned', m.pinned, 'kept', m.kept, 'recheck', m.recheck,
      'plain_user', m.plain_user, 'trim_point', m.trim_point, 'pair_start', m.pair_start,
      'has_tool_use', m.has_tool_use, 'has_tool_result', m.has_tool_result, 'created_at', m.created_at,
      'window_tokens', m.window_tokens, 'repeat_of', m.repeat_of, 'late', m.late) ORDER BY m.seq)
    FROM all_seqs a CROSS JOIN p CROSS JOIN LATERAL (SELECT * FROM context_ledger.messages
      WHERE session = p.pk AND seq = a.seq OFFSET 0) m) AS rows,
  (SELECT json_agg(json_build_object('seq', m.seq, 'body', m.body, 'window_body', m.window_body,
      'sent_as', o.uid))
    FROM full_seqs f CROSS JOIN p CROSS JOIN LATERAL (SELECT seq, body, window_body, repeat_of
      FROM context_ledger.messages WHERE session = p.pk AND seq = f.seq OFFSET 0) m
    LEFT JOIN LATERAL (SELECT uid FROM context_ledger.messages WHERE session = p.pk AND seq = m.repeat_of OFFSET 0) o ON true
  ) AS fulls,
  (SELECT json_agg(prevs) FROM prevs) AS prevs,
  (SELECT json_agg(json_build_object('id', c.id, 'tool_use_id', c.tool_use_id, 'name', c.name,
      'use_seq', c.use_seq, 'result_seq', c.result_seq, 'status', c.status) ORDER BY c.id)
    FROM call_rows c) AS calls,
  ARRAY(SELECT seq FROM links) AS link_seqs,
  ARRAY(SELECT id FROM ids) AS tool_ids,
  ARRAY(SELECT m.uid FROM uid_rows u CROSS JOIN p CROSS JOIN LATERAL (SELECT uid FROM context_ledger.messages
    WHERE session = p.pk AND seq = u.seq OFFSET 0) m) AS uids,
  (SELECT coalesce(repeat_of, seq) FROM ref_row WHERE $14::boolean LIMIT 1) AS repeat_root,
  ARRAY(SELECT seq FROM pruned ORDER BY seq) AS pruned,
  (SELECT json_agg(x) FROM (SELECT id, uid, replaces, regenerates, from_boundary, to_boundary, seqs,
      message_count, body, tokens, model, prompt_hash, created_at, ended_at, end_reason, text
    FROM context_ledger.summaries, p WHERE session = p.pk AND id IN (
      (SELECT summary FROM s), $15::int, (SELECT replaces FROM dropped))) x) AS summaries`
