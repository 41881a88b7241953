/**
 * The converters over whole windows: generated conversations cut by the window rules (with pins and a
 * protected head), every message given extra blocks of every kind, must come out as each provider takes
 * them; and a real store's `window()` after `applyWindow()` converts the same way.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  planWindow,
  PersistentConversationManager,
  toAnthropicMessages,
  toOpenAIChatMessages,
  toOpenAIResponsesInput,
  type ContentBlockData,
  type ContextStore,
  type ConvertOptions,
  type MessageData,
  type ToolResultContentData,
} from '../../src/index.js'
import { conversation } from '../helpers/conversations.js'
import { useTempStore } from '../helpers/temp-store.js'
import { assistant, call, PDF, PNG, result, UNSENDABLE, user } from './blocks.js'
import { anthropicProblem, chatProblem, responsesProblem } from './provider-rules.js'

const USER_EXTRAS: ContentBlockData[] = [
  { text: 'note' },
  { citations: { citations: [], content: [] } },
  { guardContent: { text: { text: '', qualifiers: [] } } },
  { document: { name: 'empty', format: 'txt', source: { text: '' } } },
  { image: { format: 'png', source: { bytes: PNG } } },
  { image: { format: 'jpeg', source: { url: 'https://example.com/a.jpg' } } },
  { document: { name: 'spec', format: 'pdf', source: { bytes: PDF } } },
  { document: { name: 'notes', format: 'md', source: { text: '# notes' } } },
  { cachePoint: { cacheType: 'default' } },
  { guardContent: { text: { text: 'guarded', qualifiers: ['query'] } } },
  { citations: { citations: [], content: [{ text: 'cited' }] } },
]
const ASSISTANT_EXTRAS: ContentBlockData[] = [
  { text: 'thinking aloud' },
  { citations: { citations: [], content: [{ text: '' }] } },
  { reasoning: { text: 'signed', signature: 'sig' } },
  { reasoning: { text: 'unsigned' } },
  { reasoning: { redactedContent: 'CQg=' } },
  { cachePoint: { cacheType: 'default', ttl: '5m' } },
  { citations: { citations: [], content: [{ text: 'cited' }] } },
]
const RESULT_EXTRAS: ToolResultContentData[] = [
  { json: { rows: [1, 2] } },
  { image: { format: 'png', source: { bytes: PNG } } },
  { document: { name: 'out', format: 'pdf', source: { bytes: PDF } } },
  { document: { name: 'empty', format: 'md', source: { content: [] } } },
]

/** Extra blocks (picked by `picks`) added to each message, and extra items to each tool result. */
function enrich(
  window: readonly MessageData[],
  picks: readonly number[],
  unsendable: boolean,
): MessageData[] {
  let p = 0
  const pick = <T>(pool: readonly T[]): T[] => {
    const n = picks[p++ % picks.length] ?? 0
    return n % 3 === 0 ? [] : [pool[n % pool.length] as T]
  }
  const bad = (): ContentBlockData[] => (unsendable ? pick(UNSENDABLE.map(([, b]) => b)) : [])
  return window.map((m) => {
    const content = m.content.map((b): ContentBlockData =>
      'toolResult' in b
        ? { toolResult: { ...b.toolResult, content: [...b.toolResult.content, ...pick(RESULT_EXTRAS)] } }
        : b,
    )
    const extras = m.role === 'user' ? [...pick(USER_EXTRAS), ...bad()] : pick(ASSISTANT_EXTRAS)
    const first = pick([true, false])[0] === true
    return { ...m, content: first ? [...extras, ...content] : [...content, ...extras] }
  })
}

function expectValid(window: readonly MessageData[], options: ConvertOptions = {}): void {
  const uses = window.flatMap((m) => m.content.flatMap((b) => ('toolUse' in b ? [b.toolUse.toolUseId] : [])))
  const chat = toOpenAIChatMessages(window, options)
  expect(chatProblem(chat)).toBeUndefined()
  expect(
    chat.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : [])),
  ).toStrictEqual(uses)
  const responses = toOpenAIResponsesInput(window, options)
  expect(responsesProblem(responses)).toBeUndefined()
  expect(responses.flatMap((i) => (i.type === 'function_call' ? [i.call_id] : []))).toStrictEqual(uses)
  const anthropic = toAnthropicMessages(window, options)
  expect(anthropicProblem(anthropic)).toBeUndefined()
  expect(
    anthropic.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))),
    'tool uses',
  ).toStrictEqual(uses)
  if (window[0]?.role === 'user') {
    expect(chat[0]?.role).toBe('user')
    expect(anthropic[0]?.role).toBe('user')
  }
}

const windows = fc
  .record({
    messages: conversation(12),
    windowSize: fc.integer({ min: 2, max: 24 }),
    first: fc.integer({ min: 0, max: 2 }),
    pins: fc.array(fc.nat(), { maxLength: 4 }),
    picks: fc.array(fc.nat(), { minLength: 1, maxLength: 60 }),
  })
  .map(({ messages, windowSize, first, pins, picks }) => {
    const pinned = messages.map((_, i) => pins.some((p) => p % messages.length === i))
    const { messages: window } = planWindow(messages, { windowSize, protectedMessages: { first }, pinned })
    return { window, picks }
  })

describe('converted windows are what each provider takes', () => {
  it('for generated windows with every sendable block kind', () => {
    fc.assert(
      fc.property(windows, ({ window, picks }) => {
        expectValid(enrich(window, picks, false))
      }),
      { numRuns: 300 },
    )
  })

  it('for generated windows with unsendable blocks, sent as placeholders', () => {
    fc.assert(
      fc.property(windows, ({ window, picks }) => {
        expectValid(enrich(window, picks, true), { unsupported: 'placeholder' })
      }),
      { numRuns: 150 },
    )
  })
})

describe("a real store's window", () => {
  let store: ContextStore
  useTempStore((opened) => {
    ;({ store } = opened)
  })

  it('converts after applyWindow evicted turns and pins brought back a tool pair and a note', () => {
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 8 })
    m.append([user({ text: 'remember: ship on friday' }), assistant({ text: 'noted' })])
    for (let t = 0; t < 6; t++)
      m.append([
        user({ text: `question ${t}` }),
        assistant({ text: 'checking' }, call(`t${t}a`), call(`t${t}b`)),
        user(result(`t${t}a`), result(`t${t}b`, [{ json: { t } }], t === 2 ? 'error' : 'success')),
        assistant({ text: `answer ${t}` }),
      ])
    m.applyWindow()
    m.pin({ seq: 0 })
    m.pin({ seq: 8 }) // the tool results of turn 1: its call comes back with it
    m.applyWindow()

    const window = store.window('s')
    expect(window.length).toBeLessThan(m.history({ limit: 1000 }).length)
    expect(window.map((x) => x.role).join(',')).toContain('user,user')
    expectValid(window)

    const chat = toOpenAIChatMessages(window)
    expect(chat[0]).toStrictEqual({
      role: 'user',
      content: [{ type: 'text', text: 'remember: ship on friday' }],
    })
    expect(chat.filter((x) => x.role === 'tool').map((x) => x.tool_call_id)).toContain('t1b')
    expect(JSON.stringify(toOpenAIResponsesInput(window))).toContain('"call_id":"t1a"')
    const anthropic = toAnthropicMessages(window)
    expect(toAnthropicMessages(store.window('s', { alternate: true }))).toStrictEqual(anthropic)
    expect(anthropic[0]?.content[0]).toStrictEqual({ type: 'text', text: 'remember: ship on friday' })
  })
})
