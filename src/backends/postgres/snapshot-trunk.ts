/**
 * The snapshot query's trunk dialect: every part reads the session's own rows (`session = p.pk`) by an
 * index seek or a short range of one — the statement a session that is no branch has always run. See
 * `snapshot-sql.ts` for the query, `snapshot-branch.ts` for a branch's.
 */
import type { SnapshotDialect } from './snapshot-sql.js'

/** Which flags a cut search asks for, on the partial index of cut points. */
export const CUT_FLAGS = {
  trim: 'trim_point',
  plain: 'trim_point AND plain_user',
  pair: 'pair_start',
} as const

/** The trunk dialect. */
export const TRUNK: SnapshotDialect = {
  lineage: '',
  newestTurn: '',
  newest: `
  SELECT m.seq, m.role, m.has_tool_use FROM s CROSS JOIN LATERAL (
    SELECT seq, role, has_tool_use FROM context_ledger.messages WHERE session = s.pk ORDER BY seq DESC LIMIT 1) m`,
  summaryOf: (x) => `${x}.session = p.pk`,
  lastCut: (kind, before) =>
    `(SELECT seq FROM context_ledger.messages WHERE session = p.pk AND (trim_point OR pair_start) AND ${CUT_FLAGS[kind]}${
      before === undefined ? '' : ` AND seq < ${before}`
    }
      ORDER BY seq DESC LIMIT 1)`,
  firstPlain: `(SELECT seq FROM context_ledger.messages WHERE session = p.pk AND (trim_point OR pair_start)
      AND trim_point AND plain_user ORDER BY seq LIMIT 1)`,
  column: (seq, column) =>
    `(SELECT ${column} FROM context_ledger.messages WHERE session = p.pk AND seq = ${seq})`,
  state: (cond, tail = '') =>
    `SELECT seq FROM context_ledger.messages, p WHERE session = p.pk AND ${cond}${tail}`,
  settled: `(SELECT seq FROM context_ledger.messages WHERE session = p.pk AND kept AND NOT recheck
    ORDER BY seq LIMIT 1)`,
  keptAt: `(SELECT seq FROM context_ledger.messages
          WHERE session = s.pk AND kept ORDER BY seq OFFSET $13::int LIMIT 1)`,
  existing: (series) => `SELECT m.seq FROM p CROSS JOIN LATERAL unnest(${series}) AS g(seq)
    JOIN context_ledger.messages m ON m.session = p.pk AND m.seq = g.seq`,
  uidsExist: 'SELECT 1 FROM context_ledger.messages m WHERE m.session = p.pk AND m.uid = ANY($8::text[])',
  get refRow() {
    return `
  SELECT m.seq, m.repeat_of FROM context_ledger.messages m, p WHERE m.session = p.pk AND (
    m.seq = $11::int OR m.uid = $12::text OR m.seq = (
      SELECT CASE WHEN $13::int < coalesce(s.kept_count, 0) THEN ${this.keptAt}
        ELSE s.boundary + $13::int - coalesce(s.kept_count, 0) - (s.summary IS NOT NULL)::int END FROM s))`
  },
  repeats: (root) => `(SELECT seq FROM context_ledger.messages
    WHERE session = p.pk AND repeat_of = ${root} OFFSET 0)`,
  uidRows:
    'SELECT m.seq FROM context_ledger.messages m, p WHERE m.session = p.pk AND m.uid = ANY($8::text[])',
  calls: (columns, where) =>
    `(SELECT ${columns} FROM context_ledger.tool_calls WHERE session = p.pk AND ${where} OFFSET 0)`,
  openCalls: `SELECT c.id, c.tool_use_id, c.name, c.use_seq, c.result_seq, c.status FROM p
    JOIN context_ledger.tool_calls c ON c.session = p.pk AND c.result_seq IS NULL`,
  row: (seq, columns, extra = '') =>
    `(SELECT ${columns} FROM context_ledger.messages WHERE session = p.pk AND seq = ${seq}${extra} OFFSET 0)`,
  rowFields: '',
  summaryFields: '',
  lineageColumn: 'NULL::json',
  firstDefault: 's.kept_first',
  scopeAll: '',
  loBound: '',
  forkCalls: '',
  newPk: '',
  forkColumns: `,
  NULL::int AS fork_at, NULL::int AS full_n, NULL::int AS clock, NULL::int AS depth,
  NULL::text[] AS taken, NULL::text AS parent_id, NULL::json AS subtree, NULL::int AS free_k`,
}
