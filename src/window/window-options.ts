/**
 * Window configuration: parsing, defaults and the typed error for bad values. Strands' shorthand
 * `protectedMessageRange` (positive = first N, negative = last N) is accepted beside the object form.
 */
import { z } from 'zod'
import { ContextLedgerError } from '../errors.js'
import { formatPath } from '../messages/json-snapshot.js'

/** Which messages are always in the window, besides pins. */
export interface ProtectedMessages {
  /** The first N messages of the session. Default 0. */
  first?: number
  /** The last N messages of the session. Default 0. */
  last?: number
}

/** How big the window may be. */
export interface WindowLimitOptions {
  /** Maximum number of messages in the window. Default 40, as in Strands. */
  windowSize?: number | undefined
  /** Maximum total tokens in the window; no limit when omitted. */
  tokenBudget?: number | undefined
  /** Ranges that are always in the window. */
  protectedMessages?: ProtectedMessages | undefined
  /** Strands' shorthand: `N` protects the first N messages, `-N` the last N. */
  protectedMessageRange?: number | undefined
  /**
   * Cut in chunks: when the window is over `windowSize` or `tokenBudget`, bring it down to this share of
   * them (in (0, 1)), so the turns that follow append without moving the window's start and a provider's
   * prompt cache keeps hitting. Off (1) by default, as in Strands, whose window moves every turn once full.
   */
  lowWaterMark?: number | undefined
}

/** Resolved, validated window limits. */
export interface WindowLimits {
  /** Maximum messages in the window (≥ 1). */
  readonly windowSize: number
  /** Maximum tokens in the window, or undefined for none. */
  readonly tokenBudget: number | undefined
  /** Protected head length. */
  readonly first: number
  /** Protected tail length. */
  readonly last: number
  /** The share of the limits an over-limit window is brought down to (1: just under them). */
  readonly lowWaterMark?: number | undefined
}

/** Default number of messages in the window, matching Strands' sliding window. */
export const DEFAULT_WINDOW_SIZE = 40

const count = z.number().int().nonnegative()
const limitSchema = z.strictObject({
  windowSize: z.number().int().positive().optional(),
  tokenBudget: z.number().int().positive().optional(),
  protectedMessages: z.strictObject({ first: count.optional(), last: count.optional() }).optional(),
  protectedMessageRange: z.number().int().optional(),
  lowWaterMark: z.number().gt(0, 'expected a share in (0, 1)').lt(1, 'expected a share in (0, 1)').optional(),
})

/**
 * The `INVALID_OPTIONS` error for the first problem zod found, naming the option (also as `path`; an
 * unknown option is named by its own key).
 *
 * @param error - the zod error
 * @param what - what was being configured, e.g. `PersistentConversationManager`
 * @returns the error to throw
 */
export function optionsError(error: z.ZodError, what: string): ContextLedgerError<'INVALID_OPTIONS'> {
  const issue = error.issues[0]
  const unknown = issue?.code === 'unrecognized_keys' ? issue.keys : []
  const path = [...(issue?.path ?? []), ...unknown.slice(0, 1)]
  const where = path.length === 0 ? '(options)' : formatPath(path)
  const detail =
    unknown.length > 0 ? `unknown option(s) ${unknown.map((k) => `"${k}"`).join(', ')}` : issue?.message
  return new ContextLedgerError('INVALID_OPTIONS', `Invalid ${what} options at ${where}: ${detail}`, {
    cause: error,
    path: where,
  })
}

/**
 * Validates window options and applies defaults.
 *
 * @param options - the caller's window options (unknown keys are refused)
 * @returns frozen limits
 * @throws ContextLedgerError `INVALID_OPTIONS`
 */
export function resolveWindowLimits(options: WindowLimitOptions): WindowLimits {
  const parsed = limitSchema.safeParse(options)
  if (!parsed.success) throw optionsError(parsed.error, 'window')
  const o = parsed.data
  if (o.protectedMessages !== undefined && o.protectedMessageRange !== undefined)
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      'Invalid window options at protectedMessageRange: give either protectedMessages or protectedMessageRange, not both',
      { path: 'protectedMessageRange' },
    )
  const range = o.protectedMessageRange ?? 0
  return Object.freeze({
    windowSize: o.windowSize ?? DEFAULT_WINDOW_SIZE,
    tokenBudget: o.tokenBudget,
    first: o.protectedMessages?.first ?? (range > 0 ? range : 0),
    last: o.protectedMessages?.last ?? (range < 0 ? -range : 0),
    ...(o.lowWaterMark === undefined ? {} : { lowWaterMark: o.lowWaterMark }),
  })
}
