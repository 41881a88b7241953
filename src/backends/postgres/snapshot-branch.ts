/**
 * The snapshot query's branch dialect (docs/design.md, "Branches"): what a write of a branch reads is its
 * conversation — each ancestor's rows up to the fork point below it, then its own — as the trunk dialect
 * reads one session's rows, so the slice and the SQLite operations run on it unchanged.
 *
 * - **The lineage** (CTE `up`, then `lin`): the session and its ancestors, one recursive walk of
 *   `sessions` (depth + 1 rows); each owns the seqs after its own fork point up to the smallest fork point
 *   below it (`src/store/branches/lineage.ts`, the same rule). `cuts` holds the trim-point and tool-pair
 *   flags of each seq where one part ends, as the session below it sees them (they depend on the next row).
 * - **A row** is its owner's message row, with the branch's own state on it when it is inherited: its
 *   `branch_rows` row (pin, kept mark, recheck, window form), or none — unpinned, not kept, shown as its
 *   owner shows it.
 * - **Searches by flag** (the latest trim point before a seq, …) take the best of one index seek per part.
 * - **Tool calls** the branch sees: its own (the calls open at its fork were copied into it) and each
 *   ancestor's answered within that ancestor's part — a call answered after a fork is open below it.
 */
import type { SnapshotDialect } from './snapshot-sql.js'
import { CUT_FLAGS } from './snapshot-trunk.js'

/** A row's columns as the branch sees them (the rest are its owner's message row's, `mm`). */
const OVERLAID: Readonly<Record<string, string>> = {
  pinned: 'CASE WHEN ll.owner = p.pk THEN mm.pinned ELSE coalesce(oo.pinned, false) END',
  kept: 'CASE WHEN ll.owner = p.pk THEN mm.kept ELSE coalesce(oo.kept, false) END',
  recheck: 'CASE WHEN ll.owner = p.pk THEN mm.recheck ELSE coalesce(oo.recheck, false) END',
  window_body: 'CASE WHEN ll.owner = p.pk OR oo.session IS NULL THEN mm.window_body ELSE oo.window_body END',
  window_tokens:
    'CASE WHEN ll.owner = p.pk OR oo.session IS NULL THEN mm.window_tokens ELSE oo.window_tokens END',
  trim_point: 'coalesce(cc.trim, mm.trim_point)',
  pair_start: 'coalesce(cc.pair, mm.pair_start)',
  owner: 'll.owner',
}

/** Every column a row carries for the slice (`*`). */
const ALL_COLUMNS = [
  'seq',
  'uid',
  'role',
  'tokens',
  'cum_tokens',
  'pinned',
  'kept',
  'recheck',
  'plain_user',
  'trim_point',
  'pair_start',
  'has_tool_use',
  'has_tool_result',
  'created_at',
  'window_tokens',
  'repeat_of',
  'late',
  'owner',
]

/** The cut flags of a `cuts` row, as {@link CUT_FLAGS} on a message row. */
const CUT_CONDITION = { trim: 'cc.trim', plain: 'cc.trim AND cc.plain', pair: 'cc.pair' } as const

/** The row at a seq of the conversation, as the branch sees it. */
function row(seq: string, columns: string, extra = ''): string {
  const names = columns === '*' ? ALL_COLUMNS : columns.split(',').map((c) => c.trim())
  const select = names.map((c) => `${OVERLAID[c] ?? `mm.${c}`} AS ${c}`).join(', ')
  return `(SELECT ${select} FROM lin ll
    JOIN context_ledger.messages mm ON mm.session = ll.owner AND mm.seq = ${seq}
    LEFT JOIN context_ledger.branch_rows oo ON ll.owner <> p.pk AND oo.session = p.pk AND oo.seq = ${seq}
    LEFT JOIN cuts cc ON ll.owner <> p.pk AND cc.seq = ${seq}
    WHERE ${seq} BETWEEN ll.lo AND ll.hi${extra.replaceAll(' AND ', ' AND mm.')} OFFSET 0)`
}

/** The seqs of a state condition: the branch's rows on inherited seqs, then its own. */
function stateUnion(session: string, cond: string): string {
  return `SELECT seq FROM context_ledger.branch_rows WHERE session = ${session} AND ${cond}
    UNION ALL SELECT seq FROM context_ledger.messages WHERE session = ${session} AND ${cond}`
}

