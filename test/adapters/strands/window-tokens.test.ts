/**
 * A message the agent holds in an edited form (same trackingId, other content) is shown in the window in
 * that form — and counted in that form, with the manager's token counter, so `tokenBudget` still holds.
 */
import { describe, expect, it } from 'vitest'
import { Message, TextBlock } from '@strands-agents/sdk'
import type { MessageData } from '../../../src/index.js'
import { useTempDir } from '../../helpers/temp-store.js'
import { ledgerAgent } from './helpers.js'

const dir = useTempDir('context-ledger-strands-')

/** Characters of content: a counter unlike the built-in estimator, so it is visibly the one used. */
const counter = (message: MessageData): number => JSON.stringify(message.content).length

describe('PersistentConversationManager', () => {
  it("counts a message the agent replaced with its new content and the manager's counter", async () => {
    const store = dir.open()
    const { agent, manager } = ledgerAgent({ store, sessionId: 's', tokenBudget: 400, tokenCounter: counter })
    await agent.invoke('hello')
    const original = agent.messages[0] as Message
    agent.messages[0] = new Message({
      role: 'user',
      content: [new TextBlock(`hello, with context: ${'c'.repeat(2000)}`)],
      trackingId: original.trackingId,
    })
    await agent.invoke('and now?')
    const window = manager.ledger.window()
    const tokens = window.reduce((a, m) => a + counter(m), 0)
    expect(tokens).toBeLessThanOrEqual(400)
    expect(store.session('s')?.windowTokens).toBe(tokens)
    expect(window.map((m) => m.trackingId)).not.toContain(original.trackingId)
  })
})
