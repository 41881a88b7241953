/**
 * `ledgerMiddleware` in the real `createAgent` loop (SQLite): multi-step and parallel tool calls with a
 * scripted model; every model input is the session's window at that moment and pairs every tool call
 * with its results; every message lands in the ledger once (a fast-check property over random scripts,
 * window sizes and state modes); a restart by thread id resumes the window; two threads stay apart; the
 * graph state kept to the window under a checkpointer; the session's view for application code.
 */
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { HumanMessage, type BaseMessage } from '@langchain/core/messages'
import { MemorySaver } from '@langchain/langgraph'
import { createAgent, createMiddleware } from 'langchain'
import { ledgerMiddleware, type LedgerMiddleware } from '../../../src/adapters/langchain/index.js'
import type { ContextStore } from '../../../src/index.js'
import { tempDir, type TempDir } from '../../helpers/temp-store.js'
import {
  conversation,
  dicts,
  lookup,
  pairingProblems,
  planOf,
  ScriptedChatModel,
  type ScriptedOptions,
} from './helpers.js'

let dir: TempDir | undefined
afterEach(() => {
  dir?.cleanup()
  dir = undefined
})
const open = (name = 'ledger.db'): ContextStore => (dir ??= tempDir()).open(name)

const threadOf = (id: string) => ({ configurable: { thread_id: id } })

/** Records, at each model call, the session's window as application code reads it. */
function windowSpy(mw: LedgerMiddleware, windows: BaseMessage[][]) {
  return createMiddleware({
    name: 'WindowSpy',
    wrapModelCall: async (request, handler) => {
      const thread = String(request.runtime.configurable?.thread_id)
      windows.push(await mw.session(thread).window())
      return handler(request)
    },
  })
}

interface Run {
  readonly model: ScriptedChatModel
  readonly mw: LedgerMiddleware
  readonly windows: BaseMessage[][]
  readonly agent: ReturnType<typeof createAgent>
}

function agentOn(
  store: ContextStore,
  script: ScriptedOptions,
  options: { windowSize?: number; keepStateToWindow?: boolean; checkpointer?: MemorySaver } = {},
): Run {
  const model = new ScriptedChatModel(script)
  const mw = ledgerMiddleware({
    store,
    windowSize: options.windowSize ?? 40,
    keepStateToWindow: options.keepStateToWindow ?? false,
  })
  const windows: BaseMessage[][] = []
  const agent = createAgent({
    model,
    tools: [lookup],
    middleware: [mw, windowSpy(mw, windows)],
    ...(options.checkpointer === undefined ? {} : { checkpointer: options.checkpointer }),
  })
  return { model, mw, windows, agent }
}

const ask = (run: Run, text: string, thread = 't'): Promise<{ messages: BaseMessage[] }> =>
  run.agent.invoke(
    { messages: [new HumanMessage({ content: text, id: `human-${thread}-${text}` })] },
    threadOf(thread),
  )

