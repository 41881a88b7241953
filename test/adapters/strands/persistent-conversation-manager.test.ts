/**
 * The Strands adapter driven end to end: a real `Agent`, a scripted `Model` that refuses input over its
 * context window, and real SQLite files in temp directories.
 */
import { describe, expect, it } from 'vitest'
import { join } from 'node:path'
import {
  Agent,
  ContextWindowOverflowError,
  Message,
  MessageAddedEvent,
  SessionManager,
  SlidingWindowConversationManager,
  TextBlock,
  tool,
} from '@strands-agents/sdk'
import { LocalFileStorage } from '@strands-agents/sdk/storage'
import { z } from 'zod'
import { type ContextStore, type MessageData } from '../../../src/index.js'
import { PersistentConversationManager, pinMessageTool } from '../../../src/adapters/strands/index.js'
import { ScriptedModel } from '../../../examples/strands-scripted-model.js'
import { refusal } from '../../helpers/refusal.js'
import { useTempDir } from '../../helpers/temp-store.js'
import { assistantScript, json, ledgerAgent, lookupTools } from './helpers.js'

const dir = useTempDir('context-ledger-strands-')

/** Role and content only: what two runs of the same script agree on (trackingIds are random). */
function shape(messages: readonly MessageData[]): unknown[] {
  return messages.map((m) => ({ role: m.role, content: m.content }))
}

function truncatedMarker(message: MessageData): string | undefined {
  for (const block of message.content)
    if ('toolResult' in block)
      for (const item of block.toolResult.content)
        if ('text' in item) return /<truncated chars="\d+"\/>/.exec(item.text)?.[0]
  return undefined
}

