/**
 * The questions the window rules ask of a session's ledger. The SQL store answers them with index
 * seeks; the pure reference answers them from an array. Keeping the rules behind this interface means
 * both paths run the same decision code and differ only in how they look things up.
 */

/** Read access to one session's ledger and window state, as the window rules need it. */
export interface LedgerView {
  /** Number of messages in the session (the next seq). */
  readonly count: number
  /** Sum of every message's tokens. */
  readonly totalTokens: number
  /** First seq of the window's tail. */
  readonly boundary: number
  /** Seqs before the boundary that are still in the window, ascending. */
  readonly kept: readonly number[]
  /** Whether the newest message is an assistant toolUse still waiting for its result (a call in flight). */
  readonly endsInToolUse: boolean
  /** Seqs of pinned messages, ascending. */
  pinned(): number[]
  /** Seqs linked by a tool call (either direction) to any of `seqs`. */
  partners(seqs: readonly number[]): number[]
  /** Seqs outside `[lo, hi)` linked by a tool call to a message inside it. */
  crossingPartners(lo: number, hi: number): number[]
  /** Tokens of each seq, in the same order. */
  tokensOf(seqs: readonly number[]): number[]
  /** Whether the message at `seq` is a valid window start. */
  isTrimPoint(seq: number): boolean
  /** Whether the message at `seq` is a plain user message (no tool blocks). */
  isPlainUser(seq: number): boolean
  /** First trim point in `[from, to)`. */
  firstTrimPoint(from: number, to: number): number | undefined
  /** Last trim point in `[from, to)`; with `plainOnly`, the last plain user message there. */
  lastTrimPoint(from: number, to: number, plainOnly: boolean): number | undefined
  /** First plain user message at or after `from`. */
  firstPlainUser(from: number): number | undefined
  /** First assistant toolUse in `[from, to)` answered by the next message. */
  firstPairStart(from: number, to: number): number | undefined
  /** Smallest seq whose inclusive token prefix sum is at least `tokens`. */
  seekCumulative(tokens: number): number | undefined
  /** Sum of the tokens of every message before `seq`. */
  tokensBefore(seq: number): number
}
