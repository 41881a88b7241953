/**
 * The manager's summary calls: what the summarizer is given and told, the forms of output it may return,
 * a summarizer that fails (nothing changes: the files are byte-identical), and options refused with
 * INVALID_OPTIONS naming the field.
 */
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_SUMMARIZATION_PROMPT,
  PersistentConversationManager,
  promptHash,
  SUMMARY_REQUEST,
  type ContextLedgerError,
  type ContextStore,
  type MessageData,
  type SummarizerOutput,
  type SummaryRequest,
} from '../../src/index.js'
import { turns } from '../helpers/messages.js'
import { refusal } from '../helpers/refusal.js'
import { recordingSummarizer } from '../helpers/summarizers.js'
import { useTempStore } from '../helpers/temp-store.js'
import { assertWindowRules } from '../helpers/window-rules.js'

let store: ContextStore
let path: string
useTempStore((opened) => {
  ;({ store, path } = opened)
})

/** sha256 of the database file and its write-ahead log. */
function filesHash(): string {
  const hash = createHash('sha256')
  for (const file of [path, `${path}-wal`]) hash.update(existsSync(file) ? readFileSync(file) : 'absent')
  return hash.digest('hex')
}

function manager(): PersistentConversationManager {
  const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 6 })
  m.append(turns(6))
  return m
}

async function rejection(promise: Promise<unknown>): Promise<ContextLedgerError> {
  try {
    await promise
  } catch (error) {
    return refusal(() => {
      throw error
    })
  }
  throw new Error('expected the call to be refused')
}

describe('the summarizer', () => {
  it('is given the folded messages, then the request; told the system prompt, the session and the summary folded', async () => {
    const m = manager()
    let seen: { messages: readonly MessageData[]; request: SummaryRequest } | undefined
    const first = await m.summarize(
      (messages, request) => {
        seen = { messages, request }
        return 'first'
      },
      { summaryRatio: 0.5, preserveRecentMessages: 2 },
    )
    expect(seen?.messages.at(-1)).toStrictEqual({ role: 'user', content: [{ text: SUMMARY_REQUEST }] })
    expect(seen?.messages).toHaveLength(7)
    expect(seen?.request).toStrictEqual({
      systemPrompt: DEFAULT_SUMMARIZATION_PROMPT,
      sessionId: 's',
      previous: undefined,
    })
    expect(first.summary).toMatchObject({
      promptHash: promptHash(DEFAULT_SUMMARIZATION_PROMPT),
      model: undefined,
      message: {
        role: 'user',
        content: [{ text: 'first' }],
        metadata: { custom: { contextLedger: { summary: true } } },
      },
    })
    m.append(turns(2, 6))
    await m.summarize(
      (messages, request) => {
        seen = { messages, request }
        return 'second'
      },
      { systemPrompt: 'Be brief.', model: 'haiku', summaryRatio: 0.5, preserveRecentMessages: 2 },
    )
    expect(seen?.request).toMatchObject({ systemPrompt: 'Be brief.', previous: { id: first.summary?.id } })
    expect(seen?.messages[0]).toStrictEqual(first.summary?.message)
    expect(m.summaries()[0]).toMatchObject({ model: 'haiku', promptHash: promptHash('Be brief.') })
  })

  it.each<[string, SummarizerOutput, string[], string | undefined]>([
    ['a string', 'text', ['text'], undefined],
    ['{ text, model }', { text: 'text', model: 'sonnet' }, ['text'], 'sonnet'],
    [
      "a model's reply: text and citations kept, reasoning and tool calls dropped",
      {
        role: 'assistant',
        content: [
          { reasoning: { text: 'thinking' } },
          { text: 'one' },
          { toolUse: { toolUseId: 't', name: 'x', input: {} } },
          { citations: { content: [{ text: 'two' }], citations: [] } },
          { text: '   ' },
        ],
      },
      ['one', 'two'],
      undefined,
    ],
  ])('may return %s', async (_what, output, blocks, model) => {
    const m = manager()
    const { summary } = await m.summarize(() => output)
    expect(summary?.message.content).toStrictEqual(blocks.map((text) => ({ text })))
    expect(summary?.model).toBe(model)
    assertWindowRules(store, 's')
  })

  const failures: [string, () => unknown][] = [
    [
      'throws',
      () => {
        throw new Error('model down')
      },
    ],
    ['rejects', () => Promise.reject(new Error('model down'))],
    ['returns an empty string', () => ''],
    ['returns blank text', () => ({ text: ' \n ' })],
    ['returns a number', () => 42],
    ['returns undefined', () => undefined],
    [
      'returns a reply without text',
      () => ({ content: [{ toolUse: { toolUseId: 't', name: 'x', input: {} } }] }),
    ],
    ['returns 20 MB of text', () => 'x'.repeat(20 * 1024 * 1024)],
  ]
  it.each(failures)('that %s fails with SUMMARIZER_FAILED and changes nothing', async (_what, fn) => {
    const m = manager()
    await m.summarize(recordingSummarizer().summarize, { summaryRatio: 0.3, preserveRecentMessages: 2 })
    const summarizer = fn as never
    const before = filesHash()
    const window = JSON.stringify(m.window())
    const session = store.session('s')
    for (const call of [
      () => m.summarize(summarizer, { summaryRatio: 0.5, preserveRecentMessages: 2 }),
      () => m.summarizeExcess(summarizer),
      () => m.resummarize(m.summaries()[0]?.id ?? 0, summarizer),
    ]) {
      const error = await rejection(call())
      expect(error.code).toBe('SUMMARIZER_FAILED')
      expect(error.message).toContain('nothing was written')
      expect(filesHash()).toBe(before)
    }
    expect(JSON.stringify(m.window())).toBe(window)
    expect(store.session('s')).toStrictEqual(session)
    expect(m.summaries()).toHaveLength(1)
  })

  it("keeps the summarizer's error as the cause", async () => {
    const m = manager()
    const cause = new Error('rate limited')
    const error = await rejection(
      m.summarize(() => {
        throw cause
      }),
    )
    expect(error).toMatchObject({ code: 'SUMMARIZER_FAILED', cause })
    expect(error.message).toContain('rate limited')
  })
})

