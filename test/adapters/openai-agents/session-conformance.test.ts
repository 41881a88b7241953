/**
 * `LedgerSession` on either backend (a conformance-suite file: SQLite in `unit`, PostgreSQL in the
 * `postgres` project), through the SDK's real `run()` with a scripted model that calls tools (after
 * reasoning items) and refuses inputs over a token limit: every model input bounded and valid for a
 * provider where `MemorySession` overflows, a reopened ledger giving the same window, every kind of item
 * stored exactly, bad input refused with nothing written, the recall and pin tools, and summaries written
 * by an Agents model.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { Agent, MemorySession, run, tool, type AgentInputItem } from '@openai/agents'
import { z } from 'zod'
import { LedgerSession, type LedgerSessionStore } from '../../../src/adapters/openai-agents/index.js'
import { ContextLedgerError, type LedgerEntry } from '../../../src/index.js'
import { coreStoreOf, makeBackend, type LedgerStore } from '../../helpers/backend.js'
import { ContextLengthExceeded, inputTokens, json, providerProblems, ToolLoopModel } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

async function open(): Promise<{ handle: LedgerStore; store: LedgerSessionStore }> {
  const handle = await backend.open()
  return { handle, store: coreStoreOf(handle) }
}

const history = async (session: LedgerSession<LedgerSessionStore>): Promise<LedgerEntry[]> =>
  session.history({ limit: 10_000 })

const big = (n: number) => `result ${n}: ${'lorem ipsum '.repeat(60)}`
const lookup = tool({
  name: 'lookup',
  description: 'Looks a number up',
  parameters: z.object({ n: z.number() }),
  execute: ({ n }) => big(n),
})

const agentWith = (model: ToolLoopModel, extra: Parameters<typeof tool>[0][] = []) =>
  new Agent({ name: 'helper', instructions: 'Help.', model, tools: [lookup, ...extra.map((t) => tool(t))] })

describe('LedgerSession in the run loop, on either backend', () => {
  it('keeps every input of 30 runs within the limit and valid, where MemorySession overflows', async () => {
    const limit = 4000
    const { store } = await open()
    const session = new LedgerSession({ store, sessionId: 's', tokenBudget: limit / 2, windowSize: 500 })
    const model = new ToolLoopModel({ calls: 2, tool: 'lookup', maxInputTokens: limit, reasoning: true })
    const agent = agentWith(model)
    for (let t = 0; t < 30; t++) {
      const result = await run(agent, `question ${t}`, { session })
      expect(String(result.finalOutput)).toMatch(/^done /)
    }
    expect(model.inputs.length).toBe(90)
    for (const input of model.inputs) {
      expect(inputTokens(input)).toBeLessThanOrEqual(limit)
      expect(providerProblems(input)).toStrictEqual([])
    }
    // Nothing lost: every prompt, call, result and answer is in the archive, once.
    const items = (await history(session)).map(
      (e) => e.message as unknown as { type?: string; role?: string; content?: unknown },
    )
    expect(items.filter((i) => i.role === 'user').map((i) => i.content)).toStrictEqual(
      Array.from({ length: 30 }, (_, t) => `question ${t}`),
    )
    expect(items.filter((i) => i.type === 'function_call').length).toBe(60)
    expect(items.filter((i) => i.type === 'function_call_result').length).toBe(60)
    expect(items.filter((i) => i.type === 'reasoning').length).toBe(90)

    // The oracle: the SDK's own session hands the model everything and the provider refuses.
    const oracle = agentWith(
      new ToolLoopModel({ calls: 2, tool: 'lookup', maxInputTokens: limit, reasoning: true }),
    )
    const memory = new MemorySession()
    await expect(async () => {
      for (let t = 0; t < 30; t++) await run(oracle, `question ${t}`, { session: memory })
    }).rejects.toThrow(ContextLengthExceeded)
  })

  it('gives the same window from a reopened ledger, and the next run starts from it', async () => {
    const { handle, store } = await open()
    const session = new LedgerSession({ store, sessionId: 's', windowSize: 9 })
    const agent = agentWith(new ToolLoopModel({ calls: 1, tool: 'lookup' }))
    for (let t = 0; t < 6; t++) await run(agent, `question ${t}`, { session })
    const before = await session.getItems()
    expect(before.length).toBeLessThanOrEqual(9)
    const again = new LedgerSession({
      store: coreStoreOf(await backend.reopen(handle)),
      sessionId: 's',
      windowSize: 9,
    })
    expect(json(await again.getItems())).toStrictEqual(json(before))
    const model = new ToolLoopModel({ calls: 0, tool: 'lookup' })
    await run(agentWith(model), 'and now?', { session: again })
    expect(json(model.inputs[0])).toStrictEqual(
      json([...before, { type: 'message', role: 'user', content: 'and now?' }]),
    )
  })

  it('stores every kind of item exactly and gives it back', async () => {
    const { store } = await open()
    const session = new LedgerSession({ store, sessionId: 's' })
    const items = [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Look at this' },
          { type: 'input_image', image: 'https://example.com/a.png', detail: 'auto' },
        ],
      },
      {
        type: 'reasoning',
        id: 'rs_1',
        content: [{ type: 'input_text', text: 'Need the weather' }],
        providerData: { encrypted: 'e' },
      },
      {
        type: 'function_call',
        id: 'fc_1',
        callId: 'c1',
        name: 'weather',
        status: 'completed',
        arguments: '{"city":"Oslo"}',
      },
      {
        type: 'function_call_result',
        callId: 'c1',
        name: 'weather',
        status: 'completed',
        output: { type: 'text', text: 'rain' },
      },
      {
        type: 'hosted_tool_call',
        id: 'ws_1',
        name: 'web_search_call',
        status: 'completed',
        arguments: '{"query":"oslo"}',
        output: 'found',
      },
      { type: 'shell_call', callId: 's1', status: 'completed', action: { commands: ['ls -la'] } },
      {
        type: 'shell_call_output',
        callId: 's1',
        output: [{ stdout: 'a b', stderr: '', outcome: { type: 'exit', exitCode: 0 } }],
      },
      {
        type: 'apply_patch_call',
        callId: 'p1',
        status: 'completed',
        operation: { type: 'create_file', path: 'a.txt', diff: '+hi' },
      },
      { type: 'apply_patch_call_output', callId: 'p1', status: 'completed', output: 'ok' },
      { type: 'computer_call', callId: 'k1', status: 'completed', action: { type: 'screenshot' } },
      {
        type: 'computer_call_result',
        callId: 'k1',
        output: { type: 'computer_screenshot', data: 'data:image/png;base64,AAAA' },
      },
      {
        type: 'message',
        role: 'assistant',
        id: 'msg_1',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Rain in Oslo.' }],
      },
    ] as AgentInputItem[]
    await session.addItems(items)
    expect((await history(session)).map((e) => e.message)).toStrictEqual(json(items))
    expect(json(await session.getItems())).toStrictEqual(json(items))
  })

  it('refuses bad items with INVALID_MESSAGE and a path, and writes nothing', async () => {
    const { handle, store } = await open()
    const session = new LedgerSession({ store, sessionId: 's' })
    await session.addItems([
      { role: 'user', content: 'hi' },
      { type: 'function_call', callId: 'c1', name: 'f', arguments: '{}' },
      { type: 'function_call_result', callId: 'c1', name: 'f', status: 'completed', output: 'x' },
    ] as AgentInputItem[])
    const sum = await backend.checksum(handle)
    const refused = async (items: unknown[], path: string) => {
      const error = await session.addItems(items as AgentInputItem[]).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ContextLedgerError)
      expect((error as ContextLedgerError).code).toBe('INVALID_MESSAGE')
      expect((error as ContextLedgerError).path).toBe(path)
      expect(await backend.checksum(handle)).toBe(sum)
    }
    // The SDK's schema refuses it.
    await refused(
      [
        { role: 'user', content: 'ok' },
        { type: 'function_call', name: 'f', arguments: '{}' },
      ],
      '[1].callId',
    )
    await refused([{ role: 'assistant', content: [{ type: 'output_text', text: 'x' }] }], '[0].status')
    await refused([{ type: 'teleport' }], '[0].type')
    // A result for a call the session never made.
    const orphan = await session
      .addItems([
        { type: 'function_call_result', callId: 'nope', name: 'f', status: 'completed', output: 'x' },
      ] as AgentInputItem[])
      .catch((e: unknown) => e)
    expect((orphan as ContextLedgerError).code).toBe('INVALID_MESSAGE')
    expect((orphan as ContextLedgerError).path).toMatch(/callId/)
    // A callId reused with other content.
    const reused = await session
      .addItems([
        { type: 'function_call', callId: 'c1', name: 'g', arguments: '{"other":1}' },
      ] as AgentInputItem[])
      .catch((e: unknown) => e)
    expect((reused as ContextLedgerError).code).toBe('INVALID_MESSAGE')
    expect((reused as ContextLedgerError).path).toMatch(/callId/)
    expect(await backend.checksum(handle)).toBe(sum)
  })

  it('popItem and clearSession take items from the model; what they took stays stored', async () => {
    const { handle, store } = await open()
    const session = new LedgerSession({ store, sessionId: 's' })
    const memory = new MemorySession()
    const items = [
      { role: 'user', content: 'one' },
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'two' }],
      },
      { role: 'user', content: 'three' },
    ] as AgentInputItem[]
    for (const s of [session, memory]) await s.addItems(structuredClone(items))
    expect(json(await session.popItem())).toStrictEqual(json(await memory.popItem()))
    expect(json(await session.getItems())).toStrictEqual(json(await memory.getItems()))
    expect(json(await session.getItems(1))).toStrictEqual(json(await memory.getItems(1)))
    await session.clearSession()
    await memory.clearSession()
    expect(await session.getItems()).toStrictEqual([])
    expect(await session.popItem()).toBeUndefined()
    // What the clear hid stays in the session; the popped item, in the branch the pop left (on a store
    // without branches, in the session, withdrawn by a marker). Searchable either way.
    const kept = (await history(session)).map((e) => (e.message as { content?: unknown }).content)
    expect(kept).toEqual(expect.arrayContaining(['one']))
    expect((await handle.search('three')).length).toBe(1)
    await session.addItems([{ role: 'user', content: 'four' }] as AgentInputItem[])
    expect(json(await session.getItems())).toStrictEqual([{ role: 'user', content: 'four' }])
  })

  it('search_history finds an evicted item and pin_message keeps an item through evictions', async () => {
    const { store } = await open()
    const session = new LedgerSession({ store, sessionId: 's', windowSize: 4 })
    await session.addItems([{ role: 'user', content: 'the launch code is pelican' }] as AgentInputItem[])
    const pinned = await session.tools.pin_message.invoke(
      undefined as never,
      JSON.stringify({ index: 0, reason: 'the code' }),
    )
    expect(pinned).toMatch(/[Pp]inned/)
    for (let t = 0; t < 6; t++)
      await session.addItems([{ role: 'user', content: `filler ${t}` }] as AgentInputItem[])
    await session.addItems([{ role: 'user', content: 'the colour is teal' }] as AgentInputItem[])
    for (let t = 6; t < 12; t++)
      await session.addItems([{ role: 'user', content: `filler ${t}` }] as AgentInputItem[])
    const shown = json(await session.getItems()) as { content: string }[]
    expect(shown[0]?.content).toBe('the launch code is pelican')
    expect(shown.map((i) => i.content)).not.toContain('the colour is teal')
    const found = await session.tools.search_history.invoke(
      undefined as never,
      JSON.stringify({ query: 'teal' }),
    )
    expect(found).toMatch(/seq \d+ \(user, no longer in your context\): the colour is \**teal/)
  })

  it('never fails a write after its items are stored: a failing summary model falls back to eviction', async () => {
    const { store } = await open()
    const errors: unknown[] = []
    let calls = 0
    const session = new LedgerSession({
      store,
      sessionId: 's',
      windowSize: 4,
      summarize: () => {
        calls++
        throw new Error('rate limited')
      },
      onError: (e) => errors.push(e),
    })
    for (let t = 0; t < 5; t++)
      await session.addItems([
        { role: 'user', content: `question ${t}` },
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: `answer ${t}` }],
        },
      ] as AgentInputItem[])
    expect(calls).toBeGreaterThan(0)
    expect(errors.length).toBe(calls)
    expect((errors[0] as ContextLedgerError).code).toBe('SUMMARIZER_FAILED')
    expect((await session.getItems()).length).toBeLessThanOrEqual(4)
    expect((await history(session)).length).toBe(10)
  })

  it('pin_message pins the reasoning items before an item with it, and refuses the summary', async () => {
    const { store } = await open()
    const session = new LedgerSession({ store, sessionId: 's', summarize: () => 'earlier: a question' })
    await session.addItems([
      { role: 'user', content: 'q' },
      { type: 'reasoning', content: [{ type: 'input_text', text: 'think' }] },
      { type: 'function_call', callId: 'c1', name: 'f', arguments: '{}' },
      { type: 'function_call_result', callId: 'c1', name: 'f', status: 'completed', output: 'r' },
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'a' }],
      },
      { role: 'user', content: 'next' },
    ] as AgentInputItem[])
    const pinned = await session.tools.pin_message.invoke(undefined as never, JSON.stringify({ index: 2 }))
    expect(pinned).toMatch(/[Pp]inned/)
    expect((await history(session)).filter((e) => e.pinned).map((e) => e.seq)).toStrictEqual([1, 2])
    const other = new LedgerSession({ store, sessionId: 't', summarize: () => 'earlier: a question' })
    for (let t = 0; t < 4; t++)
      await other.addItems([
        { role: 'user', content: `q${t}` },
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: `a${t}` }],
        },
      ] as AgentInputItem[])
    const folded = await other.summarize({ summaryRatio: 0.5, preserveRecentMessages: 2 })
    expect(folded.reason).toBeUndefined()
    const shown = await other.getItems()
    const at = shown.findIndex((i) => JSON.stringify(i).includes('earlier: a question'))
    expect(at).toBeGreaterThanOrEqual(0)
    const refused = await other.tools.pin_message.invoke(undefined as never, JSON.stringify({ index: at }))
    expect(refused).toMatch(/summary of earlier messages; it cannot be pinned/)
  })

  it('summarizes with an Agents model: what leaves the window is folded, the archive keeps it', async () => {
    const { store } = await open()
    const summarizer = new ToolLoopModel({ calls: 0, tool: 'none' })
    const session = new LedgerSession({
      store,
      sessionId: 's',
      windowSize: 6,
      summarize: { model: summarizer },
    })
    for (let t = 0; t < 10; t++)
      await session.addItems([
        { role: 'user', content: `question ${t}` },
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: `answer ${t}` }],
        },
      ] as AgentInputItem[])
    expect(summarizer.inputs.length).toBeGreaterThan(0)
    const shown = json(await session.getItems()) as { role?: string; content?: unknown }[]
    expect(shown.length).toBeLessThanOrEqual(6)
    expect(JSON.stringify(shown[0])).toMatch(/done \d+/)
    expect(providerProblems(shown as AgentInputItem[])).toStrictEqual([])
    expect((await history(session)).length).toBe(20)
  })
})
