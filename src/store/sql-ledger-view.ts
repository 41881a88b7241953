/**
 * The window rules' questions answered by index seeks on one session. Created inside a write
 * transaction, so every answer comes from the same snapshot; nothing is cached across transactions.
 */
import type { SessionRow, Statements } from '../db/statements.js'
import type { LedgerView } from '../window/ledger-view.js'

const pluckNumbers = (rows: unknown[]): number[] => rows as number[]

/** A {@link LedgerView} over one session's rows. */
export class SqlLedgerView implements LedgerView {
  readonly count: number
  readonly totalTokens: number
  readonly boundary: number
  readonly kept: readonly number[]
  readonly endsInToolUse: boolean
  private readonly pk: number

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
    this.kept = pluckNumbers(st.keptSeqs.all(this.pk)).filter((s) => s < this.boundary)
    const last =
      this.count === 0
        ? undefined
        : (st.flagsBySeq.get(this.pk, this.count - 1) as { role: string; has_tool_use: number } | undefined)
    this.endsInToolUse = last !== undefined && last.role === 'assistant' && last.has_tool_use === 1
  }

  pinned(): number[] {
    return pluckNumbers(this.st.pinnedSeqs.all(this.pk))
  }
  partners(seqs: readonly number[]): number[] {
    if (seqs.length === 0) return []
    const args = { s: this.pk, seqs: JSON.stringify(seqs) }
    return [
      ...new Set([
        ...pluckNumbers(this.st.resultsOfUses.all(args)),
        ...pluckNumbers(this.st.usesOfResults.all(args)),
      ]),
    ]
  }
  crossingPartners(lo: number, hi: number): number[] {
    return [
      ...new Set([
        ...pluckNumbers(this.st.crossingResults.all(this.pk, lo, hi, lo, hi)),
        ...pluckNumbers(this.st.crossingUses.all(this.pk, lo, hi, lo, hi)),
      ]),
    ]
  }
  tokensOf(seqs: readonly number[]): number[] {
    if (seqs.length === 0) return []
    return pluckNumbers(this.st.tokensOfSeqs.all({ s: this.pk, seqs: JSON.stringify(seqs) }))
  }
  isTrimPoint(seq: number): boolean {
    return this.st.firstTrimPoint.get(this.pk, seq, seq + 1) !== undefined
  }
  isPlainUser(seq: number): boolean {
    return this.st.lastPlainUser.get(this.pk, seq, seq + 1) !== undefined
  }
  firstTrimPoint(from: number, to: number): number | undefined {
    return this.st.firstTrimPoint.get(this.pk, from, to) as number | undefined
  }
  lastTrimPoint(from: number, to: number, plainOnly: boolean): number | undefined {
    const st = plainOnly ? this.st.lastPlainUser : this.st.lastTrimPoint
    return st.get(this.pk, from, to) as number | undefined
  }
  firstPlainUser(from: number): number | undefined {
    return this.st.firstPlainUser.get(this.pk, from) as number | undefined
  }
  firstPairStart(from: number, to: number): number | undefined {
    return this.st.firstPairStart.get(this.pk, from, to) as number | undefined
  }
  /**
   * `cum_tokens` only grows with seq, so the answer is found by galloping back from the newest message
   * and then bisecting: O(log distance) point lookups. A budget cut lands near the window, so the
   * distance is about the window's length however long the archive is — and no index on `cum_tokens`
   * has to be written on every append.
   */
  seekCumulative(tokens: number): number | undefined {
    if (this.count === 0 || this.totalTokens < tokens) return undefined
    const cum = (seq: number): number => this.st.cumAt.get(this.pk, seq) as number
    // Invariant: cum(hi) >= tokens; every seq < lo has cum < tokens.
    let hi = this.count - 1
    let lo = 0
    for (let step = 1; hi > 0; step *= 2) {
      const probe = Math.max(0, hi - step)
      if (cum(probe) < tokens) {
        lo = probe + 1
        break
      }
      hi = probe
    }
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cum(mid) >= tokens) hi = mid
      else lo = mid + 1
    }
    return hi
  }
  tokensBefore(seq: number): number {
    if (seq <= 0) return 0
    if (seq >= this.count) return this.totalTokens
    return this.st.cumAt.get(this.pk, seq - 1) as number
  }
}
