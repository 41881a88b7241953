/**
 * The part of the write-back (`flush.ts`) a rewind adds (docs/design.md, "Branches"; the SQLite store's
 * `src/store/branches/rewind.ts`, `abandon`): the abandoned branch's row, with the window the session had;
 * its state on the rows it now inherits from the session, copied from the session's as read (this
 * statement's snapshot: before the session's own changes in the same statement); the session's rows after
 * the point moved to it, with their calls, log entries, evictions and summaries — moved, not copied: the
 * cost is the rows rewound — and the branches forked after the point re-parented to it.
 *
 * Every part is gated on the abandoned branch's insert, itself gated on the session's guard (`ok`). The
 * sessions below the session are checked under their row locks first: one whose revision moved since the
 * read (a fork below it, a write of it) aborts the statement whole (`write_conflict()`, SQLSTATE 40001),
 * and the store reads again. Re-parented branches and everything below them have their revisions moved,
 * so a writer of one that read the old lineage writes nothing and reads again.
 */
import { LOG_CLOCK, tickClock } from './flush-branch.js'
import type { Slice } from './slice.js'

/** The first parameter number of this part (after `flush-branch.ts`'s). */
const FIRST = 133

/** `$n` of this part's k-th parameter (0-based). */
const $ = (k: number, type: string): string => `$${FIRST + k}::${type}`

const A = $(0, 'int')
const TO = $(1, 'int')
const BEFORE = $(2, 'boolean')
/** The first seq of the session's tail once its window is restricted (`tailFrom` on SQLite). */
const FROM = $(26, 'int')
/** An eviction-log row `x` of the session folds into a summary that moves to the abandoned branch. */
const MOVED_FOLD = `(x.cut = 'fold' AND x.summary IN (SELECT y.id FROM context_ledger.summaries y
  WHERE y.session = ok.pk AND (y.to_boundary > ${TO} + 1 OR ${BEFORE})))`

