/**
 * How many tokens the full-text index's own tokenizer makes of a text. The word count of a query
 * (`store/query-terms.ts`) follows Unicode categories, and FTS5's unicode61 splits on some characters
 * those call letters or marks (combining marks, letters added to Unicode after 6.1): a text the count
 * takes for one word can reach FTS5 as a thousand-token phrase. This asks the tokenizer itself, on a
 * small in-memory FTS5 table of this process, inside a transaction it rolls back.
 */
import Database from 'better-sqlite3'

let counter: ((text: string) => number) | undefined

/**
 * The number of tokens the index's tokenizer makes of `text`.
 *
 * @param text - a query's text
 * @returns its tokens, as FTS5 would index them
 */
export function indexTokens(text: string): number {
  counter ??= makeCounter()
  return counter(text)
}

function makeCounter(): (text: string) => number {
  const db = new Database(':memory:')
  // The tokenizer of the ledger's full-text index (migrations/0008_recall.sql, `messages_fts`).
  db.exec(`CREATE VIRTUAL TABLE q USING fts5(t, tokenize = 'porter unicode61 remove_diacritics 2', detail = full);
    CREATE VIRTUAL TABLE v USING fts5vocab(q, 'instance');`)
  const insert = db.prepare('INSERT INTO q(t) VALUES (?)')
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM v')
  return (text) => {
    db.exec('BEGIN')
    try {
      insert.run(text)
      return count.get()?.n ?? 0
    } finally {
      db.exec('ROLLBACK')
    }
  }
}
