/**
 * A session's lineage in SQL (docs/design.md, "Branches"; the rule of `src/store/branches/lineage.ts`), for
 * the reads that answer a branch in one statement: the session and its ancestors, one recursive walk of
 * `sessions` (depth + 1 rows, an index seek each). Each row says which seqs of the session's conversation
 * that session's message rows hold (`lo`…`hi`; empty when `lo > hi`), and which of its log entries the
 * session inherits: those about seqs up to `hi` written before `clock` (the earliest fork clock on the way
 * down; the session itself, depth 0, inherits all of its own).
 */

/** The largest seq: the session's own part of its conversation reaches it. */
export const SEQ_END = 2147483647

/**
 * The lineage of the session whose key is `pk` (an SQL expression: a column of an outer query, as a
 * LATERAL subquery, or a parameter), as a subquery with columns `owner`, `depth`, `parent`, `fork_seq`,
 * `trim`, `pair` (the fork point's cut flags as the session forked there sees them), `lo`, `hi` and
 * `clock`.
 *
 * @param pk - the session's key
 * @returns the subquery, in parentheses
 */
export function lineageOf(pk: string): string {
  return `(WITH RECURSIVE up (pk, parent, fork_seq, fork_version, trim, pair, depth) AS (
    SELECT x.pk, x.parent, x.fork_seq, x.fork_version, x.fork_trim_point, x.fork_pair_start, 0
      FROM context_ledger.sessions x WHERE x.pk = ${pk}
    UNION ALL
    SELECT x.pk, x.parent, x.fork_seq, x.fork_version, x.fork_trim_point, x.fork_pair_start, up.depth + 1
      FROM up JOIN context_ledger.sessions x ON x.pk = up.parent WHERE up.depth < 100000)
  SELECT pk AS owner, depth, parent, fork_seq, trim, pair,
    CASE WHEN parent IS NULL THEN 0 ELSE fork_seq + 1 END AS lo,
    coalesce(min(CASE WHEN parent IS NOT NULL THEN fork_seq END) OVER w, ${SEQ_END}) AS hi,
    coalesce(min(CASE WHEN parent IS NOT NULL THEN coalesce(fork_version, 0) END) OVER w, ${SEQ_END}) AS clock
  FROM up WINDOW w AS (ORDER BY depth ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING))`
}

/** Whether a log entry `e` of lineage session `l` is the session's: its own, or an ancestor's from before. */
export const INHERITED_ENTRY = `(l.depth = 0 OR (e.seq <= l.hi AND coalesce(e.version, 0) < l.clock))`

/**
 * The conversation's row at `seq` for the session whose lineage is the CTE `lin` (`owner`, `lo`, `hi`), as a
 * subquery of `columns` of the owner's message row `mm`.
 *
 * @param seq - the seq expression
 * @param columns - the columns, of `mm`
 * @returns the subquery, in parentheses
 */
export function conversationRow(seq: string, columns: string): string {
  return `(SELECT ${columns} FROM lin g JOIN context_ledger.messages mm ON mm.session = g.owner AND mm.seq = ${seq}
    WHERE ${seq} BETWEEN g.lo AND g.hi AND g.lo <= g.hi LIMIT 1)`
}
