/**
 * The text of the snapshot query (`snapshot-query.ts` says what it reads and why each part is shaped as it
 * is), written once over a {@link SnapshotDialect}: how a part reads the session's conversation. The trunk
 * dialect reads one session's own rows — today's statement, unchanged in every lookup — and the branch
 * dialect reads a branch's conversation: its ancestors' rows up to each fork point and its own
 * (`snapshot-branch.ts`). Both return the same columns, so one {@link Slice} and one set of emulated
 * statements serve both.
 */

/** How the snapshot query reads a session's conversation (each part a fragment of SQL text). */
export interface SnapshotDialect {
  /** CTEs placed after `s` (the lineage of a branch); empty for the trunk. */
  readonly lineage: string
  /**
   * How CTE `newest_turn` is computed: `''` (inlined, the trunk's one index seek per use) or
   * `' MATERIALIZED'` (once: a branch's search takes a seek per lineage part, and `resume` reads its
   * columns five times).
   */
  readonly newestTurn: '' | ' MATERIALIZED'
  /** The body of CTE `t`: the newest row of the conversation (`seq`, `role`, `has_tool_use`). */
  readonly newest: string
  /** The condition naming the summaries the session can show, for a summary aliased `alias`. */
  summaryOf(alias: string): string
  /**
   * The latest seq (before `before`, when given) with a flag, as a scalar subquery.
   *
   * @param kind - a trim point, a plain user message (a trim point too) or a tool-pair start
   */
  lastCut(kind: 'trim' | 'plain' | 'pair', before?: string): string
  /** The first plain user message of the conversation, as a scalar subquery. */
  readonly firstPlain: string
  /** One column of the row at a seq, as a scalar subquery. */
  column(seq: string, column: string): string
  /**
   * The seqs whose window state meets `cond` (`kept`, `recheck`, …, with `p` in scope), then `tail`.
   *
   * @param cond - the condition on the state columns
   * @param tail - ORDER BY / LIMIT
   */
  state(cond: string, tail?: string): string
  /** The earliest kept row without a recheck mark, as a scalar subquery. */
  readonly settled: string
  /** The kept row at window position `$13` (among the kept rows), as a scalar subquery (`s` in scope). */
  readonly keptAt: string
  /** The body of a CTE of the seqs of `series` (an array of seqs, `p` in scope) that hold a row. */
  existing(series: string): string
  /** Whether any of the trackingIds `$8` is a row of the conversation (`p` in scope). */
  readonly uidsExist: string
  /** The body of CTE `ref_row`: `seq` and `repeat_of` of the row named by `$11`, `$12` or `$13`. */
  readonly refRow: string
  /** A subquery of the seqs of the rows sent again as the row at `root`. */
  repeats(root: string): string
  /** The body of CTE `uid_rows`: the seqs of the rows named by `$8`. */
  readonly uidRows: string
  /**
   * A subquery of the tool calls the session sees, restricted by `where` (on `tool_calls`' columns).
   *
   * @param columns - the columns to return
   * @param where - the condition
   * @param part - a condition on a lineage part `ll` every call `where` finds in an ancestor's part meets
   *   (it is answered within the part, after it was made), to skip the others; the trunk ignores it
   */
  calls(columns: string, where: string, part?: string): string
  /** The body of CTE part of the open calls (`id, tool_use_id, name, use_seq, result_seq, status`). */
  readonly openCalls: string
  /**
   * A subquery of the row at a seq, as the session sees it (`OFFSET 0`: evaluated per outer row).
   *
   * @param seq - the seq expression
   * @param columns - the columns (`*` for all a row carries)
   * @param extra - more conditions, each starting with ` AND`
   */
  row(seq: string, columns: string, extra?: string): string
  /** Extra fields of the `rows` JSON (`, 'owner', m.owner` for a branch). */
  readonly rowFields: string
  /** Extra columns of the `summaries` JSON. */
  readonly summaryFields: string
  /** The `lineage` column: the conversation's parts as JSON (null for the trunk). */
  readonly lineageColumn: string
  /** The fallback of the first-N range when the call gives none (`s` in scope). */
  readonly firstDefault: string
  /** More conditions that make the planner read every kept row and the first-N range. */
  readonly scopeAll: string
  /** More upper bounds of `lo`, each starting with `, ` (`p` in scope). */
  readonly loBound: string
  /** More parts of `call_rows`, each starting with `\n  UNION `. */
  readonly forkCalls: string
  /** More reasons to allocate a session key, each starting with ` OR `. */
  readonly newPk: string
  /** More output columns, each starting with `,\n  `. */
  readonly forkColumns: string
}