const KEPT_AT = `(SELECT q.seq FROM (${stateUnion('s.pk', 'kept')}) q ORDER BY q.seq OFFSET $13::int LIMIT 1)`

/**
 * The tool calls the branch sees (its own, each ancestor's answered within its part), by `where`: one
 * index seek per part (`session = ll.owner` inside the LATERAL, which `OFFSET 0` keeps from being
 * flattened). Written as a join, the planner hashed the parts and scanned `tool_calls` by `where` alone —
 * a skip scan over every session in the table, for each lookup (the walk's and `call_rows`' dozens).
 * `part` (on `ll`) skips the ancestor parts that cannot hold the call, before their seek: implied by the
 * condition inside, so it changes no result.
 */
function calls(columns: string, where: string, part = 'true'): string {
  return `(SELECT ${columns} FROM linfull ll CROSS JOIN LATERAL (SELECT * FROM context_ledger.tool_calls tc
    WHERE tc.session = ll.owner AND (ll.owner = p.pk OR tc.result_seq BETWEEN ll.lo AND ll.hi) AND ${where}
    OFFSET 0) tc WHERE ll.owner = p.pk OR ${part} OFFSET 0)`
}

/**
 * The latest seq with a flag (before `before`), and the cut flags. The parts hold disjoint ranges of seqs,
 * so the newest part below `before` that has one holds the latest: the parts are walked newest first, one
 * index seek each, and the walk stops at the first part that answers (`LIMIT 1` over the nested loop) —
 * one seek in the common case, where the best of one seek per part took depth + 1. The fork points' flags,
 * which depend on the row after them (in the part below), come from `cuts`.
 */
function lastCut(kind: 'trim' | 'plain' | 'pair', before?: string): string {
  const below = before === undefined ? '' : ` AND seq < ${before}`
  const partBelow = before === undefined ? '' : ` WHERE ll.lo < ${before}`
  const cutBelow = before === undefined ? '' : ` AND cc.seq < ${before}`
  return `greatest(
    (SELECT q.seq FROM (SELECT owner, lo, hi FROM lin ll${partBelow} ORDER BY lo DESC) ll
      CROSS JOIN LATERAL (SELECT seq FROM context_ledger.messages WHERE session = ll.owner
        AND (trim_point OR pair_start) AND ${CUT_FLAGS[kind]} AND seq >= ll.lo AND seq < ll.hi${below}
        ORDER BY seq DESC LIMIT 1) q LIMIT 1),
    (SELECT max(cc.seq) FROM cuts cc WHERE ${CUT_CONDITION[kind]}${cutBelow}))`
}

/** The first plain user turn of the conversation: the oldest part that has one (as {@link lastCut}). */
const FIRST_PLAIN = `least(
    (SELECT q.seq FROM (SELECT owner, lo, hi FROM lin ORDER BY lo) ll
      CROSS JOIN LATERAL (SELECT seq FROM context_ledger.messages WHERE session = ll.owner
        AND (trim_point OR pair_start) AND trim_point AND plain_user AND seq >= ll.lo AND seq < ll.hi
        ORDER BY seq LIMIT 1) q LIMIT 1),
    (SELECT min(cc.seq) FROM cuts cc WHERE cc.trim AND cc.plain))`

/** The columns of a tool call the slice holds. */
const CALL_COLUMNS = 'id, tool_use_id, name, use_seq, result_seq, status'

/**
 * The lineage, and the fork point when the statement reads a session to fork it: `$21` a seq, or `$22` a
 * trackingId (`fk.at`; `fk.forking` either way). A fork reads the parent as its conversation would be had
 * it ended there (`lin`: every part cut at `fk.at`), the planner's part as a new window of it needs it.
 */
