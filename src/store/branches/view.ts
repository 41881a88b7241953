/**
 * One branch's rows as the store's statements return them (docs/design.md, "Branches"): each seq read
 * from the session that owns it, and an inherited row's window state taken from the branch's own
 * `branch_rows` (not in the window, unpinned, not kept, shown as its owner shows it, without one).
 */
import type { BranchRow, BranchStatements } from '../../db/branch-statements.js'
import type { FlagsRow, MessageRow, Statements } from '../../db/statements.js'
import { piecesOf, segmentOf, type Lineage, type Segment } from './lineage.js'

/** What a fact-range question asks of one row at a cut (a row whose cut flags the lineage holds). */
export type CutTest = (flags: FlagsRow, cut: { trim: boolean; pair: boolean }) => boolean

/** A branch's rows, read in the current transaction. */
export class BranchView {
  /**
   * @param base - the prepared statements of the store
   * @param br - the prepared branch statements
   * @param lineage - the branch's lineage
   */
  constructor(
    readonly base: Statements,
    readonly br: BranchStatements,
    readonly lineage: Lineage,
  ) {}

  /** The branch's pk. */
  get pk(): number {
    return this.lineage.pk
  }

  /** The first seq the branch owns itself. */
  get ownFrom(): number {
    return (this.lineage.forkSeq ?? -1) + 1
  }

  /** Whether `seq` is one of the branch's own rows (or past its end). */
  own(seq: number): boolean {
    return seq >= this.ownFrom
  }

  /** The part holding `seq` (the branch's own for a seq past the end). */
  segment(seq: number): Segment | undefined {
    return segmentOf(this.lineage, seq)
  }

  /** The session owning `seq`, or undefined for a negative seq. */
  ownerOf(seq: number): number | undefined {
    return this.segment(seq)?.owner
  }

  /** The branch's rows on `seqs` (those it has), by seq. */
  rowsOf(seqs: readonly number[]): Map<number, BranchRow> {
    const inherited = seqs.filter((s) => !this.own(s))
    const out = new Map<number, BranchRow>()
    if (inherited.length === 0) return out
    for (const r of this.br.branchRowsOf.all({ s: this.pk, seqs: JSON.stringify(inherited) }))
      out.set(r.seq, r)
    return out
  }

  /** The branch's rows in `[from, to)`, by seq. */
  rowsIn(from: number, to: number): Map<number, BranchRow> {
    const out = new Map<number, BranchRow>()
    const end = Math.min(to, this.ownFrom)
    if (from >= end) return out
    for (const r of this.br.branchRowsIn.all(this.pk, from, end)) out.set(r.seq, r)
    return out
  }

  /**
   * A message row as the branch sees it: an inherited one with the branch's pin, kept mark and window
   * form (its own row's when it has one).
   */
  patch<R extends MessageRow>(row: R, rows?: ReadonlyMap<number, BranchRow>): R {
    if (this.own(row.seq)) return row
    const b = rows === undefined ? this.rowsOf([row.seq]).get(row.seq) : rows.get(row.seq)
    if (b === undefined) return { ...row, pinned: 0, kept: 0 }
    return {
      ...row,
      pinned: b.pinned,
      kept: b.kept,
      window_body: b.window_body,
      window_tokens: b.window_tokens,
    }
  }

  /** The message at `seq`, as the branch sees it. */
  messageAt(seq: number): MessageRow | undefined {
    const owner = this.ownerOf(seq)
    if (owner === undefined) return undefined
    const row = this.base.messageBySeq.get(owner, seq)
    return row === undefined ? undefined : this.patch(row)
  }

  /** The message with trackingId `uid` in the branch's conversation. */
  messageByUid(uid: string): MessageRow | undefined {
    const parts = this.lineage.segments
    for (let i = parts.length - 1; i >= 0; i--) {
      const s = parts[i]
      if (s === undefined) continue
      const row = this.base.messageByUid.get(s.owner, uid)
      if (row !== undefined && row.seq >= s.lo && row.seq <= s.hi) return this.patch(row)
    }
    return undefined
  }

  /** The conversation from `fromSeq` on, at most `limit` rows, as the branch sees them. */
  history(fromSeq: number, limit: number): MessageRow[] {
    const out: MessageRow[] = []
    for (const p of piecesOf(this.lineage, Math.max(0, fromSeq), Infinity)) {
      if (out.length >= limit) break
      const rows = this.base.history
        .all(p.segment.owner, p.from, limit - out.length)
        .filter((r) => r.seq < p.to)
      const mine = p.segment.owner === this.pk ? undefined : this.rowsIn(p.from, p.to)
      for (const r of rows) out.push(mine === undefined ? r : this.patch(r, mine))
    }
    return out
  }

  /** The newest `limit` rows, newest first. */
  newest(limit: number): MessageRow[] {
    const out: MessageRow[] = []
    const parts = piecesOf(this.lineage, 0, Infinity).reverse()
    for (const p of parts) {
      if (out.length >= limit) break
      const need = limit - out.length
      const hi = p.segment.hi === Infinity ? Number.MAX_SAFE_INTEGER : p.segment.hi
      const from = Math.max(p.from, hi - need + 1)
      const rows = this.history(from, hi - from + 1).filter((r) => r.seq <= hi)
      out.push(...rows.reverse().slice(0, need))
    }
    return out
  }

  /** The flags of the row at `seq`, with the branch's pin and kept mark. */
  flagsAt(seq: number): FlagsRow | undefined {
    const owner = this.ownerOf(seq)
    if (owner === undefined) return undefined
    const f = this.base.flagsBySeq.get(owner, seq)
    if (f === undefined || this.own(seq)) return f
    const b = this.rowsOf([seq]).get(seq)
    return { ...f, pinned: b?.pinned ?? 0, kept: b?.kept ?? 0 }
  }

  /**
   * The first (or last) seq in `[from, to)` that a fact-range statement finds, asked of each owner for its
   * part; a row where one part ends and the next begins is tested with the lineage's cut flags instead.
   *
   * @param from - the first seq
   * @param to - the seq after the last
   * @param last - the last one instead of the first
   * @param ask - the statement over one owner's rows in `[a, b)`
   * @param test - the same question of a cut row
   */
  findIn(
    from: number,
    to: number,
    last: boolean,
    ask: (owner: number, a: number, b: number) => number | undefined,
    test: CutTest,
  ): number | undefined {
    const pieces = piecesOf(this.lineage, from, to)
    if (last) pieces.reverse()
    for (const p of pieces) {
      const end = p.to - 1
      const cut = p.to === p.segment.hi + 1 ? this.lineage.cuts.get(end) : undefined
      const atCut = (): boolean => {
        if (cut === undefined) return false
        const f = this.base.flagsBySeq.get(p.segment.owner, end)
        return f !== undefined && test(f, cut)
      }
      const b = cut === undefined ? p.to : end
      if (last && atCut()) return end
      const found = p.from < b ? ask(p.segment.owner, p.from, b) : undefined
      if (found !== undefined) return found
      if (!last && atCut()) return end
    }
    return undefined
  }
}
