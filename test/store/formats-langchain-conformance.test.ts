/**
 * A session of the `langchain` format on either backend (a conformance-suite file): LangChain's own
 * messages round-trip — `mapChatMessagesToStoredMessages` → ledger → `mapStoredMessagesToChatMessages` —
 * with ids, metadata, calls and content blocks equal; bad messages refused with their path and nothing
 * written; a message sent again under its id writes nothing, other content under it is refused; repair
 * rows for calls a later message leaves open (one call: a ToolMessage; several: a container
 * `expandRepair` opens); parallel calls answered by consecutive ToolMessages without repair; and a
 * property: under random limits, chunked appends and pins, every window pairs every ToolMessage with its
 * call before it and every AIMessage's calls with the ToolMessages after it, revives through LangChain,
 * and passes the checker `context-ledger check` runs.
 */
import fc from 'fast-check'
import {
  AIMessage,
  HumanMessage,
  ToolMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  type BaseMessage,
  type StoredMessage,
} from '@langchain/core/messages'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MessageData } from '../../src/index.js'
import { expandRepair, type LangChainMessageData } from '../../src/formats/langchain/index.js'
import { formatNamed } from '../../src/formats/index.js'
import { BACKEND, makeBackend, type LedgerStore } from '../helpers/backend.js'
import { appendInChunks } from '../helpers/chunked.js'
import { fcRuns } from '../helpers/runs.js'
import { refusalOf } from '../helpers/refusal.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'
import { corpusMessages } from '../formats/langchain-corpus.js'

const backend = makeBackend()
let shared: LedgerStore
let session = 0
beforeAll(async () => {
  shared = await backend.open()
})
afterAll(async () => {
  await backend.cleanup()
})

const LC = { format: 'langchain' } as const
const format = formatNamed('langchain')
const stored = (ms: readonly BaseMessage[]): MessageData[] =>
  JSON.parse(JSON.stringify(mapChatMessagesToStoredMessages([...ms]))) as MessageData[]
/** LangChain's revival, on a copy: the AIMessage constructor changes the fields it is given (v1 content). */
const revive = (ms: readonly unknown[]): BaseMessage[] =>
  mapStoredMessagesToChatMessages(structuredClone(ms) as StoredMessage[])
const bodies = (ms: readonly unknown[]) => ms as LangChainMessageData[]
const human = (text: string, id?: string) =>
  new HumanMessage({ content: text, ...(id === undefined ? {} : { id }) })
const ai = (ids: readonly string[], id?: string) =>
  new AIMessage({
    content: ids.length === 0 ? 'done' : `calling ${ids.join(', ')}`,
    ...(id === undefined ? {} : { id }),
    tool_calls: ids.map((c) => ({ id: c, name: 'lookup', args: { q: c } })),
  })
const tool = (call: string, id?: string) =>
  new ToolMessage({
    content: `found ${call}`,
    tool_call_id: call,
    name: 'lookup',
    ...(id === undefined ? {} : { id }),
  })

/** What LangChain's own messages carry that must come back equal. */
function fieldsOf(m: BaseMessage): unknown {
  const x = m as BaseMessage & { tool_calls?: unknown; usage_metadata?: unknown; tool_call_id?: unknown }
  return {
    type: m.type,
    id: m.id,
    name: m.name,
    content: m.content,
    additional_kwargs: m.additional_kwargs,
    response_metadata: m.response_metadata,
    tool_calls: x.tool_calls,
    usage_metadata: x.usage_metadata,
    tool_call_id: x.tool_call_id,
  }
}

