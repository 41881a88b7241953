/**
 * The window rules about the limits (docs/design.md, "Window rules" 4 and 5, "The newest turn always
 * stays"), checked against what one `applyWindow()` / `reduce()` returned: the window is bounded but for
 * what must stay, `exceedsLimit` and `protectedExceedsLimit` tell the truth, and an overflow reduction
 * makes progress whenever a valid cut could. They hold right after such a step, not between appends, so
 * `context-ledger check` does not run them; the property tests do after every step
 * (`test/helpers/window-rules.ts`), with the rules of every moment (`window-rules.ts`) first.
 */
import type { WindowResult } from '../store/store-types.js'
import type { WindowLimits } from '../window/window-options.js'
import { isTrimPointAt, requiredSet, withLead, type MessageShape } from './archive-facts.js'
import { problemList, type WindowRuleProblem } from './window-rules.js'

/** One step of a run: what the store shows after it, and what it returned. */
export interface StepFacts {
  /** The session. */
  readonly sessionId: string
  /** The archive's messages, by seq. */
  readonly shapes: readonly MessageShape[]
  /** Each message's tokens as the window counts them, by seq. */
  readonly tokens: readonly number[]
  /** The window's archived seqs the caller computed (its reference), ascending. */
  readonly expectedSeqs: readonly number[]
  /** The window's archived seqs the store shows, ascending. */
  readonly windowSeqs: readonly number[]
  /** The protected seqs, derived from the archive. */
  readonly protectedSeqs: ReadonlySet<number>
  /** The boundary after the step. */
  readonly boundary: number
  /** The limits of the step. */
  readonly limits: WindowLimits
  /** What the step returned, when it was an `applyWindow()` or `reduce()`. */
  readonly result?: WindowResult | undefined
  /** `'apply'` or `'overflow'`. */
  readonly mode?: 'apply' | 'overflow' | undefined
  /** The tokens of the summary the window shows after the step, if it shows one. */
  readonly summaryTokens?: number | undefined
}

/**
 * The rules about the limits after one step.
 *
 * @param c - the step
 * @returns every problem (none when all hold)
 */
export function checkStepRules(c: StepFacts): WindowRuleProblem[] {
  const { problems, fail } = problemList(c.sessionId)
  if (JSON.stringify(c.windowSeqs) !== JSON.stringify(c.expectedSeqs))
    fail('window as computed', `window() ${c.windowSeqs.join(',')}, expected ${c.expectedSeqs.join(',')}`)
  const r = c.result
  if (r === undefined) return problems
  const shown = c.summaryTokens === undefined ? 0 : 1
  const windowCount = c.expectedSeqs.length + shown
  const windowTokens = c.expectedSeqs.reduce((a, s) => a + (c.tokens[s] ?? 0), c.summaryTokens ?? 0)
  if (r.windowMessages !== windowCount)
    fail('result windowMessages', `${r.windowMessages} for a window of ${windowCount}`)
  if (r.windowTokens !== windowTokens)
    fail('result windowTokens', `${r.windowTokens} for a window of ${windowTokens} tokens`)
  const exceeds = windowCount > c.limits.windowSize || windowTokens > (c.limits.tokenBudget ?? Infinity)
  if (r.exceedsLimit !== exceeds) fail('result exceedsLimit', `says ${r.exceedsLimit}, is ${exceeds}`)
  // What may break a limit: what must stay (the protected set with its validity lead, a call in flight
  // with a user message before it) and the newest turn — from the latest trim point on.
  const required = requiredSet(c.shapes, c.protectedSeqs)
  let newest = -1
  for (let s = c.shapes.length - 1; s >= 0 && newest < 0; s--) if (isTrimPointAt(c.shapes, s)) newest = s
  const beyond: (number | string)[] = c.expectedSeqs.filter(
    (s) => !required.has(s) && (newest < 0 || s < newest),
  )
  if (shown === 1) beyond.push('the summary')
  // Bounded: the budget is a hard limit for everything else.
  if (
    c.limits.tokenBudget !== undefined &&
    (c.mode === 'apply' || r.evicted > 0) &&
    windowTokens > c.limits.tokenBudget &&
    beyond.length > 0
  )
    fail('bounded by tokenBudget', `seqs ${beyond.join(',')} are neither protected nor the newest turn`)
  // The message count may exceed windowSize only by one anchor (Strands' tool-pair anchor, or the newest
  // turn's opening kept before the boundary), when the turn has no trim point, or by what must stay.
  const anchor = r.cut === 'tool-pair' || (newest >= 0 && newest < c.boundary) ? 1 : 0
  if (
    c.mode === 'apply' &&
    r.reason !== 'no-valid-cut' &&
    r.cut !== 'latest-trim-point' &&
    !r.protectedExceedsLimit &&
    windowCount > c.limits.windowSize + anchor &&
    beyond.length > 0
  )
    fail('bounded by windowSize', `seqs ${beyond.join(',')} are neither protected nor the newest turn`)
  // protectedExceedsLimit says exactly whether what must stay alone breaks a limit.
  const requiredTokens = [...required].reduce((a, s) => a + (c.tokens[s] ?? 0), 0)
  const protectedExceeds =
    required.size > c.limits.windowSize || requiredTokens > (c.limits.tokenBudget ?? Infinity)
  if (r.protectedExceedsLimit !== protectedExceeds)
    fail('result protectedExceedsLimit', `says ${r.protectedExceedsLimit}, is ${protectedExceeds}`)
  return problems
}

/**
 * Progress: an overflow reduction that evicted nothing must have had no valid cut that removes an
 * unprotected message — no trim point after an unprotected message of the window.
 *
 * @param c - the step, with the window and the boundary before it
 * @returns the problem, if any
 */
export function checkProgress(
  c: Pick<StepFacts, 'sessionId' | 'shapes' | 'protectedSeqs' | 'result'> & {
    readonly before: readonly number[]
    readonly boundaryBefore: number
  },
): WindowRuleProblem[] {
  const { problems, fail } = problemList(c.sessionId)
  if (c.result === undefined || c.result.evicted > 0) return problems
  const prot = withLead(c.shapes, c.protectedSeqs)
  const unprotected = c.before.filter((s) => !prot.has(s))
  if (unprotected.length === 0) return problems
  const firstUnprotected = Math.min(...unprotected)
  for (let t = Math.max(c.boundaryBefore, firstUnprotected + 1); t < c.shapes.length; t++)
    if (isTrimPointAt(c.shapes, t)) {
      fail('progress', `trim point ${t} would have let unprotected ${firstUnprotected} go`)
      break
    }
  return problems
}
