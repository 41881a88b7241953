/**
 * One error class for everything the library refuses. Callers branch on `code`, a string literal that
 * stays stable across releases; `message` says what was expected, what arrived, and where; `cause`
 * keeps the underlying error (a SQLite error, a zod issue list) when there is one.
 */

/** Every code a {@link ContextLedgerError} can carry. */
export const ERROR_CODES = [
  'INVALID_MESSAGE',
  'INVALID_OPTIONS',
  'INVALID_TOKEN_COUNT',
  'MESSAGE_NOT_FOUND',
  'DUPLICATE_MESSAGE',
  'MESSAGE_OUT_OF_ORDER',
  'SCHEMA_TOO_NEW',
  'SCHEMA_TOO_OLD',
  'NOT_A_LEDGER',
  'FILE_NOT_FOUND',
  'READ_ONLY',
  'STORAGE_FULL',
  'STORAGE_ERROR',
  'DATABASE_BUSY',
  'STORE_CLOSED',
  'NO_VALID_SPLIT',
  'CORRUPT_DATABASE',
  'SUMMARY_NOT_FOUND',
  'SUMMARY_NOT_CURRENT',
  'SUMMARY_CONFLICT',
  'SUMMARIZER_FAILED',
  'INVALID_QUERY',
  'FORMAT_MISMATCH',
  'APPEND_CONFLICT',
  'HISTORY_CONFLICT',
  'SESSION_NOT_FOUND',
  'SESSION_EXISTS',
  'BRANCH_CYCLE',
  'BRANCH_HAS_CHILDREN',
] as const

/** A stable, machine-readable reason for a {@link ContextLedgerError}. */
export type ErrorCode = (typeof ERROR_CODES)[number]

/** Extra facts an error carries besides its message. */
export interface ContextLedgerErrorDetails {
  /** The original error, e.g. the SQLite error or the zod error. */
  cause?: unknown
  /**
   * For `INVALID_MESSAGE`: the path of the offending field, e.g. `content[1].toolUse.toolUseId`; for
   * `INVALID_OPTIONS`: the option, e.g. `limits.maxDepth` or `ref.seq`.
   */
  path?: string
  /** The session the operation was about, when there is one. */
  sessionId?: string
}

/**
 * The error every public call throws when it refuses input or cannot complete. A failed call leaves the
 * database exactly as it was.
 *
 * @example
 * ```ts
 * try { manager.append(msg) } catch (e) {
 *   if (e instanceof ContextLedgerError && e.code === 'INVALID_MESSAGE') console.log(e.path)
 * }
 * ```
 */
export class ContextLedgerError<C extends ErrorCode = ErrorCode> extends Error {
  /** Stable reason, e.g. `'INVALID_MESSAGE'`. */
  readonly code: C
  /** For `INVALID_MESSAGE`: the path of the offending field; for `INVALID_OPTIONS`: the option. */
  readonly path: string | undefined
  /** The session the failed operation concerned, if any. */
  readonly sessionId: string | undefined

  /**
   * @param code - the stable reason
   * @param message - a sentence naming what was expected and what arrived
   * @param details - cause, path and session, when known
   */
  constructor(code: C, message: string, details: ContextLedgerErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    this.name = 'ContextLedgerError'
    this.code = code
    this.path = details.path
    this.sessionId = details.sessionId
  }

  /**
   * `instanceof` as usual; declared so that `e instanceof ContextLedgerError` narrows `e` to an error
   * with any of the codes ({@link ErrorCode}) rather than to `ContextLedgerError<any>`, which would make
   * `e.code` untyped. Use {@link isContextLedgerError} to narrow to one code.
   *
   * @param value - anything
   * @returns whether `value` is a ContextLedgerError
   */
  static override [Symbol.hasInstance](value: unknown): value is ContextLedgerError {
    return Function.prototype[Symbol.hasInstance].call(this, value)
  }
}

/**
 * Narrows an unknown value to a {@link ContextLedgerError}, optionally of one code.
 *
 * @param error - anything caught
 * @param code - when given, the code it must carry
 * @returns true when `error` is a ContextLedgerError (with that code)
 */
export function isContextLedgerError<C extends ErrorCode>(
  error: unknown,
  code?: C,
): error is ContextLedgerError<C> {
  return error instanceof ContextLedgerError && (code === undefined || error.code === code)
}
