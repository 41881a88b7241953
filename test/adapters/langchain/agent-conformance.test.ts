/**
 * `ledgerMiddleware` on either backend (a conformance-suite file: SQLite in `unit`, PostgreSQL in the
 * `postgres` project), in the real `createAgent` loop with a scripted model: multi-step and parallel
 * tool calls, each model input the session's window at that moment and paired, every message stored
 * once; a restart by thread id (another store object on the ledger, a new middleware); two threads apart;
 * the graph state kept to the window under a `MemorySaver`; summaries written by LangChain's fake chat
 * model; the recall and pin tools called by the model.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { AIMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { MemorySaver } from '@langchain/langgraph'
import { createAgent } from 'langchain'
import {
  ledgerMiddleware,
  ledgerTools,
  type LedgerLangChainStore,
} from '../../../src/adapters/langchain/index.js'
import { coreStoreOf, makeBackend, type LedgerStore } from '../../helpers/backend.js'
import {
  agentOn,
  ask,
  conversation,
  dicts,
  inputTokens,
  lookup,
  pairingProblems,
  planOf,
  ScriptedChatModel,
  type AgentRun,
} from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

async function open(): Promise<{ handle: LedgerStore; store: LedgerLangChainStore }> {
  const handle = await backend.open()
  return { handle, store: coreStoreOf(handle) }
}

const threadOf = (id: string) => ({ configurable: { thread_id: id } })

/** Every model input is the window read just before it, and pairs every call with its results. */
function expectWindows(run: AgentRun): void {
  expect(run.windows.length).toBe(run.model.inputs.length)
  run.model.inputs.forEach((input, i) => {
    const shown = conversation(input)
    expect(dicts(shown)).toStrictEqual(dicts(run.windows[i] ?? []))
    expect(pairingProblems(shown)).toStrictEqual([])
  })
}