const LINEAGE = `
up (pk, parent, fork_seq, trim, pair, depth) AS (
  SELECT x.pk, x.parent, x.fork_seq, x.fork_trim_point, x.fork_pair_start, 0
    FROM s JOIN context_ledger.sessions x ON x.pk = s.pk
  UNION ALL
  SELECT x.pk, x.parent, x.fork_seq, x.fork_trim_point, x.fork_pair_start, up.depth + 1
    FROM up JOIN context_ledger.sessions x ON x.pk = up.parent WHERE up.depth < 100000
),
lin0 AS (
  SELECT pk AS owner, depth, parent, fork_seq, trim, pair,
    CASE WHEN parent IS NULL THEN 0 ELSE fork_seq + 1 END AS lo,
    coalesce(min(CASE WHEN parent IS NOT NULL THEN fork_seq END) OVER (ORDER BY depth
      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 2147483647) AS hi
  FROM up
),
linfull AS (
  SELECT owner, lo, hi FROM lin0 WHERE lo <= hi
),
fk AS (
  SELECT coalesce($21::int, (SELECT mm.seq FROM linfull ll JOIN context_ledger.messages mm
    ON mm.session = ll.owner AND mm.uid = $22::text WHERE mm.seq BETWEEN ll.lo AND ll.hi LIMIT 1)) AS at,
    ($21::int IS NOT NULL OR $22::text IS NOT NULL) AS forking
),
lin AS (
  SELECT owner, lo, least(hi, coalesce((SELECT at FROM fk), 2147483647)) AS hi FROM linfull
  WHERE lo <= coalesce((SELECT at FROM fk), 2147483647)
),
cuts AS (
  SELECT DISTINCT ON (c.fork_seq) c.fork_seq AS seq, coalesce(c.trim, false) AS trim,
    coalesce(c.pair, false) AS pair,
    coalesce((SELECT mm.plain_user FROM lin ll JOIN context_ledger.messages mm
      ON mm.session = ll.owner AND mm.seq = c.fork_seq WHERE c.fork_seq BETWEEN ll.lo AND ll.hi), false) AS plain
  FROM lin0 c WHERE c.parent IS NOT NULL AND c.fork_seq <= c.hi
    AND c.fork_seq <= coalesce((SELECT at FROM fk), 2147483647)
  ORDER BY c.fork_seq, c.depth
),`

/** Whether the statement reads a session to fork it. */
const FORKING = '(SELECT forking FROM fk)'

