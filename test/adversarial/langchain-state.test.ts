/**
 * Adversarial: the graph state and the ledger disagreeing about a message, on real SQLite files — the
 * ledger erased it (a redaction of the newest message, which a checkpointed state still holds as it was),
 * or a middleware after `ledgerMiddleware` rewrites what the ledger was about to store (`piiMiddleware`
 * redacting the prompt in `beforeModel`, beside `keepStateToWindow`). The thread must go on, and what the
 * ledger stores must be what the other middlewares made of it.
 *
 * Written as attacks by an adversarial tester; both were broken (the first wedged the thread for good
 * with INVALID_MESSAGE, the second stored the e-mail address the PII middleware redacts, then wedged the
 * thread), were fixed, and stay as regression tests.
 */
import { describe, expect, it } from 'vitest'
import { HumanMessage, type BaseMessage } from '@langchain/core/messages'
import { MemorySaver } from '@langchain/langgraph'
import { createAgent, piiMiddleware, type AgentMiddleware } from 'langchain'
import { ledgerMiddleware } from '../../src/adapters/langchain/index.js'
import { conversation, lookup, pairingProblems, ScriptedChatModel } from '../adapters/langchain/helpers.js'
import { onThread, problems, useStores } from './langchain-support.js'

const { open } = useStores()

describe('a redaction of a message the checkpointed state still holds', () => {
  for (const keepStateToWindow of [false, true])
    it(`leaves the thread going, the erasure standing (keepStateToWindow: ${keepStateToWindow})`, async () => {
      const store = open()
      const model = new ScriptedChatModel({ plan: [1, 0, 0, 0] })
      const mw = ledgerMiddleware({ store, keepStateToWindow })
      const agent = createAgent({ model, tools: [lookup], middleware: [mw], checkpointer: new MemorySaver() })
      await agent.invoke({ messages: [new HumanMessage('my card is 4242 4242 4242 4242')] }, onThread('t'))
      const ledger = mw.session('t').ledger
      // The newest message (the answer) and the prompt, erased for privacy.
      const count = store.session('t')?.messageCount ?? 0
      ledger.redact({ seq: count - 1 }, { actor: 'dpo', reason: 'erasure request' })
      ledger.redact({ seq: 0 }, { actor: 'dpo', reason: 'erasure request' })
      await agent.invoke({ messages: [new HumanMessage('next')] }, onThread('t'))
      await agent.invoke({ messages: [new HumanMessage('and next')] }, onThread('t'))
      const seen = model.inputs.slice(2).flatMap((input) => conversation(input).map((m) => m.text))
      expect(seen.some((t) => t.includes('4242'))).toBe(false)
      expect((await mw.session('t').history()).map((m) => m.type)).toStrictEqual([
        ...['human', 'ai', 'tool', 'ai'],
        ...['human', 'ai', 'human', 'ai'],
      ])
      expect(problems(store, 't')).toStrictEqual([])
    })
})

describe('piiMiddleware after ledgerMiddleware', () => {
  const email = 'bob@example.com'
  const humans = (messages: readonly BaseMessage[]) =>
    messages.filter((m) => m.type === 'human').map((m) => m.text)

  for (const keepStateToWindow of [false, true])
    it(`stores the prompt as the PII middleware redacted it (keepStateToWindow: ${keepStateToWindow})`, async () => {
      const store = open()
      const model = new ScriptedChatModel({ plan: [1, 0, 0, 0] })
      const mw = ledgerMiddleware({ store, keepStateToWindow, windowSize: 6 })
      // langchain's own typing of this middleware fails under exactOptionalPropertyTypes.
      const pii = piiMiddleware('email', {
        strategy: 'redact',
        applyToInput: true,
        applyToToolResults: true,
      }) as unknown as AgentMiddleware
      const agent = createAgent({
        model,
        tools: [lookup],
        middleware: [mw, pii],
        checkpointer: new MemorySaver(),
      })
      await agent.invoke({ messages: [new HumanMessage(`mail me at ${email}`)] }, onThread('t'))
      await agent.invoke({ messages: [new HumanMessage(`or at ${email}`)] }, onThread('t'))
      const archive = await mw.session('t').history()
      expect(humans(archive)).toStrictEqual(['mail me at [REDACTED_EMAIL]', 'or at [REDACTED_EMAIL]'])
      expect(JSON.stringify(store.history('t', { limit: 100 }))).not.toContain(email)
      for (const input of model.inputs) {
        expect(JSON.stringify(input.map((m) => m.toDict()))).not.toContain(email)
        expect(pairingProblems(conversation(input))).toStrictEqual([])
      }
      expect(new Set(archive.map((m) => m.id)).size).toBe(archive.length)
      expect(problems(store, 't')).toStrictEqual([])
    })
})