describe('ledgerMiddleware in createAgent', () => {
  it('gives each call of a multi-step, parallel tool loop the window, paired, and stores every message once', async () => {
    const store = open()
    const run = agentOn(store, { plan: planOf([[2, 1, 3], [1], []]) }, { windowSize: 6 })
    for (const q of ['first', 'second', 'third']) await ask(run, q)
    expect(run.model.inputs.length).toBe(7)
    run.model.inputs.forEach((input, i) => {
      const shown = conversation(input)
      expect(dicts(shown)).toStrictEqual(dicts(run.windows[i] ?? []))
      expect(pairingProblems(shown)).toStrictEqual([])
      expect(shown.length).toBeLessThanOrEqual(6 + 3)
    })
    // The archive: 3 prompts, 7 model messages, 7 tool results — each once, in order.
    const history = await run.mw.session('t').history()
    expect(history.map((m) => m.type)).toStrictEqual(
      ['human', 'ai', 'tool', 'tool', 'ai', 'tool', 'ai', 'tool', 'tool', 'tool', 'ai']
        .concat(['human', 'ai', 'tool', 'ai'])
        .concat(['human', 'ai']),
    )
    expect(new Set(history.map((m) => m.id)).size).toBe(history.length)
    expect(dicts(history.filter((m) => m.type === 'ai'))).toStrictEqual(dicts(run.model.outputs))
  })

  it('stores the whole graph state exactly once, as LangChain serializes it (no keepStateToWindow)', async () => {
    const store = open()
    const checkpointer = new MemorySaver()
    const run = agentOn(store, { plan: planOf([[1], [2, 2], []]) }, { windowSize: 5, checkpointer })
    let state: { messages: BaseMessage[] } | undefined
    for (const q of ['a', 'b', 'c']) state = await ask(run, q)
    expect(dicts(await run.mw.session('t').history())).toStrictEqual(dicts(state?.messages ?? []))
  })

  it('resumes the same window after a restart, by thread id (a new store and middleware on the file)', async () => {
    const dirPath = (dir ??= tempDir())
    const first = agentOn(
      dirPath.open('restart.db'),
      { plan: planOf([[1], [2]]), prefix: 'p1-' },
      {
        windowSize: 7,
      },
    )
    await ask(first, 'one')
    await ask(first, 'two')
    const before = await first.mw.session('t').window()
    // Another process: its own store object on the same file, its own middleware and model.
    const second = agentOn(dirPath.open('restart.db'), { plan: [0], prefix: 'p2-' }, { windowSize: 7 })
    expect(dicts(await second.mw.session('t').window())).toStrictEqual(dicts(before))
    await ask(second, 'three')
    const input = conversation(second.model.inputs[0] ?? [])
    expect(dicts(input)).toStrictEqual(dicts(second.windows[0] ?? []))
    expect(input.at(-1)?.content).toBe('three')
    expect(dicts(input.slice(0, -1))).toStrictEqual(dicts(before).slice(-(input.length - 1)))
  })

  it('keeps two threads apart', async () => {
    const store = open()
    const run = agentOn(store, { plan: planOf([[1], [], [1], []]) })
    await ask(run, 'alpha', 'a')
    await ask(run, 'beta', 'b')
    await ask(run, 'gamma', 'a')
    await ask(run, 'delta', 'b')
    const texts = async (t: string) =>
      (await run.mw.session(t).history()).filter((m) => m.type === 'human').map((m) => m.content)
    expect(await texts('a')).toStrictEqual(['alpha', 'gamma'])
    expect(await texts('b')).toStrictEqual(['beta', 'delta'])
    // The model's fourth call (thread a's second turn, after beta's) saw only thread a.
    const fourth = conversation(run.model.inputs[3] ?? []).filter((m) => m.type === 'human')
    expect(fourth.map((m) => m.content)).toStrictEqual(['alpha', 'gamma'])
  })

  it('keeps the checkpointed state to the window while the ledger holds everything', async () => {
    const store = open()
    const checkpointer = new MemorySaver()
    const windowSize = 6
    const run = agentOn(
      store,
      { plan: planOf(Array.from({ length: 12 }, () => [2, 1])) },
      { windowSize, keepStateToWindow: true, checkpointer },
    )
    for (let t = 0; t < 12; t++) await ask(run, `question ${t}`)
    const snapshot = await run.agent.graph.getState(threadOf('t'))
    const messages = (snapshot.values as { messages: BaseMessage[] }).messages
    // The window as the last model call saw it, plus that call's answer.
    expect(messages.length).toBeLessThanOrEqual(windowSize + 3)
    let sizes = 0
    for await (const checkpoint of run.agent.graph.getStateHistory(threadOf('t'))) {
      const held = (checkpoint.values as { messages?: BaseMessage[] }).messages ?? []
      expect(held.length).toBeLessThanOrEqual(windowSize + 3 + 1)
      sizes++
    }
    expect(sizes).toBeGreaterThan(12)
    const history = await run.mw.session('t').history()
    expect(history.length).toBe(12 * (1 + 3 + 3))
    expect(new Set(history.map((m) => m.id)).size).toBe(history.length)
    // The state's messages are the window's, under their stored ids.
    expect(dicts(messages.slice(0, -1))).toStrictEqual(dicts(conversation(run.model.inputs.at(-1) ?? [])))
  })

  it('refuses a run with no thread id and no sessionId, naming the option', async () => {
    const store = open()
    const run = agentOn(store, { plan: [0] })
    const error: unknown = await run.agent
      .invoke({ messages: [new HumanMessage('hi')] })
      .catch((e: unknown) => e)
    const cause = (error as { cause?: unknown }).cause ?? error
    expect(cause).toMatchObject({ code: 'INVALID_OPTIONS', path: 'sessionId' })
    expect(store.sessions()).toStrictEqual([])
  })
})

describe('every message in the ledger exactly once (property)', () => {
  const script = fc.array(fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 3 }), {
    minLength: 1,
    maxLength: 5,
  })
  it('over random scripts, window sizes and state modes', async () => {
    await fc.assert(
      fc.asyncProperty(
        script,
        fc.integer({ min: 2, max: 12 }),
        fc.boolean(),
        fc.boolean(),
        async (turns, windowSize, keepStateToWindow, checkpoint) => {
          const store = open(`p-${Math.random().toString(36).slice(2)}.db`)
          const run = agentOn(
            store,
            { plan: planOf(turns) },
            { windowSize, keepStateToWindow, ...(checkpoint ? { checkpointer: new MemorySaver() } : {}) },
          )
          for (const [t] of turns.entries()) await ask(run, `q${t}`)
          for (const [i, input] of run.model.inputs.entries()) {
            const shown = conversation(input)
            expect(pairingProblems(shown)).toStrictEqual([])
            expect(dicts(shown)).toStrictEqual(dicts(run.windows[i] ?? []))
          }
          const history = await run.mw.session('t').history()
          const ids = history.map((m) => m.id)
          expect(new Set(ids).size).toBe(ids.length)
          const calls = turns.flat().reduce((a, b) => a + b, 0)
          const steps = turns.flat().length
          expect(history.length).toBe(turns.length * 2 + steps + calls)
          expect(dicts(history.filter((m) => m.type === 'ai'))).toStrictEqual(dicts(run.model.outputs))
          store.close()
        },
      ),
      { numRuns: Number(process.env.FC_RUNS ?? 25) },
    )
  })
})
