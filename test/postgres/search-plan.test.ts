/**
 * The plan of `search()` on PostgreSQL, as the store's own connections make it (a generic plan, planned
 * once per connection, `enable_seqscan = off`: docs/postgres.md#pooling): the query is parsed once, not
 * for every matching row, and the messages are found through their GIN index. A query's words were
 * parsed again for every match's `@@`, `ts_rank` and `ts_headline` when the statement wrote
 * `phraseto_tsquery(...)` out in place: a custom plan folds those calls into a constant, a generic plan
 * cannot — a 64-word `match: 'any'` search over 50,000 messages took 8 s to 30 s (docs/benchmarks.md,
 * "The widest search"). And a match costs little besides its rank: the tool filters look a message up
 * on `tool_calls`' indexes of calls and of results.
 */
import { describe, expect, it } from 'vitest'
import { searchStatement, type PgSearchOptions } from '../../src/backends/postgres/search.js'
import { useDatabases } from './databases.js'

const { database, open } = useDatabases()

/** A plan node of `EXPLAIN (FORMAT JSON)`. */
type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] }

/**
 * The expressions of each node of a plan (its `Output`, `Filter`, `Sort Key`, `Index Cond`, …), each with
 * the name of the CTE or subplan it is part of, if any.
 */
function expressions(node: PlanNode, within: string | undefined, out: [string | undefined, string][]): void {
  const name = typeof node['Subplan Name'] === 'string' ? node['Subplan Name'] : within
  for (const [key, value] of Object.entries(node)) {
    if (key === 'Plans') continue
    for (const v of Array.isArray(value) ? value : [value])
      if (typeof v === 'string') out.push([name, `${key}: ${v}`])
  }
  for (const child of node.Plans ?? []) expressions(child, name, out)
}

/** Every index a plan reads. */
function indexes(node: PlanNode, out: string[] = []): string[] {
  if (typeof node['Index Name'] === 'string') out.push(node['Index Name'])
  for (const child of node.Plans ?? []) indexes(child, out)
  return out
}

const WORDS = Array.from({ length: 64 }, (_, i) => `word${i}`).join(' ')

describe('the search statement', () => {
  it.each<[string, string, PgSearchOptions]>([
    ['64 words, any', WORDS, { match: 'any', limit: 1000 }],
    ['three words, all', 'red green blue', {}],
    [
      'a phrase and a word, any, in a session, out of the window',
      '"green apple" pear',
      { match: 'any', sessionId: 's', inWindow: false },
    ],
    ['raw tsquery', 'red & !blue', { syntax: 'tsquery', summaries: true }],
  ])(
    '%s: parses the query once (in `tq`), not for each row; finds messages through the GIN index, tool calls through their own',
    async (_name, query, options) => {
      const store = await open(await database())
      await store.append('s', [
        { role: 'user', content: [{ text: 'a red apple and a green pear' }] },
        { role: 'assistant', content: [{ text: 'word1 word2 blue' }] },
      ])
      const st = searchStatement(query, options)
      if (st === undefined) throw new Error('no statement')
      // On a connection of the store's own pool: its settings make the plan every call of it runs.
      const [row] = (
        await store.pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
          `EXPLAIN (FORMAT JSON, VERBOSE, GENERIC_PLAN) ${st.text}`,
        )
      ).rows
      const plan = row?.['QUERY PLAN'][0].Plan
      if (plan === undefined) throw new Error('no plan')
      const all: [string | undefined, string][] = []
      expressions(plan, undefined, all)
      const parses = all.filter(([, e]) => /to_tsquery\(/.test(e))
      expect(parses.length).toBeGreaterThan(0)
      expect(parses.filter(([within]) => within !== 'CTE tq')).toStrictEqual([])
      expect(indexes(plan)).toContain('messages_search')
      // The recall tools' own messages are left out by two lookups a match (as a call, as a result), not
      // by a scan of its session's every tool call.
      expect(indexes(plan)).toEqual(expect.arrayContaining(['tool_calls_use', 'tool_calls_answered']))
      expect(indexes(plan)).not.toContain('tool_calls_by_id')
    },
  )
})