describe('ledgerMiddleware in createAgent, on either backend', () => {
  it('gives each call of a multi-step, parallel tool loop the window, paired, and stores every message once', async () => {
    const { store } = await open()
    const run = agentOn(store, { plan: planOf([[2, 1, 3], [1], []]) }, { windowSize: 6 })
    for (const q of ['first', 'second', 'third']) await ask(run, q)
    expect(run.model.inputs.length).toBe(7)
    expectWindows(run)
    for (const input of run.model.inputs) expect(conversation(input).length).toBeLessThanOrEqual(6 + 3)
    const history = await run.mw.session('t').history()
    expect(history.map((m) => m.type)).toStrictEqual([
      ...['human', 'ai', 'tool', 'tool', 'ai', 'tool', 'ai', 'tool', 'tool', 'tool', 'ai'],
      ...['human', 'ai', 'tool', 'ai'],
      ...['human', 'ai'],
    ])
    expect(new Set(history.map((m) => m.id)).size).toBe(history.length)
    expect(dicts(history.filter((m) => m.type === 'ai'))).toStrictEqual(dicts(run.model.outputs))
  })

  it('keeps every input of 20 turns within a provider`s limit, where the plain agent overflows', async () => {
    const limit = 3000
    const { store } = await open()
    const run = agentOn(
      store,
      { plan: planOf(Array.from({ length: 20 }, () => [2])), maxInputTokens: limit },
      { tokenBudget: limit / 2, windowSize: 500 },
    )
    for (let t = 0; t < 20; t++) await ask(run, `question ${t}`)
    for (const input of run.model.inputs) expect(inputTokens(input)).toBeLessThanOrEqual(limit)
    expectWindows(run)
    expect((await run.mw.session('t').history()).length).toBe(20 * 5)
    // The oracle: the same agent without the ledger, its checkpointer handing the model everything.
    const plain = createAgent({
      model: new ScriptedChatModel({
        plan: planOf(Array.from({ length: 20 }, () => [2])),
        maxInputTokens: limit,
      }),
      tools: [lookup],
      checkpointer: new MemorySaver(),
    })
    await expect(async () => {
      for (let t = 0; t < 20; t++)
        await plain.invoke({ messages: [{ role: 'user', content: `question ${t}` }] }, threadOf('t'))
    }).rejects.toThrow(/over the limit/)
  })

  it('stores the whole graph state exactly once, as LangChain serializes it', async () => {
    const { store } = await open()
    const run = agentOn(
      store,
      { plan: planOf([[1], [2, 2], []]) },
      { windowSize: 5, checkpointer: new MemorySaver() },
    )
    let state: { messages: BaseMessage[] } | undefined
    for (const q of ['a', 'b', 'c']) state = await ask(run, q)
    expect(dicts(await run.mw.session('t').history())).toStrictEqual(dicts(state?.messages ?? []))
  })

  it('resumes the same window after a restart, by thread id', async () => {
    const { handle, store } = await open()
    const first = agentOn(store, { plan: planOf([[1], [2]]), prefix: 'p1-' }, { windowSize: 7 })
    await ask(first, 'one')
    await ask(first, 'two')
    const before = await first.mw.session('t').window()
    // Another process: its own store object on the ledger, its own middleware and model.
    const again = coreStoreOf(await backend.reopen(handle))
    const second = agentOn(again, { plan: [0], prefix: 'p2-' }, { windowSize: 7 })
    expect(dicts(await second.mw.session('t').window())).toStrictEqual(dicts(before))
    await ask(second, 'three')
    const input = conversation(second.model.inputs[0] ?? [])
    expect(dicts(input)).toStrictEqual(dicts(second.windows[0] ?? []))
    expect(input.at(-1)?.content).toBe('three')
    const kept = input.length - 1
    expect(kept).toBeGreaterThan(0)
    expect(dicts(input.slice(0, -1))).toStrictEqual(dicts(before).slice(before.length - kept))
  })

  it('keeps two threads apart', async () => {
    const { store } = await open()
    const run = agentOn(store, { plan: planOf([[1], [], [1], []]) })
    await ask(run, 'alpha', 'a')
    await ask(run, 'beta', 'b')
    await ask(run, 'gamma', 'a')
    await ask(run, 'delta', 'b')
    const prompts = async (t: string) =>
      (await run.mw.session(t).history()).filter((m) => m.type === 'human').map((m) => m.content)
    expect(await prompts('a')).toStrictEqual(['alpha', 'gamma'])
    expect(await prompts('b')).toStrictEqual(['beta', 'delta'])
    // The fourth model call (thread a's second turn, after beta's) saw thread a only.
    const fourth = conversation(run.model.inputs[3] ?? []).filter((m) => m.type === 'human')
    expect(fourth.map((m) => m.content)).toStrictEqual(['alpha', 'gamma'])
    expectWindows(run)
  })

  it('keeps the checkpointed state to the window while the ledger holds everything', async () => {
    const { store } = await open()
    const windowSize = 6
    const run = agentOn(
      store,
      { plan: planOf(Array.from({ length: 10 }, () => [2, 1])) },
      { windowSize, keepStateToWindow: true, checkpointer: new MemorySaver() },
    )
    for (let t = 0; t < 10; t++) await ask(run, `question ${t}`)
    expectWindows(run)
    const { values } = (await run.agent.graph.getState(threadOf('t'))) as {
      values: { messages: BaseMessage[] }
    }
    const messages = values.messages
    // The state is the window the last model call saw, and its answer, under their stored ids.
    expect(dicts(messages.slice(0, -1))).toStrictEqual(dicts(conversation(run.model.inputs.at(-1) ?? [])))
    let checkpoints = 0
    for await (const checkpoint of run.agent.graph.getStateHistory(threadOf('t'))) {
      const held = (checkpoint.values as { messages?: BaseMessage[] }).messages ?? []
      // At most: the window, a step's message and results, the next prompt.
      expect(held.length).toBeLessThanOrEqual(windowSize + 3 + 1)
      checkpoints++
    }
    expect(checkpoints).toBeGreaterThan(10)
    const history = await run.mw.session('t').history()
    expect(history.length).toBe(10 * 7)
    expect(new Set(history.map((m) => m.id)).size).toBe(history.length)
  })
})

