/**
 * Tool calls and results that do not pair up as a provider requires: each converter refuses them with
 * INVALID_MESSAGE naming the block, rather than handing back a request the provider would refuse. A
 * window ending with calls still waiting (a crash between a call and its result) is refused too, or cut
 * back to its last user message with `pendingToolUse: 'drop'`. Whatever a converter returns for any mix
 * of calls and results, the provider takes.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  toAnthropicMessages,
  toOpenAIChatMessages,
  toOpenAIResponsesInput,
  type ContentBlockData,
  type ContextStore,
  type ConvertOptions,
  type MessageData,
} from '../../src/index.js'
import { refusal } from '../helpers/refusal.js'
import { useTempStore } from '../helpers/temp-store.js'
import { assistant, call, result, user } from './blocks.js'
import { anthropicProblem, chatProblem, responsesProblem } from './provider-rules.js'

type Convert = (messages: readonly MessageData[], options?: ConvertOptions) => unknown[]
const chat: Convert = toOpenAIChatMessages
const responses: Convert = toOpenAIResponsesInput
const anthropic: Convert = toAnthropicMessages
const ALL: [string, Convert][] = [
  ['chat', chat],
  ['responses', responses],
  ['anthropic', anthropic],
]
const q = user({ text: 'q' })

function refusedAt(convert: Convert, window: MessageData[], path: string, options?: ConvertOptions): string {
  const error = refusal(() => convert(window, options))
  expect([error.code, error.path]).toStrictEqual(['INVALID_MESSAGE', path])
  return error.message
}

describe.each(ALL)('%s refuses tool blocks that do not pair up', (_name, convert) => {
  it('an orphan toolResult (no call before it)', () => {
    const message = refusedAt(convert, [q, user(result('t9'))], '[1].content[0].toolResult.toolUseId')
    expect(message).toContain('toolResult for "t9" at [1].content[0].toolResult.toolUseId answers no toolUse')
  })

  it('a toolResult answering a call of an earlier turn', () => {
    const window = [
      q,
      assistant(call('t1')),
      user(result('t1')),
      assistant({ text: 'done' }),
      user(result('t1')),
    ]
    refusedAt(convert, window, '[4].content[0].toolResult.toolUseId')
  })

  it('an unanswered toolUse followed by user text', () => {
    const window = [q, assistant({ text: 'looking' }, call('t1')), user({ text: 'never mind' })]
    const message = refusedAt(convert, window, '[1].content[1].toolUse.toolUseId')
    expect(message).toContain('has no toolResult in the user message after it')
    expect(message).toContain('Add its result (or an error result)')
  })

  it('a call left unanswered by a partial answer', () => {
    const window = [q, assistant(call('t1'), call('t2')), user(result('t1')), assistant({ text: 'a' })]
    refusedAt(convert, window, '[1].content[1].toolUse.toolUseId')
  })

  it('two results for one call, in two messages', () => {
    const window = [q, assistant(call('t1')), user(result('t1')), user(result('t1'))]
    expect(refusedAt(convert, window, '[3].content[0].toolResult.toolUseId')).toContain('already answered')
  })

  it('two results for one call in one message (refused by validation)', () => {
    refusedAt(
      convert,
      [q, assistant(call('t1')), user(result('t1'), result('t1'))],
      '[2].content[1].toolResult.toolUseId',
    )
  })

  it('two calls with one id in one message (refused by validation)', () => {
    refusedAt(
      convert,
      [q, assistant(call('t1'), call('t1')), user(result('t1'))],
      '[1].content[1].toolUse.toolUseId',
    )
  })

  it('a window ending with a call still waiting, by default; naming the option that drops it', () => {
    const message = refusedAt(
      convert,
      [q, assistant({ text: 'one moment' }, call('t1'))],
      '[1].content[1].toolUse.toolUseId',
    )
    expect(message).toContain('still waiting for its result')
    expect(message).toContain("pendingToolUse: 'drop'")
    refusedAt(convert, [q, assistant(call('t1'))], '[1].content[0].toolUse.toolUseId', {
      pendingToolUse: 'error',
    })
  })

  it("with pendingToolUse: 'drop', cuts the window back to its last user message", () => {
    const answered = [q, assistant(call('t0')), user(result('t0'))]
    const drop = { pendingToolUse: 'drop' } as const
    expect(convert([...answered, assistant({ text: 'next' }, call('t1'), call('t2'))], drop)).toStrictEqual(
      convert(answered),
    )
    expect(convert([q, assistant({ text: 'hm' }), assistant(call('t1'))], drop)).toStrictEqual(convert([q]))
    expect(convert([assistant(call('t1'))], drop)).toStrictEqual([])
    // Only the waiting calls of the window's end are dropped; a call left open earlier is still refused.
    refusedAt(
      convert,
      [q, assistant(call('t1')), q, assistant(call('t2'))],
      '[1].content[0].toolUse.toolUseId',
      drop,
    )
  })

  it("with pendingToolUse: 'drop', converts a window with nothing waiting as it is", () => {
    const window = [q, assistant(call('t1')), user(result('t1')), assistant({ text: 'done' })]
    expect(convert(window, { pendingToolUse: 'drop' })).toStrictEqual(convert(window))
  })

  it('converts an assistant-first window as it is (window() never starts with one)', () => {
    const out = convert([assistant({ text: 'Hi! How can I help?' }), q])
    expect(JSON.stringify(out[0])).toContain('"role":"assistant"')
  })
})

describe('what depends on the provider', () => {
  it('OpenAI needs results before other user content after the call; Anthropic merges the run', () => {
    const window = [q, assistant(call('t1')), user({ text: 'meanwhile' }), user(result('t1'))]
    for (const convert of [chat, responses])
      expect(refusedAt(convert, window, '[3].content[0].toolResult.toolUseId')).toContain(
        'comes after user content at [2]',
      )
    expect(anthropicProblem(toAnthropicMessages(window))).toBeUndefined()
    // Results first, then text, in one message or over two, suits everyone.
    const ordered = [q, assistant(call('t1')), user(result('t1')), user({ text: 'meanwhile' })]
    expect(chatProblem(toOpenAIChatMessages(ordered))).toBeUndefined()
    expect(responsesProblem(toOpenAIResponsesInput(ordered))).toBeUndefined()
  })

  it('Anthropic takes a call answered after a run of assistant messages, which it merges; OpenAI does not', () => {
    const window = [q, assistant(call('t1')), assistant({ text: 'then' }), user(result('t1'))]
    expect(anthropicProblem(toAnthropicMessages(window))).toBeUndefined()
    for (const convert of [chat, responses]) refusedAt(convert, window, '[1].content[0].toolUse.toolUseId')
  })

  it('Anthropic and Responses need call ids unique in the request; Chat within a turn', () => {
    const window = [
      q,
      assistant(call('lookup')),
      user(result('lookup')),
      assistant(call('lookup')),
      user(result('lookup')),
    ]
    for (const convert of [responses, anthropic])
      expect(refusedAt(convert, window, '[3].content[0].toolUse.toolUseId')).toContain(
        'reuses the id of the call at [1]',
      )
    expect(chatProblem(toOpenAIChatMessages(window))).toBeUndefined()
    refusedAt(
      anthropic,
      [q, assistant(call('t1')), assistant(call('t1')), user(result('t1'))],
      '[2].content[0].toolUse.toolUseId',
    )
  })

  it('Anthropic needs call ids of letters, digits, _ and -', () => {
    const window = [q, assistant(call('functions.lookup:0')), user(result('functions.lookup:0'))]
    expect(refusedAt(anthropic, window, '[1].content[0].toolUse.toolUseId')).toContain('^[a-zA-Z0-9_-]+$')
    expect(chatProblem(toOpenAIChatMessages(window))).toBeUndefined()
  })
})

describe("a real store's window that ends with a call in flight", () => {
  let store: ContextStore
  useTempStore((opened) => {
    ;({ store } = opened)
  })

  it('is refused by default and converts up to the question with pendingToolUse: drop', () => {
    store.append('s', [q, assistant({ text: 'checking' }, call('t1'))])
    const window = store.window('s')
    expect(window.at(-1)?.role).toBe('assistant')
    for (const [, convert] of ALL) {
      refusedAt(convert, window, '[1].content[1].toolUse.toolUseId')
      expect(convert(window, { pendingToolUse: 'drop' })).toStrictEqual(convert(window.slice(0, 1)))
    }
  })
})

/** Blocks for windows made of any mix of calls and results over a few ids. */
const IDS = ['a', 'b', 'c']
const block = fc.oneof(
  fc.constantFrom(...IDS).map((id): [boolean, ContentBlockData] => [true, call(id)]),
  fc.constantFrom(...IDS).map((id): [boolean, ContentBlockData] => [false, result(id)]),
  fc.constant<[boolean, ContentBlockData]>([true, { text: 'said' }]),
  fc.constant<[boolean, ContentBlockData]>([false, { text: 'asked' }]),
)
const anyWindow = fc.array(
  fc.tuple(
    fc.constantFrom<'user' | 'assistant'>('user', 'assistant'),
    fc.array(block, { minLength: 1, maxLength: 3 }),
  ),
  { maxLength: 8 },
)

