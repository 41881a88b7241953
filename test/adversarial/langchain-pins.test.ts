/**
 * Adversarial: `pin_message` pins a message by its position in what the model was shown. Attacked where
 * "what the model was shown" is ambiguous: two runs on one thread, the second's model call between the
 * first's call to `pin_message` and its execution; `ledgerTools` beside the middleware, where storing the
 * model's own message evicts the oldest turn before the tool runs; positions out of range and the summary.
 *
 * Written as attacks by an adversarial tester; the first two pinned another message than the one the
 * model named, were fixed, and stay as regression tests.
 */
import { describe, expect, it } from 'vitest'
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { createAgent, createMiddleware } from 'langchain'
import { ledgerMiddleware, ledgerTools } from '../../src/adapters/langchain/index.js'
import type { ContextStore } from '../../src/index.js'
import { conversation, lookup, ScriptedChatModel } from '../adapters/langchain/helpers.js'
import { onThread, problems, useStores } from './langchain-support.js'

const { open } = useStores()

/** A model that answers, except at call `at`, where it pins the message at `index` of its input. */
const pinningModel = (at: number, index = 0) =>
  new ScriptedChatModel({
    plan: [],
    calls: (n) =>
      n === at ? [{ name: 'pin_message', args: { index, reason: 'named by the model' } }] : undefined,
  })

/** The text of each pinned message of a session. */
const pinned = (store: ContextStore, sessionId: string): string[] =>
  store
    .history(sessionId, { limit: 1000 })
    .filter((e) => e.pinned)
    .map((e) => JSON.stringify((e.message as unknown as { data: { content: unknown } }).data.content))

/** What the model was shown at call `n`, as texts (the system prompt left out). */
const shownAt = (model: ScriptedChatModel, n: number): string[] =>
  conversation(model.inputs[n] ?? []).map((m) => m.text)

describe('pin_message pins what the model that called it was shown', () => {
  it('when another run`s model call on the thread comes between the call and the tool', async () => {
    const store = open()
    let release = (): void => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    let secondCalled = (): void => undefined
    const second = new Promise<void>((resolve) => (secondCalled = resolve))
    let pinWaits = (): void => undefined
    const waiting = new Promise<void>((resolve) => (pinWaits = resolve))
    const model = pinningModel(4)
    let calls = 0
    // Holds run A's pin_message until run B's model call is done.
    const timing = createMiddleware({
      name: 'Timing',
      wrapModelCall: async (request, handler) => {
        const reply = await handler(request)
        if (++calls === 6) secondCalled()
        return reply
      },
      wrapToolCall: async (request, handler) => {
        if (request.toolCall.name === 'pin_message') {
          pinWaits()
          await held
        }
        return handler(request)
      },
    })
    const mw = ledgerMiddleware({ store, tools: true, windowSize: 4 })
    const agent = createAgent({ model, tools: [lookup], middleware: [mw, timing] })
    for (const q of ['old 1', 'old 2', 'old 3', 'old 4'])
      await agent.invoke({ messages: [new HumanMessage(q)] }, onThread('t'))
    const a = agent.invoke(
      { messages: [new HumanMessage('A: pin the first message you see')] },
      onThread('t'),
    )
    await waiting
    const b = agent.invoke({ messages: [new HumanMessage('B: a question')] }, onThread('t'))
    await second
    release()
    await Promise.all([a, b])
    // Run A's model (call 4) saw "old 4" first; run B's (call 5), run A's own prompt first.
    expect(shownAt(model, 4)[0]).toBe('old 4')
    expect(shownAt(model, 5)[0]).not.toBe('old 4')
    expect(pinned(store, 't')).toStrictEqual(['"old 4"'])
    expect(problems(store, 't')).toStrictEqual([])
  })

  for (const windowSize of [3, 5, 7])
    it(`through ledgerTools beside the middleware, when storing the call evicts (windowSize ${windowSize})`, async () => {
      const store = open()
      const model = pinningModel(4)
      const mw = ledgerMiddleware({ store, sessionId: 's', windowSize })
      const agent = createAgent({
        model,
        tools: [lookup, ...ledgerTools({ store, sessionId: 's', windowSize })],
        middleware: [mw],
      })
      for (const q of ['old 1', 'old 2', 'old 3', 'old 4', 'pin the first'])
        await agent.invoke({ messages: [new HumanMessage(q)] })
      const first = shownAt(model, 4)[0] ?? ''
      expect(pinned(store, 's')).toStrictEqual([JSON.stringify(first)])
      expect(problems(store, 's')).toStrictEqual([])
    })
})

describe('pin_message refuses with text the model can read, and changes nothing', () => {
  it('a position past the end, a negative one, and the summary', async () => {
    const store = open()
    const summarizer = fakeModel()
    for (let i = 0; i < 20; i++) summarizer.respond(new AIMessage(`SUMMARY ${i}`))
    const calls = [
      { index: 99, reason: 'past the end' },
      { index: -1, reason: 'negative' },
      { index: 0, reason: 'the summary' },
    ]
    const model = new ScriptedChatModel({
      plan: [],
      calls: (n) => {
        const args = n >= 8 ? calls[n - 8] : undefined
        return args === undefined ? undefined : [{ name: 'pin_message', args }]
      },
    })
    const mw = ledgerMiddleware({ store, tools: true, windowSize: 4, summarize: { model: summarizer } })
    const agent = createAgent({ model, tools: [lookup], middleware: [mw] })
    for (let q = 0; q < 9; q++) await agent.invoke({ messages: [new HumanMessage(`q${q}`)] }, onThread('t'))
    const results = (await mw.session('t').history()).filter(
      (m): m is ToolMessage => ToolMessage.isInstance(m) && m.name === 'pin_message',
    )
    expect(results.length).toBe(3)
    expect(results.map((m) => m.text)).toStrictEqual([
      expect.stringMatching(/99/),
      expect.stringMatching(/-1|index/i),
      expect.stringMatching(/summary/i),
    ])
    expect(pinned(store, 't')).toStrictEqual([])
    const shown: BaseMessage[] = await mw.session('t').window()
    expect(shown[0]?.id).toBe('context-ledger:summary')
    expect(problems(store, 't')).toStrictEqual([])
  })
})
