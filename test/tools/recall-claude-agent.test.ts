/**
 * The recall tools read a `claude-agent` session by its format (a transcript entry's `type` is none of an
 * Agents item's): `read_history` shows each entry's speaker and text — a prompt, the call with its input,
 * the result's output — and widens a range back to the call a result answers; `search_history` finds
 * tool output.
 */
import { describe, expect, it } from 'vitest'
import { handleReadHistory, handleSearchHistory, PersistentConversationManager } from '../../src/index.js'
import { asMessages, fixture } from '../helpers/claude-format-entries.js'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-recall-claude-')

describe('the recall tools on a claude-agent session', () => {
  it('read calls and results as text, whole pairs, and search finds tool output', () => {
    const store = dir.open('claude.db')
    const m = new PersistentConversationManager({
      store,
      sessionId: 's',
      windowSize: 40,
      format: 'claude-agent',
    })
    m.append(asMessages(fixture('format-tool-call')))
    // seq 13 answers the call of seq 12.
    const read = handleReadHistory(m, { fromSeq: 13, toSeq: 13 })
    expect(read.status).toBe('success')
    expect(read.shown).toStrictEqual({ fromSeq: 12, toSeq: 13 })
    expect(read.text).toContain('[seq 12] assistant')
    expect(read.text).toContain('mcp__calc__add {"a":40,"b":2}')
    expect(read.text).toContain('[seq 13] tool:\n42')
    expect(read.text).not.toContain('"tool_use_id"')
    const prompt = handleReadHistory(m, { fromSeq: 2, toSeq: 3 })
    expect(prompt.text).toContain('[seq 2] user:\nWhat is 40 + 2? Use the add tool.')
    expect(prompt.text).toContain('[seq 3] system:')
    const found = handleSearchHistory(m, { query: 'answer' })
    expect(found.status).toBe('success')
    expect(found.text).toContain('seq 16')
  })
})
