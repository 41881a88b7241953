/**
 * `LedgerChatMessageHistory` (SQLite): with `RunnableWithMessageHistory` and a LangChain fake chat model
 * the chain gets the window as its history and every message is stored once; `addMessages` is idempotent
 * by id; `clear()` empties the window and deletes nothing (history and search still find everything, a
 * pinned message included); a restart reads the same window.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ChatPromptTemplate, MessagesPlaceholder } from '@langchain/core/prompts'
import { RunnableWithMessageHistory } from '@langchain/core/runnables'
import { fakeModel } from '@langchain/core/testing'
import { LedgerChatMessageHistory } from '../../../src/adapters/langchain/index.js'
import type { ContextStore } from '../../../src/index.js'
import { tempDir, type TempDir } from '../../helpers/temp-store.js'
import { dicts } from './helpers.js'

let dir: TempDir | undefined
afterEach(() => {
  dir?.cleanup()
  dir = undefined
})
const open = (): ContextStore => (dir ??= tempDir()).open()

describe('LedgerChatMessageHistory', () => {
  it('gives RunnableWithMessageHistory the window and stores every turn once', async () => {
    const store = open()
    const model = fakeModel()
    for (let i = 0; i < 6; i++) model.respond(new AIMessage(`answer ${i}`))
    const prompt = ChatPromptTemplate.fromMessages([
      ['system', 'You answer briefly.'],
      new MessagesPlaceholder('history'),
      ['human', '{question}'],
    ])
    const histories = new Map<string, LedgerChatMessageHistory>()
    // Deprecated in favour of LangGraph persistence, and still what older chains use: the issue asks for it.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    const chain = new RunnableWithMessageHistory({
      runnable: prompt.pipe(model),
      getMessageHistory: (sessionId: string) => {
        const found =
          histories.get(sessionId) ?? new LedgerChatMessageHistory({ store, sessionId, windowSize: 4 })
        histories.set(sessionId, found)
        return found
      },
      inputMessagesKey: 'question',
      historyMessagesKey: 'history',
    })
    for (let i = 0; i < 6; i++)
      await chain.invoke({ question: `question ${i}` }, { configurable: { sessionId: 'chat' } })
    // The model's input: the system prompt, the window (at most 4), the question.
    model.calls.forEach((call, i) => {
      const history = call.messages.slice(1, -1)
      expect(history.length).toBe(Math.min(2 * i, 4))
      expect(call.messages.at(-1)?.content).toBe(`question ${i}`)
    })
    const history = histories.get('chat') as LedgerChatMessageHistory
    const archive = await history.history()
    expect(archive.map((m) => m.content)).toStrictEqual(
      Array.from({ length: 6 }, (_, i) => [`question ${i}`, `answer ${i}`]).flat(),
    )
    expect(dicts(await history.getMessages())).toStrictEqual(dicts(archive.slice(-4)))
  })

  it('writes a message once by id: the same again is nothing, the window handed back is the ledger`s own', async () => {
    const store = open()
    const history = new LedgerChatMessageHistory({ store, sessionId: 's' })
    const messages = [
      new HumanMessage({ content: 'hi', id: 'h1' }),
      new AIMessage({ content: '', id: 'a1', tool_calls: [{ id: 'c1', name: 'f', args: {} }] }),
      new ToolMessage({ content: 'ok', tool_call_id: 'c1', id: 't1' }),
    ]
    await history.addMessages(messages)
    await history.addMessages(messages)
    await history.addMessages(await history.getMessages())
    await history.addMessage(new HumanMessage('no id'))
    expect(store.session('s')?.messageCount).toBe(4)
    expect((await history.getMessages()).map((m) => m.id)).toStrictEqual([
      'h1',
      'a1',
      't1',
      expect.stringMatching(/^context-ledger:seq:3$/),
    ])
  })

  it('clears the window without deleting anything, pinned messages included', async () => {
    const store = open()
    const history = new LedgerChatMessageHistory({ store, sessionId: 's' })
    await history.addMessages([
      new HumanMessage({ content: 'the secret plan', id: 'h1' }),
      new AIMessage({ content: 'noted', id: 'a1' }),
    ])
    history.ledger.pin({ trackingId: 'h1' })
    await history.clear()
    expect(await history.getMessages()).toStrictEqual([])
    await history.clear()
    expect(store.session('s')?.messageCount).toBe(3)
    // The archive and search still have everything.
    expect((await history.history()).map((m) => m.text)).toStrictEqual([
      'the secret plan',
      'noted',
      expect.stringMatching(/cleared/),
    ])
    expect(history.ledger.search('secret').length).toBe(1)
    // The conversation goes on from the marker; the pinned message stays out of sight.
    await history.addMessages([new HumanMessage({ content: 'new start', id: 'h2' })])
    for (let i = 0; i < 25; i++)
      await history.addMessages([
        new HumanMessage({ content: `more ${i}`, id: `q${i}` }),
        new AIMessage({ content: `filler ${i}`, id: `f${i}` }),
      ])
    const shown = await history.getMessages()
    expect(shown.some((m) => m.id === 'h1')).toBe(false)
    expect(shown.length).toBeLessThanOrEqual(40)
  })

  it('reads the same window after a restart', async () => {
    const path = (dir ??= tempDir()).file('restart.db')
    const first = new LedgerChatMessageHistory({
      store: dir.open('restart.db'),
      sessionId: 's',
      windowSize: 3,
    })
    for (let i = 0; i < 5; i++) await first.addMessage(new HumanMessage({ content: `m${i}`, id: `m${i}` }))
    const again = new LedgerChatMessageHistory({
      store: dir.open('restart.db'),
      sessionId: 's',
      windowSize: 3,
    })
    expect(path).toContain('restart.db')
    expect(dicts(await again.getMessages())).toStrictEqual(dicts(await first.getMessages()))
    expect((await again.getMessages()).map((m) => m.content)).toStrictEqual(['m2', 'm3', 'm4'])
  })
})
