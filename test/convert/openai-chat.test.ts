/**
 * `toOpenAIChatMessages`: each block kind, the split of tool results into `tool` messages, and what
 * happens to blocks OpenAI cannot take.
 */
import { describe, expect, it } from 'vitest'
import {
  toOpenAIChatMessages,
  unsupportedPlaceholder,
  type ContentBlockData,
  type OpenAIChatContentPart,
} from '../../src/index.js'
import { everyBlockMessage, everyToolResultMessage } from '../helpers/all-blocks.js'
import { refusal } from '../helpers/refusal.js'
import { assistant, call, CSV, PDF, PNG, result, UNSENDABLE, user } from './blocks.js'

describe('toOpenAIChatMessages: user blocks', () => {
  it.each<[string, ContentBlockData, OpenAIChatContentPart[]]>([
    ['text', { text: 'hi' }, [{ type: 'text', text: 'hi' }]],
    [
      'image bytes',
      { image: { format: 'jpg', source: { bytes: PNG } } },
      [{ type: 'image_url', image_url: { url: `data:image/jpeg;base64,${PNG}` } }],
    ],
    [
      'image url',
      { image: { format: 'png', source: { url: 'https://x/a.png' } } },
      [{ type: 'image_url', image_url: { url: 'https://x/a.png' } }],
    ],
    [
      'pdf bytes',
      { document: { name: 'report', format: 'pdf', source: { bytes: PDF } } },
      [{ type: 'file', file: { filename: 'report', file_data: `data:application/pdf;base64,${PDF}` } }],
    ],
    [
      'text document',
      { document: { name: 'n', format: 'txt', source: { text: 'plain' } } },
      [{ type: 'text', text: 'plain' }],
    ],
    [
      'csv bytes',
      { document: { name: 'n', format: 'csv', source: { bytes: CSV } } },
      [{ type: 'text', text: 'a,b' }],
    ],
    [
      'document of text blocks',
      { document: { name: 'n', format: 'txt', source: { content: [{ text: 'a' }, { text: 'b' }] } } },
      [{ type: 'text', text: 'a\nb' }],
    ],
    [
      'mp3 audio',
      { audio: { format: 'mp3', source: { bytes: 'AAAA' } } },
      [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'mp3' } }],
    ],
    [
      'guarded text',
      { guardContent: { text: { text: 'g', qualifiers: [] } } },
      [{ type: 'text', text: 'g' }],
    ],
    [
      'citations',
      { citations: { citations: [], content: [{ text: 'a' }, { text: 'b' }] } },
      [{ type: 'text', text: 'ab' }],
    ],
    ['cache point (dropped)', { cachePoint: { cacheType: 'default' } }, []],
  ])('%s', (_name, block, parts) => {
    const out = toOpenAIChatMessages([user({ text: 'q' }, block)])
    expect(out).toStrictEqual([{ role: 'user', content: [{ type: 'text', text: 'q' }, ...parts] }])
  })
})

describe('toOpenAIChatMessages: assistant blocks', () => {
  it('joins text blocks and turns toolUse into tool_calls with JSON-string arguments', () => {
    const out = toOpenAIChatMessages([
      assistant({ text: 'let me look' }, call('c1', { q: 'x', n: [1, 2] }), { text: 'and this' }, call('c2')),
      user(result('c1'), result('c2')),
    ])
    expect(out.slice(0, 1)).toStrictEqual([
      {
        role: 'assistant',
        content: 'let me look\nand this',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x","n":[1,2]}' } },
          { id: 'c2', type: 'function', function: { name: 'lookup', arguments: '{"q":"c2"}' } },
        ],
      },
    ])
  })

  it('sends content null beside tool calls when there is no text', () => {
    expect(toOpenAIChatMessages([assistant(call('c1')), user(result('c1'))])[0]).toMatchObject({
      content: null,
    })
  })

  it('drops reasoning and cache points, and a message left empty', () => {
    const out = toOpenAIChatMessages([
      user({ text: 'q' }),
      assistant({ reasoning: { text: 'hmm', signature: 's' } }, { cachePoint: { cacheType: 'default' } }),
      assistant({ reasoning: { text: 'hmm' } }, { text: 'a' }),
    ])
    expect(out).toStrictEqual([
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      { role: 'assistant', content: 'a' },
    ])
  })
})