describe('summaries and tools, on either backend', () => {
  it('folds what the limits would evict into a summary by a LangChain chat model, seen first', async () => {
    const { store } = await open()
    const summarizer = fakeModel()
    for (let i = 0; i < 40; i++) summarizer.respond(new AIMessage(`SUMMARY ${i}`))
    const run = agentOn(
      store,
      { plan: planOf(Array.from({ length: 6 }, () => [1])) },
      { windowSize: 6, summarize: { model: summarizer } },
    )
    for (let t = 0; t < 6; t++) await ask(run, `question ${t}`)
    expect(summarizer.callCount).toBeGreaterThan(0)
    // The summary model got the prompt as a SystemMessage, the messages paired, and the request last.
    const first = summarizer.calls[0]?.messages ?? []
    expect(SystemMessage.isInstance(first[0])).toBe(true)
    expect(first.at(-1)?.type).toBe('human')
    expect(pairingProblems(first.slice(1))).toStrictEqual([])
    const last = conversation(run.model.inputs.at(-1) ?? [])
    expect(last[0]?.id).toBe('context-ledger:summary')
    expect(last[0]?.text).toMatch(/^SUMMARY \d+$/)
    expectWindows(run)
    expect((await run.mw.session('t').history()).length).toBe(6 * 4)
    const result = await run.mw.session('t').summarize({ preserveRecentMessages: 2 })
    expect(JSON.stringify(result.summary?.message)).toMatch(/SUMMARY \d+/)
    expect((await run.mw.session('t').window())[0]?.text).toMatch(/^SUMMARY \d+$/)
  })

  const recallCalls = (n: number) =>
    [
      [{ name: 'search_history', args: { query: 'needle' } }],
      [{ name: 'read_history', args: { fromSeq: 0, toSeq: 0 } }],
      [{ name: 'pin_message', args: { index: 0, reason: 'the task' } }],
    ][n]

  it('lets the model search, read and pin through the middleware`s own tools', async () => {
    const { store } = await open()
    const run = agentOn(store, { plan: [], calls: recallCalls }, { windowSize: 4, tools: true })
    await ask(run, 'find the needle')
    const results = (await run.mw.session('t').history()).filter((m) => ToolMessage.isInstance(m))
    expect(results.map((m) => [m.name, m.status])).toStrictEqual([
      ['search_history', 'success'],
      ['read_history', 'success'],
      ['pin_message', 'success'],
    ])
    expect(results[0]?.text).toContain('needle')
    expect(results[1]?.text).toContain('find the needle')
    expect(results[2]?.text).toMatch(/pinned/i)
    // The pinned prompt stays in what the model sees as turns go by.
    for (let t = 0; t < 4; t++) await ask(run, `later ${t}`)
    expect(conversation(run.model.inputs.at(-1) ?? []).some((m) => m.content === 'find the needle')).toBe(
      true,
    )
    expectWindows(run)
  })

  it('gives an agent ledgerTools on a fixed session', async () => {
    const { store } = await open()
    const mw = ledgerMiddleware({ store, sessionId: 'fixed' })
    const model = new ScriptedChatModel({ plan: [], calls: recallCalls })
    const agent = createAgent({
      model,
      tools: [lookup, ...ledgerTools({ store, sessionId: 'fixed' })],
      middleware: [mw],
    })
    await agent.invoke({ messages: [{ role: 'user', content: 'find the needle' }] })
    const results = (await mw.session().history()).filter((m) => ToolMessage.isInstance(m))
    expect(results.map((m) => [m.name, m.status])).toStrictEqual([
      ['search_history', 'success'],
      ['read_history', 'success'],
      ['pin_message', 'success'],
    ])
    expect((await store.session('fixed'))?.pinnedCount).toBe(1)
  })
})
