/**
 * The SQLite store's second bound on a query's words, counted by the index's own tokenizer
 * (`db/index-tokens.ts`): the first count (`query-terms.ts`) goes by Unicode categories, which call some
 * of FTS5's separators letters or marks, so a text it takes for one word could reach FTS5 as a phrase of
 * a thousand tokens (about 5 s a search on 50,000 messages).
 */
import { indexTokens } from '../db/index-tokens.js'
import { MAX_QUERY_TERMS } from './query-terms.js'
import { invalidQuery } from './search-query.js'

/**
 * Refuses a query of which FTS5's tokenizer makes more than {@link MAX_QUERY_TERMS} tokens (twice as many
 * in raw FTS5 syntax, whose operators and column names are tokens too).
 *
 * @param query - the query as given (already checked by `toFtsQuery`)
 * @param syntax - plain or raw FTS5
 * @throws ContextLedgerError `INVALID_QUERY` naming the bound
 */
export function checkIndexTokens(query: string, syntax: 'plain' | 'fts5'): void {
  const bound = syntax === 'plain' ? MAX_QUERY_TERMS : 2 * MAX_QUERY_TERMS
  const tokens = indexTokens(query)
  if (tokens > bound)
    throw invalidQuery(
      `the index splits it into ${tokens} words; at most ${bound} are accepted (MAX_QUERY_TERMS` +
        `${syntax === 'fts5' ? ', twice over in raw syntax, whose operators count' : ''}; ` +
        'some characters, combining marks among them, separate words there)',
    )
}
