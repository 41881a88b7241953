/**
 * The recall tools on SQLite alone: a huge `read_history` range reads what a small one does (counted in
 * SQLite statements), and the Strands tools on an agent without the ledger manager. The rest of the
 * tools' behaviour is the conformance suite's (recall-tools.test.ts), on both backends.
 */
import { describe, expect, it } from 'vitest'
import {
  handleReadHistory,
  PersistentConversationManager,
  READ_PAGE_ROWS,
  type MessageData,
  type RecallToolResult,
} from '../../src/index.js'
import { readHistoryTool, searchHistoryTool } from '../../src/adapters/strands/index.js'
import { countStatements } from '../helpers/statement-counter.js'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-recall-tools-')

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })

describe('read_history on SQLite', () => {
  it('reads a page at a time and stops at the cap: a huge range costs what a small one does', () => {
    const store = dir.open('paged.db')
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 10 })
    for (let i = 0; i < 2000; i += 100)
      m.append(Array.from({ length: 100 }, (_, k) => user(`message number ${i + k} of the long session`)))
    const counter = countStatements(store)
    const small = counter.measure(() => handleReadHistory(m, { fromSeq: 0, toSeq: 10 }, { maxTokens: 100 }))
    let r: RecallToolResult | undefined
    const huge = counter.measure(() => {
      r = handleReadHistory(m, { fromSeq: 0, toSeq: Number.MAX_SAFE_INTEGER }, { maxTokens: 100 })
    })
    expect(r?.shown?.fromSeq).toBe(0)
    expect(r?.text).toContain(`Call read_history with fromSeq ${(r?.shown?.toSeq ?? 0) + 1}`)
    // The whole range was 2000 rows; a read of it costs a page or so, as a small one does.
    expect(huge.rows).toBeLessThanOrEqual(small.rows + 2 * READ_PAGE_ROWS)
    expect(huge.rows).toBeLessThan(100)
  })
})

describe('the Strands recall tools', () => {
  it('answer with an error text on an agent without the ledger manager, and without an agent', async () => {
    const bare = { messages: [] } as unknown as Parameters<typeof searchHistoryTool.invoke>[1] extends infer C
      ? C
      : never
    expect(await searchHistoryTool.invoke({ query: 'x' })).toMatch(/needs the agent/)
    expect(await readHistoryTool.invoke({ fromSeq: 0, toSeq: 0 }, { agent: bare } as never)).toMatch(
      /needs the context-ledger conversation manager/,
    )
    expect(searchHistoryTool.toolSpec.name).toBe('search_history')
    expect(readHistoryTool.toolSpec.inputSchema).toMatchObject({ required: ['fromSeq', 'toSeq'] })
  })
})