/**
 * A stored body as `jsonb`, for the parts of the query that read inside it (a pruned body's note, a late
 * result's call ids). `jsonb` refuses the escape `\u0000`, which a body may hold (a NUL in a tool's
 * output): each such escape becomes a space first, as `context_ledger.search_text` does (migration 0001)
 * — only an escape (an odd number of backslashes before `u0000`), so the body stays valid JSON. The ids
 * and flags read are never changed by it: an id holding a NUL cannot be stored at all (PostgreSQL text).
 */
const bodyJsonb = (column: string): string =>
  String.raw`(CASE WHEN strpos(${column}, '\u') = 0 THEN ${column}
      ELSE regexp_replace(${column}, '(?<!\\)((?:\\\\)*)\\u0000', '\1 ', 'g') END)::jsonb`

/** The columns of a tool call the slice holds. */
const CALL_COLUMNS = 'id, tool_use_id, name, use_seq, result_seq, status'

/** The session row's columns the slice reads. */
const SESSION_COLUMNS = `pk, id, created_at, updated_at, metadata, boundary, version, kept_count, kept_tokens, kept_first,
    summary, limits, format, revision, parent, fork_seq, kind, fork_version, fork_trim_point, fork_pair_start,
    fork_summary, fork_summary_ended_at, fork_summary_end_reason, fork_tokens, forked_at, fork_actor, fork_reason`

/**
 * The snapshot query in a dialect. `$1` session id, `$2` plan mode, `$3` first, `$4` last, `$5` extra seqs,
 * `$6` kept rows to read first, `$7` every kept row, `$8` trackingIds, `$9` toolUseIds, `$10` newest rows,
 * `$11`–`$13` the row named by seq / trackingId / window position, `$14` its repeats, `$15` a summary, `$16`
 * the window's bodies, `$17` new summary ids, `$18`–`$20` prune candidates.
 *
 * @param d - the dialect
 * @returns the SQL text
 */
