/**
 * Adversarial: `ledgerMiddleware` in the agent setups a demanding LangChain user builds, on real SQLite
 * files — human-in-the-loop interrupts resumed with `Command` (approve, edit, reject), LangChain's own
 * `summarizationMiddleware` beside it, structured output, a model that throws, tools that throw (with and
 * without `toolErrorMiddleware`), `returnDirect` tools, `agent.stream`, one middleware in two agents, a
 * window so small the newest turn alone is over it, a session of another format. Held each time: every
 * model input pairs its calls with their results, every message is stored once, `check` passes.
 */
import { describe, expect, it } from 'vitest'
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { tool } from '@langchain/core/tools'
import { Command, MemorySaver } from '@langchain/langgraph'
import {
  createAgent,
  humanInTheLoopMiddleware,
  summarizationMiddleware,
  toolErrorMiddleware,
  toolStrategy,
  type AgentMiddleware,
} from 'langchain'
import { z } from 'zod'
import { ledgerMiddleware, type LedgerMiddleware } from '../../src/adapters/langchain/index.js'
import type { ContextStore } from '../../src/index.js'
import { conversation, lookup, pairingProblems, ScriptedChatModel } from '../adapters/langchain/helpers.js'
import { checksum, failure, onThread, problems, useStores } from './langchain-support.js'

const { open } = useStores()

/** Every model input paired, every stored id once, the session checked. */
async function expectSound(
  store: ContextStore,
  mw: LedgerMiddleware,
  model: ScriptedChatModel,
  thread = 't',
): Promise<BaseMessage[]> {
  for (const input of model.inputs) expect(pairingProblems(conversation(input))).toStrictEqual([])
  const history = await mw.session(thread).history()
  expect(new Set(history.map((m) => m.id)).size).toBe(history.length)
  expect(problems(store, thread)).toStrictEqual([])
  return history
}

/** LangChain's own typing of its middlewares fails under exactOptionalPropertyTypes. */
const any = (m: unknown): AgentMiddleware => m as AgentMiddleware

describe('humanInTheLoopMiddleware interrupts, resumed with Command', () => {
  const decisions = {
    approve: { type: 'approve' },
    edit: { type: 'edit', editedAction: { name: 'lookup', args: { n: 9, k: 9 } } },
    reject: { type: 'reject', message: 'not now' },
  } as const
  for (const [name, decision] of Object.entries(decisions))
    it(`${name}: the ledger stores the model's message as the reviewer left it, once`, async () => {
      const store = open()
      const model = new ScriptedChatModel({ plan: [2, 0, 0] })
      const mw = ledgerMiddleware({ store })
      const hitl = humanInTheLoopMiddleware({ interruptOn: { lookup: true } } as never)
      const agent = createAgent({
        model,
        tools: [lookup],
        middleware: [mw, any(hitl)],
        checkpointer: new MemorySaver(),
      })
      const paused = (await agent.invoke({ messages: [new HumanMessage('go')] }, onThread('t'))) as {
        __interrupt__?: unknown[]
      }
      expect(paused.__interrupt__?.length).toBe(1)
      // Interrupted before the ledger's afterModel: only the prompt is stored so far.
      expect(store.session('t')?.messageCount).toBe(1)
      await agent.invoke(new Command({ resume: { decisions: [decision, decision] } }), onThread('t'))
      await agent.invoke({ messages: [new HumanMessage('again')] }, onThread('t'))
      const history = await expectSound(store, mw, model)
      expect(history.map((m) => m.type)).toStrictEqual(['human', 'ai', 'tool', 'tool', 'ai', 'human', 'ai'])
      const calls = (history[1] as AIMessage).tool_calls?.map((c) => c.args)
      expect(calls).toStrictEqual(
        name === 'edit'
          ? [
              { n: 9, k: 9 },
              { n: 9, k: 9 },
            ]
          : [
              { n: 0, k: 0 },
              { n: 0, k: 1 },
            ],
      )
      const results = history.slice(2, 4).map((m) => (m as { status?: unknown }).status)
      expect(results.map((status) => status === 'error')).toStrictEqual(
        name === 'reject' ? [true, true] : [false, false],
      )
    })
})

