/**
 * SQLite and file-system failures as typed errors. better-sqlite3 throws `SqliteError` with SQLite's
 * extended result code in `code` (`SQLITE_FULL`, `SQLITE_IOERR_SHORT_READ`, …); Node's fs throws errors
 * with an errno `code` (`ENOENT`, `EISDIR`). Each becomes a {@link ContextLedgerError} naming what failed,
 * with the original as `cause`, so nothing raw escapes the public API.
 */
import { ContextLedgerError, isContextLedgerError } from '../errors.js'

/**
 * The `code` of an error thrown by SQLite or the file system, if it has one.
 *
 * @param error - anything caught
 * @returns the code, e.g. `'SQLITE_BUSY'`
 */
export function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined
}

/**
 * Whether SQLite reported that another connection held the lock.
 *
 * @param error - anything caught
 * @returns true for `SQLITE_BUSY` and its extended codes
 */
export function isBusy(error: unknown): boolean {
  const code = errorCode(error)
  return code === 'SQLITE_BUSY' || code?.startsWith('SQLITE_BUSY_') === true
}

/**
 * Maps a SQLite or file-system failure to a typed error; other errors (a `ContextLedgerError` already,
 * or a bug) pass through unchanged.
 *
 * @param error - what was caught
 * @param what - the operation, for the message, e.g. `append to session "s"` or `open /data/agent.db`
 * @param sessionId - the session concerned, if any
 * @returns the error to throw
 */
export function toLedgerError(error: unknown, what: string, sessionId?: string): unknown {
  if (error instanceof ContextLedgerError) return error
  const code = errorCode(error)
  if (code === undefined) return error
  const details = { cause: error, ...(sessionId === undefined ? {} : { sessionId }) }
  if (code === 'SQLITE_FULL')
    return new ContextLedgerError(
      'STORAGE_FULL',
      `The database or the disk is full; could not ${what}`,
      details,
    )
  if (isBusy(error))
    return new ContextLedgerError(
      'DATABASE_BUSY',
      `Another connection held the database's lock past the busy timeout (${code}); could not ${what}`,
      details,
    )
  if (code === 'SQLITE_NOTADB')
    return new ContextLedgerError('NOT_A_LEDGER', `Not a SQLite database; could not ${what}`, details)
  if (code === 'SQLITE_READONLY' || code.startsWith('SQLITE_READONLY_'))
    return new ContextLedgerError(
      'READ_ONLY',
      `The ledger cannot be written (${code}): the file, its directory or its -wal/-shm files are read-only for this process; could not ${what}`,
      details,
    )
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_IOERR_SHORT_READ')
    return new ContextLedgerError(
      'CORRUPT_DATABASE',
      `The database is damaged (${code}); could not ${what}`,
      details,
    )
  if (code.startsWith('SQLITE_') || /^E[A-Z]+$/.test(code))
    return new ContextLedgerError('STORAGE_ERROR', `Storage failed (${code}); could not ${what}`, details)
  return error
}

/**
 * Maps any failure of a read to a typed error. Besides what {@link toLedgerError} maps, a read can fail
 * while decoding what it read — a stored body that is not the JSON the store wrote, changed behind its
 * back — which is damage to the file, not a bug of the caller: `CORRUPT_DATABASE`.
 *
 * @param error - what was caught
 * @param what - the operation, e.g. `read the window of session "s"`
 * @param sessionId - the session concerned, if any
 * @returns a {@link ContextLedgerError}
 */
export function toReadError(error: unknown, what: string, sessionId?: string): ContextLedgerError {
  const mapped = toLedgerError(error, what, sessionId)
  if (isContextLedgerError(mapped)) return mapped
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return new ContextLedgerError(
    'CORRUPT_DATABASE',
    `A stored row could not be decoded (${detail}); could not ${what}`,
    { cause: error, ...(sessionId === undefined ? {} : { sessionId }) },
  )
}
