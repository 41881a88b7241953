/**
 * The full-text index checked against its source: a fresh FTS5 index is built in the connection's temp
 * schema from the view `search_text` (the one definition of what is indexed), and every token instance
 * of the ledger's index — term, document, position — must be in it and the other way round. FTS5's own
 * `integrity-check` runs too. A delete that removed something other than what was inserted, a row
 * indexed twice or not at all, or a body changed without its entry, all show as a difference.
 */
import type Database from 'better-sqlite3'

/** A token instance: term, document (message id, or −summary id), position. */
export interface Instance {
  readonly term: string
  readonly doc: number
  readonly offset: number
}

const ACTUAL = 'SELECT term, doc, "offset" FROM temp.actual_vocab'
const EXPECTED = 'SELECT term, doc, "offset" FROM temp.expected_vocab'

/**
 * Compares the ledger's index with one built from the view now, for the documents the index should hold:
 * every summary and every message at or below the watermark `search_state.indexed_to`.
 *
 * @param db - a writable connection to a ledger (the temp schema is written, the file is not)
 * @returns the instances only in the ledger's index, those only in the fresh one, and how many match
 */
export function compareIndexWithView(db: Database.Database): {
  readonly extra: Instance[]
  readonly missing: Instance[]
  readonly matching: number
} {
  db.prepare("INSERT INTO search_index (search_index) VALUES ('integrity-check')").run()
  db.exec(`DROP TABLE IF EXISTS temp.expected_index;
    DROP TABLE IF EXISTS temp.expected_vocab;
    DROP TABLE IF EXISTS temp.actual_vocab;
    CREATE VIRTUAL TABLE temp.expected_index USING fts5(text, tokenize = 'porter unicode61 remove_diacritics 2');
    CREATE VIRTUAL TABLE temp.expected_vocab USING fts5vocab(temp, expected_index, instance);
    CREATE VIRTUAL TABLE temp.actual_vocab USING fts5vocab(main, search_index, instance);`)
  // Messages above the watermark wait for their batch: only those at or below it are expected.
  db.prepare(
    `INSERT INTO temp.expected_index (rowid, text) SELECT doc, text FROM main.search_text
    WHERE doc <= (SELECT indexed_to FROM main.search_state WHERE id = 1)`,
  ).run()
  const read = (sql: string): Instance[] => db.prepare<[], Instance>(sql).all()
  const key = (i: Instance): string => `${i.doc}\u0000${i.offset}\u0000${i.term}`
  const actual = read(ACTUAL)
  const expected = read(EXPECTED)
  const inActual = new Set(actual.map(key))
  const inExpected = new Set(expected.map(key))
  db.exec(`DROP TABLE temp.actual_vocab; DROP TABLE temp.expected_vocab; DROP TABLE temp.expected_index;`)
  return {
    extra: actual.filter((i) => !inExpected.has(key(i))),
    missing: expected.filter((i) => !inActual.has(key(i))),
    matching: actual.filter((i) => inExpected.has(key(i))).length,
  }
}

/**
 * The documents a full-text query finds in the ledger's index, ascending.
 *
 * @param db - a connection to a ledger
 * @param query - FTS5 query syntax
 * @returns the documents (message ids; summaries as −id)
 */
export function docsMatching(db: Database.Database, query: string): number[] {
  return db
    .prepare<[string], number>('SELECT rowid FROM search_index WHERE search_index MATCH ? ORDER BY rowid')
    .pluck()
    .all(query)
}

/**
 * How many segments the index has: each holds the documents of one flush (a commit, or a savepoint that
 * found documents pending), until a merge combines them.
 *
 * @param db - a connection to a ledger
 * @returns the number of segments with at least one leaf in `search_index_idx`
 */
export function segmentCount(db: Database.Database): number {
  return db.prepare<[], number>('SELECT count(DISTINCT segid) FROM search_index_idx').pluck().get() ?? 0
}

/**
 * The watermark: every message with an id at or below it is indexed, none above.
 *
 * @param db - a connection to a ledger
 * @returns `search_state.indexed_to`
 */
export function watermark(db: Database.Database): number {
  return db.prepare<[], number>('SELECT indexed_to FROM search_state WHERE id = 1').pluck().get() ?? 0
}

/**
 * Lets the event loop turn once: a full-text index pass a write scheduled (`setImmediate`) runs first.
 *
 * @returns a promise settled after the turn
 */
export function idleTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/**
 * How many messages wait above the watermark.
 *
 * @param db - a connection to a ledger
 * @returns the newest message id minus the watermark
 */
export function waiting(db: Database.Database): number {
  return (
    db
      .prepare<[], number>(
        'SELECT (SELECT coalesce(max(id), 0) FROM messages) - indexed_to FROM search_state WHERE id = 1',
      )
      .pluck()
      .get() ?? 0
  )
}
