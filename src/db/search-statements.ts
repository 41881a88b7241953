/**
 * The statements that keep the full-text index (`search_index`, docs/design.md, "Recall") in step with
 * the archive. Every one reads the text to index — or to take out — from the view `search_text`
 * (migration `0008_recall`), the one definition of the text of a message or a summary: what a delete
 * removes is exactly what the insert put in, as long as the row's body did not change in between (a
 * body is changed only by a redaction or a prune, which take the entry out first and put it back after).
 *
 * A document of the index is a message (`doc` = `messages.id`) or a summary (`doc` = −`summaries.id`).
 * Declared like those of `statements.ts`, which prepares them with the rest.
 */
import { write } from './typed-statement.js'

/** The index's statements, by name. */
export const SEARCH_WRITE_STATEMENTS = {
  // Messages from an id on (those a transaction appended), in rowid order: FTS5 flushes what it holds
  // whenever a document arrives with a smaller id than the one before, so ascending order keeps one
  // segment per transaction. (The summaries' half of the view seeks no row: their docs are negative.)
  indexMessagesFrom: write<[fromId: number]>(
    'INSERT INTO search_index (rowid, text) SELECT doc, text FROM search_text WHERE doc >= ? ORDER BY doc',
  ),
  // Summaries from an id on: their docs are −id, so `doc <= −from`, ascending (the newest first).
  indexSummariesFrom: write<[toDoc: number]>(
    'INSERT INTO search_index (rowid, text) SELECT doc, text FROM search_text WHERE doc < 0 AND doc <= ? ORDER BY doc',
  ),
  indexMessage: write<[session: number, seq: number]>(
    `INSERT INTO search_index (rowid, text) SELECT doc, text FROM search_text
    WHERE doc = (SELECT id FROM messages WHERE session = ? AND seq = ?)`,
  ),
  unindexMessage: write<[session: number, seq: number]>(
    `INSERT INTO search_index (search_index, rowid, text) SELECT 'delete', doc, text FROM search_text
    WHERE doc = (SELECT id FROM messages WHERE session = ? AND seq = ?)`,
  ),
  // Every message and summary of a session, before its rows are deleted.
  unindexSession: write<[session: number]>(
    `INSERT INTO search_index (search_index, rowid, text) SELECT 'delete', doc, text FROM search_text
    WHERE session = ? ORDER BY doc`,
  ),
}
