import { describe, expect, it } from 'vitest'
import { validateMessage } from '../../src/index.js'
import { refusal } from '../helpers/refusal.js'
import { everyBlockMessage, everyToolResultMessage } from '../helpers/all-blocks.js'

/** The path an INVALID_MESSAGE refusal names. */
function pathOf(input: unknown, limits?: { maxDepth: number; maxStringLength: number }): string | undefined {
  const error = refusal(() => validateMessage(input, limits))
  expect(error.code).toBe('INVALID_MESSAGE')
  return error.path
}

describe('validateMessage', () => {
  it('accepts every Strands block kind and returns a plain copy that serializes identically', () => {
    for (const message of [everyBlockMessage, everyToolResultMessage]) {
      const valid = validateMessage(message)
      expect(valid).not.toBe(message)
      expect(JSON.stringify(valid)).toBe(JSON.stringify(message))
    }
  })

  it('names the path of the first bad field', () => {
    expect(pathOf({ role: 'system', content: [] })).toBe('role')
    expect(pathOf({ role: 'user' })).toBe('content')
    expect(pathOf({ role: 'user', content: [{ txt: 'x' }] })).toBe('content[0].txt')
    expect(pathOf({ role: 'user', content: [{ text: 'a', image: {} }] })).toBe('content[0]')
    expect(pathOf({ role: 'user', content: [{ text: 1 }] })).toBe('content[0].text')
    expect(
      pathOf({ role: 'user', content: [{ toolResult: { toolUseId: 'x', status: 'ok', content: [] } }] }),
    ).toBe('content[0].toolResult.status')
    expect(
      pathOf({
        role: 'user',
        content: [{ toolResult: { toolUseId: 'x', status: 'error', content: [{ reasoning: {} }] } }],
      }),
    ).toBe('content[0].toolResult.content[0].reasoning')
    expect(pathOf({ role: 'user', content: [], extra: 1 })).toBe('(message)')
    expect(pathOf({ role: 'user', content: [{ image: { format: 'png', source: { bytes: '***' } } }] })).toBe(
      'content[0].image.source.bytes',
    )
  })

  it('refuses values JSON cannot carry faithfully', () => {
    expect(pathOf({ role: 'user', content: [{ text: 'a\ud800b' }] })).toBe('content[0].text')
    expect(
      pathOf({ role: 'assistant', content: [{ toolUse: { name: 'f', toolUseId: 'i', input: { x: NaN } } }] }),
    ).toBe('content[0].toolUse.input.x')
    expect(
      pathOf({
        role: 'assistant',
        content: [{ toolUse: { name: 'f', toolUseId: 'i', input: { x: Infinity } } }],
      }),
    ).toBe('content[0].toolUse.input.x')
    const proto: unknown = JSON.parse(
      '{"role":"user","content":[],"metadata":{"custom":{"__proto__":{"polluted":true}}}}',
    )
    expect(pathOf(proto)).toBe('metadata.custom.__proto__')
    expect(pathOf({ role: 'user', content: [{ text: new Date() }] })).toBe('content[0].text')
    let deep: unknown = 1
    for (let i = 0; i < 100; i++) deep = { d: deep }
    expect(
      pathOf({ role: 'assistant', content: [{ toolUse: { name: 'f', toolUseId: 'i', input: deep } }] }),
    ).toMatch(/^content\[0\]\.toolUse\.input(\.d)+$/)
    expect(
      pathOf({ role: 'user', content: [{ text: 'x'.repeat(257) }] }, { maxDepth: 64, maxStringLength: 256 }),
    ).toBe('content[0].text')
  })
})

describe('validateMessage with shared and circular values', () => {
  it('refuses a value that contains itself at the first repeat, naming the path', () => {
    const input: Record<string, unknown> = { q: 'x', nested: { list: [] as unknown[] } }
    ;(input.nested as { list: unknown[] }).list.push(input)
    const error = refusal(() =>
      validateMessage({
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 't', name: 'n', input: input as never } }],
      }),
    )
    expect(error.code).toBe('INVALID_MESSAGE')
    expect(error.path).toBe('content[0].toolUse.input.nested.list[0]')
    expect(error.message).toMatch(/circular reference/)
  })

  it('accepts one object reached twice without a cycle, and copies it twice', () => {
    const shared = { k: 'v' }
    const message = validateMessage({
      role: 'assistant',
      content: [{ toolUse: { toolUseId: 't', name: 'n', input: { a: shared, b: [shared, shared] } } }],
    })
    expect(JSON.stringify(message.content)).toBe(
      '[{"toolUse":{"toolUseId":"t","name":"n","input":{"a":{"k":"v"},"b":[{"k":"v"},{"k":"v"}]}}}]',
    )
  })
})

describe('validateMessage with blank text', () => {
  it.each([
    ['an empty text block', { role: 'user', content: [{ text: '' }] }, 'content[0].text'],
    ['a whitespace-only text block', { role: 'user', content: [{ text: ' \n\t' }] }, 'content[0].text'],
    [
      'a blank text item of a tool result',
      {
        role: 'user',
        content: [{ toolResult: { toolUseId: 't', status: 'success', content: [{ text: '  ' }] } }],
      },
      'content[0].toolResult.content[0].text',
    ],
  ])('refuses %s, naming its path (providers refuse blank text)', (_name, message, path) => {
    const error = refusal(() => validateMessage(message))
    expect([error.code, error.path]).toStrictEqual(['INVALID_MESSAGE', path])
  })
})

describe('validateMessage with prototype-named keys', () => {
  it('treats toString, constructor and hasOwnProperty as unknown kinds, not as methods', () => {
    expect(pathOf({ role: 'user', content: [{ toString: {} }] })).toBe('content[0].toString')
    expect(pathOf({ role: 'user', content: [{ constructor: {} }] })).toBe('content[0].constructor')
    expect(
      pathOf({
        role: 'user',
        content: [{ toolResult: { toolUseId: 'x', status: 'success', content: [{ hasOwnProperty: 'x' }] } }],
      }),
    ).toBe('content[0].toolResult.content[0].hasOwnProperty')
  })
})
