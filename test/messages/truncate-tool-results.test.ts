/**
 * Tool-result truncation: Strands 1.19's format exactly (checked against the SDK's own
 * `_truncateToolResults` on the same messages), with message metadata kept.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { Message, SlidingWindowConversationManager } from '@strands-agents/sdk'
import type { MessageData as StrandsMessageData } from '@strands-agents/sdk'
import type { MessageData, ToolResultContentData } from '../../src/index.js'
import {
  hasTruncatableToolResults,
  TRUNCATION_PRESERVE_CHARS,
  TRUNCATION_THRESHOLD,
  truncateLongText,
  truncateToolResults,
} from '../../src/messages/truncate-tool-results.js'
import { fcRuns } from '../helpers/runs.js'

const b64 = (bytes: number): string => Buffer.alloc(bytes, 7).toString('base64')

function result(content: ToolResultContentData[], extra: Partial<MessageData> = {}): MessageData {
  return {
    role: 'user',
    content: [{ toolResult: { toolUseId: 't1', status: 'success', content } }],
    trackingId: '7f0c9f5e-9d55-4b8e-9c57-3f3b0c1f8a01',
    ...extra,
  }
}

/** What Strands 1.19's sliding window makes of the message, as JSON. */
function strandsTruncation(message: MessageData): unknown {
  const messages = [Message.fromJSON(message as unknown as StrandsMessageData)]
  // A private method in the SDK's typings; it is the behaviour we promise to match.
  const manager = new SlidingWindowConversationManager() as unknown as {
    _truncateToolResults(messages: Message[], index: number): boolean
  }
  manager._truncateToolResults(messages, 0)
  return messages[0]?.toJSON()
}

const cases: [string, MessageData][] = [
  ['a 500-character text', result([{ text: 'x'.repeat(500) }])],
  ['a text of exactly 450 characters', result([{ text: 'y'.repeat(450) }])],
  ['a text of 451 characters', result([{ text: 'z'.repeat(451) }])],
  [
    'images, videos and binary documents next to a short text',
    result([
      { image: { format: 'png', source: { bytes: b64(1234) } } },
      { image: { format: 'jpeg', source: { url: 'https://example.com/a.jpg' } } },
      { image: { format: 'png', source: { location: { type: 's3', uri: 's3://b/k.png' } } } },
      { video: { format: 'mp4', source: { bytes: b64(4096) } } },
      { video: { format: 'mp4', source: { location: { type: 's3', uri: 's3://b/k.mp4' } } } },
      { document: { name: 'report', format: 'pdf', source: { bytes: b64(8192) } } },
      {
        document: { name: 'spec', format: 'pdf', source: { location: { type: 's3', uri: 's3://b/s.pdf' } } },
      },
      { text: 'tail' },
    ]),
  ],
  [
    'text documents',
    result([
      {
        document: {
          name: 'a',
          format: 'txt',
          source: { text: 'd'.repeat(640) },
          context: 'ctx',
          citations: { enabled: true },
        },
      },
      {
        document: {
          name: 'b',
          format: 'txt',
          source: { content: [{ text: 'e'.repeat(640) }, { text: 'short' }] },
        },
      },
      { document: { name: 'c', format: 'txt', source: { text: 'hello' } } },
    ]),
  ],
  [
    'a large and a small JSON value',
    result([{ json: { rows: Array.from({ length: 200 }, (_, i) => i) } }, { json: { ok: true } }]),
  ],
  [
    'an error result beside a toolUse-free assistant-like text block',
    {
      role: 'user',
      content: [
        { toolResult: { toolUseId: 'a', status: 'error', content: [{ text: '!'.repeat(900) }] } },
        { text: 'q'.repeat(900) },
        { toolResult: { toolUseId: 'b', status: 'success', content: [{ text: 'fine' }] } },
      ],
      trackingId: '7f0c9f5e-9d55-4b8e-9c57-3f3b0c1f8a02',
    },
  ],
]

