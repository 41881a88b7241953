/**
 * Opening a ledger file for a command. Read commands open it read-only and never migrate it (docs/cli.md,
 * "Files from older versions"): {@link inspect} opens a plain read-only SQLite connection and tells what
 * the file is without writing a byte — not a ledger, damaged, too new, at this version's schema, or at an
 * older one — using the store's own identity checks; {@link openStore} then opens a file at this
 * version's schema through the store's public API (`openContextStore(path, { readonly: true })`). A file
 * at an older schema is refused by the commands that read sessions, with the way to upgrade it, and read
 * by the few that need only what every schema version has (`stats`, `check`'s integrity check, `backup`).
 *
 * Nothing here loads the store: `sessions` and `--help` start without it (the store's modules take most
 * of a cold start).
 *
 * A file another user owns is opened so that its owner's agents can still write to it afterwards
 * (`other-user.ts`): as usual when its side files exist, `immutable=1` when it has no write-ahead log.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { ContextLedgerError } from '../errors.js'
import { checkFileHeader, checkIdentity, readIdentity, refuse } from '../db/identity.js'
import { restoreSideFileModes } from '../db/side-files.js'
import type { ContextStore } from '../store/context-store.js'
import { CliError, fromLedgerError } from './errors.js'
import { readAccess, unlockedReadRefused, type ReadAccess } from './other-user.js'

/** A ledger file opened read-only. */
export interface Inspected {
  /** At this version's schema, or older. */
  readonly kind: 'current' | 'older'
  /** A read-only connection. */
  readonly db: Database.Database
  /** The file's schema version (`user_version`). */
  readonly schemaVersion: number
  /** The schema version this context-ledger reads and writes. */
  readonly current: number
  /** How it was opened: as usual, or `immutable=1` (another user's file with no write-ahead log). */
  readonly access: ReadAccess
}

const JOURNAL = fileURLToPath(new URL('../../migrations/meta/_journal.json', import.meta.url))

/**
 * The schema version this context-ledger reads and writes: the number of migrations it ships (their
 * journal, read without the migrator).
 *
 * @returns the version
 */
export function currentSchemaVersion(): number {
  const journal = JSON.parse(readFileSync(JOURNAL, 'utf8')) as { entries: unknown[] }
  return journal.entries.length
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

/**
 * The one line for an older-schema file `import` was asked to write a session into: it writes, so the
 * reason is not that it only looks, but that it never upgrades a file on the side.
 *
 * @param path - the file
 * @param version - its schema version
 * @param current - this version's
 * @returns what happened and what to do
 */
export function importOlderSchemaMessage(path: string, version: number, current: number): string {
  return `${path} uses ledger schema version ${version}, and import refuses to upgrade a file on the side (this context-ledger writes version ${current}). Upgrade it first with: context-ledger upgrade ${path} (take a copy first with: context-ledger backup ${path} <copy>), or import into a new file`
}

function mapped(error: unknown, path: string): unknown {
  if (error instanceof CliError) return error
  if (error instanceof ContextLedgerError) return fromLedgerError(error, path)
  try {
    refuse(path, error)
  } catch (typed) {
    if (typed instanceof ContextLedgerError) return fromLedgerError(typed, path)
  }
  return error
}

/**
 * Opens a ledger read-only and says what it is, without writing or migrating it.
 *
 * @param path - the file
 * @param options - `older: true` when the command can work with an older schema
 * @returns the open file
 * @throws CliError for a missing file, a file that is not a ledger, a damaged one, one too new, and one
 *   too old when `older` is not set
 */
export function inspect(path: string, options: { older?: boolean } = {}): Inspected {
  if (!existsSync(path))
    throw new CliError(
      `${path}: no such file; check the path (reading never creates a ledger)`,
      'FILE_NOT_FOUND',
    )
  if (statSync(path).isDirectory())
    throw new CliError(`${path} is a directory, not a ledger file`, 'NOT_A_LEDGER')
  let db: Database.Database
  let access: ReadAccess
  try {
    checkFileHeader(path)
    access = readAccess(path)
  } catch (error) {
    throw mapped(error, path)
  }
  try {
    db = new Database(access.kind === 'unlocked' ? access.uri : path, { readonly: true, fileMustExist: true })
  } catch (error) {
    if (access.kind === 'unlocked') throw unlockedReadRefused(path)
    throw mapped(error, path)
  }
  try {
    restoreSideFileModes(path)
    const current = currentSchemaVersion()
    const identity = readIdentity(db)
    const state = checkIdentity(path, identity, current)
    if (state === 'fresh')
      throw new CliError(`${path} is an empty database, not a context-ledger file`, 'NOT_A_LEDGER')
    // Touch the ledger's root page, so a file damaged there is refused now.
    db.prepare('SELECT seq FROM messages LIMIT 1').get()
    if (state === 'behind' && options.older !== true)
      throw new CliError(olderSchemaMessage(path, identity.userVersion, current), 'SCHEMA_TOO_OLD')
    return {
      kind: state === 'current' ? 'current' : 'older',
      db,
      schemaVersion: identity.userVersion,
      current,
      access,
    }
  } catch (error) {
    db.close()
    throw mapped(error, path)
  }
}

/**
 * Opens a ledger at this version's schema for reading, through the store (`readonly`); an older one is
 * refused with the way to upgrade.
 *
 * @param path - the file
 * @returns the store
 */
export async function openStore(path: string): Promise<ContextStore> {
  const found = inspect(path)
  found.db.close()
  const { openContextStore } = await import('../store/context-store.js')
  const { SQLITE_URI } = await import('../store/store-options.js')
  const access = found.access
  try {
    return openContextStore(
      path,
      access.kind === 'unlocked'
        ? Object.assign({ readonly: true }, { [SQLITE_URI]: access.uri })
        : { readonly: true },
    )
  } catch (error) {
    throw mapped(error, path)
  }
}
