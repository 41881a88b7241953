/**
 * Opening a ledger file: refuse what is not ours without writing a byte (`identity.ts`), set the
 * connection's pragmas, and bring the schema up to date (`migrate.ts`).
 */
import { existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import { ContextLedgerError } from '../errors.js'
import {
  APPLICATION_ID,
  checkFileHeader,
  checkIdentity,
  missing,
  readIdentity,
  refuse,
  tooOld,
} from './identity.js'
import { migrate, readMigrations, type Migrations } from './migrate.js'
import { restoreSideFileModes } from './side-files.js'
import { readIntegerPragma } from './pragmas.js'
import { errorCode, toLedgerError } from './sqlite-errors.js'

export { MIGRATIONS_FOLDER } from './migrate.js'

/**
 * The size of the write-ahead log, in bytes, past which the store checkpoints it: 16 MiB (≈4,000 pages of
 * 4 KiB).
 * Every append rewrites the same few hot pages (the tail leaves of each index), and a checkpoint copies
 * each page once however often it was rewritten, at the price of two fsyncs: a larger log means fewer
 * bytes written per message, a smaller one a shorter checkpoint inside the call that triggers it.
 */
export const WAL_CHECKPOINT_BYTES = 16_777_216

/**
 * The page size of a ledger this version creates, in bytes. Every commit writes each page it changed in
 * full, twice (to the log, then to the file at the checkpoint), and an agent's turn changes a handful of
 * pages in as many B-trees for about 1–2 KB of messages: with SQLite's default of 4 KiB pages, a 4-message
 * turn wrote ~100 KB. 1 KiB pages write a quarter of that for the same changes (docs/benchmarks.md, "Where
 * the bytes of a turn go"). A ledger made with another page size keeps it (see docs/operations.md).
 */
export const NEW_LEDGER_PAGE_SIZE = 1024

/** The page sizes SQLite takes: powers of two from 512 to 65,536 bytes. */
export type PageSize = 512 | 1024 | 2048 | 4096 | 8192 | 16384 | 32768 | 65536

/** Each page size's pragma, as literal text (see pragmas.ts). */
export const SET_PAGE_SIZE: { readonly [S in PageSize]: `page_size = ${S}` } = Object.freeze({
  512: 'page_size = 512',
  1024: 'page_size = 1024',
  2048: 'page_size = 2048',
  4096: 'page_size = 4096',
  8192: 'page_size = 8192',
  16384: 'page_size = 16384',
  32768: 'page_size = 32768',
  65536: 'page_size = 65536',
})

/** Every page size SQLite takes, smallest first. */
export const PAGE_SIZES: readonly PageSize[] = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]

/** Cuts a log a checkpoint restarted back to {@link WAL_CHECKPOINT_BYTES} (literal text: see pragmas.ts). */
const SET_JOURNAL_SIZE_LIMIT: `journal_size_limit = ${typeof WAL_CHECKPOINT_BYTES}` =
  'journal_size_limit = 16777216'

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
  /**
   * The page size of a ledger this call creates, in bytes: a power of two from 512 to 65,536. Default
   * {@link NEW_LEDGER_PAGE_SIZE} (1 KiB): the fewest bytes written per turn. Larger pages store mid-sized
   * messages (~0.5–1 KB each) more densely, at the price of more bytes per commit (docs/operations.md,
   * "Page size"). An existing ledger keeps its page size: given for one with another, it is refused.
   */
  pageSize?: PageSize | undefined
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
  /** The page size asked for, or undefined for the default (a new ledger) or whatever the file has. */
  readonly pageSize: PageSize | undefined
  /**
   * A SQLite URI to open instead of `path` (with `readonly`): the command line's `immutable=1` read of a
   * file another user owns. Never set from a caller's options; SQLite must have been told to take URIs.
   *
   * @internal
   */
  readonly uri?: string | undefined
}

/** The settings of a store opened without options. */
export const DEFAULT_DATABASE_SETTINGS: DatabaseSettings = Object.freeze({
  busyTimeoutMs: 5000,
  synchronous: 'NORMAL',
  readonly: false,
  mustExist: false,
  pageSize: undefined,
})