describe('whatever a converter returns, the provider takes', () => {
  it('for any mix of calls, results and text: a refusal with a path, or a request with no problem', () => {
    fc.assert(
      fc.property(
        anyWindow,
        fc.constantFrom<ConvertOptions>({}, { pendingToolUse: 'drop' }),
        (shape, options) => {
          const window = shape.map(([role, blocks]): MessageData => ({
            role,
            // A call in a user message or a result in an assistant message is another matter (placeholders).
            content: blocks
              .filter(([forAssistant]) => forAssistant === (role === 'assistant'))
              .map(([, b]) => b),
          }))
          const valid = window.filter((m) => m.content.length > 0)
          const checks: [Convert, (out: never) => string | undefined][] = [
            [chat, chatProblem],
            [responses, responsesProblem],
            [anthropic, anthropicProblem],
          ]
          for (const [convert, problem] of checks) {
            let out: unknown[]
            try {
              out = convert(valid, options)
            } catch (error) {
              const refused = refusal(() => {
                throw error
              })
              expect(refused.code).toBe('INVALID_MESSAGE')
              expect(refused.path).toMatch(/^\[\d+\]\.content\[\d+\]\./)
              continue
            }
            expect(problem(out as never)).toBeUndefined()
          }
        },
      ),
      { numRuns: 400 },
    )
  })
})
