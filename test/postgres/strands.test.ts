/**
 * The Strands adapter on PostgreSQL: `PersistentConversationManager` of `context-ledger/strands` takes
 * the PostgreSQL store, and a real Strands `Agent` (scripted model, tools, `pin_message`) keeps its
 * conversation there — every message archived, `agent.messages` equal to the window the server computes,
 * the window rules kept; stateless workers (each its own pool and agent) take turns on one session;
 * overflow recovery evicts or folds; a hostile message is repaired or refused with nothing lost.
 */
import { Agent, Message, TextBlock } from '@strands-agents/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  PersistentConversationManager,
  pinMessageTool,
  type PersistentConversationManagerOptions,
} from '../../src/adapters/strands/index.js'
import type { PostgresContextStore } from '../../src/backends/postgres/index.js'
import { ScriptedModel } from '../../examples/strands-scripted-model.js'
import { json, lookupTools, recordingLogger, assistantScript } from '../adapters/strands/helpers.js'
import { makeBackend } from '../helpers/backend.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'

const backend = makeBackend()
let store: PostgresContextStore
let session = 0
beforeAll(async () => {
  store = (await backend.open()) as PostgresContextStore
})
afterAll(async () => {
  await backend.cleanup()
})

function agentOn(
  options: PersistentConversationManagerOptions<PostgresContextStore>,
  model = new ScriptedModel({ script: assistantScript() }),
): { agent: Agent; manager: PersistentConversationManager<PostgresContextStore>; model: ScriptedModel } {
  const manager = new PersistentConversationManager(options)
  const agent = new Agent({
    model,
    tools: [...lookupTools(), pinMessageTool],
    conversationManager: manager,
    printer: false,
  })
  return { agent, manager, model }
}

/** `agent.messages` is the window the server computes, and every window rule holds. */
async function inStep(agent: Agent, sessionId: string, s: PostgresContextStore = store): Promise<void> {
  expect(json(agent.messages)).toStrictEqual(await s.window(sessionId))
  await assertWindowRulesOf(s, sessionId)
}

const texts = (messages: readonly Message[]): string[] =>
  messages.map((m) => {
    const b = m.content[0]
    return b !== undefined && 'text' in b && typeof b.text === 'string' ? b.text : (b?.type ?? '')
  })

