/**
 * The recall tools read a `langchain` session by its format (LangChain's `{ type, data }` bodies are told
 * from an Agents item by their type): `read_history` shows each message's speaker and text and widens a
 * range back to the call a ToolMessage answers, and `search_history` finds tool output.
 */
import { describe, expect, it } from 'vitest'
import { handleReadHistory, handleSearchHistory, PersistentConversationManager } from '../../src/index.js'
import { buildLangChainSession } from '../helpers/langchain-sessions.js'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-recall-langchain-')

describe('the recall tools on a langchain session', () => {
  it('read calls and results as text, whole pairs, and search finds tool output', async () => {
    const store = dir.open('langchain.db')
    await buildLangChainSession(store, 'trip')
    const m = new PersistentConversationManager({
      store,
      sessionId: 'trip',
      windowSize: 12,
      format: 'langchain',
    })
    // seq 27 answers the first call of seq 26 (its second is answered at seq 28).
    const read = handleReadHistory(m, { fromSeq: 27, toSeq: 28 })
    expect(read.status).toBe('success')
    expect(read.shown).toStrictEqual({ fromSeq: 26, toSeq: 28 })
    expect(read.text).toContain('[seq 26] assistant')
    expect(read.text).toContain('weather {"city":"city 5a"}')
    expect(read.text).toContain('[seq 27] tool')
    expect(read.text).toContain('[seq 28] tool')
    expect(read.text).toContain('drizzle in city 5b')
    expect(read.text).not.toContain('"tool_call_id"')
    const found = handleSearchHistory(m, { query: 'drizzle city 4b' })
    expect(found.status).toBe('success')
    expect(found.text).toContain('seq 23')
  })
})
