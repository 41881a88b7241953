/**
 * The data lifecycle of a ledger file — deleting a session, pruning old message bodies (retention) and
 * backing the file up while it is in use — as callers see it: the options and results, the checks of the
 * arguments, the pruned form of a message, and the backup copy itself. The deletion and the prune run in
 * `retention.ts`; their statements are in `db/lifecycle-statements.ts`.
 */
import Database from 'better-sqlite3'
import { randomUUID } from 'node:crypto'
import { isSymbolicLink } from '../db/file-kind.js'
import { existsSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { ContextLedgerError } from '../errors.js'
import { describeValue } from '../messages/limits.js'
import { NEW_LEDGER_PAGE_SIZE, PAGE_SIZES, SET_PAGE_SIZE, type PageSize } from '../db/open.js'
import { readIntegerPragma } from '../db/pragmas.js'
import { toLedgerError } from '../db/sqlite-errors.js'
import { checkKeys, invalidOption } from './check-args.js'

/** Options of {@link ContextStore.backup}. */
export interface BackupOptions {
  /** Replace an existing file at the destination (with its -wal/-shm). Default false. */
  overwrite?: boolean | undefined
  /**
   * Rebuild the copy packed, with the page size new ledgers get (1 KiB) or `pageSize`, by `VACUUM INTO`
   * instead of the backup API: the way to move a ledger made by an earlier version (4 KiB pages) to pages
   * that cost a quarter of the bytes per write. Blocks the thread while it copies (about 1 s per 100 MB
   * here). Default false.
   */
  compact?: boolean | undefined
  /**
   * With `compact: true`, the copy's page size in bytes: a power of two from 512 to 65,536. Default 1024.
   * A copy made by the backup API keeps the ledger's own page size, so it is refused without `compact`.
   */
  pageSize?: PageSize | undefined
}

/** What {@link ContextStore.backup} wrote. */
export interface BackupResult {
  /** The destination, resolved to an absolute path. */
  readonly path: string
  /** Database pages copied. */
  readonly pages: number
}

export { PRUNE_BATCH } from '../db/lifecycle-statements.js'
export {
  checkPruneOptions,
  prunedForm,
  type DeleteSessionResult,
  type PruneOptions,
  type PruneResult,
} from './retention-options.js'

/**
 * Checks the arguments of {@link ContextStore.backup}.
 *
 * @param source - the store's own path (`':memory:'` for an in-memory store)
 * @param destination - where the copy goes
 * @param options - `overwrite`, `compact`, `pageSize`
 * @returns the destination resolved to an absolute path, whether it may be replaced, the page size to
 *   compact to (undefined: a plain copy)
 * @throws ContextLedgerError `INVALID_OPTIONS` naming `destination`, `options.overwrite`,
 *   `options.compact` or `options.pageSize`; also when the destination exists (or has a -wal/-shm file)
 *   and `overwrite` is not true
 */
export function checkBackupArgs(source: string, destination: unknown, options: unknown): BackupTarget {
  if (typeof destination !== 'string' || destination.length === 0 || destination.includes('\0'))
    throw invalidOption(
      'destination',
      `expected a file path (a non-empty string without NUL), got ${describeValue(destination)}`,
    )
  const o = options === undefined ? {} : checkKeys(options, 'options', ['overwrite', 'compact', 'pageSize'])
  if (o.overwrite !== undefined && typeof o.overwrite !== 'boolean')
    throw invalidOption('options.overwrite', `expected a boolean, got ${describeValue(o.overwrite)}`)
  if (o.compact !== undefined && typeof o.compact !== 'boolean')
    throw invalidOption('options.compact', `expected a boolean, got ${describeValue(o.compact)}`)
  const pageSize = PAGE_SIZES.find((size) => size === o.pageSize)
  if (o.pageSize !== undefined && pageSize === undefined)
    throw invalidOption(
      'options.pageSize',
      `expected a power of two from 512 to 65536 (bytes), got ${describeValue(o.pageSize)}`,
    )
  if (pageSize !== undefined && o.compact !== true)
    throw invalidOption(
      'options.pageSize',
      `expected it only with compact: true (a copy by the backup API keeps the ledger's page size), got pageSize ${pageSize} without it`,
    )
  const overwrite = o.overwrite === true
  const compact = o.compact === true ? (pageSize ?? NEW_LEDGER_PAGE_SIZE) : undefined
  const path = resolve(destination)
  if (destination === ':memory:') throw invalidOption('destination', `expected a file path, got ":memory:"`)
  if (source !== ':memory:') {
    // The store's own file and its side files, however the destination spells them (a relative path, a
    // symlinked folder): replacing the live log or index with a copy would lose what it holds.
    const own = canonical(resolve(source))
    const target = canonical(path)
    const clash = ['', '-wal', '-shm', '-journal'].find((side) => target === own + side)
    if (clash !== undefined)
      throw invalidOption(
        'destination',
        clash === ''
          ? `expected another file than the store's own, got "${destination}"`
          : `expected another file than the store's own ${clash.slice(1)} file, got "${destination}"`,
      )
  }
  const existing = [path, `${path}-wal`, `${path}-shm`].find((p) => existsSync(p) || isSymbolicLink(p))
  // Overwriting replaces a file; never a FIFO, a device or a socket (as root, /dev/null), nor a symbolic
  // link to nothing (the link itself would be replaced).
  if (existing !== undefined && !isRegularFile(existing))
    throw invalidOption(
      'destination',
      `expected a file or a new path, got "${existing}" (a FIFO, a device, a socket, a folder or a symbolic link to nothing); it was left as it is`,
    )
  if (existing !== undefined && !overwrite)
    throw invalidOption(
      'destination',
      `"${existing}" exists; pass { overwrite: true } to replace it (it must not be open)`,
    )
  return { path, overwrite, compact }
}

/** Whether `path` is a regular file, or a symbolic link to one. */
function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/**
 * A path with its symlinks resolved: the file's real path when it exists, else its folder's real path
 * joined with its name (a backup destination usually does not exist yet).
 *
 * @param path - an absolute path
 * @returns the canonical form, or the path itself when its folder does not exist either
 */
function canonical(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    try {
      return join(realpathSync(dirname(path)), basename(path))
    } catch {
      return path
    }
  }
}