describe('PersistentConversationManager', () => {
  describe('constructor', () => {
    it('has a namespaced name and exposes the core manager', () => {
      const store = dir.open()
      const manager = new PersistentConversationManager({ store, sessionId: 's', windowSize: 12 })
      expect(manager.name).toBe('context-ledger:persistent-conversation-manager')
      expect(manager.sessionId).toBe('s')
      expect(manager.store).toBe(store)
      expect(manager.ledger.limits).toStrictEqual({
        windowSize: 12,
        tokenBudget: undefined,
        first: 0,
        last: 0,
      })
      expect(manager.truncatesToolResults).toBe(true)
    })

    it.each<[string, Record<string, unknown>]>([
      ['an unknown option', { windowSise: 3 }],
      ['a threshold above 1', { proactiveCompression: { compressionThreshold: 1.5 } }],
      ['a threshold of 0', { proactiveCompression: { compressionThreshold: 0 } }],
      ['a non-boolean truncateToolResults', { truncateToolResults: 'yes' }],
      ['a negative windowSize', { windowSize: -1 }],
    ])('refuses %s with INVALID_OPTIONS', (_what, options) => {
      const store = dir.open()
      const build = (): unknown => new PersistentConversationManager({ store, sessionId: 's', ...options })
      expect(refusal(build).code).toBe('INVALID_OPTIONS')
    })

    it('takes a compression threshold of 1', () => {
      const store = dir.open()
      expect(
        () =>
          new PersistentConversationManager({
            store,
            sessionId: 's',
            proactiveCompression: { compressionThreshold: 1 },
          }),
      ).not.toThrow()
    })
  })

  describe('MessageAddedEvent', () => {
    it('appends every message of a multi-turn run with tool calls, in order, once; agent.messages is the window', async () => {
      const store = dir.open()
      const { agent, manager } = ledgerAgent({ store, sessionId: 's', windowSize: 6 })
      const added: MessageData[] = []
      agent.addHook(MessageAddedEvent, (event) => {
        added.push(event.message.toJSON() as unknown as MessageData)
      })
      for (const prompt of ['hello', 'ask weather', 'ask tides', 'thanks', 'ask moon'])
        await agent.invoke(prompt)

      const history = manager.ledger.history({ limit: 1000 })
      expect(history.map((e) => e.message)).toStrictEqual(added)
      expect(history.map((e) => e.seq)).toStrictEqual(added.map((_, i) => i))
      expect(added).toHaveLength(16)
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
      expect(store.session('s')).toMatchObject({ messageCount: 16, windowMessages: agent.messages.length })
    })

    it('keeps the same window as Strands’ SlidingWindowConversationManager with the same windowSize', async () => {
      const store = dir.open()
      const prompts = ['hello', 'ask weather', 'ask tides', 'thanks', 'ask moon', 'ask sun', 'bye']
      const { agent } = ledgerAgent({ store, sessionId: 's', windowSize: 5 })
      const reference = new Agent({
        model: new ScriptedModel({ script: assistantScript() }),
        tools: lookupTools(),
        conversationManager: new SlidingWindowConversationManager({ windowSize: 5 }),
        printer: false,
      })
      // pin_message is registered on ours only; the script never calls it here.
      for (const prompt of prompts) {
        await agent.invoke(prompt)
        await reference.invoke(prompt)
        expect(shape(json(agent.messages))).toStrictEqual(shape(json(reference.messages)))
      }
    })
  })

  describe('reduce', () => {
    it('on overflow truncates every oversized tool result; the agent retries and succeeds; history() keeps the originals', async () => {
      const store = dir.open()
      const model = new ScriptedModel({ script: assistantScript(), contextWindowLimit: 2500 })
      const { agent, manager } = ledgerAgent({ store, sessionId: 's' }, { model, tools: lookupTools(3000) })
      for (const prompt of ['ask a', 'ask b', 'ask c', 'ask d']) await agent.invoke(prompt)

      expect(model.overflows).toBe(1)
      expect(manager.lastReduction).toMatchObject({
        trigger: 'overflow',
        truncated: 3,
        truncationsRefused: 0,
        evicted: 0,
        fits: true,
        reason: undefined,
      })
      const history = manager.ledger.history({ limit: 100 })
      expect(history).toHaveLength(16)
      const results = history.filter((e) => e.message.content.some((b) => 'toolResult' in b))
      expect(results).toHaveLength(4)
      for (const entry of results) {
        const block = entry.message.content[0] as { toolResult: { content: { text: string }[] } }
        expect(block.toolResult.content[0]?.text).toHaveLength(3000)
      }
      expect(results.map((e) => e.windowMessage === undefined)).toStrictEqual([false, false, false, true])
      expect(results.slice(0, 3).map((e) => truncatedMarker(e.windowMessage as MessageData))).toStrictEqual([
        '<truncated chars="2600"/>',
        '<truncated chars="2600"/>',
        '<truncated chars="2600"/>',
      ])
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
      expect(agent.messages).toHaveLength(16)
      expect(agent.messages.at(-1)?.content[0]).toStrictEqual(new TextBlock('Answer 7'))
    })

    it('evicts in the same call when truncation cannot make the input fit', async () => {
      const store = dir.open()
      const model = new ScriptedModel({ script: assistantScript(), contextWindowLimit: 2500 })
      const { agent, manager } = ledgerAgent({ store, sessionId: 's' }, { model, tools: lookupTools(3000) })
      const note = `note ${'n'.repeat(7800)}`
      await agent.invoke(note)
      await agent.invoke('ask a')

      expect(model.overflows).toBe(1)
      expect(manager.lastReduction).toMatchObject({
        trigger: 'overflow',
        truncated: 1,
        truncationsRefused: 0,
        evicted: 2,
        fits: true,
        reason: undefined,
      })
      const history = manager.ledger.history({ limit: 100 })
      expect(history.map((e) => e.inWindow)).toStrictEqual([false, false, true, true, true, true])
      expect((history[0]?.message.content[0] as { text: string }).text).toBe(note)
      expect(truncatedMarker(history[4]?.windowMessage as MessageData)).toBe('<truncated chars="2600"/>')
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
      expect(agent.messages.map((m) => m.role)).toStrictEqual(['user', 'assistant', 'user', 'assistant'])
    })

    it('only evicts when truncateToolResults is false, and the window shows originals', async () => {
      const store = dir.open()
      const model = new ScriptedModel({ script: assistantScript(), contextWindowLimit: 2500 })
      const { agent, manager } = ledgerAgent(
        { store, sessionId: 's', truncateToolResults: false },
        { model, tools: lookupTools(3000) },
      )
      for (const prompt of ['ask a', 'ask b', 'ask c', 'ask d']) await agent.invoke(prompt)

      expect(model.overflows).toBe(2)
      expect(manager.lastReduction).toMatchObject({
        trigger: 'overflow',
        truncated: 0,
        truncationsRefused: 0,
        evicted: 4,
        fits: true,
        reason: undefined,
      })
      const history = manager.ledger.history({ limit: 100 })
      expect(history).toHaveLength(16)
      expect(history.every((e) => e.windowMessage === undefined)).toBe(true)
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
      expect(shape(json(agent.messages))).toStrictEqual(shape(history.slice(8).map((e) => e.message)))
    })

    it('returns false and lets the overflow propagate when nothing can be truncated or evicted', async () => {
      const store = dir.open()
      const model = new ScriptedModel({ script: assistantScript(), contextWindowLimit: 500 })
      const warnings: string[] = []
      const logger = { debug() {}, info() {}, warn: (line: string) => warnings.push(line), error() {} }
      const { agent, manager } = ledgerAgent({ store, sessionId: 's', logger }, { model })
      await expect(agent.invoke(`note ${'n'.repeat(4000)}`)).rejects.toBeInstanceOf(
        ContextWindowOverflowError,
      )
      expect(manager.lastReduction).toMatchObject({
        trigger: 'overflow',
        truncated: 0,
        evicted: 0,
        fits: false,
        windowMessages: 1,
      })
      expect(manager.lastReduction?.reason).toBeDefined()
      expect(manager.ledger.history()).toHaveLength(1)
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatch(
        /^session_id=<s>, window_messages=<1>, window_tokens=<\d+>, model_tokens=<\d+>/,
      )
    })

    it('reduces proactively through the same path when the projected input reaches the threshold', async () => {
      const store = dir.open()
      const model = new ScriptedModel({ script: assistantScript(), contextWindowLimit: 4000 })
      const { agent, manager } = ledgerAgent(
        { store, sessionId: 's', proactiveCompression: { compressionThreshold: 0.5 } },
        { model, tools: lookupTools(3000) },
      )
      for (const prompt of ['ask a', 'ask b', 'ask c', 'ask d']) await agent.invoke(prompt)

      expect(model.overflows).toBe(0)
      expect(manager.lastReduction).toMatchObject({ trigger: 'proactive', fits: true })
      expect(manager.ledger.history({ limit: 100 })).toHaveLength(16)
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    })
  })

  describe('initAgent', () => {
    it('restores the session into a new Agent over a reopened file; the conversation continues with pins intact', async () => {
      const file = dir.file()
      const first = dir.open()
      const one = ledgerAgent({ store: first, sessionId: 's', windowSize: 6 })
      for (const prompt of [
        'Plan the migration',
        'pin 0 the task',
        'ask schema',
        'ask indexes',
        'ask rollout',
      ])
        await one.agent.invoke(prompt)
      const before = json(one.agent.messages)
      const pinsBefore = first.pinnedMessages({ sessionId: 's' })
      first.close()

      const second = dir.open()
      expect(second.path).toBe(file)
      const two = ledgerAgent(
        { store: second, sessionId: 's', windowSize: 6 },
        { model: new ScriptedModel({ script: assistantScript('after-restart-') }) },
      )
      await two.agent.initialize()
      expect(json(two.agent.messages)).toStrictEqual(before)
      expect(second.pinnedMessages({ sessionId: 's' })).toStrictEqual(pinsBefore)

      await two.agent.invoke('ask cutover')
      expect(two.agent.messages[0]?.toJSON()).toStrictEqual(before[0])
      expect(json(two.agent.messages)).toStrictEqual(two.manager.ledger.window())
      expect(second.pinnedMessages({ sessionId: 's' })).toStrictEqual(pinsBefore)
      expect(second.session('s')?.messageCount).toBe(22)
    })

    it('restores at initialize(): agent.messages is empty right after new Agent() (Strands gives the manager no agent before), the window after', async () => {
      const store = dir.open()
      const one = ledgerAgent({ store, sessionId: 's', windowSize: 4 })
      for (const prompt of ['a', 'b', 'c']) await one.agent.invoke(prompt)
      const two = ledgerAgent({ store, sessionId: 's', windowSize: 4 })
      expect(two.agent.messages).toStrictEqual([])
      await two.agent.initialize()
      expect(json(two.agent.messages)).toStrictEqual(store.window('s'))
      expect(json(two.agent.messages)).toStrictEqual(json(one.agent.messages))
    })

    it('shows the repair row when a restarted agent goes on past a tool call that never got its result', async () => {
      const store = dir.open()
      // A process died between the model's toolUse and the tool's result.
      store.append('s', [
        { role: 'user', content: [{ text: 'look it up' }] },
        {
          role: 'assistant',
          content: [{ toolUse: { name: 'lookup', toolUseId: 'lost-1', input: { q: 'x' } } }],
        },
      ])
      let seen: Message[] = []
      const model = new ScriptedModel({
        script: (call) => {
          seen = [...call.messages]
          return 'Starting over.'
        },
      })
      const { agent } = ledgerAgent({ store, sessionId: 's' }, { model })
      await agent.invoke('what happened?')
      // The model saw the call answered (by the recorded repair) right before the new question.
      const results = seen.flatMap((m) => m.content.filter((b) => b.type === 'toolResultBlock'))
      expect(results.map((b) => (b as { toolUseId: string; status: string }).status)).toStrictEqual(['error'])
      expect(seen.map((m) => m.role)).toStrictEqual(['user', 'assistant', 'user', 'user'])
      expect(json(agent.messages)).toStrictEqual(store.window('s'))
      expect(store.history('s').map((e) => e.message.metadata?.custom?.contextLedger)).toStrictEqual([
        undefined,
        undefined,
        { repair: 'missing-tool-result' },
        undefined,
        undefined,
      ])
    })

    it('appends the messages the agent was built with, and does not append the same seed again after a restart', async () => {
      const seed: MessageData[] = [
        { role: 'user', content: [{ text: 'You are a migration assistant.' }] },
        { role: 'assistant', content: [{ text: 'Understood.' }] },
      ]
      const first = dir.open()
      const one = ledgerAgent({ store: first, sessionId: 's' }, { messages: seed })
      await one.agent.initialize()
      expect(shape(one.manager.ledger.history().map((e) => e.message))).toStrictEqual(shape(seed))
      await one.agent.invoke('hello')
      first.close()

      const second = dir.open()
      const two = ledgerAgent({ store: second, sessionId: 's' }, { messages: seed })
      await two.agent.initialize()
      expect(second.session('s')?.messageCount).toBe(4)
      expect(shape(json(two.agent.messages))).toStrictEqual(
        shape([
          ...seed,
          { role: 'user', content: [{ text: 'hello' }] },
          { role: 'assistant', content: [{ text: 'Noted: hello' }] },
        ]),
      )
    })

    it('appends messages the agent was built with that carry trackingIds the session lacks', async () => {
      const store = dir.open()
      const one = ledgerAgent({ store, sessionId: 's' })
      await one.agent.invoke('hello')
      const extra = new Message({ role: 'user', content: [new TextBlock('from elsewhere')] })
      const reply = new Message({ role: 'assistant', content: [new TextBlock('ok')] })
      const two = ledgerAgent(
        { store, sessionId: 's' },
        { messages: [extra.toJSON(), reply.toJSON()] as MessageData[] },
      )
      await two.agent.initialize()
      expect(json(two.agent.messages).map((m) => m.trackingId)).toStrictEqual([
        ...json(one.agent.messages).map((m) => m.trackingId),
        extra.trackingId,
        reply.trackingId,
      ])
    })
    it("still shows the window after Strands' SessionManager restores its own snapshot on start", async () => {
      const withSessionManager = (
        store: ContextStore,
        prefix: string,
      ): { agent: Agent; manager: PersistentConversationManager } => {
        const manager = new PersistentConversationManager({ store, sessionId: 's', windowSize: 4 })
        const agent = new Agent({
          model: new ScriptedModel({ script: assistantScript(prefix) }),
          tools: [...lookupTools(), pinMessageTool],
          conversationManager: manager,
          sessionManager: new SessionManager({
            sessionId: 'sm',
            storage: new LocalFileStorage(join(dir.path, 'sm')),
          }),
          printer: false,
        })
        return { agent, manager }
      }
      const first = dir.open()
      const one = withSessionManager(first, 'one-')
      for (const prompt of ['task', 'pin 0 keep', 'ask x', 'ask y']) await one.agent.invoke(prompt)
      const before = json(one.agent.messages)
      first.close()

      const second = dir.open()
      const two = withSessionManager(second, 'two-')
      await two.agent.initialize()
      expect(json(two.agent.messages)).toStrictEqual(before)
      await two.agent.invoke('ask z')
      expect(json(two.agent.messages)).toStrictEqual(two.manager.ledger.window())
      expect(second.session('s')?.messageCount).toBe(18)
    })

    it('shows an edited copy of a stored message (same trackingId, other content) and keeps the original in history()', async () => {
      const store = dir.open()
      const one = ledgerAgent({ store, sessionId: 's' })
      await one.agent.invoke('draft: ship on Friday')
      const original = one.agent.messages[0]?.toJSON() as MessageData
      const edited = { ...original, content: [{ text: 'draft: ship on Monday' }] }
      const two = ledgerAgent(
        { store, sessionId: 's' },
        { messages: [edited, one.agent.messages[1]?.toJSON() as MessageData] },
      )
      await two.agent.initialize()
      expect(two.agent.messages[0]?.toJSON()).toStrictEqual(edited)
      expect(two.manager.ledger.history()[0]?.message).toStrictEqual(original)
      expect(store.session('s')?.messageCount).toBe(2)
    })
  })

  describe('AfterInvocationEvent', () => {
    it('records a pin set the Strands way (metadata.custom.pinned) by the end of the invocation, and keeps it through eviction', async () => {
      const store = dir.open()
      const flagPin = tool({
        name: 'flag_pin',
        description: 'Pins message 0 the Strands way',
        inputSchema: z.object({}),
        callback: (_input, context) => {
          const first = context?.agent.messages[0] as Message
          first.metadata = { ...first.metadata, custom: { ...first.metadata?.custom, pinned: true } }
          return 'flagged'
        },
      })
      const model = new ScriptedModel({
        script: (call) =>
          call.index === 1
            ? [{ toolUse: { toolUseId: 'f1', name: 'flag_pin', input: {} } }]
            : assistantScript()(call),
      })
      const { agent, manager } = ledgerAgent(
        { store, sessionId: 's', windowSize: 4 },
        { model, tools: [...lookupTools(), flagPin] },
      )
      await agent.invoke('The task')
      await agent.invoke('flag it')
      const pins = store.pinnedMessages({ sessionId: 's' })
      expect(pins.map((p) => [p.seq, p.actor, p.reason])).toStrictEqual([
        [0, 'strands', 'metadata.custom.pinned'],
      ])
      for (const prompt of ['ask a', 'ask b', 'ask c']) await agent.invoke(prompt)
      expect(agent.messages[0]?.toJSON()).toStrictEqual({
        ...manager.ledger.history({ limit: 1 })[0]?.message,
        metadata: { custom: { pinned: true } },
      })

      // Clearing the flag is an unpin; the next window lets the message go.
      const first = agent.messages[0] as Message
      delete first.metadata
      await agent.invoke('ask d')
      expect(store.pinnedMessages({ sessionId: 's' })).toStrictEqual([])
      expect(agent.messages[0]?.trackingId).not.toBe(first.trackingId)
    })

    it('shows a message Strands replaced (e.g. redacted) in its new form, while history() keeps the original', async () => {
      const store = dir.open()
      const { agent, manager } = ledgerAgent({ store, sessionId: 's' })
      await agent.invoke('my password is hunter2')
      const original = agent.messages[0] as Message
      agent.messages[0] = new Message({
        role: 'user',
        content: [new TextBlock('[redacted]')],
        trackingId: original.trackingId,
      })
      await agent.invoke('hello')
      expect(agent.messages[0].toJSON()).toStrictEqual({
        role: 'user',
        content: [{ text: '[redacted]' }],
        trackingId: original.trackingId,
      })
      expect(manager.ledger.history({ limit: 1 })[0]?.message).toStrictEqual(original.toJSON())
    })

    it('appends messages pushed onto agent.messages by hand at the next invocation', async () => {
      const store = dir.open()
      const { agent, manager } = ledgerAgent({ store, sessionId: 's' })
      await agent.invoke('hello')
      agent.messages.push(
        new Message({ role: 'user', content: [new TextBlock('context: prod is on v2')] }),
        new Message({ role: 'assistant', content: [new TextBlock('ok')] }),
      )
      await agent.invoke('and now?')
      expect(
        manager.ledger.history().map((e) => (e.message.content[0] as { text: string }).text),
      ).toStrictEqual([
        'hello',
        'Noted: hello',
        'context: prod is on v2',
        'ok',
        'and now?',
        'Noted: and now?',
      ])
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    })
  })

  describe('sessions', () => {
    it('two agents with different session ids share one store without touching each other', async () => {
      const store = dir.open()
      const a = ledgerAgent({ store, sessionId: 'alice', windowSize: 4 })
      const b = ledgerAgent({ store, sessionId: 'bob', windowSize: 6 })
      for (let i = 0; i < 4; i++) {
        await a.agent.invoke(`ask alice-${i}`)
        await b.agent.invoke(`bob says ${i}`)
      }
      await a.agent.invoke('pin 0 alice pin')
      const aliceHistory = a.manager.ledger.history({ limit: 100 })
      const bobHistory = b.manager.ledger.history({ limit: 100 })
      expect(aliceHistory).toHaveLength(20)
      expect(bobHistory).toHaveLength(8)
      expect(aliceHistory.every((e) => e.sessionId === 'alice')).toBe(true)
      expect(bobHistory.map((e) => (e.message.content[0] as { text: string }).text)).toStrictEqual(
        [0, 1, 2, 3].flatMap((i) => [`bob says ${i}`, `Noted: bob says ${i}`]),
      )
      expect(json(a.agent.messages)).toStrictEqual(a.manager.ledger.window())
      expect(json(b.agent.messages)).toStrictEqual(b.manager.ledger.window())
      expect(store.pinnedMessages().map((p) => p.sessionId)).toStrictEqual(['alice'])
      expect(store.sessions().map((s) => [s.id, s.messageCount])).toStrictEqual([
        ['alice', 20],
        ['bob', 8],
      ])
    })
  })
})
