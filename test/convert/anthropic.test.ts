/**
 * `toAnthropicMessages`: each block kind, tool results, thinking, cache points, the merge of same-role
 * runs, and what happens to blocks Anthropic cannot take.
 */
import { describe, expect, it } from 'vitest'
import {
  toAnthropicMessages,
  toOpenAIChatMessages,
  toOpenAIResponsesInput,
  unsupportedPlaceholder,
  type AnthropicContentBlock,
  type ContentBlockData,
  type ConvertOptions,
} from '../../src/index.js'
import { everyBlockMessage, everyToolResultMessage } from '../helpers/all-blocks.js'
import { refusal } from '../helpers/refusal.js'
import { assistant, call, CSV, PDF, PNG, result, UNSENDABLE, user } from './blocks.js'

const PROVIDER = 'Anthropic Messages'

describe('toAnthropicMessages: user blocks', () => {
  it.each<[string, ContentBlockData, AnthropicContentBlock[]]>([
    ['text', { text: 'hi' }, [{ type: 'text', text: 'hi' }]],
    [
      'image bytes',
      { image: { format: 'gif', source: { bytes: PNG } } },
      [{ type: 'image', source: { type: 'base64', media_type: 'image/gif', data: PNG } }],
    ],
    [
      'image url',
      { image: { format: 'png', source: { url: 'https://x/a.png' } } },
      [{ type: 'image', source: { type: 'url', url: 'https://x/a.png' } }],
    ],
    [
      'pdf bytes with citations',
      { document: { name: 'r', format: 'pdf', source: { bytes: PDF }, citations: { enabled: true } } },
      [
        {
          type: 'document',
          source: { type: 'base64', media_type: 'application/pdf', data: PDF },
          title: 'r',
          citations: { enabled: true },
        },
      ],
    ],
    [
      'text document with context',
      { document: { name: 'n', format: 'txt', source: { text: 'plain' }, context: 'ctx' } },
      [
        {
          type: 'document',
          source: { type: 'text', media_type: 'text/plain', data: 'plain' },
          title: 'n',
          context: 'ctx',
        },
      ],
    ],
    [
      'csv bytes',
      { document: { name: 'n', format: 'csv', source: { bytes: CSV } } },
      [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'a,b' }, title: 'n' }],
    ],
    [
      'document of text blocks',
      { document: { name: 'n', format: 'txt', source: { content: [{ text: 'a' }, { text: 'b' }] } } },
      [
        {
          type: 'document',
          source: {
            type: 'content',
            content: [
              { type: 'text', text: 'a' },
              { type: 'text', text: 'b' },
            ],
          },
          title: 'n',
        },
      ],
    ],
    [
      'guarded text',
      { guardContent: { text: { text: 'g', qualifiers: [] } } },
      [{ type: 'text', text: 'g' }],
    ],
    ['citations', { citations: { citations: [], content: [{ text: 'c' }] } }, [{ type: 'text', text: 'c' }]],
    ['reasoning in a user message (dropped)', { reasoning: { text: 'r', signature: 's' } }, []],
  ])('%s', (_name, block, blocks) => {
    expect(toAnthropicMessages([user({ text: 'q' }, block)])).toStrictEqual([
      { role: 'user', content: [{ type: 'text', text: 'q' }, ...blocks] },
    ])
  })
})

describe('toAnthropicMessages: assistant blocks', () => {
  it.each<[string, ContentBlockData, AnthropicContentBlock[]]>([
    ['tool use', call('c1', { a: 1 }), [{ type: 'tool_use', id: 'c1', name: 'lookup', input: { a: 1 } }]],
    [
      'signed reasoning',
      { reasoning: { text: 'think', signature: 'sig' } },
      [{ type: 'thinking', thinking: 'think', signature: 'sig' }],
    ],
    [
      'redacted reasoning (base64 decoded back to the provider data)',
      { reasoning: { redactedContent: Buffer.from('EqQBCkYI').toString('base64') } },
      [{ type: 'redacted_thinking', data: 'EqQBCkYI' }],
    ],
    ['unsigned reasoning (dropped)', { reasoning: { text: 'think' } }, []],
  ])('%s', (_name, block, blocks) => {
    const answers = 'toolUse' in block ? [user(result(block.toolUse.toolUseId))] : []
    const out = toAnthropicMessages([user({ text: 'q' }), assistant(block, { text: 'a' }), ...answers])
    expect(out[1]).toStrictEqual({
      role: 'assistant',
      content: [...blocks, { type: 'text', text: 'a' }],
    })
  })
})

