/**
 * The eviction log's part of a rewind (docs/design.md, "Branches"; `branches/rewind.ts` calls it). The
 * rows about the messages that left moved with them to the abandoned branch (`moveEvictions`); what is
 * left is made to hold for both sessions:
 *
 * - the rewound session's window is restricted and may show again seqs it had evicted (its boundary moves
 *   back): its rows about them go, as a dropped summary's do, a run reaching into the window ends before
 *   it, and a fold into a summary that moved with the messages goes (the summary is not the session's);
 * - the abandoned branch, which holds the session's window as it was, keeps those rows as its own (it
 *   reads the session's remaining rows through its lineage — or, for a branch rewound before its own
 *   fork point, which leaves the abandoned branch under the old parent, keeps them all), and its version
 *   is at least that of the rows it now holds;
 * - once the session's window is made valid, one row records the rewind ({@link recordRewind}):
 *   `[toSeq + 1, last]`, cut and reason `'rewind'`, naming the abandoned branch.
 */
import type { BranchStatements } from '../db/branch-statements.js'
import type { Statements } from '../db/statements.js'

/** What the rewind's log rows depend on. */
export interface RewoundLog {
  /** The rewound session. */
  readonly session: number
  /** The abandoned branch. */
  readonly abandoned: number
  /** The last seq that stays. */
  readonly toSeq: number
  /** The first seq of the session's tail once its window is restricted. */
  readonly tailFrom: number
  /** Whether the session was a branch rewound to before its fork point (the abandoned branch does not inherit from it). */
  readonly beforeFork: boolean
}

/**
 * Splits the rewound session's eviction log between it and the abandoned branch, once the rows have
 * moved and the session's window is restricted (its tail starts at `tailFrom`), before it is planned
 * again with its limits.
 *
 * @param br - the branch statements, inside the rewind's write transaction
 * @param r - the rewind
 */
export function splitRewoundLog(br: BranchStatements, r: RewoundLog): void {
  const p = { s: r.session, a: r.abandoned, to: r.toSeq, from: r.tailFrom, before: r.beforeFork ? 1 : 0 }
  br.copyRewoundRows.run(p)
  br.dropRewoundRows.run(p)
  br.clipRewoundRows.run(p)
  br.raiseVersion.run({ s: r.session, a: r.abandoned })
}

/**
 * Writes the row of a rewind in the rewound session's log, in the rewind's transaction, once its window
 * is made valid (the row carries the session's version then).
 *
 * @param st - the connection's statements
 * @param pk - the rewound session's key
 * @param left - the seqs that left the conversation, `[from, to]` inclusive
 * @param abandoned - the abandoned branch's session key, which holds them now
 * @param at - when (ms)
 */
export function recordRewind(
  st: Statements,
  pk: number,
  left: readonly [number, number],
  abandoned: number,
  at: number,
): void {
  st.insertEviction.run(left[1], left[0], at, 'rewind', 'rewind', abandoned, pk)
}
