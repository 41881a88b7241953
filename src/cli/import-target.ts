/**
 * Where `import` writes, and how its result appears. Into a file that exists, the import writes in
 * place, in one transaction that a refusal rolls back: nothing of the file is ever removed. A file that
 * does not exist is built under a temporary name in the same directory (`.<name>.import-<random>`) and
 * published only once complete, with `link()`, which never replaces a file: a process that opens the
 * target meanwhile sees no file until then; if it created the file meanwhile, the import refuses
 * (`FILE_EXISTS`) and leaves that file alone. Only the temporary file — a name no one else knows — is
 * ever removed, on every way the import ends but success.
 */
import { randomBytes } from 'node:crypto'
import {
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  linkSync,
  openSync,
  readlinkSync,
  rmSync,
  statSync,
} from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { isSymbolicLink } from '../db/file-kind.js'
import { CliError } from './errors.js'

/** The file an import writes to, and what to do with it when the import ends. */
export interface ImportTarget {
  /** The path to open the store on: the target itself, or the temporary file. */
  readonly path: string
  /** Whether the import builds a new file (under {@link path}, a temporary name). */
  readonly building: boolean
  /**
   * Makes the built file the target, never replacing one that appeared meanwhile; a no-op when the import
   * wrote in place. Call it with the store closed (its write-ahead log checkpointed into the file).
   *
   * @throws CliError `FILE_EXISTS` when the target was created meanwhile (the temporary file is removed)
   */
  publish(): void
  /** Removes the temporary file and its side files; a no-op when the import wrote in place. */
  discard(): void
}

/** Error codes of a `link()` on a file system that has no hard links: the file is copied instead. */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK'])

/**
 * Chooses where an import into `file` writes.
 *
 * @param file - the ledger named on the command line
 * @returns the target: `file` itself when it exists, else a new temporary file beside it
 * @throws CliError `USAGE` when the directory cannot hold the temporary file
 */
export function importTarget(file: string): ImportTarget {
  if (existsSync(file)) return { path: file, building: false, publish: () => {}, discard: () => {} }
  if (isSymbolicLink(file))
    throw new CliError(
      `${file} is a symbolic link to ${readlinkSync(file)}, which does not exist; nothing was imported. Import into the path it names, or remove the link`,
      'USAGE',
    )
  const temp = join(dirname(file), `.${basename(file)}.import-${randomBytes(6).toString('hex')}`)
  try {
    // Claimed exclusively: an empty file, which opening the store makes a ledger.
    closeSync(openSync(temp, 'wx', 0o644))
  } catch (error) {
    throw new CliError(`${file}: cannot be created (${errorCode(error)}); nothing was imported`, 'USAGE')
  }
  const discard = (): void => {
    for (const suffix of ['-wal', '-shm', '-journal', '']) rmSync(temp + suffix, { force: true })
  }
  return {
    path: temp,
    building: true,
    discard,
    publish() {
      try {
        publishNew(temp, file)
      } finally {
        discard()
      }
    },
  }
}

/** Gives `temp` the name `file` unless `file` exists: a hard link, or an exclusive copy without links. */
function publishNew(temp: string, file: string): void {
  const wal = `${temp}-wal`
  if (existsSync(wal) && statSync(wal).size > 0)
    throw new CliError(
      `${file}: the imported ledger's write-ahead log was not checkpointed; nothing was imported`,
      'INTERNAL',
    )
  try {
    linkSync(temp, file)
    return
  } catch (error) {
    if (errorCode(error) === 'EEXIST') throw appeared(file)
    if (!NO_LINKS.has(errorCode(error)))
      throw new CliError(`${file}: cannot be created (${errorCode(error)}); nothing was imported`, 'USAGE')
  }
  try {
    copyFileSync(temp, file, constants.COPYFILE_EXCL)
  } catch (error) {
    if (errorCode(error) === 'EEXIST') throw appeared(file)
    throw new CliError(`${file}: cannot be created (${errorCode(error)}); nothing was imported`, 'USAGE')
  }
}

function appeared(file: string): CliError {
  return new CliError(
    `${file} was created by another process while the import ran; nothing was imported and that file was left as it is. Import into it now with the same command (the session goes into the file as it is)`,
    'FILE_EXISTS',
  )
}

function errorCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return typeof code === 'string' ? code : String(error)
}
