/**
 * `planWindow`: the window rules over an in-memory array, with no database. It runs the same decision
 * as the store, so a caller (or a test) can predict exactly what `applyWindow()` will keep.
 */
import { hasPinFlag } from '../messages/pin-flag.js'
import { estimateTokens, countTokens, type TokenCounter } from '../messages/tokens.js'
import type { MessageData } from '../messages/types.js'
import { ArrayLedgerView, type WindowState } from './array-view.js'
import { planCut, type ReduceMode, type WindowPlan } from './plan-cut.js'
import { resolveWindowLimits, type WindowLimitOptions } from './window-options.js'

/** Options for {@link planWindow}. */
export interface PlanWindowOptions extends WindowLimitOptions {
  /** Window state before this step; default: nothing evicted yet (`{ boundary: 0, kept: [] }`). */
  state?: WindowState | undefined
  /** `apply` (default) enforces the limits; `overflow` must evict something. */
  mode?: ReduceMode | undefined
  /** Token count of each message; computed with `tokenCounter` when omitted. */
  tokens?: readonly number[] | undefined
  /** Counter used when `tokens` is omitted; the default estimator otherwise. */
  tokenCounter?: TokenCounter | undefined
  /** Which messages are pinned; read from `metadata.custom.pinned` when omitted. */
  pinned?: readonly boolean[] | undefined
  /**
   * Token count the window shows for each message when it shows a replacement (e.g. truncated tool
   * results), `undefined` for the others; the window counts these instead of `tokens`.
   */
  windowTokens?: readonly (number | undefined)[]
}

/** The planned window: the decision plus the messages it keeps. */
export interface PlannedWindow extends WindowPlan {
  /**
   * Indices into the input array of the messages in the window, ascending (a summary the state holds
   * sits between the kept ones and the tail; it is not among them).
   */
  readonly indices: readonly number[]
  /** The messages of the input in the window, in order (without the summary). */
  readonly messages: readonly MessageData[]
  /** The state to pass as `state` to the next call. */
  readonly state: WindowState
}

/**
 * Computes the window for a conversation held in memory, with the same rules as the store.
 *
 * @param messages - the whole conversation, oldest first
 * @param options - window limits, protection, current state and mode
 * @returns the new boundary, the kept messages and the window itself
 * @throws ContextLedgerError `INVALID_OPTIONS` for bad limits
 *
 * @example
 * ```ts
 * const plan = planWindow(messages, { windowSize: 2 })
 * plan.messages // what the model sees: here the last user message, the only trim point that fits
 * // The next call starts from the previous state, as the store does from its boundary:
 * const next = planWindow([...messages, reply], { windowSize: 2, state: plan.state })
 * ```
 */
export function planWindow(messages: readonly MessageData[], options: PlanWindowOptions = {}): PlannedWindow {
  const { state, mode, tokens, tokenCounter, pinned, windowTokens, ...limitOptions } = options
  const limits = resolveWindowLimits(limitOptions)
  const counts = tokens ?? messages.map((m) => countTokens(tokenCounter ?? estimateTokens, m))
  const pins = pinned ?? messages.map(hasPinFlag)
  const before = state ?? { boundary: 0, kept: [] }
  const view = new ArrayLedgerView(messages, counts, pins, before, windowTokens)
  const { plan, changes } = planCut(view, limits, mode ?? 'apply')
  const released = new Set(changes.release)
  const kept = [
    ...new Set([
      ...before.kept.filter((s) => s >= 0 && s < before.boundary && s < messages.length && !released.has(s)),
      ...changes.keep.map((k) => k.seq),
    ]),
  ].sort((a, b) => a - b)
  const indices = [...kept]
  for (let i = plan.boundary; i < messages.length; i++) indices.push(i)
  const summaryTokens = plan.summaryEvicted ? undefined : before.summaryTokens
  return {
    ...plan,
    kept,
    indices,
    messages: indices.map((i) => messages[i] as MessageData),
    state: { boundary: plan.boundary, kept, ...(summaryTokens === undefined ? {} : { summaryTokens }) },
  }
}