/** The rewind's CTEs, after `ok`. */
export const REWIND_CTES = `rw_locked AS (
  SELECT x.pk, x.revision FROM context_ledger.sessions x WHERE x.pk = ANY(${$(3, 'int[]')}) FOR UPDATE
),
rw_checked AS (
  SELECT CASE WHEN (SELECT count(*) FROM rw_locked l JOIN unnest(${$(3, 'int[]')}, ${$(4, 'bigint[]')}) AS u(pk, rev)
      ON l.pk = u.pk AND l.revision = u.rev) <> cardinality(${$(3, 'int[]')})
    THEN context_ledger.write_conflict() ELSE 1 END AS fine
),
${tickClock(
  'rw_tick',
  `${$(19, 'int')} IS NULL AND ${A} IS NOT NULL AND EXISTS (SELECT 1 FROM ok)
    AND (SELECT fine FROM rw_checked) = 1`,
)},
rw_a AS (
  INSERT INTO context_ledger.sessions (pk, id, created_at, updated_at, metadata, boundary, version, kept_count,
    kept_tokens, kept_first, summary, limits, format, revision, parent, fork_seq, kind, forked_at, fork_actor,
    fork_reason, fork_version, fork_tokens, fork_trim_point, fork_pair_start, fork_summary)
  SELECT ${A}, ${$(5, 'text')}, ${$(6, 'bigint')}, ${$(6, 'bigint')}, ${$(7, 'text')}, ${$(8, 'int')}, ${$(27, 'int')},
    ${$(9, 'int')}, ${$(10, 'int')}, ${$(11, 'int')}, ${$(12, 'int')}, ${$(13, 'text')}, ${$(14, 'text')}, 1,
    ${$(15, 'int')}, ${$(16, 'int')}, 'abandoned', ${$(6, 'bigint')}, ${$(17, 'text')}, ${$(18, 'text')},
    coalesce(${$(19, 'int')}, (SELECT log_clock FROM rw_tick)), ${$(20, 'bigint')}, ${$(21, 'boolean')}, ${$(22, 'boolean')},
    ${$(23, 'int')}
  FROM ok WHERE ${A} IS NOT NULL AND (SELECT fine FROM rw_checked) = 1
  RETURNING pk
),
rw_own_kept AS (
  INSERT INTO context_ledger.branch_rows (session, seq, owner, pinned, kept, recheck, window_body, window_tokens)
  SELECT rw_a.pk, m.seq, ok.pk, m.pinned, true, m.recheck, m.window_body, m.window_tokens
  FROM rw_a CROSS JOIN ok JOIN context_ledger.messages m ON m.session = ok.pk AND m.kept
  WHERE NOT ${BEFORE} AND m.seq >= ${$(24, 'int')} AND m.seq < ${$(8, 'int')} AND m.seq <= ${TO}
),
rw_own_tail AS (
  INSERT INTO context_ledger.branch_rows (session, seq, owner, pinned, kept, recheck, window_body, window_tokens)
  SELECT rw_a.pk, m.seq, ok.pk, m.pinned, false, false, m.window_body, m.window_tokens
  FROM rw_a CROSS JOIN ok JOIN context_ledger.messages m ON m.session = ok.pk
    AND m.seq >= greatest(${$(8, 'int')}, ${$(24, 'int')}) AND m.seq <= ${TO}
  WHERE NOT ${BEFORE}
),
rw_branch_rows AS (
  INSERT INTO context_ledger.branch_rows (session, seq, owner, pinned, kept, recheck, window_body, window_tokens)
  SELECT rw_a.pk, o.seq, o.owner, o.pinned, o.kept AND o.seq < ${$(8, 'int')},
    o.recheck AND o.kept AND o.seq < ${$(8, 'int')}, o.window_body, o.window_tokens
  FROM rw_a CROSS JOIN ok JOIN context_ledger.branch_rows o ON o.session = ok.pk
  JOIN context_ledger.messages m ON m.session = o.owner AND m.seq = o.seq
  WHERE ${$(24, 'int')} > 0 AND o.seq <= ${$(25, 'int')} AND (o.kept AND o.seq < ${$(8, 'int')} OR o.seq >= ${$(8, 'int')}
    OR o.window_body IS DISTINCT FROM m.window_body OR o.window_tokens IS DISTINCT FROM m.window_tokens)
  ON CONFLICT (session, seq) DO NOTHING
),
rw_messages AS (
  UPDATE context_ledger.messages m SET session = rw_a.pk FROM rw_a, ok WHERE m.session = ok.pk AND m.seq > ${TO}
),
rw_calls AS (
  UPDATE context_ledger.tool_calls c SET session = rw_a.pk FROM rw_a, ok
  WHERE c.session = ok.pk AND c.use_seq > CASE WHEN ${BEFORE} THEN -1 ELSE ${TO} END
),
rw_answered AS (
  INSERT INTO context_ledger.tool_calls (session, tool_use_id, name, use_seq, result_seq, status)
  SELECT rw_a.pk, c.tool_use_id, c.name, c.use_seq, c.result_seq, c.status
  FROM rw_a CROSS JOIN ok JOIN context_ledger.tool_calls c ON c.session = ok.pk
  WHERE NOT ${BEFORE} AND c.result_seq > ${TO} AND c.use_seq <= ${TO} ORDER BY c.id
),
rw_pins AS (
  UPDATE context_ledger.pin_events e SET session = rw_a.pk FROM rw_a, ok WHERE e.session = ok.pk AND e.seq > ${TO}
),
rw_edits AS (
  UPDATE context_ledger.message_edits e SET session = rw_a.pk FROM rw_a, ok WHERE e.session = ok.pk AND e.seq > ${TO}
),
rw_pins_kept AS (
  INSERT INTO context_ledger.pin_events (session, seq, action, actor, reason, at, version)
  SELECT rw_a.pk, e.seq, e.action, e.actor, e.reason, e.at, e.version
  FROM rw_a CROSS JOIN ok JOIN context_ledger.pin_events e ON e.session = ok.pk
  WHERE ${BEFORE} AND e.seq <= ${TO} ORDER BY e.id
),
rw_edits_kept AS (
  INSERT INTO context_ledger.message_edits (session, seq, kind, actor, reason, at, body, version)
  SELECT rw_a.pk, e.seq, e.kind, e.actor, e.reason, e.at, e.body, e.version
  FROM rw_a CROSS JOIN ok JOIN context_ledger.message_edits e ON e.session = ok.pk
  WHERE ${BEFORE} AND e.seq <= ${TO} ORDER BY e.id
),
rw_dropped_rows AS (
  DELETE FROM context_ledger.branch_rows o USING rw_a, ok WHERE ${BEFORE} AND o.session = ok.pk AND o.seq > ${TO}
),
rw_evictions AS (
  UPDATE context_ledger.eviction_log x SET session = rw_a.pk FROM rw_a, ok
  WHERE x.session = ok.pk AND x.from_seq > ${TO}
),
-- The rest of the session's log is split as SQLite's \`store/rewind-log.ts\` does: the abandoned branch keeps
-- as its own what it can no longer read through the session (all of it, rewound before the fork point;
-- else the folds into a summary that moves and the parts of runs the session's window shows again), the
-- session loses those rows and a run reaching into its window again ends before it.
rw_ev_copied AS (
  INSERT INTO context_ledger.eviction_log (session, to_seq, version, from_seq, at, cut, reason, summary, clock)
  SELECT rw_a.pk, x.to_seq, x.version,
    CASE WHEN ${BEFORE} OR ${MOVED_FOLD} THEN x.from_seq ELSE greatest(x.from_seq, ${FROM}) END,
    x.at, x.cut, x.reason, x.summary, x.clock
  FROM rw_a CROSS JOIN ok JOIN context_ledger.eviction_log x ON x.session = ok.pk
  WHERE x.from_seq <= ${TO} AND x.cut <> 'rewind' AND (${BEFORE} OR x.to_seq >= ${FROM} OR ${MOVED_FOLD})
),
rw_ev_dropped AS (
  DELETE FROM context_ledger.eviction_log x USING rw_a, ok
  WHERE x.session = ok.pk AND x.from_seq <= ${TO} AND x.cut <> 'rewind' AND (x.from_seq >= ${FROM} OR ${MOVED_FOLD})
),
rw_ev_clipped AS (
  UPDATE context_ledger.eviction_log x SET to_seq = ${FROM} - 1 FROM rw_a, ok
  WHERE x.session = ok.pk AND x.cut <> 'rewind' AND x.from_seq < ${FROM} AND x.to_seq >= ${FROM}
    AND NOT ${MOVED_FOLD}
),
-- The rewind's own row: what left, naming the abandoned branch, at the session's version after the rewind.
rw_ev_rewind AS (
  INSERT INTO context_ledger.eviction_log (session, to_seq, version, from_seq, at, cut, reason, summary, clock)
  SELECT ok.pk, ${$(29, 'int')}, ${$(28, 'int')}, ${TO} + 1, ${$(6, 'bigint')}, 'rewind', 'rewind', rw_a.pk,
    ${LOG_CLOCK}
  FROM rw_a CROSS JOIN ok
),
rw_summaries AS (
  UPDATE context_ledger.summaries x SET session = rw_a.pk FROM rw_a, ok
  WHERE x.session = ok.pk AND (x.to_boundary > ${TO} + 1 OR ${BEFORE})
),
rw_reowned AS (
  UPDATE context_ledger.branch_rows o SET owner = rw_a.pk FROM rw_a, ok WHERE o.owner = ok.pk AND o.seq > ${TO}
),
rw_reparented AS (
  UPDATE context_ledger.sessions x SET parent = rw_a.pk, revision = x.revision + 1 FROM rw_a, ok
  WHERE x.parent = ok.pk AND x.fork_seq > ${TO}
  RETURNING x.pk
),
rw_below (pk) AS (
  SELECT x.pk FROM context_ledger.sessions x JOIN ok ON x.parent = ok.pk
  WHERE x.fork_seq > ${TO} AND ${A} IS NOT NULL
  UNION ALL
  SELECT x.pk FROM rw_below b JOIN context_ledger.sessions x ON x.parent = b.pk
),
rw_moved AS (
  UPDATE context_ledger.sessions x SET revision = x.revision + 1 FROM rw_a
  WHERE x.pk IN (SELECT pk FROM rw_below) AND x.pk NOT IN (SELECT pk FROM rw_reparented)
)`