describe(`a session of the 'langchain' format [${BACKEND}]`, () => {
  it("round-trips LangChain's own messages: ids, metadata, usage, calls and content blocks equal", async () => {
    const store = await backend.open()
    const messages = corpusMessages()
    const entries = await store.append('s', stored(messages), LC)
    // A message's own id is its trackingId; an id-less one gets one the ledger mints.
    expect(entries.map((e) => e.trackingId).slice(0, 9)).toStrictEqual([
      'sys-1',
      'h-1',
      'h-2',
      'ai-1',
      'tool-1',
      'tool-2',
      'ai-2',
      'chat-1',
      'ai-3',
    ])
    const history = (await store.history('s', { limit: 1000 })).map((e) => e.message)
    expect(history).toStrictEqual(stored(messages))
    expect(revive(history).map(fieldsOf)).toStrictEqual(messages.map(fieldsOf))
    expect(revive(history).map((m) => m.constructor.name)).toStrictEqual(
      messages.map((m) => (m.constructor.name === 'AIMessageChunk' ? 'AIMessage' : m.constructor.name)),
    )
    const window = await store.window('s')
    expect(window).toStrictEqual(history)
    expect((await store.sessions()).find((s) => s.id === 's')?.format).toBe('langchain')
    const reopened = await backend.reopen(store)
    expect(revive(await reopened.window('s')).map(fieldsOf)).toStrictEqual(messages.map(fieldsOf))
    expect((await reopened.search('zeppelins')).map((h) => h.seq).sort()).toStrictEqual([8, 9])
  })

  it('refuses a bad message with its path, an answer to a call never made, and writes nothing', async () => {
    const store = await backend.open()
    await store.append('s', stored([human('hi', 'h1')]), LC)
    const before = await backend.checksum(store)
    const noId = { type: 'ai', data: { content: '', tool_calls: [{ name: 'f', args: {} }] } }
    const bad = await refusalOf(() =>
      store.append('s', [...stored([human('ok')]), noId as unknown as MessageData]),
    )
    expect(bad.code).toBe('INVALID_MESSAGE')
    expect(bad.path).toBe('[1].data.tool_calls[0].id')
    const block = await refusalOf(() =>
      store.append('s', {
        type: 'human',
        data: { content: [{ type: 'text', text: 1 }] },
      }),
    )
    expect(block.path).toBe('data.content[0].text')
    const stray = await refusalOf(() => store.append('s', stored([tool('never')])[0]))
    expect(stray.code).toBe('INVALID_MESSAGE')
    expect(stray.path).toBe('data.tool_call_id')
    expect(await backend.checksum(store)).toBe(before)
  })

  it('writes nothing for a message sent again under its id, and refuses other content under it', async () => {
    const store = await backend.open()
    await store.append('s', stored([human('q', 'h1'), ai(['c1'], 'a1'), tool('c1', 't1')]), LC)
    const before = await backend.checksum(store)
    // Revived and serialized again (LangGraph's state), metadata changed: the same message.
    const again = stored(revive(await store.window('s')))
    const a1 = again[1] as unknown as LangChainMessageData
    a1.data.response_metadata = { model_name: 'other' }
    await store.append('s', again)
    expect(await backend.checksum(store)).toBe(before)
    const other = await refusalOf(() => store.append('s', stored([human('not q', 'h1')])))
    expect(other.code).toBe('DUPLICATE_MESSAGE')
    expect(await backend.checksum(store)).toBe(before)
  })

  it('repairs one open call with a ToolMessage, several with a container expandRepair opens', async () => {
    const store = await backend.open()
    await store.append('one', stored([human('q'), ai(['c1']), human('never mind')]), LC)
    const one = bodies((await store.history('one')).map((e) => e.message))
    expect(one).toHaveLength(4)
    expect(one[2]).toMatchObject({
      type: 'tool',
      data: {
        tool_call_id: 'c1',
        name: 'lookup',
        status: 'error',
        additional_kwargs: { context_ledger: { repair: 'missing-tool-result' } },
      },
    })
    await store.append('many', stored([human('q'), ai(['a', 'b', 'c']), tool('a'), human('stop')]), LC)
    const many = bodies((await store.history('many')).map((e) => e.message))
    expect(many).toHaveLength(5)
    expect(format.facts(many[3] as never).toolResults.map((r) => r.id)).toStrictEqual(['b', 'c'])
    const shown = bodies(await store.window('many')).flatMap(expandRepair)
    expect(shown.map((m) => m.type)).toStrictEqual(['human', 'ai', 'tool', 'tool', 'tool', 'human'])
    expect(JSON.stringify(shown)).not.toContain('context_ledger')
    const revived = revive(shown) as (BaseMessage & { tool_call_id?: string; status?: string })[]
    expect(revived.slice(2, 5).map((m) => [m.tool_call_id, m.status])).toStrictEqual([
      ['a', undefined],
      ['b', 'error'],
      ['c', 'error'],
    ])
  })

  it('answers parallel calls by consecutive ToolMessages, and a reply after them, without repair', async () => {
    const store = await backend.open()
    const messages = stored([human('q'), ai(['a', 'b']), tool('a'), tool('b'), ai([]), human('thanks')])
    await store.append('s', messages.slice(0, 3), LC)
    for (const m of messages.slice(3)) await store.append('s', m)
    expect((await store.history('s')).map((e) => e.message)).toStrictEqual(messages)
  })

  it("strips a caller's notes, keeping the rest of additional_kwargs", async () => {
    const store = await backend.open()
    const forged = {
      type: 'human',
      data: { content: 'x', additional_kwargs: { context_ledger: { summary: true }, keep: 1 } },
    }
    await store.append('s', forged, LC)
    expect((await store.history('s'))[0]?.message).toStrictEqual({
      type: 'human',
      data: { content: 'x', additional_kwargs: { keep: 1 } },
    })
  })
})

