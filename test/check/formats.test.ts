/**
 * The checker on sessions of the AI SDK formats: everything the library does to such a session passes
 * it (appends with tool calls and a repair, cuts, pins, a summary, a redaction), and a body another
 * format's validator refuses is named — each format validated as its own.
 */
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkSession } from '../../src/check/check-session.js'
import { openContextStore, PersistentConversationManager } from '../../src/index.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { modelTurn } from '../helpers/ai-sdk-sessions.js'

let dir: TempDir
beforeAll(() => {
  dir = tempDir('context-ledger-check-formats-')
})
afterAll(() => {
  dir.cleanup()
})

describe('check on an ai-sdk/model session', () => {
  it('finds nothing wrong in what the library wrote, and names a body the format refuses', async () => {
    const file = dir.file('model.db')
    const store = openContextStore(file)
    const m = new PersistentConversationManager({
      store,
      sessionId: 's',
      windowSize: 16,
      format: 'ai-sdk/model',
    })
    for (let i = 0; i < 6; i++) {
      m.append(modelTurn(i) as never)
      m.applyWindow()
    }
    // A call left unanswered: the next user message gets a repair row in the session's format.
    m.append([
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'lost', toolName: 'weather', input: {} }],
      },
      { role: 'user', content: 'never mind' },
    ] as never)
    m.applyWindow()
    m.pin({ seq: 0 })
    m.redact({ seq: 2 })
    const folded = await m.summarize(() => 'They asked about the weather in six cities.', {
      summaryRatio: 0.5,
      preserveRecentMessages: 2,
    })
    expect(folded.summarized).toBeGreaterThan(0)
    expect(store.window('s')).toContainEqual(
      expect.objectContaining({ role: 'user', providerOptions: { contextLedger: { summary: true } } }),
    )
    expect(checkSession(store, 's').problems).toEqual([])
    const repair = store
      .history('s')
      .find((e) => e.repair === undefined && JSON.stringify(e.message).includes('missing-tool-result'))
    expect(repair?.message).toMatchObject({ role: 'tool' })
    store.close()

    const db = new Database(file)
    db.prepare(
      "UPDATE messages SET body = ? WHERE seq = 3 AND session = (SELECT pk FROM sessions WHERE id = 's')",
    ).run(JSON.stringify({ role: 'assistant', content: [{ type: 'no-such-part', text: 'x' }] }))
    db.close()
    const reopened = openContextStore(file)
    const problems = checkSession(reopened, 's').problems
    expect(problems.map((p) => p.rule)).toContain('message body')
    expect(problems.find((p) => p.rule === 'message body')?.detail).toMatch(/seq 3 message\.content\[0\]/)
    reopened.close()
  })

  it('refuses the alternating window of another format, naming the option', () => {
    const store = openContextStore(dir.file('alt.db'))
    store.append('s', { role: 'user', content: 'hi' }, { format: 'ai-sdk/model' })
    expect(() => store.window('s', { alternate: true })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', path: 'alternate' }),
    )
    expect(store.window('s')).toEqual([{ role: 'user', content: 'hi' }])
    store.close()
  })
})