/** What a rewind's write-back needs besides the session's own slice. */
export interface RewindWrite {
  /** The abandoned branch's key, id, and the point the session is rewound to. */
  abandoned: number
  id: string
  to: number
  /** Rewound to before the session's own fork point: the abandoned branch takes its old place. */
  before: boolean
  /** Every session below the session, as read, with its revision (checked under lock). */
  subtree: readonly { pk: number; revision: number }[]
  at: number
  metadata: string | null
  /** The session's window as read: the abandoned branch's. */
  boundary: number
  keptCount: number | null
  keptTokens: number | null
  keptFirst: number | null
  summary: number | null
  limits: string | null
  format: string | null
  parent: number
  forkSeq: number
  actor: string | null
  reason: string | null
  forkVersion: number | null
  forkTokens: number
  trim: boolean
  pair: boolean
  forkSummary: number | null
  /** The session's first own seq as read, and the last seq of its branch rows the abandoned one copies. */
  ownFrom: number
  copyUpTo: number
  /** The first seq of the session's tail once its window is restricted (set by the restriction). */
  tailFrom: number
  /** The session's version as read (the abandoned branch's: its moved log rows carry versions up to it). */
  version: number
  /** The last seq that left. */
  last: number
}

/**
 * The values of this part, in parameter order from `$133` (all null: no rewind).
 *
 * @param slice - the slice, after the operations ran
 * @returns the values
 */
export function rewindFlushValues(slice: Slice): unknown[] {
  const r = slice.rewind
  if (r === undefined) return [null, null, false, [], [], ...Array<null>(25).fill(null)]
  return [
    r.abandoned,
    r.to,
    r.before,
    r.subtree.map((x) => x.pk),
    r.subtree.map((x) => x.revision),
    r.id,
    r.at,
    r.metadata,
    r.boundary,
    r.keptCount,
    r.keptTokens,
    r.keptFirst,
    r.summary,
    r.limits,
    r.format,
    r.parent,
    r.forkSeq,
    r.actor,
    r.reason,
    r.forkVersion,
    r.forkTokens,
    r.trim,
    r.pair,
    r.forkSummary,
    r.ownFrom,
    r.copyUpTo,
    r.tailFrom,
    r.version,
    slice.session?.version ?? r.version,
    r.last,
  ]
}
