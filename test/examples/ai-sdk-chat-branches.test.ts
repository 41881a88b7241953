/**
 * examples/ai-sdk-chat-branches.ts runs as documented, in a process of its own: what it prints holds —
 * the regenerated and the edited chat, the tree, both versions of the first answer, search finding the
 * replaced messages in their branches, the refused request, the second process seeing the same chat, the
 * agent loop's rewinds — and the ledger file it leaves says the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { UIMessage } from 'ai'
import { ledgerSession } from '../../src/adapters/ai-sdk/index.js'
import { openContextStore } from '../../src/index.js'
import { AGENT_ID, CHAT_ID } from '../../examples/ai-sdk-chat-branches.js'
import { tsx } from '../helpers/demo-run.js'
import { tempDir } from '../helpers/temp-store.js'

const dir = tempDir('context-ledger-chat-branches-')
const file = dir.file('chat.db')
let out = ''
beforeAll(() => {
  const run = tsx('examples/ai-sdk-chat-branches.ts', '--db', file)
  expect(run.stderr).not.toMatch(/Error/)
  expect(run.status).toBe(0)
  out = run.stdout
}, 120_000)
afterAll(() => {
  dir.cleanup()
})

describe('examples/ai-sdk-chat-branches.ts', () => {
  it('regenerates and edits through the SDK’s chat logic, and says where the replaced messages went', () => {
    expect(out).toMatch(/2\. Regenerate[^\n]*\n[^\n]*\n {4}assistant .*Take 2: db-eu fails over/u)
    expect(out).toMatch(/user {6}\S+ +Who is on call for it\?\n {4}assistant .*Take 4: .*Priya Raman/u)
    expect(out).toMatch(
      / {6}support-chat~1 \(abandoned, from support-chat after seq 0\): 2 messages, 1 its own — user: regenerate/u,
    )
    expect(out).toMatch(
      / {6}support-chat~2 \(abandoned, from support-chat after seq 1\): 4 messages, 2 its own — user: edit/u,
    )
    expect(out).toMatch(
      /1 \/ 2 +\[1 tool call\] Take 1: .* → chat support-chat~1\n {4}2 \/ 2 .*Take 2: .* → chat support-chat \(shown\)/u,
    )
    expect(out).toContain('is one of them: yes')
    expect(out).toMatch(/"approves": support-chat~2 seq 2 user/u)
    expect(out).toContain('HTTP 404 MESSAGE_NOT_FOUND at messageId; the chat still has its 4 messages')
  })

  it('a second process sees the same chat and tree', () => {
    const first = /process 1 \(pid \d+\) sees: (.+)$/mu.exec(out)?.[1]
    const second = /process 2 \(pid \d+\) sees: (.+)$/mu.exec(out)?.[1]
    expect(first).toBeDefined()
    expect(second).toBe(first)
  })

  it('regenerates and edits an agent loop over ModelMessages', () => {
    expect(out).toMatch(/answer: +Take 1: db-eu fails over/u)
    expect(out).toMatch(/regenerated: +Take 2: .*\(3 messages left as agent-run~1\)/u)
    expect(out).toMatch(/edited: +Take 3: .*Dana Whitfield.*\(3 messages left as agent-run~2\)/u)
  })

  it('leaves a file that says the same', async () => {
    const store = openContextStore(file, { readonly: true })
    try {
      const chat = ledgerSession({ store, sessionId: CHAT_ID, format: 'ui' })
      const messages = await chat.loadUIMessages()
      const texts = messages.map((m: UIMessage) =>
        m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(''),
      )
      expect(texts[2]).toBe('Who is on call for it?')
      expect((await chat.branches()).map((b) => [b.sessionId, b.kind])).toEqual([
        [CHAT_ID, 'root'],
        [`${CHAT_ID}~1`, 'abandoned'],
        [`${CHAT_ID}~2`, 'abandoned'],
      ])
      expect(JSON.stringify(store.history(`${CHAT_ID}~2`))).toContain('Who approves it?')
      const agent = ledgerSession({ store, sessionId: AGENT_ID })
      expect((await agent.branches()).map((b) => b.ownMessages)).toEqual([4, 3, 3])
    } finally {
      store.close()
    }
  })
})
