/**
 * A branch's lineage (docs/design.md, "Branches"): which session owns each seq of its conversation. The
 * conversation is the root's rows up to the first fork point, then each descendant's own rows up to the
 * next fork point on the way down, then the branch's own rows. A fork of a fork at a seq the parent only
 * inherited makes the parent's part empty; empty parts are left out.
 */
import type { LineageRow } from '../../db/branch-statements.js'

/** The seqs `[lo, hi]` (inclusive) of a branch's conversation that `owner`'s message rows hold. */
export interface Segment {
  /** The session owning the rows. */
  readonly owner: number
  /** The first seq. */
  readonly lo: number
  /** The last seq (`Infinity` for the branch's own part). */
  readonly hi: number
  /** The owner's depth below the branch (0: the branch itself). */
  readonly depth: number
}

/** What a branch inherits from one ancestor's logs: entries about seqs up to `maxSeq`, written up to `maxVersion`. */
export interface LogCut {
  /** The ancestor. */
  readonly pk: number
  /** The last seq of the conversation it gives the branch. */
  readonly maxSeq: number
  /** The last log clock it inherits: below every fork clock on the way down to the branch. */
  readonly maxVersion: number
}

/** A session's lineage, read in the current transaction. */
export interface Lineage {
  /** The session. */
  readonly pk: number
  /** Its fork point (null for a root). */
  readonly forkSeq: number | null
  /** Its fork clock (`sessions.fork_version`; null for a root). */
  readonly forkVersion: number | null
  /** Its conversation's parts, oldest first; the last is its own (`hi` = Infinity). */
  readonly segments: readonly Segment[]
  /** The cut flags of each seq where one part ends and the next begins, as this session sees them. */
  readonly cuts: ReadonlyMap<number, { readonly trim: boolean; readonly pair: boolean }>
  /** Its ancestors' logs as far as it inherits them, nearest first. */
  readonly logs: readonly LogCut[]
  /** The sessions of the lineage, itself first. */
  readonly pks: readonly number[]
}

/**
 * Builds a lineage from its rows.
 *
 * @param rows - the session and its ancestors, itself first (the `lineage` statement)
 * @returns the lineage
 */
export function lineageOf(rows: readonly LineageRow[]): Lineage {
  const self = rows[0]
  if (self === undefined) throw new Error('lineage of a session that does not exist')
  const segments: Segment[] = []
  const cuts = new Map<number, { trim: boolean; pair: boolean }>()
  const logs: LogCut[] = []
  let limit = Infinity
  // The earliest fork clock on the way down: an entry of an ancestor is inherited when older than it.
  let clock = Infinity
  let first = true
  for (const r of rows) {
    const lo = r.parent === null || r.fork_seq === null ? 0 : r.fork_seq + 1
    if (lo <= limit) segments.unshift({ owner: r.pk, lo, hi: limit, depth: r.depth })
    if (!first) logs.push({ pk: r.pk, maxSeq: limit, maxVersion: clock - 1 })
    first = false
    if (r.parent !== null) clock = Math.min(clock, r.fork_version ?? 0)
    if (r.fork_seq !== null && r.parent !== null) {
      // The nearest session forked at a seq decides its flags: the row after it is that session's. A fork
      // point past what the sessions below inherit is no seq of this conversation.
      if (r.fork_seq <= limit && !cuts.has(r.fork_seq))
        cuts.set(r.fork_seq, { trim: r.fork_trim_point === 1, pair: r.fork_pair_start === 1 })
      limit = Math.min(limit, r.fork_seq)
    }
  }
  return {
    pk: self.pk,
    forkSeq: self.parent === null ? null : self.fork_seq,
    forkVersion: self.parent === null ? null : self.fork_version,
    segments,
    cuts,
    logs,
    pks: rows.map((r) => r.pk),
  }
}

/**
 * The part of the conversation holding `seq`.
 *
 * @param lineage - the lineage
 * @param seq - a seq of the conversation
 * @returns its part, or undefined for a negative seq
 */
export function segmentOf(lineage: Lineage, seq: number): Segment | undefined {
  const parts = lineage.segments
  for (let i = parts.length - 1; i >= 0; i--) {
    const s = parts[i]
    if (s !== undefined && seq >= s.lo && seq <= s.hi) return s
  }
  return undefined
}

/**
 * The parts of `[from, to)` each owner holds, oldest first.
 *
 * @param lineage - the lineage
 * @param from - the first seq
 * @param to - the seq after the last
 * @returns `{ segment, from, to }` per non-empty part
 */
export function piecesOf(
  lineage: Lineage,
  from: number,
  to: number,
): { segment: Segment; from: number; to: number }[] {
  const out: { segment: Segment; from: number; to: number }[] = []
  for (const s of lineage.segments) {
    const a = Math.max(from, s.lo)
    const b = Math.min(to, s.hi + 1)
    if (a < b) out.push({ segment: s, from: a, to: b })
  }
  return out
}

/**
 * Whether `seq` is the last seq of a part followed by another one (its cut flags are the lineage's).
 *
 * @param lineage - the lineage
 * @param seq - a seq
 * @returns the flags when it is such a seq
 */
export function cutAt(lineage: Lineage, seq: number): { trim: boolean; pair: boolean } | undefined {
  return lineage.cuts.get(seq)
}
