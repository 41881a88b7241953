/**
 * `toOpenAIResponsesInput`: each block kind, the order of items, tool outputs as text or parts, and
 * what happens to blocks the Responses API cannot take.
 */
import { describe, expect, it } from 'vitest'
import {
  toOpenAIResponsesInput,
  unsupportedPlaceholder,
  type ContentBlockData,
  type OpenAIResponsesContent,
} from '../../src/index.js'
import { everyBlockMessage, everyToolResultMessage } from '../helpers/all-blocks.js'
import { refusal } from '../helpers/refusal.js'
import { assistant, call, CSV, PDF, PNG, result, UNSENDABLE, user } from './blocks.js'

const PROVIDER = 'OpenAI Responses'

describe('toOpenAIResponsesInput: user blocks', () => {
  it.each<[string, ContentBlockData, OpenAIResponsesContent[]]>([
    ['text', { text: 'hi' }, [{ type: 'input_text', text: 'hi' }]],
    [
      'image bytes',
      { image: { format: 'webp', source: { bytes: PNG } } },
      [{ type: 'input_image', image_url: `data:image/webp;base64,${PNG}`, detail: 'auto' }],
    ],
    [
      'image url',
      { image: { format: 'png', source: { url: 'https://x/a.png' } } },
      [{ type: 'input_image', image_url: 'https://x/a.png', detail: 'auto' }],
    ],
    [
      'pdf bytes',
      { document: { name: 'report', format: 'pdf', source: { bytes: PDF } } },
      [{ type: 'input_file', filename: 'report', file_data: `data:application/pdf;base64,${PDF}` }],
    ],
    [
      'csv bytes',
      { document: { name: 'n', format: 'csv', source: { bytes: CSV } } },
      [{ type: 'input_text', text: 'a,b' }],
    ],
    [
      'guarded image',
      { guardContent: { image: { format: 'png', source: { bytes: PNG } } } },
      [{ type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' }],
    ],
    [
      'citations',
      { citations: { citations: [], content: [{ text: 'cited' }] } },
      [{ type: 'input_text', text: 'cited' }],
    ],
    ['cache point (dropped)', { cachePoint: { cacheType: 'default', ttl: '5m' } }, []],
    ['reasoning (dropped)', { reasoning: { text: 'r' } }, []],
  ])('%s', (_name, block, parts) => {
    expect(toOpenAIResponsesInput([user({ text: 'q' }, block)])).toStrictEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'q' }, ...parts] },
    ])
  })
})

describe('toOpenAIResponsesInput: assistant blocks', () => {
  it('keeps block order: text, function_call, text; reasoning dropped', () => {
    const out = toOpenAIResponsesInput([
      assistant(
        { reasoning: { text: 'hidden', signature: 's' } },
        { text: 'first' },
        { text: 'second' },
        call('c1', { a: 1 }),
        { text: 'after' },
      ),
      user(result('c1')),
    ])
    expect(out.slice(0, 3)).toStrictEqual([
      { type: 'message', role: 'assistant', content: 'first\nsecond' },
      { type: 'function_call', call_id: 'c1', name: 'lookup', arguments: '{"a":1}' },
      { type: 'message', role: 'assistant', content: 'after' },
    ])
  })
})

describe('toOpenAIResponsesInput: tool outputs', () => {
  it('puts function_call_output items before the user message, text-only results as strings', () => {
    const out = toOpenAIResponsesInput([
      assistant(call('c1'), call('c2')),
      user({ text: 'go on' }, result('c1', [{ text: 'a' }, { json: [1] }]), result('c2', [], 'error')),
    ])
    expect(out.slice(2)).toStrictEqual([
      { type: 'function_call_output', call_id: 'c1', output: 'a\n[1]' },
      { type: 'function_call_output', call_id: 'c2', output: '[ERROR] (no output)' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go on' }] },
    ])
  })

  it('sends a result with media as parts, led by [ERROR] for an error', () => {
    const out = toOpenAIResponsesInput([assistant(call('tu-1')), everyToolResultMessage], {
      unsupported: 'placeholder',
    })
    expect(out[1]).toStrictEqual({
      type: 'function_call_output',
      call_id: 'tu-1',
      output: [
        { type: 'input_text', text: '[ERROR]' },
        { type: 'input_text', text: 'partial' },
        { type: 'input_text', text: '{"rows":[{"id":1}],"ok":false}' },
        { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
        { type: 'input_text', text: unsupportedPlaceholder('video', PROVIDER) },
        { type: 'input_text', text: 'a,b' },
      ],
    })
  })
})

describe('toOpenAIResponsesInput: blocks the API cannot take', () => {
  it.each([
    ...UNSENDABLE,
    ['audio', { audio: { format: 'mp3', source: { bytes: 'AAAA' } } }] as [string, ContentBlockData],
  ])('refuses %s with INVALID_MESSAGE and its path, or sends a placeholder', (kind, block) => {
    const messages = [user({ text: 'q' }, block)]
    const error = refusal(() => toOpenAIResponsesInput(messages))
    expect(error.code).toBe('INVALID_MESSAGE')
    expect(error.path).toBe(`[0].content[1].${Object.keys(block)[0] ?? ''}`)
    expect(toOpenAIResponsesInput(messages, { unsupported: 'placeholder' })).toStrictEqual([
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'q' },
          { type: 'input_text', text: unsupportedPlaceholder(kind, PROVIDER) },
        ],
      },
    ])
  })

  it('refuses media in an assistant message; with placeholders keeps the function call', () => {
    const window = [everyBlockMessage, everyToolResultMessage]
    expect(refusal(() => toOpenAIResponsesInput(window)).path).toBe('[0].content[5].guardContent')
    const out = toOpenAIResponsesInput(window, { unsupported: 'placeholder' })
    expect(out.filter((i) => i.type === 'function_call').map((i) => i.call_id)).toStrictEqual(['tu-1'])
  })
})
