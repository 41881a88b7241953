/**
 * The modes of a ledger's `-wal` and `-shm` files, which SQLite creates beside it.
 */
import { chmodSync, statSync } from 'node:fs'

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
