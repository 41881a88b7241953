/**
 * A session of AI SDK `UIMessage`s on either backend (a conformance-suite file): each message kept
 * exactly under its own id, limits and pins over messages whose tool parts carry their own output, search
 * over the text the format derives (tool inputs and outputs, data parts), redaction, retention, a summary
 * that is a UIMessage, and the same window after reopening the ledger.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { MessageData } from '../../src/index.js'
import { BACKEND, makeBackend, type LedgerStore } from '../helpers/backend.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

const UI = { format: 'ai-sdk/ui' } as const
const ui = (m: object): MessageData => m as MessageData
const ask = (id: string, text: string): MessageData =>
  ui({ id, role: 'user', parts: [{ type: 'text', text }], metadata: { sentAt: id } })
const reply = (id: string, city: string): MessageData =>
  ui({
    id,
    role: 'assistant',
    parts: [
      { type: 'step-start' },
      {
        type: 'tool-weather',
        toolCallId: `call-${id}`,
        state: 'output-available',
        input: { city },
        output: { forecast: `hail over ${city}` },
      },
      { type: 'data-chart', id: `chart-${id}`, data: { bars: [1, 2, 3] } },
      { type: 'text', text: `Expect hail in ${city}.`, state: 'done' },
    ],
  })

const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T
const idsOf = (ms: readonly unknown[]): string[] => ms.map((m) => (m as { id: string }).id)

async function chat(store: LedgerStore, sessionId: string, turns: number): Promise<MessageData[]> {
  const messages = Array.from({ length: turns }, (_, i) => [
    ask(`u${i}`, `weather in town ${i}?`),
    reply(`a${i}`, `town ${i}`),
  ]).flat()
  for (const m of messages) await store.append(sessionId, m, UI)
  return messages
}

describe(`a session of the 'ai-sdk/ui' format [${BACKEND}]`, () => {
  it('keeps every message exactly, under its own id, and windows it by the limits', async () => {
    const store = await backend.open()
    const messages = await chat(store, 's', 6)
    const history = await store.history('s', { limit: 100 })
    expect(history.map((e) => e.message)).toEqual(plain(messages))
    expect(history.map((e) => e.trackingId)).toEqual(idsOf(messages))
    expect((await store.session('s'))?.format).toBe('ai-sdk/ui')
    const manager = backend.manager(store, { sessionId: 's', windowSize: 4, format: 'ai-sdk/ui' })
    await manager.applyWindow()
    expect(idsOf(await store.window('s'))).toEqual(['u4', 'a4', 'u5', 'a5'])
    await manager.pin({ trackingId: 'u1' })
    expect(idsOf(await store.window('s'))).toContain('u1')
    // A pin shows nothing in the body: the window's u1 is the message as given.
    expect((await store.window('s')).find((m) => (m as unknown as { id: string }).id === 'u1')).toEqual(
      plain(messages[2]),
    )
    const reopened = await backend.reopen(store)
    expect(await reopened.window('s')).toEqual(await store.window('s'))
  })

  it('finds tool inputs, outputs and data parts; a redaction takes them out of search and keeps the ids', async () => {
    const store = await backend.open()
    await chat(store, 'r', 2)
    const hits = await store.search('hail', { sessionId: 'r' })
    expect(hits.map((h) => h.seq).sort()).toEqual([1, 3])
    await store.redactMessage('r', { trackingId: 'a0' })
    expect((await store.search('hail', { sessionId: 'r' })).map((h) => h.seq)).toEqual([3])
    const redacted = (await store.message('r', { trackingId: 'a0' })).message as unknown as {
      id: string
      parts: { type: string; toolCallId?: string }[]
    }
    expect(redacted.id).toBe('a0')
    expect(redacted.parts.find((p) => p.type === 'tool-weather')?.toolCallId).toBe('call-a0')
    expect(JSON.stringify(redacted)).not.toContain('hail')
  })

  it('keeps one message per id: the same message again writes nothing, other content is refused', async () => {
    const store = await backend.open()
    const other = await backend.reopen(store)
    const messages = await chat(store, 'd', 2)
    const before = await backend.checksum(store)
    // Another connection (another process) saves the same list, then a list whose u1 says something else.
    const again = await other.append('d', messages, UI)
    expect(again.map((e) => e.seq)).toEqual([0, 1, 2, 3])
    expect(await backend.checksum(store)).toBe(before)
    const changed = [...messages.slice(0, 2), ask('u1', 'something else'), ask('u2', 'new')]
    await expect(other.append('d', changed, UI)).rejects.toMatchObject({
      code: 'DUPLICATE_MESSAGE',
      path: '[2].id',
    })
    expect(await backend.checksum(store)).toBe(before)
  })

  it('writes a summary as a UIMessage of its own id, found by search', async () => {
    const store = await backend.open()
    await chat(store, 'f', 5)
    const manager = backend.manager(store, { sessionId: 'f', windowSize: 6, format: 'ai-sdk/ui' })
    const result = await manager.summarize(() => 'Hail was forecast for five towns.', {
      summaryRatio: 0.5,
      preserveRecentMessages: 2,
    })
    expect(result.summarized).toBeGreaterThan(0)
    const shown = (await store.window('f'))[0] as unknown as {
      id: string
      role: string
      parts: { text?: string }[]
    }
    expect(shown.role).toBe('user')
    expect(shown.id).toMatch(/^summary-/)
    expect(shown.parts[0]?.text).toBe('Hail was forecast for five towns.')
    expect((await store.search('forecast five', { sessionId: 'f' })).length).toBeGreaterThan(0)
  })
})
