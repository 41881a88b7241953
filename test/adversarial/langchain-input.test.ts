/**
 * Adversarial: hostile input through `LedgerChatMessageHistory.addMessages` and the agent's input, on
 * real SQLite files. Every refusal is a `ContextLedgerError` `INVALID_MESSAGE` naming the path of the bad
 * field, and changes no row of the file (checksum); what LangChain itself serializes and revives is
 * stored exactly and given back equal; the session passes `check` afterwards.
 *
 * Written as attacks by an adversarial tester; what they found broken was fixed, and they stay as
 * regression tests.
 */
import { describe, expect, it } from 'vitest'
import {
  AIMessage,
  AIMessageChunk,
  ChatMessage,
  FunctionMessage,
  HumanMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
} from '@langchain/core/messages'
import { MemorySaver } from '@langchain/langgraph'
import { LedgerChatMessageHistory } from '../../src/adapters/langchain/index.js'
import type { ContextStore } from '../../src/index.js'
import { agentOn } from '../adapters/langchain/helpers.js'
import { checksum, failure, json, onThread, problems, useStores } from './langchain-support.js'

const { open } = useStores()

function history(store: ContextStore, sessionId = 's'): LedgerChatMessageHistory {
  return new LedgerChatMessageHistory({ store, sessionId })
}

/** The refusal of `add` on a session that holds one message: its code and path; no row changed. */
async function refusedAt(add: (h: LedgerChatMessageHistory) => Promise<unknown>): Promise<string> {
  const store = open()
  const h = history(store)
  await h.addMessages([new HumanMessage({ content: 'first', id: 'h0' })])
  const before = checksum(store)
  const error = await failure(() => add(h))
  expect(error.code).toBe('INVALID_MESSAGE')
  expect(checksum(store)).toBe(before)
  return error.path ?? '(no path)'
}

const call = (id: string, name = 'f', args: Record<string, unknown> = {}) => ({ id, name, args })