type Db = Database.Database

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
    migrations = readMigrations()
    if (mustExist && !existsSync(path)) throw missing(path)
    const header = checkFileHeader(path)
    // A ledger of another page size than the one asked for is refused before it is opened for writing:
    // closing a writable connection checkpoints its log into the file, which is then no longer as it was.
    if (settings.pageSize !== undefined && header !== undefined && header.pageSize !== settings.pageSize)
      refuseOtherPageSize(path, header.pageSize, settings.pageSize)
    if (!isInMemory(path)) restoreSideFileModes(path)
    db = new Database(settings.uri ?? path, {
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
    if (state !== 'fresh' && settings.pageSize !== undefined) checkPageSize(db, path, settings.pageSize)
    if (settings.readonly) {
      if (!isInMemory(path)) restoreSideFileModes(path)
      if (state !== 'current') throw tooOld(path, db, migrations.length)
      db.pragma('foreign_keys = ON')
      db.prepare('SELECT seq FROM messages LIMIT 1').get()
      return db
    }
    // Only an empty database takes a page size, before its first write (journal_mode below is one); one
    // already written with another page size (an empty SQLite file made elsewhere) is rebuilt with it.
    if (state === 'fresh') setFreshPageSize(db, settings.pageSize ?? NEW_LEDGER_PAGE_SIZE)
    db.pragma('journal_mode = WAL')
    db.pragma(settings.synchronous === 'FULL' ? 'synchronous = FULL' : 'synchronous = NORMAL')
    // Checkpoints are the store's (src/store/transactions.ts): SQLite's automatic one never catches up
    // with the log while other processes keep writing and reading. A log restarted by a checkpoint is cut
    // back to the size at which the store checkpoints.
    db.pragma('wal_autocheckpoint = 0')
    db.pragma(SET_JOURNAL_SIZE_LIMIT)
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

/**
 * Refuses a page size asked for a ledger that has another one: a page size is set when a file is
 * created, and changes only by rebuilding it.
 *
 * @throws ContextLedgerError `INVALID_OPTIONS` (path `pageSize`) naming both sizes and the way to convert
 */
function checkPageSize(db: Db, path: string, asked: PageSize): void {
  const has = readIntegerPragma(db, 'page_size')
  if (has !== asked) throw pageSizeRefusal(path, has, asked)
}

/**
 * Throws the page-size refusal when the file is a ledger, read through a read-only connection (its log
 * may hold its identity; a read-only connection never checkpoints it). An empty database is let through:
 * it becomes a ledger of the page size asked for.
 */
function refuseOtherPageSize(path: string, has: number, asked: PageSize): void {
  const probe = new Database(path, { readonly: true, fileMustExist: true })
  let applicationId: number
  try {
    applicationId = readIdentity(probe).applicationId
  } finally {
    probe.close()
  }
  if (applicationId === APPLICATION_ID) throw pageSizeRefusal(path, has, asked)
}

function pageSizeRefusal(path: string, has: number, asked: PageSize): ContextLedgerError<'INVALID_OPTIONS'> {
  return new ContextLedgerError(
    'INVALID_OPTIONS',
    `Invalid openContextStore options at pageSize: ${path} is a ledger with ${has}-byte pages, and a page size is set only when a ledger is created; got ${asked}. Omit pageSize to open it, or copy it with store.backup(destination, { compact: true, pageSize: ${asked} })`,
    { path: 'pageSize' },
  )
}

/**
 * Gives an empty database the page size: set before its first write, or — when it was written already
 * (a page-size change needs a rollback journal) — rebuilt by VACUUM, which costs nothing with no tables.
 */
function setFreshPageSize(db: Db, size: PageSize): void {
  db.pragma(SET_PAGE_SIZE[size])
  if (readIntegerPragma(db, 'page_size') === size) return
  db.pragma('journal_mode = DELETE')
  db.pragma(SET_PAGE_SIZE[size])
  db.exec('VACUUM')
}