describe('toOpenAIChatMessages: tool results', () => {
  it('puts tool messages first, then the user message with the other blocks', () => {
    const out = toOpenAIChatMessages([
      assistant(call('c1'), call('c2')),
      user({ text: 'also this' }, result('c1'), result('c2', [{ json: { ok: false } }], 'error')),
    ])
    expect(out.slice(1)).toStrictEqual([
      { role: 'tool', tool_call_id: 'c1', content: 'result c1' },
      { role: 'tool', tool_call_id: 'c2', content: '[ERROR] {"ok":false}' },
      { role: 'user', content: [{ type: 'text', text: 'also this' }] },
    ])
  })

  it('sends an empty result as "(no output)"', () => {
    expect(toOpenAIChatMessages([assistant(call('c1')), user(result('c1', []))])[1]).toStrictEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: '(no output)',
    })
  })

  it('moves images and files of a result to the user message after the tool messages', () => {
    const out = toOpenAIChatMessages([assistant(call('tu-1')), everyToolResultMessage], {
      unsupported: 'placeholder',
    })
    expect(out.slice(1)).toStrictEqual([
      {
        role: 'tool',
        tool_call_id: 'tu-1',
        content: `[ERROR] partial\n{"rows":[{"id":1}],"ok":false}\n${unsupportedPlaceholder('video', 'OpenAI Chat Completions')}\na,b`,
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Attachments of the result of tool call tu-1:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ])
  })

  it('says the result is attached when it holds media only', () => {
    const out = toOpenAIChatMessages([
      assistant(call('c1')),
      user(result('c1', [{ image: { format: 'png', source: { bytes: PNG } } }])),
    ])
    expect(out[1]).toStrictEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: '(attached in the next user message)',
    })
    expect(out[2]?.role).toBe('user')
  })
})

describe('toOpenAIChatMessages: blocks OpenAI cannot take', () => {
  it.each(UNSENDABLE)(
    'refuses %s with INVALID_MESSAGE and its path, or sends a placeholder',
    (kind, block) => {
      const messages = [user({ text: 'q' }, block)]
      const error = refusal(() => toOpenAIChatMessages(messages))
      expect(error.code).toBe('INVALID_MESSAGE')
      expect(error.path).toBe(`[0].content[1].${Object.keys(block)[0] ?? ''}`)
      expect(toOpenAIChatMessages(messages, { unsupported: 'placeholder' })[0]).toMatchObject({
        content: [
          { text: 'q' },
          { type: 'text', text: unsupportedPlaceholder(kind, 'OpenAI Chat Completions') },
        ],
      })
    },
  )

  it('refuses media in an assistant message, and names a nested tool-result item by its path', () => {
    expect(
      refusal(() =>
        toOpenAIChatMessages([
          user({ text: 'q' }),
          assistant({ image: { format: 'png', source: { bytes: PNG } } }),
        ]),
      ).path,
    ).toBe('[1].content[0].image')
    const nested = [
      assistant(call('c')),
      user(result('c', [{ video: { format: 'mp4', source: { bytes: 'AAAA' } } }])),
    ]
    expect(refusal(() => toOpenAIChatMessages(nested)).path).toBe(
      '[1].content[0].toolResult.content[0].video',
    )
  })

  it('converts every block kind with placeholders and keeps the tool call', () => {
    const out = toOpenAIChatMessages([user({ text: 'q' }), everyBlockMessage, everyToolResultMessage], {
      unsupported: 'placeholder',
    })
    expect(out[1]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'tu-1' }] })
    expect((out[1] as { content: string }).content).toContain('héllo — ✓ 🚀\nguarded')
  })
})