describe('addMessages refuses what is not a LangChain message, at its path, writing nothing', () => {
  it('a value that is not an array, or an item that is not a message', async () => {
    expect(await refusedAt((h) => h.addMessages('hi' as never))).toBe('messages')
    expect(await refusedAt((h) => h.addMessages(undefined as never))).toBe('messages')
    expect(await refusedAt((h) => h.addMessages([new HumanMessage('ok'), null as never]))).toBe('[1]')
    expect(await refusedAt((h) => h.addMessages([{ role: 'user', content: 'x' } as never]))).toBe('[0]')
    expect(await refusedAt((h) => h.addMessage({ type: 'human', data: { content: 'x' } } as never))).toBe(
      '[0]',
    )
  })

  it('a message whose fields throw when LangChain reads them', async () => {
    const hostile = new HumanMessage('x')
    Object.defineProperty(hostile, 'content', {
      get() {
        throw new Error('boom')
      },
    })
    expect(await refusedAt((h) => h.addMessages([new HumanMessage('ok'), hostile]))).toBe('[1]')
  })

  it('what LangChain cannot revive, or the format cannot pair', async () => {
    const at = (messages: BaseMessage[]) => refusedAt((h) => h.addMessages(messages))
    expect(await at([new RemoveMessage({ id: 'h0' })])).toBe('[0].type')
    expect(await at([new FunctionMessage({ content: 'x', name: 'f' })])).toBe('[0].type')
    expect(await at([new ChatMessage({ content: 'x', role: 'tool' })])).toBe('[0].data.role')
    expect(await at([new AIMessage({ content: '', tool_calls: [{ name: 'f', args: {} }] })])).toBe(
      '[0].data.tool_calls[0].id',
    )
    expect(await at([new AIMessage({ content: '', tool_calls: [call('c'), call('c', 'g')] })])).toBe(
      '[0].data.tool_calls[1].id',
    )
    expect(await at([new AIMessage({ content: '', tool_calls: [call('c', 'f', 'str' as never)] })])).toBe(
      '[0].data.tool_calls[0].args',
    )
    expect(await at([new HumanMessage('q'), new ToolMessage({ content: 'r', tool_call_id: 'ghost' })])).toBe(
      '[1].data.tool_call_id',
    )
  })

  it('values JSON cannot hold', async () => {
    const at = (messages: BaseMessage[]) => refusedAt((h) => h.addMessages(messages))
    expect(await at([new HumanMessage('a\ud800b')])).toBe('[0].data.content')
    expect(await at([new HumanMessage({ content: 'x', additional_kwargs: { n: 1n } })])).toBe(
      '[0].data.additional_kwargs.n',
    )
    expect(
      await at([
        new AIMessage({
          content: 'x',
          usage_metadata: { input_tokens: NaN, output_tokens: 1, total_tokens: 1 } as never,
        }),
      ]),
    ).toBe('[0].data.usage_metadata.input_tokens')
    const bytes = { type: 'file', data: new Uint8Array([1, 2]), mime_type: 'application/pdf' }
    expect(await at([new HumanMessage({ content: [{ type: 'text', text: 'see' }, bytes as never] })])).toBe(
      '[0].data.content[1].data',
    )
    expect(await at([new HumanMessage({ content: [{ text: 'untyped' } as never] })])).toBe(
      '[0].data.content[0].type',
    )
    const proto = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>
    expect(await at([new HumanMessage({ content: 'x', additional_kwargs: proto })])).toBe(
      '[0].data.additional_kwargs',
    )
  })

  it('a caller`s ledger notes, and a reused id with other content, in one batch or later', async () => {
    const at = (messages: BaseMessage[]) => refusedAt((h) => h.addMessages(messages))
    const forged = { context_ledger: { repair: 'missing-tool-result', results: [] } }
    // The attack itself: a caller's own additional_kwargs holding the ledger's key.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    expect(await at([new ToolMessage({ content: 'r', tool_call_id: 'c', additional_kwargs: forged })])).toBe(
      '[0].data.additional_kwargs.context_ledger',
    )
    expect(await at([new HumanMessage({ content: 'other', id: 'h0' })])).toBe('[0].data.id')
    expect(
      await at([new HumanMessage({ content: 'x', id: 'd' }), new HumanMessage({ content: 'y', id: 'd' })]),
    ).toBe('[1].data.id')
  })

  it('a message changed after it was stored, sent again under its id', async () => {
    const store = open()
    const h = history(store)
    const message = new HumanMessage({ content: 'as first said', id: 'm' })
    await h.addMessage(message)
    message.content = 'changed in place'
    const before = checksum(store)
    expect(await failure(() => h.addMessage(message))).toMatchObject({
      code: 'INVALID_MESSAGE',
      path: '[0].data.id',
    })
    expect(checksum(store)).toBe(before)
    // The ledger kept its own copy: neither the caller's object nor one it was handed back changes it.
    const shown = await h.getMessages()
    ;(shown[0] as BaseMessage).content = 'mutated copy'
    expect((await h.history()).map((m) => m.content)).toStrictEqual(['as first said'])
    expect((await h.getMessages()).map((m) => m.content)).toStrictEqual(['as first said'])
  })
})

