/**
 * Reading a ledger as another user than the one who owns it, without breaking its owner's agents.
 *
 * A reader of a WAL database makes SQLite create the `-wal` and `-shm` beside it when they are missing,
 * owned by the reader, with the file's mode. Another user's `0644` side files are then read-only for the
 * owner, whose agents get `READ_ONLY` on every write until someone removes them. SQLite itself hands the
 * side files to the file's owner when it runs as root, so root (`sudo`) reads as the owner would. For any
 * other user, a read command here:
 *
 * - opens the file as usual when both side files exist (a connection of the owner's is open, or was):
 *   nothing is created, and the read takes its locks and sees what the write-ahead log holds;
 * - opens it `immutable=1` (a SQLite URI) when there is no `-wal`: then no connection has it open and
 *   everything committed is in the file, which SQLite reads without locks and without creating a side
 *   file. An agent that starts meanwhile writes to a new `-wal`, which is fine (what it commits
 *   came after the read began); but nothing keeps it from checkpointing into the file during the read,
 *   so the file is compared when the command ends ({@link changedDuringRead}): if it changed, the
 *   command fails (what it printed may mix two states) and asks to run it again;
 * - refuses, saying what to do, when there is a `-wal` but no `-shm` (reading it would need a `-shm`),
 *   or when this process cannot open URIs (SQLite is told to at its first use: a command line run
 *   in-process after other SQLite work cannot).
 *
 * This module loads nothing heavy: the program calls {@link changedDuringRead} after every command.
 */
import { existsSync, statSync, type Stats } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { CliError } from './errors.js'

/** How a read command opens a file. */
export type ReadAccess = { readonly kind: 'shared' } | { readonly kind: 'unlocked'; readonly uri: string }

/** What the file was when an unlocked read began. */
interface Stamp {
  readonly path: string
  readonly ino: number
  readonly size: number
  readonly mtimeMs: number
  readonly ctimeMs: number
}

const unlocked: Stamp[] = []

function stampOf(path: string, s: Stats): Stamp {
  return { path, ino: s.ino, size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs }
}

/**
 * The one line for a file this user cannot read without leaving side files its owner could not write.
 *
 * @param path - the ledger
 * @param owner - the file's owner's uid
 * @param why - what is missing
 * @returns the error
 */
function refusal(path: string, owner: number, why: string): CliError {
  return new CliError(
    `${path} belongs to uid ${owner}, and ${why}: reading it as uid ${String(process.geteuid?.())} would create its -shm owned by you, which its owner's agents could not write. Run the command as its owner (sudo -u '#${owner}' …) or as root`,
    'READ_ONLY',
  )
}

/**
 * How to open `path` for reading, from who owns it and which side files exist.
 *
 * @param path - an existing ledger file
 * @param env - the environment: URIs are turned on here (`SQLITE_USE_URI`) for an unlocked read
 * @returns the access to use
 * @throws CliError `READ_ONLY` when it cannot be read without creating side files the owner could not
 *   write
 */
export function readAccess(path: string, env: NodeJS.ProcessEnv = process.env): ReadAccess {
  const euid = process.geteuid?.()
  const stat = statSync(path)
  // Root: SQLite gives the side files it creates to the database's owner.
  if (euid === undefined || euid === 0 || euid === stat.uid) return { kind: 'shared' }
  const wal = existsSync(`${path}-wal`)
  if (wal && existsSync(`${path}-shm`)) return { kind: 'shared' }
  if (wal) throw refusal(path, stat.uid, 'it has a -wal but no -shm')
  // SQLite reads this before its first connection; a process that already used it keeps what it read.
  env.SQLITE_USE_URI = '1'
  unlocked.push(stampOf(path, stat))
  return { kind: 'unlocked', uri: `${pathToFileURL(resolve(path)).href}?immutable=1` }
}

/**
 * The refusal for an unlocked read this process cannot do (SQLite was started without URIs).
 *
 * @param path - the ledger
 * @returns the error
 */
export function unlockedReadRefused(path: string): CliError {
  return refusal(path, statSync(path).uid, 'it has no -wal to share with its owner')
}

/**
 * Whether a file read without locks changed during the command (its owner's agents wrote to it
 * meanwhile); each read is looked at once.
 *
 * @returns the error to report (`FILE_CHANGED`, naming the file), or undefined when none changed
 */
export function changedDuringRead(): CliError | undefined {
  for (const before of unlocked.splice(0)) {
    let now: Stamp | undefined
    try {
      now = stampOf(before.path, statSync(before.path))
    } catch {
      now = undefined
    }
    // Only the file matters: a write-ahead log that appeared meanwhile holds what was committed after
    // the read began, which a read with locks would not have seen either.
    if (
      now === undefined ||
      now.ino !== before.ino ||
      now.size !== before.size ||
      now.mtimeMs !== before.mtimeMs ||
      now.ctimeMs !== before.ctimeMs
    )
      return new CliError(
        `${before.path} was written while it was read without locks (as another user than its owner): what was printed may mix two states; run the command again`,
        'FILE_CHANGED',
      )
  }
  return undefined
}
