/**
 * `ledgerMiddleware` across processes and failures (SQLite): a restart in a second process resumes the
 * thread's window; `keepStateToWindow` beside LangGraph's `SqliteSaver`; a repair when a run dies between
 * a call and its result; a summary model that fails; the options refused by name.
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { REMOVE_ALL_MESSAGES as LANGGRAPH_REMOVE_ALL } from '@langchain/langgraph'
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite'
import { createAgent, createMiddleware } from 'langchain'
import {
  LedgerChatMessageHistory,
  ledgerMiddleware,
  ledgerTools,
  REMOVE_ALL_MESSAGES,
} from '../../../src/adapters/langchain/index.js'
import { isContextLedgerError, PersistentConversationManager, type ContextStore } from '../../../src/index.js'
import { tempDir, type TempDir } from '../../helpers/temp-store.js'
import {
  agentOn,
  ask,
  conversation,
  dicts,
  lookup,
  pairingProblems,
  planOf,
  ScriptedChatModel,
} from './helpers.js'

let dir: TempDir | undefined
afterEach(() => {
  dir?.cleanup()
  dir = undefined
})
let opened = 0
const open = (): ContextStore => (dir ??= tempDir()).open(`ledger-${opened++}.db`)

describe('a restart in a second process', () => {
  it('resumes the thread`s window there, and the next turn starts from it', async () => {
    const file = (dir ??= tempDir()).file('shared.db')
    const run = agentOn(
      dir.open('shared.db'),
      { plan: planOf([[2], [1], [1, 1]]), prefix: 'parent-' },
      {
        windowSize: 6,
      },
    )
    for (const q of ['one', 'two', 'three']) await ask(run, q)
    const before = dicts(await run.mw.session('t').window())
    const script = join(dir.path, 'resume.mts')
    const root = process.cwd()
    writeFileSync(
      script,
      `import { openContextStore } from '${root}/src/index.js'
import { agentOn, ask, conversation, dicts } from '${root}/test/adapters/langchain/helpers.js'
const store = openContextStore(${JSON.stringify(file)})
const run = agentOn(store, { plan: [0], prefix: 'child-' }, { windowSize: 8 })
const window = dicts(await run.mw.session('t').window())
await ask(run, 'four')
process.stdout.write(JSON.stringify({ window, input: dicts(conversation(run.model.inputs[0])) }))
store.close()
`,
    )
    const child = spawnSync('npx', ['tsx', script], { encoding: 'utf8' })
    expect(child.stderr).toBe('')
    const { window, input } = JSON.parse(child.stdout) as {
      window: unknown[]
      input: { data: { content: unknown } }[]
    }
    expect(window).toStrictEqual(before)
    expect(input.at(-1)?.data.content).toBe('four')
    // The window had room for the new prompt: the model saw all of it, then the prompt.
    expect(input.slice(0, -1)).toStrictEqual(before)
    // The child's turn is in the ledger for this process too.
    const history = await run.mw.session('t').history()
    expect(history.at(-1)?.id).toBe('ai-child-0')
  })
})

describe('keepStateToWindow beside LangGraph`s SqliteSaver', () => {
  it('checkpoints the window, not the history, and a new process resumes from the checkpoint', async () => {
    const store = open()
    const checkpoints = (dir ??= tempDir()).file('checkpoints.db')
    const windowSize = 5
    const first = agentOn(
      store,
      { plan: planOf(Array.from({ length: 8 }, () => [1])), prefix: 'a-' },
      { windowSize, keepStateToWindow: true, checkpointer: SqliteSaver.fromConnString(checkpoints) },
    )
    for (let t = 0; t < 8; t++) await ask(first, `q${t}`)
    const onThread = { configurable: { thread_id: 't' } }
    const values = async (run: typeof first) =>
      ((await run.agent.graph.getState(onThread)) as { values: { messages: BaseMessage[] } }).values.messages
    expect((await values(first)).length).toBeLessThanOrEqual(windowSize + 2)
    // Another process: the checkpointer's state (the window) and the ledger agree; the run goes on.
    const second = agentOn(
      store,
      { plan: [1, 0], prefix: 'b-' },
      { windowSize, keepStateToWindow: true, checkpointer: SqliteSaver.fromConnString(checkpoints) },
    )
    expect(dicts(await values(second))).toStrictEqual(dicts(await values(first)))
    await ask(second, 'q8')
    expect(dicts(conversation(second.model.inputs[0] ?? []))).toStrictEqual(dicts(second.windows[0] ?? []))
    const history = await second.mw.session('t').history()
    expect(history.length).toBe(9 * 4)
    expect(new Set(history.map((m) => m.id)).size).toBe(history.length)
  })
})

describe('ledgerMiddleware when things go wrong', () => {
  it('answers the calls of a run that died before its results, so the next input still pairs', async () => {
    const store = open()
    let fail = true
    // A tool middleware's error is not turned into a ToolMessage: it ends the run, after the model's
    // message (with its two calls) was stored.
    const crash = createMiddleware({
      name: 'Crash',
      wrapToolCall: (request, handler) => {
        if (fail) throw new Error('the tool process died')
        return handler(request)
      },
    })
    const model = new ScriptedChatModel({ plan: [2, 0] })
    const mw = ledgerMiddleware({ store })
    const agent = createAgent({ model, tools: [lookup], middleware: [mw, crash] })
    const onThread = { configurable: { thread_id: 't' } }
    // Both parallel calls fail: LangGraph reports them together.
    await expect(agent.invoke({ messages: [new HumanMessage('go')] }, onThread)).rejects.toThrow(
      /Multiple errors/,
    )
    expect(store.session('t')?.messageCount).toBe(2)
    fail = false
    await agent.invoke({ messages: [new HumanMessage('again')] }, onThread)
    const input = conversation(model.inputs.at(-1) ?? [])
    expect(pairingProblems(input)).toStrictEqual([])
    expect(input.map((m) => m.id)).toStrictEqual([
      expect.any(String),
      'ai-0',
      'context-ledger:seq:2:0',
      'context-ledger:seq:2:1',
      expect.any(String),
    ])
    expect(input.slice(2, 4).map((m) => (m as { status?: unknown }).status)).toStrictEqual(['error', 'error'])
  })

  it('falls back to eviction when the summary model fails, telling onError; the run succeeds', async () => {
    const errors: unknown[] = []
    const run = agentOn(
      open(),
      { plan: planOf([[1], [1], [1]]) },
      {
        windowSize: 4,
        summarize: { model: fakeModel().alwaysThrow(new Error('rate limited')) },
        onError: (e) => errors.push(e),
      },
    )
    for (let t = 0; t < 3; t++) await ask(run, `q${t}`)
    expect(errors.length).toBeGreaterThan(0)
    for (const input of run.model.inputs) expect(conversation(input).length).toBeLessThanOrEqual(4)
    expect((await run.mw.session('t').history()).length).toBe(3 * 4)
  })

  it('refuses a run with no thread id and no sessionId, naming the option', async () => {
    const store = open()
    const run = agentOn(store, { plan: [0] })
    const error: unknown = await run.agent
      .invoke({ messages: [new HumanMessage('hi')] })
      .catch((e: unknown) => e)
    expect((error as { cause?: unknown }).cause).toMatchObject({ code: 'INVALID_OPTIONS', path: 'sessionId' })
    expect(store.sessions()).toStrictEqual([])
  })

  it('writes LangGraph`s REMOVE_ALL_MESSAGES out as LangGraph has it', () => {
    expect(REMOVE_ALL_MESSAGES).toBe(LANGGRAPH_REMOVE_ALL)
  })

  it('refuses bad options by name, and summarize() without a model', async () => {
    const store = open()
    const refused = (make: () => unknown) => {
      try {
        make()
        return undefined
      } catch (e) {
        return e
      }
    }
    expect(refused(() => ledgerMiddleware({ store, windowSize: 0 }))).toMatchObject({
      code: 'INVALID_OPTIONS',
    })
    expect(refused(() => ledgerMiddleware({ store, keepState: true } as never))).toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'keepState',
    })
    expect(refused(() => ledgerMiddleware({ store, summarize: { model: {} } } as never))).toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'summarize.model',
    })
    expect(refused(() => new LedgerChatMessageHistory({ store } as never))).toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'sessionId',
    })
    expect(refused(() => ledgerTools({ store: {} as never, sessionId: 's' }))).toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'store',
    })
    await expect(ledgerMiddleware({ store, sessionId: 's' }).session().summarize()).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'summarize',
    })
    expect(refused(() => ledgerMiddleware({ store }).session())).toMatchObject({ path: 'sessionId' })
    // A session of another format under the id is refused, reading and writing.
    new PersistentConversationManager({ store, sessionId: 'old' }).append({
      role: 'user',
      content: [{ text: 'a Strands message' }],
    })
    const other = new LedgerChatMessageHistory({ store, sessionId: 'old' })
    await expect(other.getMessages()).rejects.toMatchObject({ code: 'FORMAT_MISMATCH' })
    await expect(other.addMessage(new HumanMessage('hi'))).rejects.toMatchObject({ code: 'FORMAT_MISMATCH' })
  })
})

describe('a model that reuses message ids across runs', () => {
  it('is refused at the id, naming the session and the likely cause, with nothing of that answer written', async () => {
    const store = open()
    const config = { configurable: { thread_id: 'reused' } }
    // fakeModel().respondWithTools ids its answers by call index: "0" in every new process; the same here.
    const first = fakeModel().respond((_messages) => new AIMessage({ content: 'first answer', id: '0' }))
    await createAgent({ model: first, tools: [], middleware: [ledgerMiddleware({ store })] }).invoke(
      { messages: [new HumanMessage('one')] },
      config,
    )
    const again = fakeModel().respond((_messages) => new AIMessage({ content: 'another answer', id: '0' }))
    const failed = await createAgent({ model: again, tools: [], middleware: [ledgerMiddleware({ store })] })
      .invoke({ messages: [new HumanMessage('two')] }, config)
      .then(
        () => undefined,
        (error: unknown) => error,
      )
    const refusal = isContextLedgerError(failed) ? failed : (failed as Error | undefined)?.cause
    expect(isContextLedgerError(refusal, 'INVALID_MESSAGE')).toBe(true)
    if (!isContextLedgerError(refusal)) return
    expect(refusal.path).toMatch(/\.data\.id$/)
    expect(refusal.sessionId).toBe('reused')
    expect(refusal.message).toContain('fakeModel()')
    const texts = store.history('reused').map((e) => JSON.stringify(e.message))
    expect(texts.some((t) => t.includes('another answer'))).toBe(false)
    expect(texts.filter((t) => t.includes('first answer'))).toHaveLength(1)
  })
})
