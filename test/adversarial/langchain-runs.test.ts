/**
 * Adversarial: runs of one thread that race, end early or carry what the ledger refuses, on real SQLite
 * files — four `invoke`s of one thread at once in one process (with and without a checkpointer), a
 * middleware that ends the run with `jumpTo: 'end'` (LangChain then skips every `afterModel` before it
 * and every `afterAgent`), a tool that returns a `ToolMessage` for a call never made, a model whose tool
 * calls have no ids, a summary model that fails or is slow while the thread goes on.
 */
import { describe, expect, it } from 'vitest'
import { HumanMessage, RemoveMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import { tool } from '@langchain/core/tools'
import { MemorySaver } from '@langchain/langgraph'
import { createAgent, FakeToolCallingModel, toolCallLimitMiddleware, type AgentMiddleware } from 'langchain'
import { z } from 'zod'
import { ledgerMiddleware } from '../../src/adapters/langchain/index.js'
import type { ContextStore } from '../../src/index.js'
import type { Summarizer } from '../../src/summaries/summarize.js'
import { conversation, lookup, pairingProblems, ScriptedChatModel } from '../adapters/langchain/helpers.js'
import { checksum, failure, onThread, problems, useStores } from './langchain-support.js'

const { open } = useStores()

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** The lookup tool, answering after a few ms that differ by call, so parallel runs interleave. */
const slowLookup = tool(
  async ({ n, k }) => {
    await sleep(2 + ((n * 7 + k * 13) % 11))
    return `result ${n}.${k}`
  },
  { name: 'lookup', description: 'Looks a number up', schema: z.object({ n: z.number(), k: z.number() }) },
)

/** Each stored id once; the ids of the model's messages and the prompts all there. */
function expectOnce(store: ContextStore, sessionId: string, model: ScriptedChatModel, prompts: number): void {
  const entries = store.history(sessionId, { limit: 10_000 })
  const ids = entries.map((e) => e.trackingId)
  expect(new Set(ids).size).toBe(ids.length)
  const bodies = entries.map((e) => e.message as unknown as { type: string; data: { id?: string } })
  expect(bodies.filter((b) => b.type === 'human').length).toBe(prompts)
  const stored = new Set(bodies.map((b) => b.data.id))
  expect(model.outputs.filter((m) => !stored.has(m.id))).toStrictEqual([])
}

describe('four invokes of one thread at once, in one process', () => {
  for (const checkpointer of [false, true])
    it(`every message once, every input paired (checkpointer: ${checkpointer})`, async () => {
      const store = open()
      const model = new ScriptedChatModel({ plan: [2, 1, 0, 2, 0, 1, 1, 0, 3, 0, 1, 0, 2, 2, 0, 0, 0, 0] })
      const mw = ledgerMiddleware({ store, windowSize: 8 })
      const agent = createAgent({
        model,
        tools: [slowLookup],
        middleware: [mw],
        ...(checkpointer ? { checkpointer: new MemorySaver() } : {}),
      })
      await Promise.all(
        [0, 1, 2, 3].map((i) => agent.invoke({ messages: [new HumanMessage(`q${i}`)] }, onThread('t'))),
      )
      for (const input of model.inputs) expect(pairingProblems(conversation(input))).toStrictEqual([])
      expectOnce(store, 't', model, 4)
      expect(problems(store, 't')).toStrictEqual([])
    })
})

describe('a run ended by a middleware`s jumpTo: end', () => {
  it('skips the ledger`s afterModel and afterAgent; with a checkpointer the next model call stores the rest once', async () => {
    const store = open()
    const model = new ScriptedChatModel({ plan: [2, 2, 0, 0] })
    const mw = ledgerMiddleware({ store })
    const limit = toolCallLimitMiddleware({
      runLimit: 1,
      exitBehavior: 'end',
    } as never) as unknown as AgentMiddleware
    const agent = createAgent({
      model,
      tools: [lookup],
      middleware: [mw, limit],
      checkpointer: new MemorySaver(),
    })
    const first = (await agent.invoke({ messages: [new HumanMessage('q1')] }, onThread('t'))) as {
      messages: BaseMessage[]
    }
    // The run's end is in the state, not yet in the ledger (LangChain routed the jump straight to END).
    expect(store.session('t')?.messageCount).toBeLessThan(first.messages.length)
    await agent.invoke({ messages: [new HumanMessage('q2')] }, onThread('t'))
    const ids = new Set(store.history('t', { limit: 100 }).map((e) => e.trackingId))
    expect(first.messages.filter((m) => !ids.has(m.id ?? ''))).toStrictEqual([])
    for (const input of model.inputs) expect(pairingProblems(conversation(input))).toStrictEqual([])
    expect(problems(store, 't')).toStrictEqual([])
  })
})

describe('what the ledger refuses from inside the run, and how the thread recovers', () => {
  it('a tool returning a ToolMessage for a call never made: refused, nothing written; removing it resumes', async () => {
    const store = open()
    const ghost = tool(
      () => new ToolMessage({ id: 'ghost', content: 'for nobody', tool_call_id: 'never-made' }),
      {
        name: 'lookup',
        description: 'answers the wrong call',
        schema: z.object({ n: z.number(), k: z.number() }),
      },
    )
    const model = new ScriptedChatModel({ plan: [1, 0, 0] })
    const agent = createAgent({
      model,
      tools: [ghost],
      middleware: [ledgerMiddleware({ store })],
      checkpointer: new MemorySaver(),
    })
    const error = await failure(() => agent.invoke({ messages: [new HumanMessage('q')] }, onThread('t')))
    expect(error).toMatchObject({ code: 'INVALID_MESSAGE', path: 'messages[2].data.tool_call_id' })
    const before = checksum(store)
    // The checkpointed state holds it: every run refuses it again, writing nothing…
    await failure(() => agent.invoke({ messages: [new HumanMessage('again')] }, onThread('t')))
    expect(checksum(store)).toBe(before)
    // …until the application takes it out of the state; then the open call is repaired, and on it goes.
    await agent.graph.updateState(onThread('t'), { messages: [new RemoveMessage({ id: 'ghost' })] })
    await agent.invoke({ messages: [new HumanMessage('once more')] }, onThread('t'))
    const last = conversation(model.inputs.at(-1) ?? [])
    expect(pairingProblems(last)).toStrictEqual([])
    expect(last.map((m) => m.type)).toStrictEqual(['human', 'ai', 'tool', 'human', 'human'])
    expect(problems(store, 't')).toStrictEqual([])
  })

  it('a model whose tool calls have no ids: refused at the call`s id, nothing of it written', async () => {
    const store = open()
    const model = new FakeToolCallingModel({
      toolCalls: [[{ name: 'lookup', args: { n: 1, k: 1 } } as never], []],
    })
    const agent = createAgent({ model, tools: [lookup], middleware: [ledgerMiddleware({ store })] })
    const error = await failure(() => agent.invoke({ messages: [new HumanMessage('q')] }, onThread('t')))
    expect(error).toMatchObject({ code: 'INVALID_MESSAGE', path: 'messages[1].data.tool_calls[0].id' })
    expect(store.history('t').map((e) => (e.message as unknown as { type: string }).type)).toStrictEqual([
      'human',
    ])
  })
})

describe('a summary model that fails or is slow', () => {
  it('failing: the run succeeds, the window is cut by eviction, onError is told', async () => {
    const store = open()
    const errors: unknown[] = []
    const summarize: Summarizer = () => {
      throw new Error('rate limited')
    }
    const model = new ScriptedChatModel({ plan: [1, 0, 1, 0, 1, 0] })
    const mw = ledgerMiddleware({ store, windowSize: 4, summarize, onError: (e) => errors.push(e) })
    const agent = createAgent({ model, tools: [lookup], middleware: [mw] })
    for (let q = 0; q < 3; q++) await agent.invoke({ messages: [new HumanMessage(`q${q}`)] }, onThread('t'))
    expect(errors.length).toBeGreaterThan(0)
    expect(errors.every((e) => (e as { code?: unknown }).code === 'SUMMARIZER_FAILED')).toBe(true)
    for (const input of model.inputs) expect(conversation(input).length).toBeLessThanOrEqual(4)
    expectOnce(store, 't', model, 3)
    expect(problems(store, 't')).toStrictEqual([])
  })

  it('slow: a second thread is not held up, and the first goes on once the summary is written', async () => {
    const store = open()
    let release = (): void => undefined
    const gate = new Promise<void>((resolve) => (release = resolve))
    let calls = 0
    const summarize: Summarizer = async (messages) => {
      if (calls++ === 0) await gate
      return `a summary of ${messages.length} messages`
    }
    const model = new ScriptedChatModel({ plan: [0, 0, 0, 0, 0, 0] })
    const mw = ledgerMiddleware({ store, windowSize: 2, summarize })
    const agent = createAgent({ model, tools: [lookup], middleware: [mw] })
    await agent.invoke({ messages: [new HumanMessage('a1')] }, onThread('a'))
    // This run's append goes over the limit: its summary waits at the gate.
    const slow = agent.invoke({ messages: [new HumanMessage('a2')] }, onThread('a'))
    await sleep(50)
    await agent.invoke({ messages: [new HumanMessage('b1')] }, onThread('b'))
    expect(model.inputs.length).toBe(2)
    release()
    await slow
    expect(conversation(model.inputs[2] ?? [])[0]?.text).toMatch(/^a summary of/)
    expect(problems(store, 'a')).toStrictEqual([])
    expect(problems(store, 'b')).toStrictEqual([])
  })
})
