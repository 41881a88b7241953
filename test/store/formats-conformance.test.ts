/**
 * A session of another message format than Strands on either backend (a conformance-suite file): AI SDK
 * `ModelMessage`s kept exactly, the format fixed by the first append, tool pairs linked through the
 * format's facts, search over the text the format derives, redaction, retention, summaries in the
 * session's format, pins that leave the body alone, and the same window after reopening the ledger.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { ContextLedgerError, type MessageData } from '../../src/index.js'
import { BACKEND, makeBackend, type LedgerStore } from '../helpers/backend.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

const MODEL = { format: 'ai-sdk/model' } as const

/** An AI SDK ModelMessage, typed as the store's API types every body (`BodyFormat`). */
const model = (m: object): MessageData => m as MessageData
const user = (text: string): MessageData => model({ role: 'user', content: text })
const call = (id: string, city: string): MessageData =>
  model({
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: id, toolName: 'weather', input: { city } }],
  })
const result = (id: string, value: string): MessageData =>
  model({
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: id, toolName: 'weather', output: { type: 'text', value } }],
  })
const answer = (text: string): MessageData =>
  model({
    role: 'assistant',
    content: [{ type: 'text', text, providerOptions: { openai: { itemId: 'msg_1' } } }],
  })

/** A plain-JSON copy, as the store keeps it. */
const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T

/** A conversation with one tool round. */
const CONVERSATION = [
  user('What is the weather in Paris?'),
  call('c1', 'Paris'),
  result('c1', 'sunny'),
  answer('It is sunny in Paris.'),
]

/** The error a call threw. */
async function failure(p: Promise<unknown>): Promise<ContextLedgerError> {
  try {
    await p
  } catch (error) {
    if (error instanceof ContextLedgerError) return error
    throw error
  }
  throw new Error('expected the call to fail')
}

/** The bodies a session's history holds, in order. */
async function bodies(store: LedgerStore, sessionId: string): Promise<unknown[]> {
  return (await store.history(sessionId, { limit: 1000 })).map((e) => e.message)
}

