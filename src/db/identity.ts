/**
 * Whether a file is a ledger this version can open, decided without writing a byte: a file that is not
 * SQLite, or was cut short, is refused from its header before SQLite touches it; a SQLite database is
 * then told apart by its header fields — `application_id` marks a context-ledger file and `user_version`
 * counts the migrations applied — as fresh, current, behind (to migrate), too new, or another
 * application's. Also the typed errors for what opening a file can meet.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs'
import type Database from 'better-sqlite3'
import { ContextLedgerError } from '../errors.js'
import { readIntegerPragma } from './pragmas.js'
import { errorCode, isBusy, toLedgerError } from './sqlite-errors.js'

/** `'CLDG'`: the SQLite `application_id` of every context-ledger file. */
export const APPLICATION_ID = 0x434c4447

/** Marks a file as a ledger (literal text: see pragmas.ts). */
export const SET_APPLICATION_ID: `application_id = ${typeof APPLICATION_ID}` = 'application_id = 1129071687'

const SQLITE_MAGIC = 'SQLite format 3\0'

/**
 * Refuses a path that is a FIFO, a device or a socket: opening a FIFO blocks until someone writes to it,
 * and SQLite cannot keep a ledger (nor its side files) in any of them. A directory is left to the open,
 * which names it.
 *
 * @param path - an existing path
 * @throws ContextLedgerError `NOT_A_LEDGER` naming what the path is
 */
function refuseSpecialFile(path: string): void {
  const stat = statSync(path)
  if (stat.isFile() || stat.isDirectory()) return
  const what = stat.isFIFO()
    ? 'a named pipe (FIFO)'
    : stat.isSocket()
      ? 'a socket'
      : stat.isCharacterDevice() || stat.isBlockDevice()
        ? 'a device'
        : 'not a regular file'
  throw new ContextLedgerError('NOT_A_LEDGER', `${path} is ${what}, not a ledger file; it was not opened`)
}

/**
 * Refuses, before SQLite touches it, a file that is not a database or was cut short (a copy interrupted,
 * a disk that filled). SQLite itself takes some such files for an empty database — which opening would
 * then overwrite with a fresh ledger — and reads pages past the end of a truncated one as absent,
 * failing (or answering wrongly) only when a query reaches them. The header records the page count; when
 * it is valid (its change counter matches `version-valid-for`) and no write-ahead log or journal could
 * hold the missing pages, a shorter file is damaged. Reads at most 100 bytes; writes nothing.
 *
 * @param path - the database file (nothing is checked for `':memory:'`, `''` or a missing file)
 * @returns the header's page size and application id, or undefined for no file or an empty one
 * @throws ContextLedgerError `NOT_A_LEDGER` (also for a FIFO, a device or a socket) or `CORRUPT_DATABASE`
 */
export function checkFileHeader(path: string): FileHeader | undefined {
  if (path === ':memory:' || path === '' || !existsSync(path)) return undefined
  refuseSpecialFile(path)
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
  if (size === 0) return undefined
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
  const found = { pageSize, applicationId: header.readUInt32BE(68) }
  if (!valid || pages === 0 || size >= pages * pageSize || pending('-wal') || pending('-journal'))
    return found
  throw truncated(
    `its header counts ${pages} pages of ${pageSize} bytes (${pages * pageSize} bytes), the file has ${size}`,
  )
}

/** What the first 100 bytes of a database file say, read before SQLite opens it. */
export interface FileHeader {
  /** Its page size in bytes. */
  readonly pageSize: number
  /** Its `application_id` ({@link APPLICATION_ID} for a ledger). */
  readonly applicationId: number
}

/** What a database's header says about it. */
export interface Identity {
  /** Its `application_id`. */
  applicationId: number
  /** Its `user_version`: the migrations applied, in a ledger. */
  userVersion: number
  /** How many tables, indexes, views and triggers it holds. */
  objects: number
}

/** Where a database stands against the migrations this version knows. */
export type IdentityState = 'fresh' | 'current' | 'behind'

/**
 * Reads a database's identity (reads only).
 *
 * @param db - an open connection
 * @returns its identity
 */
export function readIdentity(db: Database.Database): Identity {
  // One read transaction: read one by one, the header could be read before another process's migration
  // committed and the schema after it (application_id 0 with 32 objects: NOT_A_LEDGER for a new ledger).
  return db.transaction((): Identity => {
    const applicationId = readIntegerPragma(db, 'application_id')
    const userVersion = readIntegerPragma(db, 'user_version')
    const objects = db.prepare<[], number>('SELECT count(*) AS objects FROM sqlite_schema').pluck().get() ?? 0
    return { applicationId, userVersion, objects }
  })()
}

/**
 * Decides whether a database is a ledger this version can open.
 *
 * @param path - the file, for messages
 * @param id - its identity
 * @param known - how many migrations this version knows
 * @returns `fresh` (an empty database), `current`, or `behind` (a ledger to migrate)
 * @throws ContextLedgerError `SCHEMA_TOO_NEW` or `NOT_A_LEDGER`
 */
export function checkIdentity(path: string, id: Identity, known: number): IdentityState {
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

/**
 * The error for a file that must exist and does not.
 *
 * @param path - the file
 * @returns `FILE_NOT_FOUND`
 */
export function missing(path: string): ContextLedgerError<'FILE_NOT_FOUND'> {
  return new ContextLedgerError(
    'FILE_NOT_FOUND',
    `${path} does not exist (opened with mustExist or readonly, so no new ledger was created)`,
  )
}

/**
 * The error for a file opened read-only that would need migrating.
 *
 * @param path - the file
 * @param db - its connection
 * @param known - how many migrations this version knows
 * @returns `SCHEMA_TOO_OLD`
 */
export function tooOld(
  path: string,
  db: Database.Database,
  known: number,
): ContextLedgerError<'SCHEMA_TOO_OLD'> {
  const version = readIntegerPragma(db, 'user_version')
  const what =
    version === 0 ? 'is an empty database with no ledger schema yet' : `uses ledger schema version ${version}`
  return new ContextLedgerError(
    'SCHEMA_TOO_OLD',
    `${path} ${what}, and this context-ledger needs version ${known}: a read-only open cannot migrate it; open it once without readonly to upgrade it`,
  )
}

/**
 * Turns a SQLite failure met while opening or checking a file into the typed error that says what the
 * file is: not a database, damaged, in a directory SQLite cannot write to, or locked by another
 * connection creating or upgrading it.
 *
 * @param path - the file
 * @param error - what was caught
 * @throws ContextLedgerError always
 */
export function refuse(path: string, error: unknown): never {
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
