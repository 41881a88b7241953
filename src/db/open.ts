/**
 * Opening a ledger file: refuse what is not ours (without writing a byte), set the pragmas, and bring
 * the schema up to date with the migrations drizzle-kit generated. Identity lives in the SQLite header:
 * `application_id` marks a context-ledger file and `user_version` counts the migrations applied.
 */
import { chmodSync, closeSync, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { ContextLedgerError } from '../errors.js'
import { errorCode, isBusy, toLedgerError } from './sqlite-errors.js'

/** `'CLDG'`: the SQLite `application_id` of every context-ledger file. */
export const APPLICATION_ID = 0x434c4447

/** Where the shipped migrations live, from both `src/db` and `dist/db`. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url))

/**
 * The size of the write-ahead log, in bytes, past which the store checkpoints it (≈4,000 pages of 4 KiB).
 * Every append rewrites the same few hot pages (the tail leaves of each index), and a checkpoint copies
 * each page once however often it was rewritten, at the price of two fsyncs: a larger log means fewer
 * bytes written per message, a smaller one a shorter checkpoint inside the call that triggers it.
 */
export const WAL_CHECKPOINT_BYTES = 16 * 2 ** 20

/** Connection settings, as callers give them (checked by `resolveStoreOptions`). */
export interface OpenDatabaseOptions {
  /** How long a write waits for another connection's lock, in ms: an integer in [0, 2³¹−1]. Default 5000. */
  busyTimeoutMs?: number | undefined
  /**
   * `'normal'` (default; durable across process crashes) or `'full'` (also across power loss), in any
   * letter case, as SQLite's own pragma takes it. Anything else is refused.
   */
  synchronous?: 'normal' | 'full' | 'NORMAL' | 'FULL' | undefined
  /**
   * Open for reading only: never writes or migrates the file; every write call throws `READ_ONLY`. The
   * file must exist and be at the current schema. Default false.
   */
  readonly?: boolean | undefined
  /** Refuse with `FILE_NOT_FOUND` instead of creating a new ledger when the file does not exist. Default false. */
  mustExist?: boolean | undefined
}

/** Checked connection settings. */
export interface DatabaseSettings {
  /** Busy timeout in ms. */
  readonly busyTimeoutMs: number
  /** The `synchronous` pragma's value. */
  readonly synchronous: 'NORMAL' | 'FULL'
  /** Read-only connection. */
  readonly readonly: boolean
  /** Refuse a missing file. */
  readonly mustExist: boolean
}

/** The settings of a store opened without options. */
export const DEFAULT_DATABASE_SETTINGS: DatabaseSettings = Object.freeze({
  busyTimeoutMs: 5000,
  synchronous: 'NORMAL',
  readonly: false,
  mustExist: false,
})

type Db = Database.Database

function refuse(path: string, error: unknown): never {
  const code = errorCode(error)
  if (code === 'SQLITE_NOTADB')
    throw new ContextLedgerError(
      'NOT_A_LEDGER',
      `${path} is not a SQLite database, so not a context-ledger file`,
      {
        cause: error,
      },
    )
  if (code?.startsWith('SQLITE_CORRUPT') === true || code === 'SQLITE_IOERR_SHORT_READ')
    throw new ContextLedgerError('CORRUPT_DATABASE', `${path} is damaged (${code}); it was not modified`, {
      cause: error,
    })
  if (code === 'SQLITE_READONLY_DIRECTORY')
    throw new ContextLedgerError(
      'READ_ONLY',
      `${path} cannot be opened, even to read: SQLite must create its -wal and -shm files next to a WAL database, and this process cannot write to its directory; copy the file to a writable directory`,
      { cause: error },
    )
  if (isBusy(error))
    throw new ContextLedgerError(
      'DATABASE_BUSY',
      `${path} is being created or upgraded by another connection that held its lock past the busy timeout (${code})`,
      { cause: error },
    )
  throw toLedgerError(error, `open ${path}`)
}

const SQLITE_MAGIC = 'SQLite format 3\0'

/**
 * Refuses, before SQLite touches it, a file that is not a database or was cut short (a copy interrupted,
 * a disk that filled). SQLite itself takes some such files for an empty database — which opening would
 * then overwrite with a fresh ledger — and reads pages past the end of a truncated one as absent,
 * failing (or answering wrongly) only when a query reaches them. The header records the page count; when
 * it is valid (its change counter matches `version-valid-for`) and no write-ahead log or journal could
 * hold the missing pages, a shorter file is damaged. Reads at most 100 bytes; writes nothing.
 */
function checkFileHeader(path: string): void {
  if (path === ':memory:' || path === '' || !existsSync(path)) return
  const header = Buffer.alloc(100)
  const fd = openSync(path, 'r')
  let size: number
  let read: number
  try {
    size = fstatSync(fd).size
    read = readSync(fd, header, 0, 100, 0)
  } finally {
    closeSync(fd)
  }
  if (size === 0) return
  if (!SQLITE_MAGIC.startsWith(header.toString('latin1', 0, Math.min(read, 16))))
    throw new ContextLedgerError(
      'NOT_A_LEDGER',
      `${path} is not a SQLite database, so not a context-ledger file`,
    )
  const truncated = (detail: string): ContextLedgerError<'CORRUPT_DATABASE'> =>
    new ContextLedgerError('CORRUPT_DATABASE', `${path} is truncated: ${detail}; it was not modified`)
  if (read < 100) throw truncated(`${size} bytes, shorter than the 100-byte SQLite header`)
  const rawPageSize = header.readUInt16BE(16)
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize
  const pages = header.readUInt32BE(28)
  const valid = header.readUInt32BE(24) === header.readUInt32BE(92)
  // A write-ahead log or a hot rollback journal may hold (or be about to restore) the missing pages.
  const pending = (suffix: string): boolean => existsSync(path + suffix) && statSync(path + suffix).size > 0
  if (!valid || pages === 0 || size >= pages * pageSize || pending('-wal') || pending('-journal')) return
  throw truncated(
    `its header counts ${pages} pages of ${pageSize} bytes (${pages * pageSize} bytes), the file has ${size}`,
  )
}

/**
 * Gives the owner write permission back on a `-wal` or `-shm` file that lacks it. SQLite creates both
 * with the database file's mode — even for a connection that only reads — and a read-only connection can
 * never checkpoint and delete them. So reading a `0444` ledger leaves `0444` side files behind, and once
 * the ledger is writable again every write fails with `SQLITE_READONLY` on the `-shm`. A mode change does
 * not touch the files' contents or disturb a connection that has them open, so it is safe at any time;
 * it is done only where the process may (it owns the file, or is root) and is best effort: where it
 * cannot be done, a later write reports `READ_ONLY`.
 *
 * @param path - the database file
 */
export function restoreSideFileModes(path: string): void {
  const euid = process.geteuid?.()
  if (euid === undefined) return
  for (const suffix of ['-wal', '-shm']) {
    const side = path + suffix
    try {
      const stat = statSync(side)
      if ((stat.mode & 0o200) !== 0 || (euid !== 0 && euid !== stat.uid)) continue
      chmodSync(side, (stat.mode & 0o777) | 0o200)
    } catch {
      // Absent, or removed meanwhile by the last connection closing: nothing to restore.
    }
  }
}

interface Identity {
  applicationId: number
  userVersion: number
  objects: number
}

function readIdentity(db: Db): Identity {
  const applicationId = db.pragma('application_id', { simple: true }) as number
  const userVersion = db.pragma('user_version', { simple: true }) as number
  const objects = db.prepare('SELECT count(*) FROM sqlite_schema').pluck().get() as number
  return { applicationId, userVersion, objects }
}

function checkIdentity(path: string, id: Identity, known: number): 'fresh' | 'current' | 'behind' {
  if (id.applicationId === APPLICATION_ID) {
    if (id.userVersion > known)
      throw new ContextLedgerError(
        'SCHEMA_TOO_NEW',
        `${path} uses ledger schema version ${id.userVersion}, but this context-ledger knows versions up to ${known}; upgrade context-ledger to open it`,
      )
    return id.userVersion === known ? 'current' : 'behind'
  }
  if (id.applicationId === 0 && id.objects === 0) return 'fresh'
  throw new ContextLedgerError(
    'NOT_A_LEDGER',
    `${path} is a SQLite database of another application (application_id ${id.applicationId}, ${id.objects} schema objects); it was not modified`,
  )
}

type Migrations = ReturnType<typeof readMigrationFiles>

function missing(path: string): ContextLedgerError<'FILE_NOT_FOUND'> {
  return new ContextLedgerError(
    'FILE_NOT_FOUND',
    `${path} does not exist (opened with mustExist or readonly, so no new ledger was created)`,
  )
}

function tooOld(path: string, db: Db, known: number): ContextLedgerError<'SCHEMA_TOO_OLD'> {
  const version = db.pragma('user_version', { simple: true }) as number
  const what =
    version === 0 ? 'is an empty database with no ledger schema yet' : `uses ledger schema version ${version}`
  return new ContextLedgerError(
    'SCHEMA_TOO_OLD',
    `${path} ${what}, and this context-ledger needs version ${known}: a read-only open cannot migrate it; open it once without readonly to upgrade it`,
  )
}

function migrate(db: Db, path: string, migrations: Migrations): void {
  // IMMEDIATE takes the write lock before re-reading the version, so two processes opening a fresh
  // file at once cannot both run the same migration.
  const run = db.transaction(() => {
    const state = checkIdentity(path, readIdentity(db), migrations.length)
    if (state === 'current') return
    db.exec(
      'CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id INTEGER PRIMARY KEY, hash text NOT NULL, created_at numeric)',
    )
    const from = db.pragma('user_version', { simple: true }) as number
    const record = db.prepare('INSERT INTO "__drizzle_migrations" ("hash", "created_at") VALUES (?, ?)')
    for (const migration of migrations.slice(from)) {
      for (const statement of migration.sql) if (statement.trim() !== '') db.exec(statement)
      record.run(migration.hash, migration.folderMillis)
    }
    db.pragma(`application_id = ${APPLICATION_ID}`)
    db.pragma(`user_version = ${migrations.length}`)
  })
  run.immediate()
}

/** Whether `path` names a database without a file (in memory, or SQLite's private temporary file). */
export function isInMemory(path: string): boolean {
  return path === ':memory:' || path === ''
}

/**
 * Opens (creating if needed) a ledger database and migrates it.
 *
 * @param path - a file path or `':memory:'`
 * @param settings - busy timeout, durability, read-only, must-exist (already checked)
 * @returns an open better-sqlite3 connection in WAL mode
 * @throws ContextLedgerError `NOT_A_LEDGER` for a non-SQLite file or another application's database,
 *   `CORRUPT_DATABASE` for a damaged or truncated file, `SCHEMA_TOO_NEW` for a file from a newer
 *   context-ledger — none of these modify the file — `DATABASE_BUSY` when another connection creating
 *   or upgrading the file holds its lock past the busy timeout, `FILE_NOT_FOUND` for a missing file when
 *   it must exist (`mustExist`, `readonly`), and `SCHEMA_TOO_OLD` for a file opened `readonly` that needs
 *   migrating.
 */
export function openDatabase(path: string, settings: DatabaseSettings = DEFAULT_DATABASE_SETTINGS): Db {
  let db: Db
  let migrations: Migrations
  const mustExist = settings.mustExist || settings.readonly
  try {
    migrations = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER })
    if (mustExist && !existsSync(path)) throw missing(path)
    checkFileHeader(path)
    if (!isInMemory(path)) restoreSideFileModes(path)
    db = new Database(path, {
      timeout: settings.busyTimeoutMs,
      readonly: settings.readonly,
      fileMustExist: mustExist,
    })
  } catch (error) {
    // Removed between the check and the open.
    if (mustExist && errorCode(error) === 'SQLITE_CANTOPEN' && !existsSync(path)) throw missing(path)
    // A missing directory, a directory given as the file, no permission: typed, with the cause.
    // (better-sqlite3 reports a missing directory as a bare TypeError.)
    const mapped = error instanceof ContextLedgerError ? error : toLedgerError(error, `open ${path}`)
    if (mapped instanceof ContextLedgerError) throw mapped
    throw new ContextLedgerError(
      'STORAGE_ERROR',
      `Could not open ${path}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    )
  }
  try {
    // Read-only identity check first: journal_mode=WAL below rewrites the header.
    const state = checkIdentity(path, readIdentity(db), migrations.length)
    if (settings.readonly) {
      if (!isInMemory(path)) restoreSideFileModes(path)
      if (state !== 'current') throw tooOld(path, db, migrations.length)
      db.pragma('foreign_keys = ON')
      db.prepare('SELECT seq FROM messages LIMIT 1').get()
      return db
    }
    db.pragma('journal_mode = WAL')
    db.pragma(settings.synchronous === 'FULL' ? 'synchronous = FULL' : 'synchronous = NORMAL')
    // Checkpoints are the store's (src/store/transactions.ts): SQLite's automatic one never catches up
    // with the log while other processes keep writing and reading. A log restarted by a checkpoint is cut
    // back to the size at which the store checkpoints.
    db.pragma('wal_autocheckpoint = 0')
    db.pragma(`journal_size_limit = ${WAL_CHECKPOINT_BYTES}`)
    db.pragma('foreign_keys = ON')
    // Freed space is zeroed, so a redacted message's bytes do not linger in free cells or free pages of
    // the file (the rows are append-only, so little is ever freed: this costs appends nothing measurable).
    db.pragma('secure_delete = ON')
    // Only a fresh or older file takes the write lock: opening a current file never waits for writers.
    if (state !== 'current') migrate(db, path, migrations)
    // Touch the ledger's root page, so a file damaged there is refused now rather than mid-conversation;
    // one row, not a count, keeps opening a big ledger as cheap as a small one.
    db.prepare('SELECT seq FROM messages LIMIT 1').get()
    // Reading a file another user made read-only gives its side files that mode: see restoreSideFileModes.
    if (!isInMemory(path)) restoreSideFileModes(path)
    return db
  } catch (error) {
    db.close()
    if (error instanceof ContextLedgerError) throw error
    return refuse(path, error)
  }
}
