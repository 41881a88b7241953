/**
 * Building the full-text index of the rows a ledger already holds, when migration `0008_recall` creates
 * it (empty) on a file from before it, and moving its watermark past them. Runs inside the migration's transaction, in batches of message
 * ids, so that a big file reports its progress on stderr as it goes; a migration that fails or is killed
 * leaves the file at its old version, index and all.
 */
import type Database from 'better-sqlite3'
import { prepareAll, value, write } from './typed-statement.js'

/** Messages indexed per statement. */
export const FILL_BATCH = 5_000

/** Files with at least this many messages report the building's progress on stderr. */
export const FILL_PROGRESS_FROM = 20_000

const FILL_STATEMENTS = {
  lastMessageId: value<[], number | null>('SELECT max(id) AS id FROM messages', 'id'),
  messageCount: value<[], number>('SELECT count(*) AS count FROM messages', 'count'),
  // Summaries first: their docs are negative, and FTS5 takes a segment's documents in ascending order.
  indexSummaries: write<[]>(
    'INSERT INTO search_index (rowid, text) SELECT doc, text FROM search_text WHERE doc < 0 ORDER BY doc',
  ),
  indexMessages: write<[fromId: number, toId: number]>(
    'INSERT INTO search_index (rowid, text) SELECT doc, text FROM search_text WHERE doc >= ? AND doc < ? ORDER BY doc',
  ),
  setWatermark: write<[indexedTo: number]>('UPDATE search_state SET indexed_to = ? WHERE id = 1'),
}

/** Where progress lines go (stderr; tests pass their own). */
export type ProgressSink = (line: string) => void

const toStderr: ProgressSink = (line) => {
  process.stderr.write(`${line}\n`)
}

/**
 * Indexes every message and summary of the file, inside the caller's transaction.
 *
 * @param db - a connection inside the migration's write transaction, the index just created and empty
 * @param path - the file, for the progress lines
 * @param progress - where a big file's progress goes (default: stderr)
 * @returns how many messages were indexed
 */
export function fillSearchIndex(
  db: Database.Database,
  path: string,
  progress: ProgressSink = toStderr,
): number {
  const st = prepareAll(db, FILL_STATEMENTS)
  st.indexSummaries.run()
  const last = st.lastMessageId.get() ?? 0
  const total = st.messageCount.get() ?? 0
  const report = total >= FILL_PROGRESS_FROM
  if (report) progress(`context-ledger: indexing ${total} messages of ${path} for search`)
  let shown = 0
  for (let from = 1; from <= last; from += FILL_BATCH) {
    st.indexMessages.run(from, from + FILL_BATCH)
    const percent = Math.floor((100 * Math.min(from + FILL_BATCH - 1, last)) / last)
    if (report && percent >= shown + 10) {
      shown = percent
      progress(`context-ledger: search index of ${path}: ${percent}%`)
    }
  }
  // Every message the file holds is indexed: the watermark moves past them all.
  st.setWatermark.run(last)
  if (report) progress(`context-ledger: search index of ${path}: done`)
  return total
}