describe('truncateToolResults', () => {
  for (const [name, message] of cases)
    it(`matches Strands 1.19 on ${name}`, () => {
      expect(truncateToolResults(message)).toStrictEqual(strandsTruncation(message))
    })

  it('truncates text to the first and last 200 characters around the marker', () => {
    const text = `${'h'.repeat(200)}${'m'.repeat(100)}${'t'.repeat(200)}`
    expect(truncateToolResults(result([{ text }]))).toStrictEqual(
      result([{ text: `${'h'.repeat(200)}\n<truncated chars="100"/>\n${'t'.repeat(200)}` }]),
    )
  })

  it('keeps the message metadata and trackingId (Strands drops the metadata)', () => {
    const metadata = {
      usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      custom: { source: 'crawler' },
    }
    const message = result([{ text: 'x'.repeat(500) }], { metadata })
    const truncated = truncateToolResults(message)
    expect(truncated.metadata).toStrictEqual(metadata)
    expect(truncated.trackingId).toBe(message.trackingId)
    expect(strandsTruncation(message)).not.toHaveProperty('metadata')
  })

  it('returns the same object when nothing changes, and is idempotent', () => {
    const small = result([{ text: 'short' }, { json: { ok: true } }])
    expect(truncateToolResults(small)).toBe(small)
    const plain: MessageData = { role: 'user', content: [{ text: 'x'.repeat(5000) }] }
    expect(truncateToolResults(plain)).toBe(plain)
    for (const [, message] of cases) {
      const once = truncateToolResults(message)
      expect(truncateToolResults(once)).toBe(once)
    }
  })

  it('does not change its input', () => {
    const message = result([{ text: 'x'.repeat(500) }])
    const copy = structuredClone(message)
    truncateToolResults(message)
    expect(message).toStrictEqual(copy)
  })
})

describe('truncateLongText', () => {
  it('leaves texts up to the threshold alone and cuts longer ones', () => {
    expect(TRUNCATION_PRESERVE_CHARS).toBe(200)
    expect(TRUNCATION_THRESHOLD).toBe(450)
    expect(truncateLongText('a'.repeat(450))).toBeUndefined()
    expect(truncateLongText('a'.repeat(451))).toBe(
      `${'a'.repeat(200)}\n<truncated chars="51"/>\n${'a'.repeat(200)}`,
    )
  })

  it('cuts on code point boundaries where Strands would split a surrogate pair', () => {
    // Strands slices UTF-16 units and leaves a lone surrogate, which the store refuses.
    const headCut = `${'a'.repeat(199)}😀${'b'.repeat(400)}`
    expect(strandsTruncation(result([{ text: headCut }]))).not.toStrictEqual(
      truncateToolResults(result([{ text: headCut }])),
    )
    expect(truncateLongText(headCut)).toBe(`${'a'.repeat(199)}\n<truncated chars="202"/>\n${'b'.repeat(200)}`)
    const tailCut = `${'a'.repeat(400)}😀${'b'.repeat(199)}`
    expect(truncateLongText(tailCut)).toBe(`${'a'.repeat(200)}\n<truncated chars="202"/>\n${'b'.repeat(199)}`)
  })

  it('always returns well-formed text, a prefix and a suffix of well-formed input, and the exact count', () => {
    // Units biased towards surrogates: pairs, lone highs and lone lows, among ASCII.
    const unit = fc.oneof(
      fc.constant('😀'),
      fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u)),
      fc.constantFrom('a', 'b', ' '),
    )
    const text = fc.array(unit, { minLength: 200, maxLength: 700 }).map((units) => units.join(''))
    fc.assert(
      fc.property(text, (input) => {
        const out = truncateLongText(input)
        if (input.length <= TRUNCATION_THRESHOLD) return out === undefined
        if (out === undefined || !out.isWellFormed()) return false
        const match = /^([\s\S]*)\n<truncated chars="(\d+)"\/>\n([\s\S]*)$/.exec(out)
        if (match === null) return false
        const [, head = '', removed, tail = ''] = match
        if (head.length < TRUNCATION_PRESERVE_CHARS - 1 || tail.length < TRUNCATION_PRESERVE_CHARS - 1)
          return false
        if (Number(removed) !== input.length - head.length - tail.length) return false
        return !input.isWellFormed() || (input.startsWith(head) && input.endsWith(tail))
      }),
      { numRuns: fcRuns(500) },
    )
  })
})

describe('hasTruncatableToolResults', () => {
  it('is true exactly when truncateToolResults would change the message', () => {
    for (const [, message] of cases)
      expect(hasTruncatableToolResults(message)).toBe(truncateToolResults(message) !== message)
  })
})
