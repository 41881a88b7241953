/**
 * The parts of the write-back (`flush.ts`) that branches add (docs/design.md, "Branches"), each gated on
 * its parameters so a write that needs none of them (every append, every cut of a trunk) only passes empty
 * arrays:
 *
 * - a branch's state on the rows it inherits, upserted into `branch_rows` whole (pin, kept mark, recheck,
 *   window form: what the slice shows is what the row holds);
 * - a new branch's parent: its row's revision checked and moved, in the same statement that creates the
 *   branch, so a fork never commits on a parent another writer changed meanwhile (a rewind above all);
 * - a change of a row's window form by its owner: the form it had is copied first to every session below
 *   that sees the row without a form of its own (`copyDownWindowBody`);
 * - a redaction or a prune (a changed body): the owner's row is written wherever the row was inherited
 *   from; every other session's form of it goes, sessions that kept it count their kept rows again, and
 *   the edit bodies of every session that sees it are erased. Those sessions' revisions move, so a writer
 *   of one of them that read the old bytes writes nothing and reads again.
 */
import type { Slice } from './slice.js'

/** The first parameter number of this part (after `flush.ts`'s own). */
const FIRST = 101

/**
 * The ledger's log clock, as SQLite's `LOG_CLOCK`: a counter in the one row of `identity` (`log_clock`)
 * that every fork bumps and nothing takes back. Every pin-log and edit-log entry records it; a branch
 * inherits an ancestor's entries recorded below its fork's clock.
 */
export const LOG_CLOCK = '(SELECT log_clock FROM context_ledger.identity WHERE id = 1)'

/**
 * A CTE `name` that bumps the log clock by one when `when` holds and returns its new value (a new
 * branch's `fork_version`). Its row lock holds concurrent forks until the statement's transaction ends.
 *
 * @param name - the CTE's name
 * @param when - the condition (SQL) under which the write makes a branch with a new fork clock
 * @returns the CTE
 */
export function tickClock(name: string, when: string): string {
  return `${name} AS (
  UPDATE context_ledger.identity SET log_clock = log_clock + 1 WHERE id = 1 AND ${when} RETURNING log_clock
)`
}

/** `$n` of this part's k-th parameter (0-based). */
const $ = (k: number, type: string): string => `$${FIRST + k}::${type}`

/** The sessions below each `(seq, owner)` of `pairs` that see that row (children forked at or after it). */
function seeing(name: string, pairs: string): string {
  return `${name} (pk, owner, seq) AS (
  SELECT x.pk, u.owner, u.seq FROM ${pairs} JOIN context_ledger.sessions x
    ON x.parent = u.owner AND x.fork_seq >= u.seq
  UNION ALL
  SELECT x.pk, d.owner, d.seq FROM ${name} d JOIN context_ledger.sessions x ON x.parent = d.pk AND x.fork_seq >= d.seq
)`
}

/** `(seq, owner)` pairs of two array parameters, as a subquery `u` (none unless the first is non-empty). */
const pairs = (seqs: string, owners: string): string =>
  `(SELECT v.seq, v.owner FROM unnest(${seqs}, ${owners}) AS v(seq, owner) WHERE cardinality(${seqs}) > 0) u`

/** The rows whose bytes changed (a redaction, a prune), with their owners. */
const REDACTED = pairs($(14, 'int[]'), $(15, 'int[]'))
/** The rows whose edit bodies are erased (their seqs are `flush.ts`'s `$58`), with their owners. */
const ERASED = pairs('$58::int[]', $(16, 'int[]'))
const WINDOWED = `(SELECT u.seq, ok.pk AS owner FROM ok CROSS JOIN unnest(${$(17, 'int[]')}) AS u(seq)
    WHERE cardinality(${$(17, 'int[]')}) > 0) u`

/**
 * The new branch's parent, checked: its revision still the one read (null parameters: no parent).
 * Referenced by `created` (`flush.ts`), which inserts the branch only if this moved the parent on; then
 * `fork_tick` bumps the log clock for the branch's `fork_version`.
 */
export const PARENT_GUARD = `parent_guard AS (
  UPDATE context_ledger.sessions SET revision = revision + 1
  WHERE pk = ${$(0, 'int')} AND revision = ${$(1, 'bigint')}
  RETURNING pk
),
${tickClock('fork_tick', `${$(0, 'int')} IS NOT NULL AND ${$(7, 'int')} IS NULL AND EXISTS (SELECT 1 FROM parent_guard)`)}`