describe('summarizationMiddleware beside it', () => {
  for (const order of ['before', 'after'] as const)
    it(`(listed ${order} it): the model gets the ledger's window, LangChain's summary is not stored`, async () => {
      const store = open()
      const model = new ScriptedChatModel({ plan: Array.from({ length: 5 }, () => [1, 0]).flat() })
      const summarizer = fakeModel()
      for (let i = 0; i < 20; i++) summarizer.respond(new AIMessage(`LANGCHAIN SUMMARY ${i}`))
      const summarizing = any(
        summarizationMiddleware({
          model: summarizer,
          trigger: { messages: 4 },
          keep: { messages: 2 },
        } as never),
      )
      const mw = ledgerMiddleware({ store, windowSize: 6 })
      const agent = createAgent({
        model,
        tools: [lookup],
        middleware: order === 'before' ? [summarizing, mw] : [mw, summarizing],
        checkpointer: new MemorySaver(),
      })
      for (let q = 0; q < 5; q++) await agent.invoke({ messages: [new HumanMessage(`q${q}`)] }, onThread('t'))
      expect(summarizer.callCount).toBeGreaterThan(0)
      const history = await expectSound(store, mw, model)
      expect(history.length).toBe(5 * 4)
      for (const input of model.inputs) {
        expect(input.some((m) => m.text.includes('LANGCHAIN SUMMARY'))).toBe(false)
        expect(conversation(input).length).toBeLessThanOrEqual(6)
      }
    })
})