describe(`a session of the 'ai-sdk/model' format [${BACKEND}]`, () => {
  it('keeps every body exactly: history and window are the messages given', async () => {
    const store = await backend.open()
    const entries = await store.append('s', CONVERSATION, MODEL)
    expect(entries.map((e) => e.seq)).toStrictEqual([0, 1, 2, 3])
    expect(await bodies(store, 's')).toStrictEqual(plain(CONVERSATION))
    expect(await store.window('s')).toStrictEqual(plain(CONVERSATION))
    // Later appends take the session's format without naming it.
    await store.append('s', user('And tomorrow?'))
    expect((await store.window('s')).at(-1)).toStrictEqual(user('And tomorrow?'))
  })

  it('refuses another format both ways, writing nothing', async () => {
    const store = await backend.open()
    await store.append('model', [user('hi')], MODEL)
    await store.append('strands', { role: 'user', content: [{ text: 'hi' }] })
    const before = await backend.checksum(store)
    const toStrands = await failure(store.append('strands', [user('hello')], MODEL))
    expect(toStrands.code).toBe('FORMAT_MISMATCH')
    expect(toStrands.path).toBe('format')
    const toModel = await failure(
      store.append('model', { role: 'user', content: [{ text: 'hello' }] }, { format: 'strands' }),
    )
    expect(toModel.code).toBe('FORMAT_MISMATCH')
    // Unnamed, a message is read in the session's format: a Strands message is no ModelMessage.
    const unnamed = await failure(store.append('model', { role: 'user', content: [{ text: 'hello' }] }))
    expect(unnamed.code).toBe('INVALID_MESSAGE')
    expect(await backend.checksum(store)).toBe(before)
  })

  it('links a call to its result: the window never opens on a result, an unanswered call is repaired', async () => {
    const store = await backend.open()
    await store.append('s', CONVERSATION, MODEL)
    for (let size = 1; size <= 4; size++) {
      const copy = await backend.reopen(store)
      await copy.append(`w${size}`, CONVERSATION, MODEL)
      await backend.manager(copy, { sessionId: `w${size}`, windowSize: size }).applyWindow()
      const window = (await copy.window(`w${size}`)) as unknown as { role: string }[]
      expect(window[0]?.role).not.toBe('tool')
      const roles = window.map((m) => m.role)
      if (roles.includes('tool')) expect(roles.indexOf('assistant')).toBeLessThan(roles.indexOf('tool'))
    }
    // A user message after an unanswered call: a repair row, a tool message of this format, comes first.
    await store.append('s', [call('c2', 'Rome'), user('Never mind.')])
    const history = (await bodies(store, 's')) as { role: string; content: unknown }[]
    expect(history).toHaveLength(7)
    const repair = history[5] as { role: string; content: { type: string; toolCallId: string }[] }
    expect(repair.role).toBe('tool')
    expect(repair.content[0]).toMatchObject({ type: 'tool-result', toolCallId: 'c2', toolName: 'weather' })
    expect(history[6]).toStrictEqual(user('Never mind.'))
  })

  it('finds the words of its text; a redaction takes them out of search and keeps the tool ids', async () => {
    const store = await backend.open()
    await store.append('s', [...CONVERSATION, user('Tell me about zeppelins.')], MODEL)
    expect((await store.search('zeppelins')).map((h) => h.seq)).toStrictEqual([4])
    expect((await store.search('sunny')).map((h) => h.seq).sort()).toStrictEqual([2, 3])
    expect((await store.search('weather', { toolName: 'weather' })).length).toBeGreaterThan(0)
    await store.redactMessage('s', { seq: 4 })
    await store.redactMessage('s', { seq: 2 })
    expect(await store.search('zeppelins')).toStrictEqual([])
    expect((await store.search('sunny')).map((h) => h.seq)).toStrictEqual([3])
    const redacted = (await store.message('s', { seq: 2 })).message as unknown as {
      role: string
      content: { type: string; toolCallId: string; toolName: string }[]
    }
    expect(redacted.role).toBe('tool')
    expect(redacted.content[0]).toMatchObject({ type: 'tool-result', toolCallId: 'c1', toolName: 'weather' })
    expect(JSON.stringify(redacted)).not.toContain('sunny')
    // The window still pairs the call with its (redacted) result.
    const window = (await store.window('s')) as unknown as { role: string }[]
    expect(window.map((m) => m.role)).toStrictEqual(['user', 'assistant', 'tool', 'assistant', 'user'])
  })

  it('prunes old messages out of the window once, in its own shape', async () => {
    const store = await backend.open()
    await store.append('s', [...CONVERSATION, user('Tell me about zeppelins.'), answer('They float.')], MODEL)
    await backend.manager(store, { sessionId: 's', windowSize: 2 }).applyWindow()
    const inWindow = (await store.history('s')).filter((e) => e.inWindow).map((e) => e.seq)
    const first = await store.prune({ sessionId: 's', before: Date.now() + 60_000, keepPinned: true })
    expect(first.pruned).toBe(6 - inWindow.length)
    const pruned = (await store.message('s', { seq: 0 })).message as unknown as Record<string, unknown>
    expect(pruned.role).toBe('user')
    expect(JSON.stringify(pruned)).not.toContain('Paris')
    expect(JSON.stringify(pruned)).not.toContain('"metadata"')
    expect(await store.search('Paris', { inWindow: false })).toStrictEqual([])
    // Pruned rows are not pruned again.
    const again = await store.prune({ sessionId: 's', before: Date.now() + 60_000, keepPinned: true })
    expect(again.pruned).toBe(0)
  })

  it('writes a summary as a message of the format, and finds it', async () => {
    const store = await backend.open()
    const m = backend.manager(store, { sessionId: 's', windowSize: 3, format: 'ai-sdk/model' })
    await m.append([...CONVERSATION, user('Tell me about zeppelins.'), answer('They float.')])
    let given: readonly unknown[] = []
    const { summary } = await m.summarize(
      (input) => {
        given = input
        return 'Earlier: quorum reads in Lisbon.'
      },
      { summaryRatio: 0.5, preserveRecentMessages: 2 },
    )
    expect(summary).toBeDefined()
    // The summarizer got the session's own messages, closed by a request in the same shape.
    expect(given[0]).toStrictEqual(plain(CONVERSATION[0]))
    expect((given.at(-1) as { role: string }).role).toBe('user')
    const window = (await m.window()) as unknown as { role: string; content: unknown }[]
    const shown = window.find((x) => JSON.stringify(x).includes('quorum reads in Lisbon'))
    expect(shown?.role).toBe('user')
    // A ModelMessage: a session of the format takes it as it is.
    await store.append('check', [shown], MODEL)
    const hits = await store.search('Lisbon', { sessionId: 's' })
    expect(hits.map((h) => [h.kind, h.summaryId])).toStrictEqual([['summary', summary?.id]])
    const record = await store.summary('s', summary?.id ?? 0)
    expect(record.message).toStrictEqual(shown)
  })

  it('pins without touching the body, and reopens to the same window', async () => {
    const store = await backend.open()
    await store.append('s', CONVERSATION, MODEL)
    await store.pin('s', { seq: 0 }, { reason: 'the question' })
    await backend.manager(store, { sessionId: 's', windowSize: 2 }).applyWindow()
    const window = await store.window('s')
    expect(window[0]).toStrictEqual(plain(CONVERSATION[0]))
    expect(JSON.stringify(window)).not.toContain('pinned')
    const pinned = await store.pinnedMessages({ sessionId: 's' })
    expect(pinned.map((p) => p.message)).toStrictEqual([plain(CONVERSATION[0])])
    expect(await bodies(store, 's')).toStrictEqual(plain(CONVERSATION))
    const again = await backend.reopen(store)
    expect(await again.window('s')).toStrictEqual(window)
    await again.append('s', user('And tomorrow?'))
    expect((await again.window('s')).at(-1)).toStrictEqual(user('And tomorrow?'))
  })
})
