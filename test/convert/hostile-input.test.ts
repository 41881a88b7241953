/**
 * What the converters refuse before converting anything: a window that is not an array of valid
 * messages, and options that are not an object of known options. Each refusal is a ContextLedgerError
 * with a code and a path, from all three converters alike — never a raw TypeError.
 */
import { describe, expect, it } from 'vitest'
import {
  toAnthropicMessages,
  toOpenAIChatMessages,
  toOpenAIResponsesInput,
  type ErrorCode,
} from '../../src/index.js'
import { refusal } from '../helpers/refusal.js'
import { assistant, call, result, user } from './blocks.js'

/** The three converters, typed for what JavaScript callers can pass them. */
const CONVERTERS = [
  ['chat', toOpenAIChatMessages],
  ['responses', toOpenAIResponsesInput],
  ['anthropic', toAnthropicMessages],
] as [string, (messages: unknown, options?: unknown) => unknown][]

const circular: Record<string, unknown> = { q: 'x' }
circular.self = circular
const throwing = { role: 'user' } as Record<string, unknown>
Object.defineProperty(throwing, 'content', {
  enumerable: true,
  get() {
    throw new TypeError('boom')
  },
})
const revoked = (() => {
  const { proxy, revoke } = Proxy.revocable([], {})
  revoke()
  return proxy
})()
const ask = user({ text: 'q' })
/** A user question, then an assistant message holding `block`, answered by a result for `t`. */
const asked = (block: unknown): unknown[] => [ask, { role: 'assistant', content: [block] }, user(result('t'))]

const BAD_WINDOWS: [string, unknown, string][] = [
  ['null', null, 'messages'],
  ['undefined', undefined, 'messages'],
  ['a number', 42, 'messages'],
  ['a string', 'str', 'messages'],
  ['an object', { 0: ask, length: 1 }, 'messages'],
  ['[null]', [null], '[0]'],
  ['[42]', [42], '[0]'],
  ['a hole', [, ask], '[0]'], // eslint-disable-line no-sparse-arrays -- the hole is the input under test
  ['[{}]', [{}], '[0].role'],
  ['a message without content', [{ role: 'user' }], '[0].content'],
  ['content: null', [{ role: 'user', content: null }], '[0].content'],
  ['content: [null]', [ask, { role: 'user', content: [null] }], '[1].content[0]'],
  ['empty content', [{ role: 'user', content: [] }], '[0].content'],
  ['a system message', [{ role: 'system', content: [{ text: 'be terse' }] }], '[0].role'],
  ['blank text', [user({ text: ' \n' })], '[0].content[0].text'],
  ['empty text', [ask, assistant({ text: '' })], '[1].content[0].text'],
  [
    'an unknown block kind',
    [{ role: 'user', content: [{ text: 'q' }, { futureBlock: {} }] }],
    '[0].content[1].futureBlock',
  ],
  [
    'toolResult.content: null',
    [
      ask,
      assistant(call('t')),
      { role: 'user', content: [{ toolResult: { toolUseId: 't', status: 'success', content: null } }] },
    ],
    '[2].content[0].toolResult.content',
  ],
  [
    'a toolUse without input',
    asked({ toolUse: { toolUseId: 't', name: 'lookup' } }),
    '[1].content[0].toolUse.input',
  ],
  [
    'a numeric toolUseId',
    asked({ toolUse: { toolUseId: 7, name: 'lookup', input: {} } }),
    '[1].content[0].toolUse.toolUseId',
  ],
  [
    'a BigInt in toolUse.input',
    asked({ toolUse: { toolUseId: 't', name: 'lookup', input: { n: 1n } } }),
    '[1].content[0].toolUse.input.n',
  ],
  [
    'a Date in toolUse.input',
    asked({ toolUse: { toolUseId: 't', name: 'lookup', input: { at: new Date(0) } } }),
    '[1].content[0].toolUse.input.at',
  ],
  ['a getter that throws', [throwing], '[0].content'],
  [
    'an array whose element getter throws',
    new Proxy([ask], {
      get: (target, key, receiver) => {
        if (key === '0') throw new TypeError('boom')
        return Reflect.get(target, key, receiver) as unknown
      },
    }),
    'messages',
  ],
  ['a revoked Proxy', revoked, 'messages'],
]

describe('converters refuse a window that is not an array of valid messages', () => {
  describe.each(CONVERTERS)('%s', (_name, convert) => {
    it.each(BAD_WINDOWS)('%s', (_case, window, path) => {
      const error = refusal(() => convert(window))
      expect([error.code, error.path]).toStrictEqual(['INVALID_MESSAGE', path])
    })

    it('a circular toolUse.input: INVALID_MESSAGE inside the input', () => {
      const error = refusal(() =>
        convert(asked({ toolUse: { toolUseId: 't', name: 'lookup', input: circular } })),
      )
      expect(error.code).toBe('INVALID_MESSAGE')
      expect(error.path).toBe('[1].content[0].toolUse.input.self')
      expect(error.message).toMatch(/circular reference/)
    })

    it('an unknown block kind even with placeholders (it is no stored block)', () => {
      const error = refusal(() =>
        convert([{ role: 'user', content: [{ futureBlock: {} }] }], { unsupported: 'placeholder' }),
      )
      expect([error.code, error.path]).toStrictEqual(['INVALID_MESSAGE', '[0].content[0].futureBlock'])
    })

    it("names the message's index in the error message", () => {
      expect(refusal(() => convert([ask, user({ text: '' })])).message).toMatch(/^Message 1 of the window: /)
    })
  })
})

const BAD_OPTIONS: [string, unknown, ErrorCode, string][] = [
  ['null', null, 'INVALID_OPTIONS', 'options'],
  ['a number', 42, 'INVALID_OPTIONS', 'options'],
  ['a string', 'placeholder', 'INVALID_OPTIONS', 'options'],
  ['an array', [], 'INVALID_OPTIONS', 'options'],
  ['an unknown option', { unsuported: 'placeholder' }, 'INVALID_OPTIONS', 'unsuported'],
  ['an unknown unsupported mode', { unsupported: 'skip' }, 'INVALID_OPTIONS', 'unsupported'],
  ['an unknown pendingToolUse mode', { pendingToolUse: 'keep' }, 'INVALID_OPTIONS', 'pendingToolUse'],
  ['a non-string mode', { pendingToolUse: true }, 'INVALID_OPTIONS', 'pendingToolUse'],
]

describe('converters refuse options that are not an object of known options', () => {
  describe.each(CONVERTERS)('%s', (_name, convert) => {
    it.each(BAD_OPTIONS)('%s', (_case, options, code, path) => {
      const error = refusal(() => convert([ask], options))
      expect([error.code, error.path]).toStrictEqual([code, path])
    })

    it('takes undefined, {} and options set to undefined', () => {
      for (const options of [undefined, {}, { unsupported: undefined, pendingToolUse: undefined }])
        expect(convert([ask], options)).toHaveLength(1)
    })
  })
})

describe('the converted request shares nothing with the window', () => {
  it('a tool input in the output is a copy: changing it leaves the window as it was', () => {
    const window = [ask, assistant(call('t', { q: 'x' })), user(result('t'))]
    const before = JSON.stringify(window)
    const [, reply] = toAnthropicMessages(window)
    const use = reply?.content[0]
    if (use?.type !== 'tool_use') throw new Error('expected a tool_use block')
    ;(use.input as { q: string }).q = 'changed'
    expect(JSON.stringify(window)).toBe(before)
  })
})