/** The branch dialect. */
export const BRANCH: SnapshotDialect = {
  lineage: LINEAGE,
  newestTurn: ' MATERIALIZED',
  // The newest row: the session's own, else the one it forked at; when forking, the fork point.
  newest: `
  SELECT q.seq, q.role, q.has_tool_use FROM (
    SELECT m.seq, m.role, m.has_tool_use FROM s CROSS JOIN LATERAL (
      SELECT seq, role, has_tool_use FROM context_ledger.messages WHERE session = s.pk ORDER BY seq DESC LIMIT 1) m
    WHERE NOT ${FORKING}
    UNION ALL
    SELECT m.seq, m.role, m.has_tool_use FROM s CROSS JOIN fk
      JOIN lin l ON coalesce(fk.at, s.fork_seq) BETWEEN l.lo AND l.hi
      JOIN context_ledger.messages m ON m.session = l.owner AND m.seq = coalesce(fk.at, s.fork_seq)
  ) q ORDER BY q.seq DESC LIMIT 1`,
  summaryOf: (x) => `${x}.session IN (SELECT pk FROM up)`,
  lastCut,
  firstPlain: FIRST_PLAIN,
  column: (seq, column) => `(SELECT q.${column} FROM ${row(seq, column)} q)`,
  state: (cond, tail = '') =>
    `SELECT q.seq FROM p, LATERAL (${stateUnion('p.pk', `${cond} AND seq < p.n`)}) q${tail}`,
  settled: `(SELECT min(q.seq) FROM (
    SELECT (SELECT seq FROM context_ledger.branch_rows WHERE session = p.pk AND kept AND NOT recheck
      AND seq < p.n ORDER BY seq LIMIT 1) AS seq
    UNION ALL SELECT (SELECT seq FROM context_ledger.messages WHERE session = p.pk AND kept AND NOT recheck
      AND seq < p.n ORDER BY seq LIMIT 1)) q)`,
  keptAt: KEPT_AT,
  existing: (series) => `SELECT g.seq FROM p CROSS JOIN LATERAL unnest(${series}) AS g(seq) WHERE g.seq >= 0`,
  uidsExist: `SELECT 1 FROM lin ll JOIN context_ledger.messages mm ON mm.session = ll.owner
      AND mm.uid = ANY($8::text[]) WHERE mm.seq BETWEEN ll.lo AND ll.hi`,
  refRow: `
  SELECT m.seq, m.repeat_of FROM p CROSS JOIN LATERAL (
    SELECT $11::int AS seq
    UNION SELECT (SELECT mm.seq FROM lin ll JOIN context_ledger.messages mm ON mm.session = ll.owner
      AND mm.uid = $12::text WHERE mm.seq BETWEEN ll.lo AND ll.hi LIMIT 1)
    UNION SELECT (SELECT CASE WHEN $13::int < coalesce(s.kept_count, 0) THEN ${KEPT_AT}
        ELSE s.boundary + $13::int - coalesce(s.kept_count, 0) - (s.summary IS NOT NULL)::int END FROM s)) x
    CROSS JOIN LATERAL ${row('x.seq', 'seq, repeat_of')} m`,
  repeats: (root) => `(SELECT mm.seq FROM lin ll JOIN context_ledger.messages mm ON mm.session = ll.owner
    AND mm.repeat_of = ${root} WHERE mm.seq BETWEEN ll.lo AND ll.hi OFFSET 0)`,
  uidRows: `SELECT mm.seq FROM lin ll JOIN context_ledger.messages mm ON mm.session = ll.owner
    AND mm.uid = ANY($8::text[]) WHERE mm.seq BETWEEN ll.lo AND ll.hi`,
  calls,
  openCalls: `SELECT c.id, c.tool_use_id, c.name, c.use_seq, c.result_seq, c.status FROM p
    JOIN context_ledger.tool_calls c ON c.session = p.pk AND c.result_seq IS NULL`,
  row,
  rowFields: ", 'owner', m.owner",
  summaryFields: ', session',
  lineageColumn:
    "(SELECT json_agg(json_build_object('owner', owner, 'lo', lo, 'hi', hi) ORDER BY lo) FROM linfull)",
  // Forking: the protected ranges are the parent's last limits; the planner reads every kept row and the
  // first-N range (the branch's kept totals are counted anew), and the rows back to where the new window
  // may start (the newest turn's, or the last-N range's, trim point).
  firstDefault: `CASE WHEN ${FORKING} THEN (s.limits::jsonb ->> 'first')::int END, s.kept_first`,
  scopeAll: ` OR ${FORKING}`,
  loBound: `,
      CASE WHEN ${FORKING} THEN coalesce(${lastCut('trim', 'p.n - 1')} - 1, 0) END,
      CASE WHEN ${FORKING} THEN coalesce(${lastCut('trim', 'greatest(0, p.n - p.last) + 1')} - 1, 0) END`,
  // The calls made by the fork point and answered after it: open in the branch.
  forkCalls: `
  UNION
  SELECT c.* FROM p CROSS JOIN fk CROSS JOIN LATERAL ${calls(CALL_COLUMNS, 'use_seq <= fk.at AND result_seq > fk.at')} c
    WHERE fk.forking`,
  newPk: ` OR ${FORKING}`,
  forkColumns: `,
  (SELECT at FROM fk) AS fork_at,
  (SELECT coalesce((SELECT seq + 1 FROM context_ledger.messages WHERE session = s.pk ORDER BY seq DESC LIMIT 1),
    s.fork_seq + 1, 0) FROM s) AS full_n,
  (SELECT log_clock FROM context_ledger.identity WHERE id = 1) AS clock,
  (SELECT max(depth) FROM up) AS depth,
  ARRAY(SELECT id FROM context_ledger.sessions WHERE id = ANY($23::text[])) AS taken,
  (SELECT id FROM context_ledger.sessions WHERE pk = (SELECT parent FROM s)) AS parent_id,
  (SELECT json_agg(json_build_object('pk', x.pk, 'revision', x.revision)) FROM (
    WITH RECURSIVE down (pk) AS (
      SELECT pk FROM context_ledger.sessions WHERE parent = (SELECT pk FROM s) AND $24::boolean
      UNION ALL
      SELECT x.pk FROM down JOIN context_ledger.sessions x ON x.parent = down.pk)
    SELECT x.pk, x.revision FROM down JOIN context_ledger.sessions x ON x.pk = down.pk) x) AS subtree,
  (SELECT k FROM generate_series(1, 100000) k WHERE $25::text IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM context_ledger.sessions WHERE id = $25::text || '~' || k) ORDER BY k LIMIT 1) AS free_k`,
}
