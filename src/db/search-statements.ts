/**
 * The statements that keep the full-text index (`search_index`, docs/design.md, "Recall") in step with
 * the archive. Every one reads the text to index — or to take out — from the view `search_text`
 * (migration `0008_recall`), the one definition of the text of a message or a summary: what a delete
 * removes is exactly what the insert put in, as long as the row's body did not change in between (a
 * body is changed only by a redaction or a prune, which take the entry out first and put it back after).
 *
 * A document of the index is a message (`doc` = `messages.id`) or a summary (`doc` = −`summaries.id`).
 * Messages are indexed in batches up to the watermark `search_state.indexed_to`: every message with
 * `id <= indexed_to` is in the index, none above it is. Summaries are indexed in the transaction that
 * writes them. Declared like those of `statements.ts`, which prepares them with the rest.
 */
import type { SearchStateRow } from './rows.js'
import { rows, write } from './typed-statement.js'

/** The watermark, as a subquery. */
const WATERMARK = '(SELECT indexed_to FROM search_state WHERE id = 1)'

/** The index's statements, by name. */
export const SEARCH_WRITE_STATEMENTS = {
  // The watermark and the newest message id: the messages between them wait for a batch. Two seeks.
  searchState: rows<[], SearchStateRow>(
    'SELECT indexed_to, (SELECT coalesce(max(id), 0) FROM messages) AS last_id FROM search_state WHERE id = 1',
    { indexed_to: true, last_id: true },
  ),
  // One batch: every message above the watermark, as one insert in rowid order (FTS5 writes what one
  // transaction inserted in ascending order as one segment). It reads the bodies as they are now: a
  // message redacted or pruned before its batch is indexed in its erased form.
  indexMessagesAbove: write<[above: number]>(
    'INSERT INTO search_index (rowid, text) SELECT doc, text FROM search_text WHERE doc > ? ORDER BY doc',
  ),
  setWatermark: write<[indexedTo: number]>('UPDATE search_state SET indexed_to = ? WHERE id = 1'),
  // After a session's rows are deleted the newest ids may be gone, and SQLite gives the next message the
  // id after the highest left: the watermark comes down to it, so that message is indexed by a batch.
  clampWatermark: write<[]>(
    'UPDATE search_state SET indexed_to = min(indexed_to, (SELECT coalesce(max(id), 0) FROM messages)) WHERE id = 1',
  ),
  // Summaries from an id on (those a transaction wrote): their docs are −id, so `doc <= −from`, ascending.
  indexSummariesFrom: write<[toDoc: number]>(
    'INSERT INTO search_index (rowid, text) SELECT doc, text FROM search_text WHERE doc < 0 AND doc <= ? ORDER BY doc',
  ),
  // One message, when it is indexed (at or below the watermark): its new text after a redaction or prune.
  indexMessage: write<[session: number, seq: number]>(
    `INSERT INTO search_index (rowid, text) SELECT doc, text FROM search_text
    WHERE doc = (SELECT id FROM messages WHERE session = ? AND seq = ?) AND doc <= ${WATERMARK}`,
  ),
  // One message's entry out, when it has one: before its body changes.
  unindexMessage: write<[session: number, seq: number]>(
    `INSERT INTO search_index (search_index, rowid, text) SELECT 'delete', doc, text FROM search_text
    WHERE doc = (SELECT id FROM messages WHERE session = ? AND seq = ?) AND doc <= ${WATERMARK}`,
  ),
  // Every summary and every indexed message of a session, before its rows are deleted (a message above
  // the watermark has no entry: deleting one it does not hold would damage an external-content index).
  unindexSession: write<[session: number]>(
    `INSERT INTO search_index (search_index, rowid, text) SELECT 'delete', doc, text FROM search_text
    WHERE session = ? AND doc <= ${WATERMARK} ORDER BY doc`,
  ),
}
