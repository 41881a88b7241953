/**
 * The SQLite store's second bound on a query's words, counted by the index's own tokenizer (the
 * connection's temporary `search_words` table, which has the index's tokenizer): the first count
 * (`query-terms.ts`) goes by Unicode categories, which call some of FTS5's separators letters or marks
 * (combining marks, letters newer than Unicode 6.1), so a text it takes for one word could reach FTS5 as
 * a phrase of a thousand tokens (about 5 s a search on 50,000 messages).
 */
import { MAX_QUERY_TERMS } from './query-terms.js'
import { invalidQuery } from './search-query.js'

/** The statements of the temporary words table this needs (`PENDING_SEARCH_STATEMENTS`). */
export interface WordsTable {
  /** Empties the table. */
  readonly clearWords: { run(): unknown }
  /** Adds a text as one document. */
  readonly addWords: { run(doc: number, text: string): unknown }
  /** Every token of the table, one row each. */
  readonly wordTerms: { all(): readonly unknown[] }
}

/**
 * Refuses a query of which FTS5's tokenizer makes more than {@link MAX_QUERY_TERMS} tokens (twice as many
 * in raw FTS5 syntax, whose operators and column names are tokens too).
 *
 * @param query - the query as given (already checked by `toFtsQuery`)
 * @param syntax - plain or raw FTS5
 * @param words - the connection's temporary words table (left empty)
 * @throws ContextLedgerError `INVALID_QUERY` naming the bound
 */
export function checkIndexTokens(query: string, syntax: 'plain' | 'fts5', words: WordsTable): void {
  const bound = syntax === 'plain' ? MAX_QUERY_TERMS : 2 * MAX_QUERY_TERMS
  words.clearWords.run()
  words.addWords.run(0, query)
  const tokens = words.wordTerms.all().length
  words.clearWords.run()
  if (tokens > bound)
    throw invalidQuery(
      `the index splits it into ${tokens} words; at most ${bound} are accepted (MAX_QUERY_TERMS` +
        `${syntax === 'fts5' ? ', twice over in raw syntax, whose operators count' : ''}; ` +
        'some characters, combining marks among them, separate words there)',
    )
}
