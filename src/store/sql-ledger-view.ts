/**
 * The window rules' questions answered by index seeks on one session. Created inside a write
 * transaction, so every answer comes from the same snapshot; nothing is cached across transactions.
 * Nothing here reads every kept row or every pin on the steady path: the kept rows are the session's
 * count and token total, plus the few rows marked for a recheck.
 */
import type { SessionRow, Statements } from '../db/statements.js'
import type { LedgerView, ProtectionScope, RowFacts, TokenCorrection } from '../window/ledger-view.js'
import { keptTotals } from './lookup.js'

/** A {@link LedgerView} over one session's rows. */
export class SqlLedgerView implements LedgerView {
  readonly count: number
  readonly totalTokens: number
  readonly boundary: number
  readonly endsInToolUse: boolean
  readonly keptCount: number
  readonly keptTokens: number
  readonly summaryTokens: number | undefined
  private readonly pk: number
  private readonly keptFirst: number | null
  private readonly totalsKnown: boolean

  /**
   * @param st - prepared statements of the store
   * @param session - the session row, read in the current transaction
   */
  constructor(
    private readonly st: Statements,
    session: SessionRow,
  ) {
    this.pk = session.pk
    this.count = session.message_count
    this.totalTokens = session.total_tokens
    this.boundary = session.boundary
    this.keptFirst = session.kept_first
    this.summaryTokens = session.summary === null ? undefined : (session.summary_tokens ?? 0)
    this.totalsKnown = session.kept_count !== null && session.kept_tokens !== null
    // A session from before the totals were recorded: count once; the plan writes them back.
    const totals = keptTotals(st, session)
    this.keptCount = totals.count
    this.keptTokens = totals.tokens
    const last = this.count === 0 ? undefined : st.flagsBySeq.get(this.pk, this.count - 1)
    this.endsInToolUse = last !== undefined && last.role === 'assistant' && last.has_tool_use === 1
  }

  /**
   * The marked kept rows; every kept row (and the first-N range before the boundary) when the marks
   * were derived for another first-N range or never recorded.
   */
  protectionScope(first: number): ProtectionScope {
    if (this.totalsKnown && this.keptFirst === first) {
      const candidates = this.st.recheckSeqs.all(this.pk)
      const settledFirst = this.st.firstSettled.get(this.pk)
      return { candidates, settledFirst, complete: false }
    }
    const candidates = this.st.keptSeqs.all(this.pk)
    for (let s = 0; s < Math.min(first, this.boundary); s++) candidates.push(s)
    return { candidates, settledFirst: undefined, complete: true }
  }
  firstKept(limit: number): number[] {
    return this.st.firstKept.all(this.pk, limit)
  }
  facts(seqs: readonly number[]): RowFacts[] {
    if (seqs.length === 0) return []
    const rows = this.st.factsOfSeqs.all({ s: this.pk, seqs: JSON.stringify(seqs) })
    return rows
      .sort((a, b) => a.seq - b.seq)
      .map((r) => ({
        seq: r.seq,
        kept: r.kept === 1 && r.seq < this.boundary,
        recheck: r.recheck === 1,
        pinned: r.pinned === 1,
        windowTokens: r.window_tokens,
      }))
  }
  pinnedIn(from: number, to: number): number[] {
    return this.st.pinnedIn.all(this.pk, from, to)
  }
  links(seqs: readonly number[]): [number, number][] {
    if (seqs.length === 0) return []
    const args = { s: this.pk, seqs: JSON.stringify(seqs) }
    const out = new Map<string, [number, number]>()
    for (const st of [this.st.linksOfUses, this.st.linksOfResults])
      for (const r of st.all(args)) out.set(`${r.use_seq},${r.result_seq}`, [r.use_seq, r.result_seq])
    return [...out.values()]
  }
  crossingPartners(lo: number, hi: number): number[] {
    return [
      ...new Set([
        ...this.st.crossingResults.all(this.pk, lo, hi, lo, hi),
        ...this.st.crossingUses.all(this.pk, lo, hi, lo, hi),
      ]),
    ]
  }
  isTrimPoint(seq: number): boolean {
    return this.st.firstTrimPoint.get(this.pk, seq, seq + 1) !== undefined
  }
  isPlainUser(seq: number): boolean {
    return this.st.lastPlainUser.get(this.pk, seq, seq + 1) !== undefined
  }
  firstTrimPoint(from: number, to: number): number | undefined {
    return this.st.firstTrimPoint.get(this.pk, from, to)
  }
  lastTrimPoint(from: number, to: number, plainOnly: boolean): number | undefined {
    const st = plainOnly ? this.st.lastPlainUser : this.st.lastTrimPoint
    return st.get(this.pk, from, to)
  }
  firstPlainUser(from: number): number | undefined {
    return this.st.firstPlainUser.get(this.pk, from)
  }
  firstPairStart(from: number, to: number): number | undefined {
    return this.st.firstPairStart.get(this.pk, from, to)
  }
  lastPairStart(from: number, to: number): number | undefined {
    return this.st.lastPairStart.get(this.pk, from, to)
  }
  firstSplitPoint(from: number, to: number): number | undefined {
    return this.st.firstSplitPoint.get(this.pk, from, to)
  }
  tokensBefore(seq: number): number {
    if (seq <= 0) return 0
    if (seq >= this.count) return this.totalTokens
    return this.st.cumAt.get(this.pk, seq - 1) ?? 0
  }
  corrections(from: number, to: number): TokenCorrection[] {
    return this.st.corrections.all(this.pk, from, to).filter((c) => c.delta !== 0)
  }
}
