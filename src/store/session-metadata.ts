/**
 * A session's metadata (`sessions.metadata`, JSON): the caller's own notes on a session, kept beside its
 * rows. An append's `sessionMetadata` option folds the entries it wrote into them inside the append's own
 * write transaction, so a note that must move with the rows (an adapter's per-session summary) never
 * misses or repeats an append, however many writers share the session. `sessions()` and `session()`
 * return them parsed. Nothing here loads SQLite: the PostgreSQL backend reads and writes them too.
 */
import { ContextLedgerError } from '../errors.js'
import { snapshotJson } from '../messages/json-snapshot.js'
import { describeValue, type MessageLimits } from '../messages/limits.js'
import type { LedgerEntry } from './store-types.js'

/**
 * An append's metadata fold: the session's new metadata from its current metadata and what the append
 * wrote. See `AppendOptions.sessionMetadata`.
 *
 * @param previous - the session's metadata, parsed (undefined when it has none)
 * @param written - the entries this append newly wrote, oldest first (not ones a retry or a unique id
 *   matched, not repair rows)
 * @param now - the time the rows were stamped with (ms since the epoch)
 * @returns the new metadata (plain JSON), or undefined to leave it as it is
 */
export type SessionMetadataFold = (previous: unknown, written: readonly LedgerEntry[], now: number) => unknown

/**
 * Checks the `sessionMetadata` option.
 *
 * @param value - the caller's value
 * @returns the function
 * @throws ContextLedgerError `INVALID_OPTIONS` at `sessionMetadata` for anything but a function
 */
export function checkSessionMetadataFold(value: unknown): SessionMetadataFold {
  if (typeof value !== 'function')
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `Invalid sessionMetadata: expected a function (previous, written, now) => metadata, got ${describeValue(value)}`,
      { path: 'sessionMetadata' },
    )
  return value as SessionMetadataFold
}

/**
 * A session's stored metadata as `sessions()` and `session()` report it. Text that is not JSON (only a
 * hand-edited or imported row can hold it; `check` reports it) reads as none: every caller of `session()`
 * reads a session's sizes and format through it, and none of them should fail on a column it never reads.
 * An append's fold is refused instead ({@link parseSessionMetadata}): it would overwrite what it cannot read.
 *
 * @param text - the column's text (null: none)
 * @returns the value, or undefined when there is none or it is not JSON
 */
export function readSessionMetadata(text: string | null): unknown {
  if (text === null) return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/**
 * A session's stored metadata, parsed, for an append's fold.
 *
 * @param text - the column's text (null: none)
 * @param sessionId - the session, for the error
 * @returns the value, or undefined when the column is null
 * @throws ContextLedgerError `CORRUPT_DATABASE` when the column is not JSON
 */
export function parseSessionMetadata(text: string | null, sessionId: string): unknown {
  if (text === null) return undefined
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new ContextLedgerError(
      'CORRUPT_DATABASE',
      `Session "${sessionId}" has metadata that is not JSON (${error instanceof Error ? error.message : String(error)})`,
      { sessionId, cause: error },
    )
  }
}

/** What {@link foldSessionMetadata} needs of the append. */
export interface MetadataFoldInput {
  /** The session. */
  readonly sessionId: string
  /** Its metadata column as this transaction reads it (null: none, or a new session). */
  readonly stored: string | null
  /** How many messages it held before the append (0 for a new session): newer entries were written by it. */
  readonly countBefore: number
  /** The append's entries, one per input message. */
  readonly entries: readonly LedgerEntry[]
}

/**
 * Runs an append's metadata fold, inside its write transaction, after its rows.
 *
 * @param input - the session, its stored metadata and the append's entries
 * @param fold - the caller's fold
 * @param limits - the store's validation limits (the metadata is held to a message's depth and lengths)
 * @returns the metadata text to store, or undefined to leave the column as it is
 * @throws ContextLedgerError `INVALID_OPTIONS` at `sessionMetadata` when the fold throws (the error is
 *   the cause) or returns a value that is not plain JSON; `CORRUPT_DATABASE` for stored metadata that is
 *   not JSON. Thrown inside the transaction, either undoes the append.
 */
export function foldSessionMetadata(
  input: MetadataFoldInput,
  fold: SessionMetadataFold,
  limits: MessageLimits,
): string | undefined {
  const { sessionId, countBefore, entries } = input
  const previous = parseSessionMetadata(input.stored, sessionId)
  const written = Object.freeze(entries.filter((e) => e.seq >= countBefore))
  // Every row of one append carries one time; with none written, the time of this call.
  const now = written[0]?.createdAt.getTime() ?? Date.now()
  let next: unknown
  try {
    next = fold(previous, written, now)
  } catch (error) {
    const why = error instanceof Error ? `${error.name}: ${error.message}` : describeValue(error)
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `sessionMetadata threw (${why}); nothing was written to session "${sessionId}"`,
      { path: 'sessionMetadata', sessionId, cause: error },
    )
  }
  if (next === undefined) return undefined
  try {
    // Read once into a plain copy (as a message is): what is stored is exactly what was checked.
    return JSON.stringify(snapshotJson(next, limits, true))
  } catch (error) {
    const detail =
      error instanceof ContextLedgerError
        ? error.message.replace(/^Invalid message at \(message\): /, '').replace(/^Invalid message /, '')
        : String(error)
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `sessionMetadata returned a value that is not plain JSON (${detail}); nothing was written to session "${sessionId}"`,
      { path: 'sessionMetadata', sessionId, cause: error },
    )
  }
}
