/**
 * Two writers on one thread: another writer's `AIMessage` whose tools are still running can be the
 * newest message of the session when this run's model is called (stored between this run's sync and its
 * read of the window — seen with two processes in test/reliability/langchain-processes.test.ts). A
 * provider refuses calls without their results, so the model is given the window without them; the ledger
 * keeps them, and the model sees them once answered or repaired.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import { createAgent, createMiddleware } from 'langchain'
import { afterEach, describe, expect, it } from 'vitest'
import { LedgerChatMessageHistory, ledgerMiddleware } from '../../../src/adapters/langchain/index.js'
import { withoutCallsInFlight, type ShownMessage } from '../../../src/adapters/langchain/window.js'
import { tempDir, type TempDir } from '../../helpers/temp-store.js'
import { conversation, dicts, lookup, pairingProblems, planOf, ScriptedChatModel } from './helpers.js'

let dir: TempDir | undefined
afterEach(() => {
  dir?.cleanup()
  dir = undefined
})

const row = (message: BaseMessage, seq: number): ShownMessage => ({ seq, pinned: false, message })
const ai = (id: string, ...calls: string[]) =>
  new AIMessage({
    id,
    content: '',
    tool_calls: calls.map((c) => ({ id: c, name: 'lookup', args: {}, type: 'tool_call' as const })),
  })
const result = (call: string) => new ToolMessage({ content: 'r', tool_call_id: call, id: `t-${call}` })

describe('withoutCallsInFlight', () => {
  const human = row(new HumanMessage({ content: 'hi', id: 'h' }), 0)
  const ids = (rows: readonly ShownMessage[]) => rows.map((r) => r.message.id)

  it('drops a trailing AIMessage whose calls are not all answered, and the results after it', () => {
    expect(ids(withoutCallsInFlight([human, row(ai('a', 'c1'), 1)]))).toStrictEqual(['h'])
    const partial = [human, row(ai('a', 'c1', 'c2'), 1), row(result('c1'), 2)]
    expect(ids(withoutCallsInFlight(partial))).toStrictEqual(['h'])
  })

  it('keeps a window whose newest calls are answered, or that ends without calls', () => {
    const answered = [human, row(ai('a', 'c1', 'c2'), 1), row(result('c2'), 2), row(result('c1'), 3)]
    expect(withoutCallsInFlight(answered)).toStrictEqual(answered)
    const plain = [human, row(ai('a'), 1)]
    expect(withoutCallsInFlight(plain)).toStrictEqual(plain)
    expect(withoutCallsInFlight([])).toStrictEqual([])
  })
})

describe('a model call while another writer on the thread waits for its tools', () => {
  it('gives the model the window without the other writer’s open calls; the ledger keeps them, repaired after the answer', async () => {
    const d = (dir ??= tempDir())
    const store = d.open('shared.db')
    const other = new LedgerChatMessageHistory({ store: d.open('shared.db'), sessionId: 't', windowSize: 20 })
    const model = new ScriptedChatModel({ plan: planOf([[1]]) })
    const mw = ledgerMiddleware({ store, windowSize: 20 })
    let step = 0
    // Before this run's second model call: the other writer (another store on the file) has stored this
    // run's tool result — as if this run's sync had just stored it — and then its own call, whose tool
    // is still running. The run's sync then finds nothing new, and the window ends with that call.
    const interloper = createMiddleware({
      name: 'OtherWriter',
      beforeModel: async (state) => {
        if (step++ !== 1) return
        await other.addMessages([state.messages.at(-1) as BaseMessage, ai('ai-other', 'call-other')])
      },
    })
    const agent = createAgent({ model, tools: [lookup], middleware: [interloper, mw] })
    await agent.invoke(
      { messages: [new HumanMessage({ content: 'q', id: 'q' })] },
      { configurable: { thread_id: 't' } },
    )
    const second = conversation(model.inputs[1] ?? [])
    expect(second.map((m) => m.type)).toStrictEqual(['human', 'ai', 'tool'])
    expect(pairingProblems(second)).toStrictEqual([])
    for (const input of model.inputs) expect(pairingProblems(conversation(input))).toStrictEqual([])

    // The ledger holds the other writer's call; this run's answer came after it, so the call is repaired.
    const window = await mw.session('t').window()
    const at = window.findIndex((m) => m.id === 'ai-other')
    expect(at).toBeGreaterThan(0)
    expect(window[at + 1]).toBeInstanceOf(ToolMessage)
    expect((window[at + 1] as ToolMessage).tool_call_id).toBe('call-other')
    expect(pairingProblems(window)).toStrictEqual([])
    expect(dicts(window.slice(-1))).toStrictEqual(dicts(model.outputs.slice(-1)))
  })
})

describe('keepStateToWindow when another writer stored messages after the model’s message', () => {
  it('leaves that message last in the state: the run makes its own calls, never the other writer’s', async () => {
    const d = (dir ??= tempDir())
    const store = d.open('kept.db')
    const other = new LedgerChatMessageHistory({ store: d.open('kept.db'), sessionId: 't', windowSize: 20 })
    const model = new ScriptedChatModel({ plan: planOf([[1]]) })
    const mw = ledgerMiddleware({ store, windowSize: 20, keepStateToWindow: true })
    const otherCall = new AIMessage({
      id: 'ai-other',
      content: '',
      tool_calls: [{ id: 'call-other', name: 'lookup', args: { n: 9, k: 9 }, type: 'tool_call' }],
    })
    let step = 0
    // Listed after the ledger, so its afterModel runs first: the other writer (another store on the file)
    // stores this run's message — as if the ledger's sync had just stored it — then its own call, before
    // the ledger reads the window to cut the state to.
    const interloper = createMiddleware({
      name: 'OtherWriter',
      afterModel: async (state) => {
        if (step++ !== 0) return
        await other.addMessages([state.messages.at(-1) as BaseMessage, otherCall])
      },
    })
    const agent = createAgent({ model, tools: [lookup], middleware: [mw, interloper] })
    await agent.invoke(
      { messages: [new HumanMessage({ content: 'q', id: 'q' })] },
      { configurable: { thread_id: 't' } },
    )
    expect(model.outputs.map((m) => m.id)).toStrictEqual(['ai-0', 'ai-1'])
    for (const input of model.inputs) expect(pairingProblems(conversation(input))).toStrictEqual([])
    // This run's call was made (its result stored late, after the repair the other writer's message
    // caused); the other writer's call was not made here: only the ledger's repair answers it.
    const results = (await mw.session('t').history()).filter((m) => ToolMessage.isInstance(m))
    const answers = (call: string) =>
      results.filter((m) => m.tool_call_id === call).map((m) => m.text.split(':')[0] ?? '')
    expect(answers('call-0-0').filter((c) => c === 'result 0.0')).toHaveLength(1)
    expect(answers('call-other').filter((c) => c.startsWith('result'))).toStrictEqual([])
  })
})
