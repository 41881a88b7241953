/**
 * Opening a ledger file for a command. Read commands open it read-only and never migrate it (docs/cli.md,
 * "Files from older versions"): a file at this version's schema is opened through the store's public API
 * (`openContextStore(path, { readonly: true })`); a file at an older schema is refused by the commands
 * that read sessions, with the way to upgrade it, and opened as a plain read-only SQLite connection by
 * the few that only need what every schema version has (`stats`, `check`'s integrity check, `backup`).
 * Nothing here writes a byte of the file.
 */
import { existsSync, statSync } from 'node:fs'
import Database from 'better-sqlite3'
import { ContextLedgerError } from '../errors.js'
import { readMigrations } from '../db/migrate.js'
import { readIntegerPragma } from '../db/pragmas.js'
import { restoreSideFileModes } from '../db/side-files.js'
import { openContextStore, type ContextStore } from '../store/context-store.js'
import { CliError, fromLedgerError } from './errors.js'

/** A ledger opened for reading. */
export type ReadLedger =
  /** At this version's schema: the store's whole read API. */
  | {
      readonly kind: 'current'
      readonly store: ContextStore
      readonly db: Database.Database
      readonly schemaVersion: number
    }
  /** At an older schema (only for commands that accept one): a read-only connection. */
  | {
      readonly kind: 'older'
      readonly db: Database.Database
      readonly schemaVersion: number
      readonly current: number
    }

/**
 * The schema version this context-ledger reads and writes: the number of migrations it ships.
 *
 * @returns the version
 */
export function currentSchemaVersion(): number {
  return readMigrations().length
}

/**
 * The one line for a file at an older schema.
 *
 * @param path - the file
 * @param version - its schema version
 * @param current - this version's
 * @returns what happened and what to do
 */
export function olderSchemaMessage(path: string, version: number, current: number): string {
  return `${path} uses ledger schema version ${version}; this context-ledger reads version ${current} and never upgrades a file it only looks at. Upgrade it with: context-ledger upgrade ${path} (take a copy first with: context-ledger backup ${path} <copy>)`
}

function checkPath(path: string): void {
  if (!existsSync(path))
    throw new CliError(
      `${path}: no such file; check the path (reading never creates a ledger)`,
      'FILE_NOT_FOUND',
    )
  if (statSync(path).isDirectory())
    throw new CliError(`${path} is a directory, not a ledger file`, 'NOT_A_LEDGER')
}

/**
 * Opens a ledger for reading, without writing or migrating it.
 *
 * @param path - the file
 * @param options - `older: true` when the command can work with an older schema
 * @returns the ledger
 * @throws CliError for a missing file, a file that is not a ledger, a damaged one, one too new, and one
 *   too old when `older` is not set
 */
export function openForReading(path: string, options: { older?: boolean } = {}): ReadLedger {
  checkPath(path)
  let store: ContextStore
  try {
    store = openContextStore(path, { readonly: true })
  } catch (error) {
    if (error instanceof ContextLedgerError && error.code === 'SCHEMA_TOO_OLD')
      return openOlder(path, options.older === true)
    if (error instanceof ContextLedgerError) throw fromLedgerError(error, path)
    throw error
  }
  const db = store.connection()
  return { kind: 'current', store, db, schemaVersion: readIntegerPragma(db, 'user_version') }
}

function openOlder(path: string, accept: boolean): ReadLedger {
  const current = currentSchemaVersion()
  const db = new Database(path, { readonly: true, fileMustExist: true })
  try {
    restoreSideFileModes(path)
    const version = readIntegerPragma(db, 'user_version')
    if (version === 0)
      throw new CliError(`${path} is an empty database, not a context-ledger file`, 'NOT_A_LEDGER')
    if (!accept) throw new CliError(olderSchemaMessage(path, version, current), 'SCHEMA_TOO_OLD')
    return { kind: 'older', db, schemaVersion: version, current }
  } catch (error) {
    db.close()
    throw error
  }
}

/**
 * Opens a ledger at this version's schema for reading; an older one is refused with the way to upgrade.
 *
 * @param path - the file
 * @returns the store, opened `readonly`
 */
export function openStore(path: string): ContextStore {
  const ledger = openForReading(path)
  if (ledger.kind !== 'current')
    throw new CliError(olderSchemaMessage(path, ledger.schemaVersion, ledger.current), 'SCHEMA_TOO_OLD')
  return ledger.store
}

/**
 * Closes what {@link openForReading} opened.
 *
 * @param ledger - it
 */
export function closeLedger(ledger: ReadLedger): void {
  if (ledger.kind === 'current') ledger.store.close()
  else ledger.db.close()
}
