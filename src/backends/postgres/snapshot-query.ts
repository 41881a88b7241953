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

import { BRANCH } from './snapshot-branch.js'
import { snapshotSql } from './snapshot-sql.js'
import { TRUNK } from './snapshot-trunk.js'

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
  /** Read the session to fork it at this seq, or at the message with this trackingId (branch statement only). */
  readonly forkSeq: number | null
  readonly forkUid: string | null
  /** Session ids to look up: which of them exist (branch statement only). */
  readonly probe: readonly string[]
  /** Read the revisions of every session below (a rewind re-parents some; branch statement only). */
  readonly subtree: boolean
  /** Find the first k ≥ 1 with no session `${freeBase}~${k}` (a rewind's default id; branch statement only). */
  readonly freeBase: string | null
}

/**
 * The parameters as bound values, in the order the SQL numbers them.
 *
 * @param p - the parameters
 * @param branch - for the branch statement (which takes three more)
 * @returns the values
 */
export function snapshotValues(p: SnapshotParams, branch: boolean): unknown[] {
  const forking = branch ? [p.forkSeq, p.forkUid, p.probe, p.subtree, p.freeBase] : []
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
    ...forking,
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
  /** A branch's conversation, part by part (null for a trunk). */
  lineage: { owner: number; lo: number; hi: number }[] | null
  /** Forking (branch statement): the fork point found, the session's whole length, the log clock. */
  fork_at: number | null
  full_n: number | null
  clock: number | null
  /** How far below its root the session is (branch statement). */
  depth: number | null
  /** The probed session ids that exist (branch statement; null for the trunk's). */
  taken: string[] | null
  /** The session's parent's id (branch statement). */
  parent_id: string | null
  /** Every session below, with its revision (when asked). */
  subtree: { pk: number; revision: number }[] | null
  /** The first free `~k` (when asked). */
  free_k: number | null
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
  /** The parent's pk (null for a root), the last seq inherited and the kind (docs/design.md, "Branches"). */
  parent: number | null
  fork_seq: number | null
  kind: 'root' | 'fork' | 'abandoned'
  /** The parent's version at the fork (null for a root). */
  fork_version: number | null
  /** The cut flags of the fork-point row as the branch sees them. */
  fork_trim_point: boolean | null
  fork_pair_start: boolean | null
  /** The ancestor's summary the branch showed at its fork, and when and why it left its window. */
  fork_summary: number | null
  fork_summary_ended_at: number | null
  fork_summary_end_reason: 'replaced' | 'regenerated' | 'dropped' | 'evicted' | null
  /** The token sum through the fork point; when, by whom and why it was forked. */
  fork_tokens: number | null
  forked_at: number | null
  fork_actor: string | null
  fork_reason: string | null
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
  /** The session whose message row it is: absent on a trunk (its own), an ancestor's pk for an inherited row. */
  owner?: number
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
  /** The session that wrote it: read on a branch only (an ancestor's, for an inherited summary). */
  session?: number
}

/** The snapshot query of a session that is no branch: its own rows (`snapshot-trunk.ts`). */
export const SNAPSHOT_SQL = snapshotSql(TRUNK)

/** The snapshot query of a branch: its conversation through its lineage (`snapshot-branch.ts`). */
export const BRANCH_SNAPSHOT_SQL = snapshotSql(BRANCH)