/** A checked backup destination. */
export interface BackupTarget {
  /** Absolute path. */
  readonly path: string
  /** Replace what is there. */
  readonly overwrite: boolean
  /** Rebuild packed with this page size (`VACUUM INTO`); undefined for a copy by the backup API. */
  readonly compact: PageSize | undefined
}

/**
 * Copies a live database with SQLite's online backup API (or, to compact it, `VACUUM INTO` with the
 * page size new ledgers get): a consistent snapshot including what the write-ahead log holds, written to
 * a temporary file beside the destination and renamed over it only once complete, so a failed backup
 * leaves the destination as it was.
 *
 * @param db - the store's connection
 * @param what - the store's path, for error messages
 * @param target - the checked destination (see {@link checkBackupArgs})
 * @returns the destination and the pages copied
 * @throws ContextLedgerError `STORAGE_ERROR`, `STORAGE_FULL` when the copy cannot be written
 */
export async function backupDatabase(
  db: Database.Database,
  what: string,
  target: BackupTarget,
): Promise<BackupResult> {
  const temp = `${target.path}.backup-${randomUUID()}`
  try {
    const { totalPages } =
      target.compact !== undefined ? vacuumInto(db, temp, target.compact) : await db.backup(temp)
    // A log or index left by an older file at the destination would be applied to the copy: remove them.
    if (target.overwrite) for (const side of ['-wal', '-shm']) rmSync(target.path + side, { force: true })
    renameSync(temp, target.path)
    return { path: target.path, pages: totalPages }
  } catch (error) {
    for (const p of [temp, `${temp}-journal`, `${temp}-wal`, `${temp}-shm`]) rmSync(p, { force: true })
    const mapped = toLedgerError(error, `back up ${what} to ${target.path}`)
    if (mapped instanceof ContextLedgerError) throw mapped
    throw new ContextLedgerError(
      'STORAGE_ERROR',
      `Could not back up ${what} to ${target.path}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    )
  }
}

/**
 * Writes a packed copy of the database with the given page size. A connection in WAL mode keeps its own
 * file's page size whatever `page_size` says, but `VACUUM INTO` builds the copy with it.
 *
 * @param db - the store's connection (not in a transaction)
 * @param path - the copy's path (must not exist)
 * @param pageSize - the copy's page size
 * @returns the copy's page count
 */
function vacuumInto(db: Database.Database, path: string, pageSize: PageSize): { totalPages: number } {
  db.pragma(SET_PAGE_SIZE[pageSize])
  db.prepare('VACUUM INTO ?').run(path)
  const copy = new Database(path)
  try {
    // An in-memory store's copy keeps the store's page size whatever `page_size` said: rebuilt once more.
    if (readIntegerPragma(copy, 'page_size') !== pageSize) {
      copy.pragma('journal_mode = DELETE')
      copy.pragma(SET_PAGE_SIZE[pageSize])
      copy.exec('VACUUM')
    }
    return { totalPages: readIntegerPragma(copy, 'page_count') }
  } finally {
    copy.close()
  }
}