/** The columns `created` writes for a new branch, and their values (null for a root). */
export const CREATED_BRANCH = {
  columns: `parent, fork_seq, kind, forked_at, fork_actor, fork_reason, fork_version, fork_tokens,
    fork_trim_point, fork_pair_start, fork_summary, fork_summary_ended_at, fork_summary_end_reason`,
  // The inherited summary's end too: a fork not at the parent's newest message applies the parent's
  // limits to the new window, which may let the summary it showed go before the branch is written.
  values: `${$(0, 'int')}, ${$(2, 'int')}, coalesce(${$(3, 'text')}, 'root'), ${$(4, 'bigint')}, ${$(5, 'text')},
    ${$(6, 'text')}, coalesce(${$(7, 'int')}, (SELECT log_clock FROM fork_tick)), ${$(8, 'bigint')}, ${$(9, 'boolean')}, ${$(10, 'boolean')}, ${$(11, 'int')},
    ${$(12, 'bigint')}, ${$(13, 'text')}`,
  /** Whether the parent's guard passed (or there is no parent). */
  gate: `(${$(0, 'int')} IS NULL OR EXISTS (SELECT 1 FROM parent_guard))`,
}

/** What the session's guard also writes: the fork-point flags and the inherited summary's end. */
export const GUARD_BRANCH = `fork_trim_point = ${$(9, 'boolean')}, fork_pair_start = ${$(10, 'boolean')},
    fork_summary = ${$(11, 'int')}, fork_summary_ended_at = ${$(12, 'bigint')},
    fork_summary_end_reason = ${$(13, 'text')}, fork_seq = ${$(30, 'int')}, fork_tokens = ${$(31, 'bigint')}`

/** The CTEs of branches, after `ok` (the session's key when the write goes ahead). */
export const BRANCH_CTES = `${seeing('redacted_seeing', REDACTED)},
${seeing('erased_seeing', ERASED)},
${seeing('windowed_seeing', WINDOWED)},
branch_rows_written AS (
  INSERT INTO context_ledger.branch_rows (session, seq, owner, pinned, kept, recheck, window_body, window_tokens)
  SELECT ok.pk, u.seq, u.owner, u.pinned, u.kept, u.recheck,
    CASE WHEN u.set_form THEN u.window_body WHEN cur.session IS NOT NULL THEN cur.window_body
      WHEN src.session IS NOT NULL THEN src.window_body ELSE m.window_body END,
    CASE WHEN u.set_form THEN u.window_tokens WHEN cur.session IS NOT NULL THEN cur.window_tokens
      WHEN src.session IS NOT NULL THEN src.window_tokens ELSE m.window_tokens END
  FROM ok CROSS JOIN unnest(${$(18, 'int[]')}, ${$(19, 'int[]')}, ${$(20, 'boolean[]')}, ${$(21, 'boolean[]')},
    ${$(22, 'boolean[]')}, ${$(23, 'boolean[]')}, ${$(24, 'text[]')}, ${$(25, 'int[]')})
    AS u(seq, owner, pinned, kept, recheck, set_form, window_body, window_tokens)
  JOIN context_ledger.messages m ON m.session = u.owner AND m.seq = u.seq
  LEFT JOIN context_ledger.branch_rows cur ON cur.session = ok.pk AND cur.seq = u.seq
  LEFT JOIN context_ledger.branch_rows src ON src.session = ${$(0, 'int')} AND src.seq = u.seq
  ON CONFLICT (session, seq) DO UPDATE SET pinned = excluded.pinned, kept = excluded.kept,
    recheck = excluded.recheck, window_body = excluded.window_body, window_tokens = excluded.window_tokens
),
-- A new branch's copies of the forms its parent shows of rows outside the branch's window (an edit the
-- parent made on a row it inherits): the rows of the window are written above.
copied_forms AS (
  INSERT INTO context_ledger.branch_rows (session, seq, owner, pinned, window_body, window_tokens)
  SELECT ok.pk, o.seq, o.owner, o.pinned, o.window_body, o.window_tokens
  FROM ok CROSS JOIN context_ledger.branch_rows o
  JOIN context_ledger.messages m ON m.session = o.owner AND m.seq = o.seq
  WHERE ${$(0, 'int')} IS NOT NULL AND o.session = ${$(0, 'int')} AND o.seq <= ${$(2, 'int')}
    AND (o.window_body IS DISTINCT FROM m.window_body OR o.window_tokens IS DISTINCT FROM m.window_tokens)
    AND o.seq <> ALL(${$(18, 'int[]')})
  ON CONFLICT (session, seq) DO NOTHING
),
inherited_bodies AS (
  UPDATE context_ledger.messages m SET body = u.body, text = u.text, window_body = NULL
  FROM ok CROSS JOIN unnest(${$(26, 'int[]')}, ${$(27, 'int[]')}, ${$(28, 'text[]')}, ${$(29, 'text[]')})
    AS u(seq, owner, body, text)
  WHERE m.session = u.owner AND m.seq = u.seq
),
copied_down AS (
  INSERT INTO context_ledger.branch_rows (session, seq, owner, window_body, window_tokens)
  SELECT d.pk, d.seq, d.owner, m.window_body, m.window_tokens FROM windowed_seeing d
    JOIN context_ledger.messages m ON m.session = d.owner AND m.seq = d.seq
  ON CONFLICT (session, seq) DO NOTHING
),
cleared_forms AS (
  UPDATE context_ledger.branch_rows b SET window_body = NULL, window_tokens = NULL
  FROM ok CROSS JOIN ${REDACTED}
  WHERE b.owner = u.owner AND b.seq = u.seq AND b.session <> ok.pk
),
recounted AS (
  UPDATE context_ledger.sessions x SET revision = x.revision + 1,
    kept_count = CASE WHEN k.kept THEN NULL ELSE x.kept_count END,
    kept_tokens = CASE WHEN k.kept THEN NULL ELSE x.kept_tokens END
  FROM ok, (SELECT y.pk, bool_or(coalesce(b.kept, false)) AS kept FROM (
      SELECT pk, owner, seq FROM redacted_seeing
      UNION SELECT u.owner, u.owner, u.seq FROM ${REDACTED}) y
    LEFT JOIN context_ledger.branch_rows b ON b.session = y.pk AND b.owner = y.owner AND b.seq = y.seq
    GROUP BY y.pk) k
  WHERE x.pk = k.pk AND x.pk <> ok.pk
),
erased_edits AS (
  UPDATE context_ledger.message_edits e SET body = NULL
  FROM ok, (SELECT pk, seq FROM erased_seeing UNION SELECT u.owner, u.seq FROM ${ERASED}) d
  WHERE e.session = d.pk AND e.seq = d.seq AND e.body IS NOT NULL
)`

