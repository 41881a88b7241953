/**
 * What a window plan says: how the boundary moved, what stays before it, and why nothing was evicted
 * when nothing was. The planner (`plan-cut.ts`) decides it; the SQL store and `planWindow` report it.
 */
import type { KeptChanges } from './kept-changes.js'

/** `apply` enforces the limits; `overflow` must make progress because the model refused the input. */
export type ReduceMode = 'apply' | 'overflow'

/** How the new boundary was chosen. */
export type CutKind =
  /** The first valid trim point at or after the required start (the normal case). */
  | 'trim-point'
  /** Strands' fallback: a toolUse/toolResult pair, with a plain user message kept as the anchor. */
  | 'tool-pair'
  /** No trim point after the start: the latest one before it (Strands would have given up). */
  | 'latest-trim-point'
  /**
   * The limits cannot be met: everything goes but the protected messages and the newest turn (its
   * minimal valid form).
   */
  | 'newest-turn'
  /** The session has no message that can open a window: everything unprotected goes. */
  | 'protected-only'
  /** The boundary stays; messages kept before it that are no longer protected leave. */
  | 'released'
  /** Only the summary leaves the window: everything else in it must stay. */
  | 'summary'
  /** The oldest part of the window was folded into a new summary (see `planFold`). */
  | 'fold'

/** Why nothing was evicted. */
export type NothingEvictedReason =
  /** The window already fits its limits (only for `apply`). */
  | 'within-limits'
  /** Every message in the window is protected. */
  | 'all-protected'
  /** What is left besides protected messages is the newest turn in its minimal form, which always stays. */
  | 'newest-turn'
  /** No cut point exists that keeps the window valid for a provider. */
  | 'no-valid-cut'
  /** A fold by ratio found nothing to fold: the window is not longer than the messages it must preserve. */
  | 'too-few-messages'

/** The decided window state. */
export interface WindowPlan {
  /** The new boundary: first seq of the tail. Never smaller than the old one. */
  readonly boundary: number
  /** Seqs before the new boundary that stay in the window, ascending. */
  readonly kept: readonly number[]
  /**
   * Messages of the archive that were in the window before and are not now (a summary leaving is
   * `summaryEvicted`; messages folded into a new summary count here too).
   */
  readonly evicted: number
  /** Whether the summary the window showed left it (a cut moved the boundary, or only it could go). */
  readonly summaryEvicted: boolean
  /** Messages that were not in the window before and are now (newly protected ones). */
  readonly restored: number
  /** Messages in the new window, its summary included. */
  readonly windowMessages: number
  /**
   * Tokens in the new window, counting what it shows (a window replacement with its own count, the
   * summary with its own).
   */
  readonly windowTokens: number
  /** How the boundary was chosen; undefined when it did not move. */
  readonly cut: CutKind | undefined
  /** Set when nothing was evicted. */
  readonly reason: NothingEvictedReason | undefined
  /** True when the protected messages alone exceed `windowSize` or `tokenBudget`. */
  readonly protectedExceedsLimit: boolean
  /**
   * True when the new window exceeds `windowSize` or `tokenBudget` — because the protected messages or
   * the newest turn alone do (they always stay), or by the one anchor message the tool-pair fallback
   * keeps, or by a current turn with no trim point.
   */
  readonly exceedsLimit: boolean
  /** Number of protected messages (pins, ranges, their tool partners, and a validity lead). */
  readonly protectedCount: number
}

/** A plan with the changes to the kept rows, for whoever applies it. */
export interface CutDecision {
  /** What the caller sees (`kept` is filled in by whoever holds the whole kept set). */
  readonly plan: Omit<WindowPlan, 'kept'>
  /** How the kept rows change. */
  readonly changes: KeptChanges
  /**
   * For a fold: the messages of the archive it takes out of the window, ascending — kept rows that lost
   * their protection, then the unprotected rows between the old boundary and the new one.
   */
  readonly folded?: readonly number[]
}

/**
 * What part of the window a fold takes into a new summary (the summary the window shows, if any, always
 * goes into it, with every kept row that lost its protection).
 * - `ratio`: Strands' `SummarizingConversationManager`: the oldest `max(1, ⌊len × ratio⌋)` window messages,
 *   at most `len − preserve`, moved forward past tool results and calls whose result does not follow;
 * - `excess`: what must leave for the window, with the new summary counted as one message of
 *   `reserveTokens`, to fit `windowSize` and `tokenBudget` (a low-water mark passes smaller ones);
 * - `before`: every window message before `seq`, moved forward like `ratio`'s split when a summary cannot
 *   be followed by that message (a compaction the caller made stands for exactly what precedes it).
 */
export type FoldRequest =
  | { readonly kind: 'ratio'; readonly ratio: number; readonly preserve: number }
  | { readonly kind: 'before'; readonly seq: number }
  | {
      readonly kind: 'excess'
      readonly windowSize: number
      readonly tokenBudget: number | undefined
      readonly reserveTokens: number
    }