describe('toAnthropicMessages: cache points', () => {
  it('sets cache_control on the block before, with a 5m or 1h ttl; drops a point with nothing before it', () => {
    const out = toAnthropicMessages([
      user(
        { cachePoint: { cacheType: 'default' } },
        { text: 'a' },
        { cachePoint: { cacheType: 'default', ttl: '1h' } },
      ),
      assistant({ text: 'b' }, { cachePoint: { cacheType: 'default', ttl: '3m' } }),
    ])
    expect(out).toStrictEqual([
      {
        role: 'user',
        content: [{ type: 'text', text: 'a', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'b', cache_control: { type: 'ephemeral' } }] },
    ])
  })
})

describe('toAnthropicMessages: tool results', () => {
  it('sends every item kind it can, with is_error for an error', () => {
    const out = toAnthropicMessages([assistant(call('tu-1')), everyToolResultMessage], {
      unsupported: 'placeholder',
    })
    expect(out[1]).toStrictEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'tu-1',
          is_error: true,
          content: [
            { type: 'text', text: 'partial' },
            { type: 'text', text: '{"rows":[{"id":1}],"ok":false}' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            { type: 'text', text: unsupportedPlaceholder('video', PROVIDER) },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'a,b' }, title: 'r' },
          ],
        },
      ],
    })
  })

  it('omits the content of an empty result and puts tool results first', () => {
    expect(
      toAnthropicMessages([assistant(call('c1')), user({ text: 'and' }, result('c1', []))])[1],
    ).toStrictEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'c1' },
        { type: 'text', text: 'and' },
      ],
    })
  })
})

describe('toAnthropicMessages: alternation', () => {
  it('merges same-role runs, tool results first in a user run, and skips messages left empty', () => {
    const out = toAnthropicMessages([
      user({ text: 'pinned note' }),
      user({ text: 'q' }),
      assistant(call('c1')),
      assistant({ reasoning: { text: 'unsigned' } }),
      user({ text: 'late note' }),
      user(result('c1')),
      assistant({ text: 'done' }),
      assistant({ text: 'really' }),
    ])
    expect(out.map((m) => [m.role, m.content.map((b) => b.type)])).toStrictEqual([
      ['user', ['text', 'text']],
      ['assistant', ['tool_use']],
      ['user', ['tool_result', 'text']],
      ['assistant', ['text', 'text']],
    ])
  })
})

describe('toAnthropicMessages: blocks Anthropic cannot take', () => {
  it.each([
    ...UNSENDABLE,
    ['audio', { audio: { format: 'mp3', source: { bytes: 'AAAA' } } }] as [string, ContentBlockData],
  ])('refuses %s with INVALID_MESSAGE and its path, or sends a placeholder', (kind, block) => {
    const messages = [user({ text: 'q' }, block)]
    const error = refusal(() => toAnthropicMessages(messages))
    expect(error.code).toBe('INVALID_MESSAGE')
    expect(error.path).toBe(`[0].content[1].${Object.keys(block)[0] ?? ''}`)
    expect(toAnthropicMessages(messages, { unsupported: 'placeholder' })).toStrictEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'q' },
          { type: 'text', text: unsupportedPlaceholder(kind, PROVIDER) },
        ],
      },
    ])
  })

  it('refuses media in an assistant message; with placeholders keeps text, tool use and thinking', () => {
    const window = [everyBlockMessage, everyToolResultMessage]
    expect(refusal(() => toAnthropicMessages(window)).path).toBe('[0].content[5].guardContent')
    const out = toAnthropicMessages(window, { unsupported: 'placeholder' })
    expect(out).toHaveLength(2)
    const types = out[0]?.content.map((b) => b.type)
    expect(types?.slice(0, 4)).toStrictEqual(['text', 'tool_use', 'thinking', 'redacted_thinking'])
  })
})

describe('converter options', () => {
  it('refuses an unknown unsupported mode with INVALID_OPTIONS, before converting anything', () => {
    const bad = { unsupported: 'skip' } as unknown as ConvertOptions
    for (const convert of [toAnthropicMessages, toOpenAIChatMessages, toOpenAIResponsesInput]) {
      const error = refusal(() => convert([], bad))
      expect([error.code, error.path]).toStrictEqual(['INVALID_OPTIONS', 'unsupported'])
    }
  })
})
