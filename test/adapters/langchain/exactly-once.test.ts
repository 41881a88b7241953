/**
 * `ledgerMiddleware` in the real `createAgent` loop (SQLite): a fast-check property over random scripts
 * (multi-step, parallel tool calls), window sizes, state modes and checkpointers — every model input is
 * the session's window at that moment and pairs every call with its results, and every message is in the
 * ledger exactly once; and LangChain's own fake models (`fakeModel()`, `FakeToolCallingModel`) as the
 * agent's model.
 */
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { MemorySaver } from '@langchain/langgraph'
import { createAgent, createMiddleware, FakeToolCallingModel } from 'langchain'
import { ledgerMiddleware } from '../../../src/adapters/langchain/index.js'
import type { ContextStore } from '../../../src/index.js'
import { tempDir, type TempDir } from '../../helpers/temp-store.js'
import { agentOn, ask, conversation, dicts, lookup, pairingProblems, planOf } from './helpers.js'

let dir: TempDir | undefined
afterEach(() => {
  dir?.cleanup()
  dir = undefined
})
let opened = 0
const open = (): ContextStore => (dir ??= tempDir()).open(`ledger-${opened++}.db`)

describe('every message in the ledger exactly once (property)', () => {
  const turns = fc.array(fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 3 }), {
    minLength: 1,
    maxLength: 5,
  })
  it('over random scripts, window sizes, state modes and checkpointers', async () => {
    await fc.assert(
      fc.asyncProperty(
        turns,
        fc.integer({ min: 2, max: 12 }),
        fc.boolean(),
        fc.boolean(),
        async (script, windowSize, keepStateToWindow, checkpoint) => {
          const store = open()
          const run = agentOn(
            store,
            { plan: planOf(script) },
            { windowSize, keepStateToWindow, ...(checkpoint ? { checkpointer: new MemorySaver() } : {}) },
          )
          for (const [t] of script.entries()) await ask(run, `q${t}`)
          for (const [i, input] of run.model.inputs.entries()) {
            const shown = conversation(input)
            expect(pairingProblems(shown)).toStrictEqual([])
            expect(dicts(shown)).toStrictEqual(dicts(run.windows[i] ?? []))
          }
          const history = await run.mw.session('t').history()
          expect(new Set(history.map((m) => m.id)).size).toBe(history.length)
          const calls = script.flat().reduce((a, b) => a + b, 0)
          expect(history.length).toBe(script.length * 2 + script.flat().length + calls)
          expect(dicts(history.filter((m) => m.type === 'ai'))).toStrictEqual(dicts(run.model.outputs))
          store.close()
        },
      ),
      { numRuns: Number(process.env.FC_RUNS ?? 25) },
    )
  })
})

describe("LangChain's own fake models as the agent's model", () => {
  /** createAgent with `model`, the ledger first and a spy recording the window at each model call. */
  function withModel(model: BaseChatModel) {
    const mw = ledgerMiddleware({ store: open(), windowSize: 5 })
    const windows: BaseMessage[][] = []
    const spy = createMiddleware({
      name: 'WindowSpy',
      wrapModelCall: async (request, handler) => {
        windows.push(await mw.session('t').window())
        return handler(request)
      },
    })
    const agent = createAgent({ model, tools: [lookup], middleware: [mw, spy] })
    const ask = (text: string) =>
      agent.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: 't' } })
    return { mw, windows, ask }
  }

  it('fakeModel() through three turns of parallel and multi-step calls', async () => {
    const model = fakeModel()
      .respondWithTools([
        { name: 'lookup', args: { n: 1, k: 0 } },
        { name: 'lookup', args: { n: 1, k: 1 } },
      ])
      .respondWithTools([{ name: 'lookup', args: { n: 2, k: 0 } }])
      .respond(new AIMessage('first done'))
      .respond(new AIMessage('second done'))
      .respondWithTools([{ name: 'lookup', args: { n: 3, k: 0 } }])
      .respond(new AIMessage('third done'))
    const run = withModel(model)
    for (const q of ['one', 'two', 'three']) await run.ask(q)
    expect(model.callCount).toBe(6)
    model.calls.forEach((call, i) => {
      expect(pairingProblems(call.messages)).toStrictEqual([])
      expect(dicts(call.messages)).toStrictEqual(dicts(run.windows[i] ?? []))
    })
    const history = await run.mw.session('t').history()
    expect(history.map((m) => m.type).join(' ')).toBe(
      'human ai tool tool ai tool ai human ai human ai tool ai',
    )
  })

  it('FakeToolCallingModel through a multi-step turn', async () => {
    const model = new FakeToolCallingModel({
      toolCalls: [
        [
          { name: 'lookup', args: { n: 0, k: 0 }, id: 'a' },
          { name: 'lookup', args: { n: 0, k: 1 }, id: 'b' },
        ],
        [{ name: 'lookup', args: { n: 1, k: 0 }, id: 'c' }],
        [],
      ],
    })
    const run = withModel(model)
    await run.ask('go')
    const history = await run.mw.session('t').history()
    expect(history.map((m) => m.type).join(' ')).toBe('human ai tool tool ai tool ai')
    expect(history.filter((m) => m.type === 'ai').map((m) => m.id)).toStrictEqual(['0', '1', '2'])
    for (const window of run.windows) expect(pairingProblems(window)).toStrictEqual([])
  })
})
