/**
 * Pragmas that return a value, typed: better-sqlite3's `pragma()` returns `unknown`; these check what
 * SQLite answered instead of asserting it.
 *
 * A pragma's value cannot be a bound parameter, and SQL text is never assembled from values (a lint rule
 * and a test refuse it), so every pragma the store sets is literal text. Where the value is a named
 * constant, the literal is typed with a template literal type built from the constant's type (e.g.
 * `` `journal_size_limit = ${typeof WAL_CHECKPOINT_BYTES}` ``), so the compiler refuses a literal that
 * no longer matches it.
 */
import type Database from 'better-sqlite3'

/** The integer pragmas the store reads. */
export type IntegerPragma = 'application_id' | 'user_version' | 'busy_timeout' | 'page_count' | 'page_size'

/**
 * Reads an integer pragma.
 *
 * @param db - the connection
 * @param name - the pragma
 * @returns its value
 * @throws TypeError when SQLite answers something else than an integer (it never does for these)
 */
export function readIntegerPragma(db: Database.Database, name: IntegerPragma): number {
  const value = db.pragma(name, { simple: true })
  if (typeof value !== 'number' || !Number.isSafeInteger(value))
    throw new TypeError(`PRAGMA ${name} returned ${String(value)}, not an integer`)
  return value
}

/** What a `wal_checkpoint` pragma reports. */
export interface CheckpointResult {
  /** 1 when the checkpoint could not finish (a reader or writer held it up), else 0. */
  readonly busy: number
  /** Frames in the write-ahead log. */
  readonly log: number
  /** Frames checkpointed into the database file. */
  readonly checkpointed: number
}

/**
 * Checkpoints the write-ahead log.
 *
 * @param db - the connection
 * @param mode - SQLite's checkpoint mode
 * @returns what SQLite reported
 * @throws TypeError when the answer has another shape (it never does)
 */
export function walCheckpoint(
  db: Database.Database,
  mode: 'PASSIVE' | 'RESTART' | 'TRUNCATE',
): CheckpointResult {
  const answer =
    mode === 'PASSIVE'
      ? db.pragma('wal_checkpoint(PASSIVE)')
      : mode === 'RESTART'
        ? db.pragma('wal_checkpoint(RESTART)')
        : db.pragma('wal_checkpoint(TRUNCATE)')
  const row: unknown = Array.isArray(answer) ? answer[0] : undefined
  if (
    typeof row === 'object' &&
    row !== null &&
    'busy' in row &&
    'log' in row &&
    'checkpointed' in row &&
    typeof row.busy === 'number' &&
    typeof row.log === 'number' &&
    typeof row.checkpointed === 'number'
  )
    return { busy: row.busy, log: row.log, checkpointed: row.checkpointed }
  throw new TypeError(`PRAGMA wal_checkpoint(${mode}) returned ${JSON.stringify(answer)}`)
}