describe('other agent setups', () => {
  it('structured output (toolStrategy): the response tool`s call and answer are stored once and paired', async () => {
    const store = open()
    const model = new ScriptedChatModel({
      plan: [],
      calls: (n) => (n === 0 ? [{ name: 'answer', args: { verdict: 'yes' } }] : undefined),
    })
    const mw = ledgerMiddleware({ store })
    const schema = {
      title: 'answer',
      type: 'object',
      properties: { verdict: { type: 'string' } },
      required: ['verdict'],
    }
    const agent = createAgent({
      model,
      tools: [lookup],
      middleware: [mw],
      responseFormat: toolStrategy(schema as never),
    })
    const result = await agent.invoke({ messages: [new HumanMessage('well?')] }, onThread('t'))
    expect((result as { structuredResponse?: unknown }).structuredResponse).toStrictEqual({ verdict: 'yes' })
    await agent.invoke({ messages: [new HumanMessage('and now?')] }, onThread('t'))
    const history = await expectSound(store, mw, model)
    expect(history.map((m) => m.type)).toStrictEqual(['human', 'ai', 'tool', 'ai', 'human', 'ai'])
  })

  it('a model that throws: the run fails with its error, the prompt is stored once, the thread goes on', async () => {
    const store = open()
    const model = new ScriptedChatModel({ plan: [1, 0, 0] })
    let failing = false
    const provider = any({
      name: 'Provider',
      wrapModelCall: (request: never, handler: (r: never) => unknown) => {
        if (failing) throw new Error('provider 500')
        return handler(request)
      },
    })
    const mw = ledgerMiddleware({ store })
    const agent = createAgent({
      model,
      tools: [lookup],
      middleware: [mw, provider],
      checkpointer: new MemorySaver(),
    })
    await agent.invoke({ messages: [new HumanMessage('q1')] }, onThread('t'))
    failing = true
    await expect(agent.invoke({ messages: [new HumanMessage('q2')] }, onThread('t'))).rejects.toThrow(
      /provider 500/,
    )
    failing = false
    await agent.invoke({ messages: [new HumanMessage('q3')] }, onThread('t'))
    const history = await expectSound(store, mw, model)
    expect(history.filter((m) => m.type === 'human').map((m) => m.text)).toStrictEqual(['q1', 'q2', 'q3'])
  })

  for (const handled of [false, true])
    it(`a tool that throws (${handled ? 'toolErrorMiddleware' : 'LangChain`s default'}): its error result is stored once`, async () => {
      const store = open()
      const failing = tool(
        () => {
          throw new Error('tool exploded')
        },
        { name: 'lookup', description: 'fails', schema: z.object({ n: z.number(), k: z.number() }) },
      )
      const model = new ScriptedChatModel({ plan: [2, 0, 0] })
      const mw = ledgerMiddleware({ store })
      const middleware = handled ? [mw, any(toolErrorMiddleware({ onError: () => 'the tool failed' }))] : [mw]
      const agent = createAgent({ model, tools: [failing], middleware })
      await agent.invoke({ messages: [new HumanMessage('q')] }, onThread('t'))
      const history = await expectSound(store, mw, model)
      const results = history.filter((m): m is ToolMessage => ToolMessage.isInstance(m))
      expect(results.map((m) => m.status)).toStrictEqual(['error', 'error'])
    })

  it('a returnDirect tool ends the run: its result is stored, and the next run sees it', async () => {
    const store = open()
    const direct = tool(({ n }) => `direct answer ${n}`, {
      name: 'lookup',
      description: 'answers the user itself',
      schema: z.object({ n: z.number(), k: z.number() }),
      returnDirect: true,
    })
    const model = new ScriptedChatModel({ plan: [1, 0] })
    const mw = ledgerMiddleware({ store })
    const agent = createAgent({ model, tools: [direct], middleware: [mw] })
    await agent.invoke({ messages: [new HumanMessage('q1')] }, onThread('t'))
    await agent.invoke({ messages: [new HumanMessage('q2')] }, onThread('t'))
    await expectSound(store, mw, model)
    expect(conversation(model.inputs[1] ?? []).map((m) => m.text)).toStrictEqual([
      'q1',
      '',
      'direct answer 0',
      'q2',
    ])
  })

  it('agent.stream in every mode stores as invoke does', async () => {
    const store = open()
    const model = new ScriptedChatModel({ plan: [2, 1, 0] })
    const mw = ledgerMiddleware({ store })
    const agent = createAgent({ model, tools: [lookup], middleware: [mw] })
    const stream = await agent.stream(
      { messages: [new HumanMessage('q')] },
      { ...onThread('t'), streamMode: ['messages', 'updates', 'values'] },
    )
    let chunks = 0
    for await (const _ of stream) chunks++
    expect(chunks).toBeGreaterThan(3)
    const history = await expectSound(store, mw, model)
    expect(history.map((m) => m.type)).toStrictEqual(['human', 'ai', 'tool', 'tool', 'ai', 'tool', 'ai'])
  })

  it('one middleware in two agents: a thread is one session, whichever agent runs it', async () => {
    const store = open()
    const mw = ledgerMiddleware({ store, tools: true })
    const first = new ScriptedChatModel({ plan: [1, 0], prefix: 'x' })
    const second = new ScriptedChatModel({ plan: [0, 0], prefix: 'y' })
    const a = createAgent({ model: first, tools: [lookup], middleware: [mw] })
    const b = createAgent({ model: second, tools: [], middleware: [mw] })
    await a.invoke({ messages: [new HumanMessage('to a')] }, onThread('t'))
    await b.invoke({ messages: [new HumanMessage('to b')] }, onThread('t'))
    await b.invoke({ messages: [new HumanMessage('elsewhere')] }, onThread('u'))
    expect(conversation(second.inputs[0] ?? []).map((m) => m.text)[0]).toBe('to a')
    expect(conversation(second.inputs[1] ?? []).map((m) => m.text)).toStrictEqual(['elsewhere'])
    await expectSound(store, mw, second, 't')
    await expectSound(store, mw, second, 'u')
  })

  for (const limits of [{ windowSize: 1 }, { tokenBudget: 5 }])
    it(`a window the newest turn alone is over (${JSON.stringify(limits)}): that turn whole, paired`, async () => {
      const store = open()
      const model = new ScriptedChatModel({ plan: [3, 0, 1, 0] })
      const mw = ledgerMiddleware({ store, ...limits })
      const agent = createAgent({ model, tools: [lookup], middleware: [mw] })
      await agent.invoke({ messages: [new HumanMessage('a long first question '.repeat(5))] }, onThread('t'))
      await agent.invoke({ messages: [new HumanMessage('second')] }, onThread('t'))
      await expectSound(store, mw, model)
      expect(conversation(model.inputs[1] ?? []).map((m) => m.type)).toStrictEqual([
        'human',
        'ai',
        'tool',
        'tool',
        'tool',
      ])
      expect(conversation(model.inputs[3] ?? []).map((m) => m.text)).toStrictEqual([
        'second',
        '',
        expect.any(String),
      ])
    })

  it('a thread whose session holds another format: FORMAT_MISMATCH, nothing written', async () => {
    const store = open()
    store.append('theirs', { role: 'user', content: [{ text: 'a Strands message' }] })
    const before = checksum(store)
    const model = new ScriptedChatModel({ plan: [0] })
    const agent = createAgent({ model, tools: [lookup], middleware: [ledgerMiddleware({ store })] })
    const error = await failure(() => agent.invoke({ messages: [new HumanMessage('q')] }, onThread('theirs')))
    expect(error).toMatchObject({ code: 'FORMAT_MISMATCH', path: 'format' })
    expect(model.inputs).toStrictEqual([])
    expect(checksum(store)).toBe(before)
  })
})
