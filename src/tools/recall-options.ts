/**
 * The recall handlers' options (`handleSearchHistory`, `handleReadHistory`): checked as every options
 * object of the library is — a plain object (or undefined), known keys, each value in its documented
 * range — so a bad value is `INVALID_OPTIONS` naming it, never a `TypeError` or a silently missing cap.
 */
import { checkKeys, invalidOption } from '../store/check-args.js'
import { describeValue } from '../messages/limits.js'

/** Options of the recall handlers. */
export interface RecallToolOptions {
  /**
   * `read_history`: the most tokens of text one answer holds (default 4,000; an integer from 1 to
   * {@link READ_HISTORY_MAX_TOKENS_LIMIT}).
   */
  readonly maxTokens?: number | undefined
  /** `search_history`: the default number of results (default 8; an integer from 1 to 50). */
  readonly defaultLimit?: number | undefined
}

/** The default token cap of one `read_history` answer. */
export const READ_HISTORY_MAX_TOKENS = 4000

/** The largest `maxTokens` a `read_history` answer may be given: what one read may cost is bounded. */
export const READ_HISTORY_MAX_TOKENS_LIMIT = 1_000_000

/** The most results one `search_history` call lists (its input's `limit`, and `defaultLimit`). */
export const SEARCH_HISTORY_MAX_LIMIT = 50

/** The options, checked, with their defaults. */
export interface CheckedRecallToolOptions {
  /** `read_history`'s token cap. */
  readonly maxTokens: number
  /** `search_history`'s default number of results. */
  readonly defaultLimit: number
}

function integer(value: unknown, field: string, fallback: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > max)
    throw invalidOption(field, `expected an integer from 1 to ${max}, got ${describeValue(value)}`)
  return value
}

/**
 * Checks the recall handlers' options.
 *
 * @param options - what the caller passed (undefined for the defaults)
 * @returns the options with their defaults
 * @throws ContextLedgerError `INVALID_OPTIONS` for a non-object (null, an array …), an unknown key, or a
 *   value out of its range (path `options.maxTokens`, `options.defaultLimit`)
 */
export function checkRecallToolOptions(options: unknown): CheckedRecallToolOptions {
  const o = options === undefined ? {} : checkKeys(options, 'options', ['maxTokens', 'defaultLimit'])
  return {
    maxTokens: integer(
      o.maxTokens,
      'options.maxTokens',
      READ_HISTORY_MAX_TOKENS,
      READ_HISTORY_MAX_TOKENS_LIMIT,
    ),
    defaultLimit: integer(o.defaultLimit, 'options.defaultLimit', 8, SEARCH_HISTORY_MAX_LIMIT),
  }
}