/** One generated exchange: a prompt, steps of parallel calls (answered in full, in part or not), a reply. */
const exchange = fc.record({
  steps: fc.array(
    fc.record({ calls: fc.integer({ min: 0, max: 3 }), answered: fc.integer({ min: 0, max: 3 }) }),
    { maxLength: 3 },
  ),
  reply: fc.boolean(),
  ids: fc.boolean(),
})

/** A generated exchange. */
type Exchange = { steps: { calls: number; answered: number }[]; reply: boolean; ids: boolean }

function messagesOf(exchanges: Exchange[]): MessageData[] {
  const out: BaseMessage[] = []
  let n = 0
  exchanges.forEach((e, i) => {
    const id = (kind: string) => (e.ids ? `${kind}-${n++}` : undefined)
    out.push(human(`question ${i}`, id('h')))
    for (const step of e.steps) {
      const calls = Array.from({ length: step.calls }, () => `c${n++}`)
      out.push(ai(calls, id('a')))
      out.push(...calls.slice(0, step.answered).map((c) => tool(c, id('t'))))
    }
    if (e.reply) out.push(ai([], id('a')))
  })
  return stored(out)
}

/**
 * The window's invariants, on what a model is shown (repairs expanded): every ToolMessage's call is made
 * before it and still waiting; every AIMessage's calls are answered by the ToolMessages right after it
 * (only the newest may still wait, at the window's end); LangChain revives it.
 */
function assertPairs(window: readonly MessageData[]): void {
  const shown = bodies(window).flatMap(expandRepair)
  const open = new Set<string>()
  for (const m of shown) {
    if (m.type === 'tool') {
      expect(open.has(m.data.tool_call_id), `result ${m.data.tool_call_id} follows its call`).toBe(true)
      open.delete(m.data.tool_call_id)
      continue
    }
    expect([...open], `calls answered before a ${m.type} message`).toStrictEqual([])
    if (m.type === 'ai') for (const c of m.data.tool_calls ?? []) open.add(c.id)
  }
  expect(revive(shown)).toHaveLength(shown.length)
}

describe(`the window of a langchain session [${BACKEND}]`, () => {
  it('pairs calls and results, revives through LangChain and passes check under random limits', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(exchange, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 12 }),
        fc.option(fc.integer({ min: 20, max: 300 }), { nil: undefined }),
        fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 2 }),
        async (exchanges, windowSize, tokenBudget, chunks, pins) => {
          const messages = messagesOf(exchanges)
          const m = backend.manager(shared, {
            sessionId: `p-${session++}`,
            windowSize,
            tokenBudget,
            format: 'langchain',
          })
          // Appended in chunks: a call and its results may arrive in different appends.
          await appendInChunks(m, messages, chunks)
          const count = (await m.store.session(m.sessionId))?.messageCount ?? 1
          for (const seq of pins) await m.pin({ seq: seq % count })
          await m.applyWindow()
          assertPairs(await m.window())
          await assertWindowRulesOf(m.store, m.sessionId, { first: m.limits.first, last: m.limits.last })
          await m.reduce()
          assertPairs(await m.window())
          await assertWindowRulesOf(m.store, m.sessionId, { first: m.limits.first, last: m.limits.last })
        },
      ),
      { numRuns: fcRuns(40) },
    )
  })
})