export function snapshotSql(d: SnapshotDialect): string {
  return `WITH RECURSIVE
s AS (
  SELECT ${SESSION_COLUMNS}
  FROM context_ledger.sessions WHERE id = $1::text
),${d.lineage}
t AS (${d.newest}
),
p AS (
  SELECT s.pk, s.boundary AS b, coalesce(t.seq + 1, 0) AS n,
    ($2::int = 2 OR ($2::int = 1 AND s.boundary = coalesce(t.seq + 1, 0))) AS plan,
    coalesce($3::int, ${d.firstDefault}, 0) AS first,
    coalesce($4::int, CASE WHEN s.limits IS NULL THEN 0
      ELSE greatest(0, coalesce((s.limits::jsonb ->> 'last')::int, 0)) END) AS last,
    ($7::boolean OR s.kept_count IS NULL OR s.kept_first IS DISTINCT FROM coalesce($3::int, ${d.firstDefault}, 0)) AS all_kept,
    (s.kept_count IS NULL OR s.kept_first IS DISTINCT FROM coalesce($3::int, ${d.firstDefault}, 0)${d.scopeAll}) AS scope_all,
    coalesce(t.role = 'assistant' AND t.has_tool_use, false) AS ends_in_tool_use
  FROM s LEFT JOIN t ON true
),
dropped AS (
  SELECT x.id, x.from_boundary, x.seqs, x.replaces FROM p JOIN context_ledger.summaries x
    ON ${d.summaryOf('x')} AND x.id = $15::int
),
newest_turn AS${d.newestTurn} (
  SELECT
    ${d.lastCut('trim')} AS ns,
    ${d.lastCut('pair')} AS np
  FROM p WHERE p.plan
),
resume AS (
  SELECT CASE WHEN nt.ns IS NULL THEN p.n
    WHEN ${d.column('nt.ns', 'plain_user')} THEN
      CASE WHEN p.ends_in_tool_use AND p.n - 1 > nt.ns THEN p.n - 1
        WHEN nt.np > nt.ns THEN nt.np ELSE nt.ns END
    ELSE nt.ns END AS r
  FROM p, newest_turn nt
),
r AS (
  SELECT CASE WHEN p.plan THEN greatest(0, least(p.b - 1, p.n - p.last, (SELECT r FROM resume), p.n - 1,
      coalesce((SELECT from_boundary - 1 FROM dropped), p.n)${d.loBound})) ELSE p.n END AS lo
  FROM p
),
kept_k AS (
  ${d.state('kept', ' ORDER BY seq LIMIT $6::int')}
),
kept_all AS (
  ${d.state('kept AND p.all_kept')}
),
rechecked AS (
  ${d.state('recheck AND p.plan')}
),
settled AS (
  SELECT ${d.settled} AS seq FROM p WHERE p.plan
),
newest_rows AS (
  ${d.existing(`ARRAY(SELECT generate_series(p.n - CASE WHEN EXISTS (${d.uidsExist})
    THEN $10::int ELSE 1 END, p.n - 1))`)}
),
ref_row AS (${d.refRow}
),
repeat_rows AS (
  SELECT coalesce(x.repeat_of, x.seq) AS seq FROM ref_row x WHERE $14::boolean
  UNION
  SELECT m.seq FROM ref_row x CROSS JOIN p CROSS JOIN LATERAL ${d.repeats('coalesce(x.repeat_of, x.seq)')} m
    WHERE $14::boolean
),
uid_rows AS (
  ${d.uidRows}
),
dropped_rows AS (
  SELECT g.seq FROM dropped d CROSS JOIN LATERAL unnest(ARRAY(SELECT jsonb_array_elements(d.seqs::jsonb))) e
    CROSS JOIN LATERAL unnest(ARRAY(SELECT generate_series((e ->> 0)::int, least((e ->> 1)::int, d.from_boundary) - 1))) AS g(seq)
),
-- A prune's readers below: every branch under the session (through abandoned ones, whose children are
-- live), with the last seq of the session it still reaches (the smallest fork seq on the way down).
below(pk, kind, boundary, reach) AS (
  SELECT x.pk, x.kind, x.boundary, x.fork_seq FROM p JOIN context_ledger.sessions x ON x.parent = p.pk
    WHERE $18::int IS NOT NULL
  UNION ALL
  SELECT x.pk, x.kind, x.boundary, least(y.reach, x.fork_seq)
    FROM below y JOIN context_ledger.sessions x ON x.parent = y.pk
),
pruned AS (
  SELECT unnest(ARRAY(SELECT m.seq FROM context_ledger.messages m, p
  WHERE $18::int IS NOT NULL AND m.session = p.pk AND m.seq >= $18::int AND m.seq < p.b AND NOT m.kept
    AND NOT m.pinned AND m.created_at < $19::bigint
    AND NOT (EXISTS (SELECT 1 FROM (SELECT ${bodyJsonb('m.body')} AS j) x
        WHERE x.j #> '{metadata,custom,contextLedger,pruned}' = 'true'::jsonb
          OR x.j #> '{providerOptions,contextLedger,pruned}' = 'true'::jsonb
          OR x.j #> '{metadata,contextLedger,pruned}' = 'true'::jsonb
          OR x.j #> '{providerData,contextLedger,pruned}' = 'true'::jsonb
          OR x.j #> '{data,additional_kwargs,context_ledger,pruned}' = 'true'::jsonb
          OR x.j #> '{contextLedger,pruned}' = 'true'::jsonb) AND EXISTS (SELECT 1 FROM context_ledger.message_edits e WHERE e.session = m.session AND e.seq = m.seq AND e.kind = 'redact'))
    -- A row a live branch below still shows (its tail, its kept rows, its pins) stays, as on SQLite.
    AND NOT EXISTS (SELECT 1 FROM below d WHERE d.kind <> 'abandoned' AND m.seq <= d.reach
      AND (m.seq >= d.boundary OR EXISTS (SELECT 1 FROM context_ledger.branch_rows o
        WHERE o.session = d.pk AND o.seq = m.seq AND (o.kept OR o.pinned))))
  ORDER BY m.seq LIMIT $20::int)) AS seq
),
window_rows AS (
  ${d.state('$16::boolean AND kept')}
  UNION ALL
  ${d.existing('ARRAY(SELECT generate_series(p.b, p.n - 1) WHERE $16::boolean)')}
),
id_calls AS (
  SELECT c.use_seq FROM p CROSS JOIN LATERAL ${d.calls('use_seq', 'tool_use_id = ANY($9::text[])')} c
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
    SELECT y.seq FROM ${d.calls('result_seq AS seq', 'use_seq = c.seq AND result_seq IS NOT NULL', 'c.seq <= ll.hi')} y
    UNION ALL
    SELECT z.seq FROM ${d.calls('use_seq AS seq', 'result_seq = c.seq', 'c.seq BETWEEN ll.lo AND ll.hi')} z) x
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
    CROSS JOIN LATERAL ${d.row('f.seq', 'body', ' AND late')} m
    CROSS JOIN LATERAL (SELECT ${bodyJsonb('m.body')} AS j) x
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
  UNION SELECT c.use_seq FROM ids CROSS JOIN p CROSS JOIN LATERAL ${d.calls('use_seq', 'tool_use_id = ids.id')} c
),
call_rows AS (
  SELECT c.* FROM ids CROSS JOIN p CROSS JOIN LATERAL ${d.calls(CALL_COLUMNS, 'tool_use_id = ids.id')} c
  UNION
  SELECT c.* FROM links l CROSS JOIN p CROSS JOIN LATERAL ${d.calls(CALL_COLUMNS, 'use_seq = l.seq', 'l.seq <= ll.hi')} c
  UNION
  SELECT c.* FROM links l CROSS JOIN p CROSS JOIN LATERAL ${d.calls(CALL_COLUMNS, 'result_seq = l.seq', 'l.seq BETWEEN ll.lo AND ll.hi')} c
  -- Every call still waiting: an append answers or repairs them (normally the newest call message's).
  UNION
  ${d.openCalls}${d.forkCalls}
),
prev_at AS (
  SELECT x FROM (SELECT seq AS x FROM points, r, p WHERE seq < r.lo AND p.plan UNION SELECT r.lo FROM r, p WHERE p.plan) q
),
prevs AS (
  SELECT a.x,
    ${d.lastCut('trim', 'a.x')} AS trim,
    ${d.lastCut('plain', 'a.x')} AS plain,
    ${d.lastCut('pair', 'a.x')} AS pair
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
  (SELECT nextval(pg_get_serial_sequence('context_ledger.sessions', 'pk'))::int WHERE NOT EXISTS (SELECT 1 FROM s)${d.newPk}) AS next_pk,
  ARRAY(SELECT nextval(pg_get_serial_sequence('context_ledger.summaries', 'id'))::int
    FROM generate_series(1, $17::int)) AS summary_ids,
  coalesce((SELECT n FROM p), 0) AS n,
  coalesce((SELECT lo FROM r), 0) AS lo,
  coalesce((SELECT all_kept FROM p), false) AS all_kept,
  coalesce((SELECT plan FROM p), false) AS planned,
  ARRAY(SELECT seq FROM kept_k ORDER BY seq) AS kept_k,
  (SELECT seq FROM settled) AS settled_first,
  (SELECT ${d.firstPlain} FROM p WHERE p.plan) AS first_plain,
  (SELECT json_agg(json_build_object('seq', m.seq, 'uid', m.uid, 'role', m.role, 'tokens', m.tokens,
      'cum_tokens', m.cum_tokens, 'pinned', m.pinned, 'kept', m.kept, 'recheck', m.recheck,
      'plain_user', m.plain_user, 'trim_point', m.trim_point, 'pair_start', m.pair_start,
      'has_tool_use', m.has_tool_use, 'has_tool_result', m.has_tool_result, 'created_at', m.created_at,
      'window_tokens', m.window_tokens, 'repeat_of', m.repeat_of, 'late', m.late${d.rowFields}) ORDER BY m.seq)
    FROM all_seqs a CROSS JOIN p CROSS JOIN LATERAL ${d.row('a.seq', '*')} m) AS rows,
  (SELECT json_agg(json_build_object('seq', m.seq, 'body', m.body, 'window_body', m.window_body,
      'sent_as', o.uid))
    FROM full_seqs f CROSS JOIN p CROSS JOIN LATERAL ${d.row('f.seq', 'seq, body, window_body, repeat_of')} m
    LEFT JOIN LATERAL ${d.row('m.repeat_of', 'uid')} o ON true
  ) AS fulls,
  (SELECT json_agg(prevs) FROM prevs) AS prevs,
  (SELECT json_agg(json_build_object('id', c.id, 'tool_use_id', c.tool_use_id, 'name', c.name,
      'use_seq', c.use_seq, 'result_seq', c.result_seq, 'status', c.status) ORDER BY c.id)
    FROM call_rows c) AS calls,
  ARRAY(SELECT seq FROM links) AS link_seqs,
  ARRAY(SELECT id FROM ids) AS tool_ids,
  ARRAY(SELECT m.uid FROM uid_rows u CROSS JOIN p CROSS JOIN LATERAL ${d.row('u.seq', 'uid')} m) AS uids,
  (SELECT coalesce(repeat_of, seq) FROM ref_row WHERE $14::boolean LIMIT 1) AS repeat_root,
  ARRAY(SELECT seq FROM pruned ORDER BY seq) AS pruned,
  (SELECT json_agg(x) FROM (SELECT id, uid, replaces, regenerates, from_boundary, to_boundary, seqs,
      message_count, body, tokens, model, prompt_hash, created_at, ended_at, end_reason, text${d.summaryFields}
    FROM context_ledger.summaries x, p WHERE ${d.summaryOf('x')} AND id IN (
      (SELECT summary FROM s), $15::int, (SELECT replaces FROM dropped), (SELECT fork_summary FROM s))) x) AS summaries,
  ${d.lineageColumn} AS lineage${d.forkColumns}`
}