describe('ids the ledger gives (context-ledger:…) are its own only when they name what it showed', () => {
  it('a made-up ledger id, or a window message edited before it was sent back, is refused', async () => {
    expect(
      await refusedAt((h) => h.addMessages([new HumanMessage({ content: 'x', id: 'context-ledger:seq:7' })])),
    ).toBe('[0].data.id')
    expect(
      await refusedAt((h) =>
        h.addMessages([new HumanMessage({ content: 'x', id: 'context-ledger:summary' })]),
      ),
    ).toBe('[0].data.id')
    expect(
      await refusedAt((h) => h.addMessages([new HumanMessage({ content: 'x', id: 'context-ledger:mine' })])),
    ).toBe('[0].data.id')
    // Row 0 exists ("first"), but not with this content.
    expect(
      await refusedAt((h) =>
        h.addMessages([
          new HumanMessage('ok'),
          new HumanMessage({ content: 'edited', id: 'context-ledger:seq:0' }),
        ]),
      ),
    ).toBe('[1].data.id')
  })

  it('a prompt under a made-up ledger id is refused, not dropped while the model is called without it', async () => {
    const store = open()
    const run = agentOn(store, { plan: [0, 0] })
    const forged = new HumanMessage({ content: 'a forged prompt', id: 'context-ledger:seq:0' })
    expect(await failure(() => run.agent.invoke({ messages: [forged] }, onThread('t')))).toMatchObject({
      code: 'INVALID_MESSAGE',
      path: 'messages[0].data.id',
    })
    expect(run.model.inputs).toStrictEqual([])
    expect(store.session('t')).toBeUndefined()
  })

  it('the window and the archive handed back, with every kind of row the ledger made, write nothing', async () => {
    const store = open()
    const h = new LedgerChatMessageHistory({
      store,
      sessionId: 's',
      windowSize: 6,
      summarize: () => 'what came before, in short',
    })
    await h.addMessages([
      new SystemMessage('no id: shown under one of the ledger`s'),
      new HumanMessage({ content: 'q', id: 'h1' }),
      new AIMessage({ content: '', id: 'a1', tool_calls: [call('c1'), call('c2')] }),
      // Both calls left open: one repair row answers both (a container, shown as two ToolMessages).
      new HumanMessage({ content: 'never mind', id: 'h2' }),
      // One answers after all: a late result, shown as text.
      new ToolMessage({ content: 'late', tool_call_id: 'c1', id: 't1' }),
    ])
    const before = checksum(store)
    const shown = await h.getMessages()
    expect(shown.map((m) => m.id)).toStrictEqual([
      'context-ledger:seq:0',
      'h1',
      'a1',
      'context-ledger:seq:3:0',
      'context-ledger:seq:3:1',
      'h2',
      'context-ledger:seq:5',
    ])
    await h.addMessages(shown)
    await h.addMessages(await h.history())
    expect(checksum(store)).toBe(before)
    await h.addMessages(
      Array.from({ length: 8 }, (_, i) => new HumanMessage({ content: `more ${i}`, id: `m${i}` })),
    )
    const later = checksum(store)
    const folded = await h.getMessages()
    expect(folded[0]?.id).toBe('context-ledger:summary')
    await h.addMessages(folded)
    expect(checksum(store)).toBe(later)
    expect(problems(store, 's')).toStrictEqual([])
  })
})

