/**
 * `ledgerMiddleware` with summaries written by a LangChain fake chat model (`fakeModel()` of
 * `@langchain/core/testing`), and the recall and pin tools called by the model in the `createAgent` loop
 * (the middleware's own tools, and `ledgerTools` given to the agent).
 */
import { afterEach, describe, expect, it } from 'vitest'
import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
} from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { createAgent } from 'langchain'
import { ledgerMiddleware, ledgerTools } from '../../../src/adapters/langchain/index.js'
import type { ContextStore } from '../../../src/index.js'
import { tempDir, type TempDir } from '../../helpers/temp-store.js'
import { conversation, lookup, pairingProblems, planOf, ScriptedChatModel } from './helpers.js'

let dir: TempDir | undefined
afterEach(() => {
  dir?.cleanup()
  dir = undefined
})
const open = (): ContextStore => (dir ??= tempDir()).open()
const onThread = { configurable: { thread_id: 't' } }
const ask = (agent: { invoke: (...a: never[]) => Promise<unknown> }, text: string) =>
  (agent.invoke as (input: unknown, config: unknown) => Promise<{ messages: BaseMessage[] }>)(
    { messages: [new HumanMessage({ content: text, id: `h-${text}` })] },
    onThread,
  )

/** A fake chat model answering `count` summaries in turn. */
function summaryModel(count: number) {
  const model = fakeModel()
  for (let i = 0; i < count; i++) model.respond(new AIMessage(`SUMMARY ${i}`))
  return model
}

describe('summaries written by a LangChain chat model', () => {
  it('folds what the limits would evict into a summary the next model call sees first', async () => {
    const store = open()
    const summarizer = summaryModel(50)
    const mw = ledgerMiddleware({ store, windowSize: 6, summarize: { model: summarizer } })
    const model = new ScriptedChatModel({ plan: planOf(Array.from({ length: 6 }, () => [1])) })
    const agent = createAgent({ model, tools: [lookup], middleware: [mw] })
    for (let t = 0; t < 6; t++) await ask(agent, `question ${t}`)
    expect(summarizer.callCount).toBeGreaterThan(0)
    // The summary model got the prompt as a SystemMessage, the messages, and the request last.
    const first = summarizer.calls[0]?.messages ?? []
    expect(SystemMessage.isInstance(first[0])).toBe(true)
    expect(first.at(-1)?.type).toBe('human')
    expect(pairingProblems(first.slice(1))).toStrictEqual([])
    // Later model calls see the newest summary first, as a human message under the ledger's id.
    const last = conversation(model.inputs.at(-1) ?? [])
    expect(last[0]?.id).toBe('context-ledger:summary')
    expect(last[0]?.text).toMatch(/^SUMMARY \d+$/)
    for (const input of model.inputs) expect(pairingProblems(conversation(input))).toStrictEqual([])
    // Nothing is lost: the archive holds every message.
    expect((await mw.session('t').history()).length).toBe(6 * 4)
    const thread = mw.session('t')
    const result = await thread.summarize({ preserveRecentMessages: 2 })
    expect(JSON.stringify(result.summary?.message)).toMatch(/SUMMARY \d+/)
    expect((await thread.window())[0]?.text).toMatch(/^SUMMARY \d+$/)
  })

  it('falls back to eviction when the summary model fails, telling onError, and the run succeeds', async () => {
    const store = open()
    const errors: unknown[] = []
    const failing = fakeModel().alwaysThrow(new Error('rate limited'))
    const mw = ledgerMiddleware({
      store,
      windowSize: 4,
      summarize: { model: failing },
      onError: (e) => errors.push(e),
    })
    const model = new ScriptedChatModel({ plan: planOf([[1], [1], [1]]) })
    const agent = createAgent({ model, tools: [lookup], middleware: [mw] })
    for (let t = 0; t < 3; t++) await ask(agent, `q${t}`)
    expect(errors.length).toBeGreaterThan(0)
    for (const input of model.inputs) expect(conversation(input).length).toBeLessThanOrEqual(4)
    expect((await mw.session('t').history()).length).toBe(3 * 4)
  })

  it('refuses summarize() without a model, naming the option', async () => {
    const mw = ledgerMiddleware({ store: open(), sessionId: 's' })
    await expect(mw.session().summarize()).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'summarize',
    })
  })
})

describe('the recall and pin tools, called by the model', () => {
  const toolCalls = (n: number) =>
    [
      [{ name: 'search_history', args: { query: 'needle' } }],
      [{ name: 'read_history', args: { fromSeq: 0, toSeq: 0 } }],
      [{ name: 'pin_message', args: { index: 0, reason: 'the task' } }],
    ][n]

  it('searches, reads and pins through the middleware`s own tools, each call on its run`s thread', async () => {
    const store = open()
    const mw = ledgerMiddleware({ store, windowSize: 4, tools: true })
    const model = new ScriptedChatModel({ plan: [], calls: toolCalls })
    const agent = createAgent({ model, tools: [lookup], middleware: [mw] })
    await ask(agent, 'find the needle')
    const results = (await mw.session('t').history()).filter((m) => ToolMessage.isInstance(m))
    expect(results.map((m) => m.name)).toStrictEqual(['search_history', 'read_history', 'pin_message'])
    expect(results[0]?.text).toContain('needle')
    expect(results[1]?.text).toContain('find the needle')
    expect(results[2]?.text).toMatch(/pinned/i)
    // The pinned prompt stays in the window as turns go by.
    for (let t = 0; t < 4; t++) await ask(agent, `later ${t}`)
    const window = await mw.session('t').window()
    expect(window.some((m) => m.content === 'find the needle')).toBe(true)
    expect(conversation(model.inputs.at(-1) ?? []).some((m) => m.content === 'find the needle')).toBe(true)
  })

  it('works as ledgerTools given to an agent, on a fixed session', async () => {
    const store = open()
    const mw = ledgerMiddleware({ store, sessionId: 'fixed' })
    const model = new ScriptedChatModel({ plan: [], calls: toolCalls })
    const agent = createAgent({
      model,
      tools: [lookup, ...ledgerTools({ store, sessionId: 'fixed' })],
      middleware: [mw],
    })
    await ask(agent, 'find the needle')
    const results = (await mw.session().history()).filter((m) => ToolMessage.isInstance(m))
    expect(results.map((m) => [m.name, m.status])).toStrictEqual([
      ['search_history', 'success'],
      ['read_history', 'success'],
      ['pin_message', 'success'],
    ])
    expect(store.session('fixed')?.pinnedCount).toBe(1)
  })
})
