/**
 * What a store committed, read from its write-ahead log: each frame's header names its page, and a
 * commit frame carries the database size. Counting commits this way needs no hook in the store.
 */
import { existsSync, readFileSync } from 'node:fs'
import type { ContextStore } from '../../src/index.js'

const WAL_HEADER = 32
const FRAME_HEADER = 24

/**
 * Checkpoints the store's log and starts it over, so {@link walCommits} counts from here.
 *
 * @param store - an open store on a file
 */
export function restartWal(store: ContextStore): void {
  store.connection().pragma('wal_checkpoint(TRUNCATE)')
}

/**
 * The commits in the store's log since it was last started over.
 *
 * @param store - an open store on a file
 * @returns the number of commit frames carrying the log's current salts
 */
export function walCommits(store: ContextStore): number {
  const path = `${store.path}-wal`
  if (!existsSync(path)) return 0
  const wal = readFileSync(path)
  if (wal.length < WAL_HEADER) return 0
  const pageSize = wal.readUInt32BE(8)
  const salt1 = wal.readUInt32BE(16)
  const salt2 = wal.readUInt32BE(20)
  let commits = 0
  for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= wal.length; at += FRAME_HEADER + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break
    if (wal.readUInt32BE(at + 4) !== 0) commits++
  }
  return commits
}
