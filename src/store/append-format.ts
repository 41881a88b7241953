/**
 * Which message format an append is in: the one the caller names, else the session's (fixed by its first
 * append), else `'strands'` for a new session. A message of another format than its session's is refused
 * before anything is written.
 */
import { ContextLedgerError } from '../errors.js'
import { checkFormatName, formatNamed, type BodyFormat, type MessageFormatName } from '../formats/index.js'
import { describeValue } from '../messages/limits.js'
import { estimateTokens, type TokenCounter } from '../messages/tokens.js'
import { checkTokenCounter, invalidOption } from './check-args.js'
import { checkSessionMetadataFold, type SessionMetadataFold } from './session-metadata.js'

/** Options of `append` besides the messages. */
export interface AppendOptions {
  /** Counts each message's tokens (default: the format's built-in estimate). */
  readonly tokenCounter?: TokenCounter | undefined
  /**
   * The messages' format. A new session takes it (default `'strands'`); a session that has one refuses
   * another with `FORMAT_MISMATCH`. Omitted: the session's own.
   */
  readonly format?: MessageFormatName | undefined
  /**
   * Compare-and-append: append only when the session holds exactly this many messages (its
   * `messageCount`, repair rows included; 0 when it does not exist yet), checked in the write's own
   * transaction. Otherwise `APPEND_CONFLICT` and nothing is written. Omitted: no check.
   */
  readonly expectCount?: number | undefined
  /**
   * Folds what the append wrote into the session's metadata (`SessionSummary.metadata`), in the append's
   * own write transaction, so two writers never lose each other's fold. Called once, after the rows are
   * written, with the session's metadata parsed (undefined when it has none), the entries this call newly
   * wrote (not ones a retry or a unique id matched, not repair rows; `[]` when it wrote none) and the time
   * the rows were stamped with (ms). What it returns (plain JSON) is stored; `undefined` leaves the
   * metadata as it is. Not called for an empty batch. It must be pure, and quick (the write lock is held
   * while it runs): a write that has to start over (a busy lock, on PostgreSQL another writer's commit)
   * calls it again. A throw, or a value that is not plain JSON, undoes the append: `INVALID_OPTIONS` at
   * `sessionMetadata` (the throw as its cause).
   */
  readonly sessionMetadata?: SessionMetadataFold | undefined
}

/**
 * Reads `append`'s third argument: a token counter (as before formats existed) or {@link AppendOptions}.
 *
 * @param value - the caller's value (undefined for none)
 * @returns the counter, the named format, the expected count and the metadata fold, if any
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the field
 */
export function checkAppendOptions(value: unknown): {
  tokenCounter: TokenCounter
  format?: MessageFormatName
  expectCount?: number
  sessionMetadata?: SessionMetadataFold
} {
  if (value === undefined) return { tokenCounter: estimateTokens }
  if (typeof value === 'function') {
    checkTokenCounter(value)
    return { tokenCounter: value }
  }
  // Anything but a function or an options object is a bad token counter, as before options existed.
  if (typeof value !== 'object' || value === null || Array.isArray(value)) checkTokenCounter(value)
  const { tokenCounter, format, expectCount, sessionMetadata, ...rest } = value as AppendOptions &
    Record<string, unknown>
  const unknown = Object.keys(rest)[0]
  if (unknown !== undefined)
    throw new ContextLedgerError('INVALID_OPTIONS', `Invalid append options: unknown option "${unknown}"`, {
      path: unknown,
    })
  if (tokenCounter !== undefined) checkTokenCounter(tokenCounter)
  return {
    tokenCounter: tokenCounter ?? estimateTokens,
    ...(format === undefined ? {} : { format: checkFormatName(format) }),
    ...(expectCount === undefined ? {} : { expectCount: checkExpectCount(expectCount) }),
    ...(sessionMetadata === undefined ? {} : { sessionMetadata: checkSessionMetadataFold(sessionMetadata) }),
  }
}

/** `expectCount` as given: an integer ≥ 0, else `INVALID_OPTIONS` at `expectCount`. */
function checkExpectCount(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw invalidOption('expectCount', `expected an integer ≥ 0, got ${describeValue(value)}`)
  return value
}

/**
 * Refuses a compare-and-append whose session does not hold the count the caller expected.
 *
 * @param sessionId - the session
 * @param expected - the caller's `expectCount` (undefined: no check)
 * @param actual - the messages the session holds now (0 when it does not exist)
 * @throws ContextLedgerError `APPEND_CONFLICT` (path `expectCount`) when they differ
 */
export function checkAppendCount(sessionId: string, expected: number | undefined, actual: number): void {
  if (expected === undefined || expected === actual) return
  throw new ContextLedgerError(
    'APPEND_CONFLICT',
    `Session "${sessionId}" holds ${actual} messages, not the ${expected} the append expected (nothing was written)`,
    { sessionId, path: 'expectCount' },
  )
}

/**
 * The error for messages of one format appended to a session of another.
 *
 * @param sessionId - the session
 * @param stored - the session's format (its row's value; null: `'strands'`)
 * @param given - the messages' format
 * @returns the error to throw
 */
export function formatMismatch(
  sessionId: string,
  stored: string | null,
  given: MessageFormatName,
): ContextLedgerError<'FORMAT_MISMATCH'> {
  const have = formatNamed(stored).name
  return new ContextLedgerError(
    'FORMAT_MISMATCH',
    `Session "${sessionId}" holds '${have}' messages; these are '${given}' messages, and a session keeps one format (nothing was written)`,
    { sessionId, path: 'format' },
  )
}

/**
 * The format an append's messages are read in.
 *
 * @param stored - the session's stored format (null: `'strands'`), or undefined for no session yet
 * @param sessionId - the session
 * @param named - the format the caller named, if any
 * @returns the format module
 * @throws ContextLedgerError `FORMAT_MISMATCH` when the caller named another format than the session's
 */
export function appendFormat(
  stored: string | null | undefined,
  sessionId: string,
  named: MessageFormatName | undefined,
): BodyFormat {
  if (stored === undefined) return formatNamed(named ?? 'strands')
  const format = formatNamed(stored)
  if (named !== undefined && named !== format.name) throw formatMismatch(sessionId, stored, named)
  return format
}