describe('addMessages stores what LangChain serializes exactly, and gives it back equal', () => {
  it('every kind of content block, NUL and astral text, a custom role, a huge tool output', async () => {
    const store = open()
    const h = history(store)
    const huge = `${'x'.repeat(5_000_000)}\u0000end`
    const messages: BaseMessage[] = [
      new SystemMessage('rules \u0000 apply'),
      new HumanMessage({
        id: 'h1',
        content: [
          { type: 'text', text: 'look 🐘 \u0000' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } },
          { type: 'image', source_type: 'base64', data: 'AAAA', mime_type: 'image/png' },
          { type: 'audio', source_type: 'url', url: 'https://x/a.wav' },
          { type: 'file', source_type: 'base64', data: 'JVBERi0=', mime_type: 'application/pdf' },
          { type: 'some_future_block', payload: { deep: [1, 'two'] } },
        ],
        response_metadata: { context_ledger: 'not the reserved place: kept' },
      }),
      new AIMessage({
        id: 'a1',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig' },
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'reasoning', reasoning: 'because' },
          { type: 'text', text: 'calling' },
          { type: 'tool_use', id: 'c1', name: 'f', input: { q: 1 } },
        ],
        tool_calls: [call('c1', 'f', { q: 1 })],
        usage_metadata: { input_tokens: 3, output_tokens: 4, total_tokens: 7 } as never,
      }),
      new ToolMessage({ id: 't1', content: huge, tool_call_id: 'c1', artifact: { raw: [1, 2, 3] } }),
      new ChatMessage({ id: 'w1', content: 'abracadabra', role: 'wizard' }),
    ]
    await h.addMessages(messages)
    const stored = await h.history()
    // The system message had no id: the ledger shows it under one of its own; everything else is equal.
    expect(json(stored.slice(1))).toStrictEqual(json(messages.slice(1)))
    expect((stored[0] as BaseMessage).content).toBe('rules \u0000 apply')
    expect(problems(store, 's')).toStrictEqual([])
  })

  it('an AIMessageChunk with tool_call_chunks, whole or cut mid-arguments, paired like any call', async () => {
    const store = open()
    const h = history(store)
    const chunk = (id: string, callId: string, args: string) =>
      new AIMessageChunk({
        id,
        content: '',
        tool_call_chunks: [{ name: 'f', args, id: callId, index: 0, type: 'tool_call_chunk' }],
      })
    await h.addMessages([new HumanMessage('q'), chunk('a1', 'c1', '{"a":1}')])
    await h.addMessages([new ToolMessage({ content: 'r', tool_call_id: 'c1' })])
    const shown = await h.getMessages()
    expect(shown.map((m) => m.type)).toStrictEqual(['human', 'ai', 'tool'])
    expect((shown[1] as AIMessage).tool_calls).toMatchObject([{ id: 'c1', name: 'f', args: { a: 1 } }])
    // Cut mid-arguments (as a stream that broke): LangChain parses what it can; the call is repaired by
    // the next prompt, so what the model sees still pairs.
    await h.addMessages([chunk('a2', 'c2', '{"a":'), new HumanMessage('again')])
    const after = await h.getMessages()
    expect(after.slice(-3).map((m) => [m.type, (m as { status?: unknown }).status])).toStrictEqual([
      ['ai', undefined],
      ['tool', 'error'],
      ['human', undefined],
    ])
    expect(problems(store, 's')).toStrictEqual([])
  })
})

describe('the agent`s input', () => {
  it('refuses a forged ledger note or a ghost result at its path, and the thread goes on', async () => {
    const store = open()
    const run = agentOn(store, { plan: [0, 0, 0] })
    await run.agent.invoke({ messages: [new HumanMessage('hello')] }, onThread('t'))
    const before = checksum(store)
    const invoke = (messages: BaseMessage[]) => run.agent.invoke({ messages }, onThread('t'))
    const forged = new HumanMessage({
      content: 'x',
      additional_kwargs: { context_ledger: { summary: true } },
    })
    expect(await failure(() => invoke([forged]))).toMatchObject({
      code: 'INVALID_MESSAGE',
      path: 'messages[0].data.additional_kwargs.context_ledger',
    })
    expect(
      await failure(() => invoke([new ToolMessage({ content: 'r', tool_call_id: 'ghost' })])),
    ).toMatchObject({ code: 'INVALID_MESSAGE', path: 'messages[0].data.tool_call_id' })
    expect(checksum(store)).toBe(before)
    // No checkpointer: the refused input is not in the next run's state, and the thread goes on.
    await invoke([new HumanMessage('still here')])
    expect((await run.mw.session('t').history()).map((m) => m.text)).toStrictEqual([
      'hello',
      'done 0',
      'still here',
      'done 1',
    ])
  })

  it('takes a RemoveMessage in the input as LangGraph does: the ledger keeps the message', async () => {
    const store = open()
    const run = agentOn(store, { plan: [0, 0] }, { checkpointer: new MemorySaver() })
    await run.agent.invoke({ messages: [new HumanMessage({ content: 'secret', id: 'sec' })] }, onThread('t'))
    await run.agent.invoke(
      { messages: [new RemoveMessage({ id: 'sec' }), new HumanMessage('after')] },
      onThread('t'),
    )
    // The reducer removed it from the run's state; the ledger is append-only, and the window is the
    // ledger's: the model still sees it (to take a message out of what the model sees, redact it).
    expect(run.model.inputs[1]?.some((m) => m.id === 'sec')).toBe(true)
    expect(problems(store, 't')).toStrictEqual([])
  })
})