/** The fork a slice creates, if it does: what `created` writes and the parent it checks. */
export interface NewBranchRow {
  parent: number
  parentRevision: number
  forkSeq: number
  kind: 'fork' | 'abandoned'
  at: number
  actor: string | null
  reason: string | null
  /** The fork clock; null: one more than the ledger's log clock when written. */
  forkVersion: number | null
  forkTokens: number
}

/**
 * The values of this part for what a slice changed, in parameter order from `$103`.
 *
 * @param slice - the slice, after the operations ran
 * @returns the values
 */
export function branchFlushValues(slice: Slice): unknown[] {
  const s = slice.session
  const f = slice.fork
  const col = (n: number): unknown[][] => Array.from({ length: n }, () => [])
  const redacted = col(2)
  const inheritedBodies = col(4)
  const state = col(8)
  const windowed: number[] = []
  for (const [seq, cols] of [...slice.changed].sort((a, c) => a[0] - c[0])) {
    const r = slice.row(seq, 'write')
    const owner = r.owner ?? s?.pk
    if (cols.has('body')) {
      ;[seq, owner].forEach((x, i) => redacted[i]?.push(x))
      if (r.owner !== undefined)
        [seq, r.owner, r.body, r.text ?? null].forEach((x, i) => inheritedBodies[i]?.push(x))
    } else if (r.owner === undefined && (cols.has('window_body') || cols.has('window_tokens')))
      windowed.push(seq)
    if (r.owner !== undefined) {
      // The row's form is written only when this write set it (else it stays, or starts as its source's).
      const form = cols.has('window_body') || cols.has('window_tokens')
      const values = [
        seq,
        r.owner,
        r.pinned === 1,
        r.kept === 1,
        r.recheck === 1,
        form,
        form ? (r.window_body ?? null) : null,
        form ? r.window_tokens : null,
      ]
      values.forEach((x, i) => state[i]?.push(x))
    }
  }
  // The owners of the rows whose edit bodies are erased, in the order `flush.ts` sends their seqs ($58).
  const erased = [...slice.erasedEdits].map((seq) => slice.rows.get(seq)?.owner ?? s?.pk)
  return [
    f?.parent ?? null,
    f?.parentRevision ?? null,
    f?.forkSeq ?? null,
    f?.kind ?? null,
    f?.at ?? null,
    f?.actor ?? null,
    f?.reason ?? null,
    f?.forkVersion ?? null,
    f?.forkTokens ?? null,
    s?.fork_trim_point ?? null,
    s?.fork_pair_start ?? null,
    s?.fork_summary ?? null,
    s?.fork_summary_ended_at ?? null,
    s?.fork_summary_end_reason ?? null,
    ...redacted,
    erased,
    windowed,
    ...state,
    ...inheritedBodies,
    // The fork point, which a rewind to before it moves back ($131, $132).
    s?.fork_seq ?? null,
    s?.fork_tokens ?? null,
  ]
}