describe('the Strands adapter on PostgreSQL', () => {
  it('archives a tool-using conversation, slides the window, and pins through pin_message', async () => {
    const sessionId = `strands-${session++}`
    const { agent, manager } = agentOn({ store, sessionId, windowSize: 6 })
    expect(manager.durability).toBe('message')
    expect(manager.store).toBe(store)
    for (const prompt of ['hello', 'ask first', 'pin 0 the greeting', 'ask second', 'ask third', 'bye']) {
      await agent.invoke(prompt)
      await inStep(agent, sessionId)
    }
    // hello + reply (2), ask: prompt, call, result, answer (4) ×3, pin: prompt, call, result, answer (4), bye (2).
    const history = await manager.ledger.history({ limit: 100 })
    expect(history.map((e) => e.seq)).toStrictEqual([...Array(20).keys()])
    expect(history[0]?.message.content).toStrictEqual([{ text: 'hello' }])
    // The model pinned the message at index 0 of what it saw: 'hello', still in the window, flagged.
    const pins = await store.pinnedMessages({ sessionId })
    expect(pins.map((p) => [p.seq, p.actor, p.reason])).toStrictEqual([[0, 'agent', 'the greeting']])
    expect(texts(agent.messages)[0]).toBe('hello')
    expect(agent.messages[0]?.metadata?.custom?.pinned).toBe(true)
    expect((await store.session(sessionId))?.windowMessages).toBeLessThanOrEqual(7)
  })

  it('lets stateless workers (each its own pool and agent) take turns on one session', async () => {
    const sessionId = `strands-${session++}`
    const other = (await backend.reopen(store)) as PostgresContextStore
    const a = agentOn({ store, sessionId, windowSize: 40 }).agent
    const b = agentOn({ store: other, sessionId, windowSize: 40 }).agent
    await a.invoke('from worker a')
    await b.invoke('from worker b')
    await a.invoke('ask again from a')
    // Each worker saw the other's turns before its own: one conversation, in order.
    expect(texts(a.messages).filter((t) => t.startsWith('from') || t.startsWith('ask'))).toStrictEqual([
      'from worker a',
      'from worker b',
      'ask again from a',
    ])
    await inStep(a, sessionId)
    const history = await store.history(sessionId, { limit: 100 })
    expect(history.map((e) => e.seq)).toStrictEqual([...Array(history.length).keys()])
    expect(new Set(history.map((e) => e.trackingId)).size).toBe(history.length)
    // A new process (a new agent on a new pool) starts from the same window.
    const third = (await backend.reopen(store)) as PostgresContextStore
    const c = agentOn({ store: third, sessionId, windowSize: 40 }).agent
    await c.initialize()
    expect(json(c.messages)).toStrictEqual(await store.window(sessionId))
    expect((await store.history(sessionId, { limit: 100 })).length).toBe(history.length)
  })

  it('recovers from a context window overflow by evicting, as the SQLite path does', async () => {
    const sessionId = `strands-${session++}`
    const model = new ScriptedModel({ script: assistantScript(), contextWindowLimit: 900 })
    const { agent, manager } = agentOn({ store, sessionId, windowSize: 200 }, model)
    for (let i = 0; i < 8; i++) await agent.invoke(`note ${i} ${'x'.repeat(300)}`)
    expect(model.overflows).toBeGreaterThan(0)
    const facts = await store.session(sessionId)
    expect(facts?.boundary).toBeGreaterThan(0)
    expect(facts?.messageCount).toBe(16)
    await inStep(agent, sessionId)
    expect(manager.ledger.limits.windowSize).toBe(200)
  })

  it('folds into a summary with summarize, on an overflow and after an invocation over the limits', async () => {
    const sessionId = `strands-${session++}`
    const { agent } = agentOn({ store, sessionId, windowSize: 6, summarize: { summaryRatio: 0.5 } })
    for (const prompt of ['one', 'two', 'three', 'four', 'five']) await agent.invoke(prompt)
    const summaries = await store.summaries(sessionId)
    expect(summaries.length).toBeGreaterThan(0)
    expect(summaries[0]?.current).toBe(true)
    await inStep(agent, sessionId)
    expect(agent.messages.some((m) => m.trackingId === summaries[0]?.trackingId)).toBe(true)
  })

  it('repairs a hostile message before storing it, and refuses what repair cannot fix, nothing else lost', async () => {
    const sessionId = `strands-${session++}`
    const logger = recordingLogger()
    const { agent } = agentOn({ store, sessionId, windowSize: 40, logger })
    // A lone surrogate (half a character) in a prompt pushed between invocations.
    agent.messages.push(new Message({ role: 'user', content: [new TextBlock('cut \ud83d')] }))
    await agent.invoke('next')
    const history = await store.history(sessionId, { limit: 100 })
    expect(history[0]?.message.content).toStrictEqual([{ text: 'cut \ufffd' }])
    expect(logger.lines.some((l) => l.level === 'warn' && l.text.includes('repaired'))).toBe(true)
    await inStep(agent, sessionId)
    // A message inserted before stored ones: refused, named, removed; the session unchanged.
    const before = await store.session(sessionId)
    agent.messages.splice(1, 0, new Message({ role: 'user', content: [new TextBlock('sneaked in')] }))
    await expect(agent.invoke('after')).rejects.toMatchObject({ code: 'MESSAGE_OUT_OF_ORDER' })
    const after = await store.history(sessionId, { limit: 100 })
    expect(after.some((e) => JSON.stringify(e.message).includes('sneaked in'))).toBe(false)
    expect(after.length).toBe(before?.messageCount)
  })

  it('refuses the options it cannot honour on PostgreSQL, by name', () => {
    expect(
      () => new PersistentConversationManager({ store, sessionId: 'x', durability: 'invocation' }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS', path: 'durability' }))
    expect(
      () => new PersistentConversationManager({ store, sessionId: 'x', truncateToolResults: true }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS', path: 'truncateToolResults' }))
  })
})
