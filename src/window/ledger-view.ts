/**
 * The questions the window rules ask of a session's ledger. The SQL store answers them with index
 * seeks; the pure reference answers them from an array. Keeping the rules behind this interface means
 * both paths run the same decision code and differ only in how they look things up.
 *
 * No question here returns something that grows with the archive or with the number of pins: the rows
 * kept before the boundary are summarized by a count and a token total, and the planner asks only about
 * the rows it must re-derive (see {@link LedgerView.protectionScope}), the tail, and a few single rows.
 */

/** What the planner needs to know about one message. */
export interface RowFacts {
  /** Its seq. */
  readonly seq: number
  /** Before the boundary and kept in the window. */
  readonly kept: boolean
  /** Kept, and its protection must be re-derived by the next plan (see {@link LedgerView.protectionScope}). */
  readonly recheck: boolean
  /** Pinned. */
  readonly pinned: boolean
  /** The tokens the window counts for it: its replacement's when the window shows one, its own otherwise. */
  readonly windowTokens: number
}

/** A message whose window replacement counts differently from the original. */
export interface TokenCorrection {
  /** Its seq. */
  readonly seq: number
  /** Window tokens minus original tokens (negative when the replacement is smaller). */
  readonly delta: number
}

/** The rows before the boundary whose protection a plan must work out again. */
export interface ProtectionScope {
  /**
   * Rows to re-derive: kept rows whose protection is not settled (recorded as such when they were kept
   * or when an unpin may have taken it away), plus — when the kept set is not known to match the
   * protected ranges asked for — every kept row and every row of the first-N range before the boundary.
   */
  readonly candidates: readonly number[]
  /** The earliest kept row that is not a candidate (its protection is settled), if any. */
  readonly settledFirst: number | undefined
  /** True when `candidates` covers every kept row (nothing is settled). */
  readonly complete: boolean
}

/** Read access to one session's ledger and window state, as the window rules need it. */
export interface LedgerView {
  /** Number of messages in the session (the next seq). */
  readonly count: number
  /** Sum of every message's original tokens. */
  readonly totalTokens: number
  /** First seq of the window's tail. */
  readonly boundary: number
  /** Whether the newest message is an assistant toolUse still waiting for its result (a call in flight). */
  readonly endsInToolUse: boolean
  /** Number of rows kept before the boundary. */
  readonly keptCount: number
  /** Window tokens of the rows kept before the boundary. */
  readonly keptTokens: number
  /**
   * The tokens of the summary the window shows between the kept rows and the tail, or undefined when it
   * shows none. It stays while the boundary stays; a cut that moves the boundary (or that leaves only what
   * must stay) takes it out of the window.
   */
  readonly summaryTokens: number | undefined
  /**
   * The kept rows whose protection must be re-derived, for protected ranges starting with `first`.
   *
   * @param first - the first-N range of the limits in force
   */
  protectionScope(first: number): ProtectionScope
  /** The first `limit` kept rows, ascending. */
  firstKept(limit: number): number[]
  /** Facts about each of `seqs` (seqs past the end are left out), in ascending seq order. */
  facts(seqs: readonly number[]): RowFacts[]
  /** Pinned seqs in `[from, to)`, ascending. */
  pinnedIn(from: number, to: number): number[]
  /** Tool-call links `[useSeq, resultSeq]` with either end in `seqs`. */
  links(seqs: readonly number[]): [number, number][]
  /** Seqs outside `[lo, hi)` linked by a tool call to a message inside it. */
  crossingPartners(lo: number, hi: number): number[]
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
  /** Last assistant toolUse in `[from, to)` answered by the next message. */
  lastPairStart(from: number, to: number): number | undefined
  /**
   * First message in `[from, to)` a summary may be followed by: one with no toolResult, and, when it holds
   * a toolUse, answered by the next message (Strands' `adjustSplitPointForToolPairs`).
   */
  firstSplitPoint(from: number, to: number): number | undefined
  /** Sum of the original tokens of every message before `seq`. */
  tokensBefore(seq: number): number
  /** Messages in `[from, to)` whose window replacement counts differently, ascending. */
  corrections(from: number, to: number): TokenCorrection[]
}
