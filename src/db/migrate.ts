/**
 * Bringing a ledger's schema up to date with the migrations drizzle-kit generated (in `migrations/`,
 * shipped with the package). `user_version` counts the migrations applied; `application_id` marks the
 * file as a ledger once the first one is.
 */
import { fileURLToPath } from 'node:url'
import type Database from 'better-sqlite3'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { checkIdentity, readIdentity, SET_APPLICATION_ID } from './identity.js'
import { readIntegerPragma } from './pragmas.js'
import { fillSearchIndex } from './search-fill.js'

/** Where the shipped migrations live, from both `src/db` and `dist/db`. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url))

/**
 * `user_version = N` for each schema version N a migration leaves a ledger at, N − 1 its index. A pragma's
 * value cannot be bound and SQL is never assembled from values (see pragmas.ts), so each is literal
 * text: a new migration adds its line here; until it does, opening any file that needs it throws.
 */
export const SET_USER_VERSION = [
  'user_version = 1',
  'user_version = 2',
  'user_version = 3',
  'user_version = 4',
  'user_version = 5',
  'user_version = 6',
  'user_version = 7',
  'user_version = 8',
  'user_version = 9',
  'user_version = 10',
  'user_version = 11',
] as const

/**
 * The index (from 0) of migration `0008_recall`, which creates the full-text index empty: once its SQL
 * has run, the rows the file already holds are indexed by {@link fillSearchIndex}.
 */
export const SEARCH_INDEX_MIGRATION = 8

/** The shipped migrations, oldest first. */
export type Migrations = ReturnType<typeof readMigrationFiles>

/**
 * Reads the shipped migrations.
 *
 * @returns them, oldest first
 */
export function readMigrations(): Migrations {
  return readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER })
}

/**
 * Applies the migrations a fresh or older ledger lacks, in one `BEGIN IMMEDIATE` transaction.
 *
 * @param db - a writable connection
 * @param path - the file, for messages
 * @param migrations - every shipped migration
 * @throws ContextLedgerError `SCHEMA_TOO_NEW` or `NOT_A_LEDGER` when another connection changed the
 *   file meanwhile; SQLite's errors as they are
 */
export function migrate(db: Database.Database, path: string, migrations: Migrations): void {
  // IMMEDIATE takes the write lock before re-reading the version, so two processes opening a fresh
  // file at once cannot both run the same migration.
  const run = db.transaction(() => {
    const state = checkIdentity(path, readIdentity(db), migrations.length)
    if (state === 'current') return
    db.exec(
      'CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id INTEGER PRIMARY KEY, hash text NOT NULL, created_at numeric)',
    )
    const from = readIntegerPragma(db, 'user_version')
    const record = db.prepare<[hash: string, createdAt: number]>(
      'INSERT INTO "__drizzle_migrations" ("hash", "created_at") VALUES (?, ?)',
    )
    migrations.forEach((migration, index) => {
      if (index < from) return
      for (const statement of migration.sql) if (statement.trim() !== '') db.exec(statement)
      if (index === SEARCH_INDEX_MIGRATION) fillSearchIndex(db, path)
      record.run(migration.hash, migration.folderMillis)
    })
    const setVersion = SET_USER_VERSION[migrations.length - 1]
    if (setVersion === undefined)
      throw new Error(
        `No user_version pragma for schema version ${migrations.length}: add it to SET_USER_VERSION`,
      )
    db.pragma(SET_APPLICATION_ID)
    db.pragma(setVersion)
  })
  run.immediate()
}