describe('options', () => {
  const summarizer = recordingSummarizer().summarize
  it.each<[string, (m: PersistentConversationManager) => unknown, string]>([
    ['summarizer not a function', (m) => m.summarize('model' as never), 'summarizer'],
    [
      'summaryRatio a string',
      (m) => m.summarize(summarizer, { summaryRatio: '0.3' as never }),
      'summaryRatio',
    ],
    ['summaryRatio NaN', (m) => m.summarize(summarizer, { summaryRatio: Number.NaN }), 'summaryRatio'],
    [
      'preserveRecentMessages negative',
      (m) => m.summarize(summarizer, { preserveRecentMessages: -1 }),
      'preserveRecentMessages',
    ],
    [
      'preserveRecentMessages fractional',
      (m) => m.summarize(summarizer, { preserveRecentMessages: 1.5 }),
      'preserveRecentMessages',
    ],
    ['an unknown option', (m) => m.summarize(summarizer, { ratio: 0.3 } as never), '"ratio"'],
    ['an empty systemPrompt', (m) => m.summarize(summarizer, { systemPrompt: '' }), 'systemPrompt'],
    ['an empty model', (m) => m.summarize(summarizer, { model: '' }), 'model'],
    [
      'summarizeExcess with a ratio',
      (m) => m.summarizeExcess(summarizer, { summaryRatio: 0.3 } as never),
      '"summaryRatio"',
    ],
    ['summarizeExcess without a function', (m) => m.summarizeExcess(null as never), 'summarizer'],
    ['resummarize from elsewhere', (m) => m.resummarize(1, summarizer, { from: 'window' as never }), 'from'],
    ['resummarize a fractional id', (m) => m.resummarize(1.5, summarizer), 'id'],
    ['dropSummary a string id', (m) => m.dropSummary('1' as never), 'id'],
    ['summary id 0', (m) => m.summary(0), 'id'],
    ['summaries limit 0', (m) => m.summaries({ limit: 0 }), 'options.limit'],
    ['summaries limit too large', (m) => m.summaries({ limit: 10_001 }), 'options.limit'],
    ['summaries unknown option', (m) => m.summaries({ newest: true } as never), 'newest'],
  ])('refuses %s with INVALID_OPTIONS naming it', async (_what, call, named) => {
    const m = manager()
    const before = filesHash()
    let error: ContextLedgerError
    try {
      const result = call(m)
      error = result instanceof Promise ? await rejection(result) : refusal(() => result)
    } catch (thrown) {
      error = refusal(() => {
        throw thrown
      })
    }
    expect(error.code).toBe('INVALID_OPTIONS')
    expect(error.message).toContain(named)
    expect(filesHash()).toBe(before)
  })
})
