/**
 * What is validated is what is stored. A caller's object can answer two reads differently — a getter, a
 * Proxy, a non-enumerable `toJSON` that only `JSON.stringify` calls — so the store reads every property
 * once into a plain copy and validates, counts and stores that copy. Plain JSON still round-trips
 * byte-identically.
 */
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type ContextStore, type JsonValue } from '../../src/index.js'
import { ledgerChecksum } from '../reliability/db-checksum.js'
import { refusal } from '../helpers/refusal.js'
import { tempStore } from '../helpers/temp-store.js'
import { fcRuns } from '../helpers/runs.js'

let store: ContextStore
let cleanup: () => void
beforeEach(() => {
  ;({ store, cleanup } = tempStore({ limits: { maxStringLength: 4096 } }))
  store.append('s', { role: 'user', content: [{ text: 'hello' }] })
})
afterEach(() => {
  cleanup()
})

const SMUGGLED = { toolResult: { toolUseId: 'never-made', status: 'success', content: [{ text: 'x' }] } }

/** A value whose `key` reads as `first` once, then as `later` on every further read. */
function flipping<T extends object>(target: T, key: string, first: unknown, later: unknown): T {
  let reads = 0
  Object.defineProperty(target, key, {
    enumerable: true,
    get: () => (reads++ === 0 ? first : later),
  })
  return target
}

describe('validation checks one read of the object; storage serializes another', () => {
  it('refuses a non-enumerable toJSON anywhere, which would let a text message be stored as a toolResult', () => {
    const before = ledgerChecksum(store.connection())
    const block = { text: 'just text' }
    Object.defineProperty(block, 'toJSON', { enumerable: false, value: () => SMUGGLED })
    const onBlock = refusal(() => store.append('s', { role: 'user', content: [block], trackingId: 't1' }))
    expect([onBlock.code, onBlock.path]).toStrictEqual(['INVALID_MESSAGE', 'content[0].toJSON'])

    const message = { role: 'user', content: [{ text: 'just text' }], trackingId: 't2' }
    Object.defineProperty(message, 'toJSON', {
      enumerable: false,
      value: () => ({ role: 'user', content: [SMUGGLED], trackingId: 't2' }),
    })
    expect(refusal(() => store.append('s', message)).path).toBe('toJSON')

    const content: unknown[] = [{ text: 'just text' }]
    Object.defineProperty(content, 'toJSON', { enumerable: false, value: () => [SMUGGLED] })
    expect(refusal(() => store.append('s', { role: 'user', content })).path).toBe('content.toJSON')
    expect(ledgerChecksum(store.connection())).toBe(before)
    expect(store.history('s').some((e) => JSON.stringify(e.message).includes('never-made'))).toBe(false)
  })

  it('stores a key named toJSON that holds data: JSON.stringify calls only a function there', () => {
    // What JSON.parse makes of `{"toJSON": "x"}` (a tool's input, a parsed API response): plain data.
    const input = JSON.parse(
      '{"path":"config","toJSON":"not a method","nested":{"toJSON":{"a":[1]}}}',
    ) as object
    const block = { toolUse: { toolUseId: 'c1', name: 'write_config', input } }
    const [entry] = store.append('s', { role: 'assistant', content: [block], trackingId: 'json-key' })
    const body = store
      .connection()
      .prepare('SELECT body FROM messages WHERE seq = ?')
      .pluck()
      .get(entry?.seq) as string
    expect(body).toBe(JSON.stringify({ role: 'assistant', content: [block], trackingId: 'json-key' }))
    expect(store.history('s').at(-1)?.message.content).toStrictEqual([block])
    // A toJSON that is a getter, or not enumerable, is still not plain data.
    const getter = { text: 'x' }
    Object.defineProperty(getter, 'toJSON', { enumerable: true, get: () => 'y' })
    expect(refusal(() => store.append('s', { role: 'user', content: [getter] })).path).toBe(
      'content[0].toJSON',
    )
    const hidden = { text: 'x' }
    Object.defineProperty(hidden, 'toJSON', { enumerable: false, value: 'y' })
    expect(refusal(() => store.append('s', { role: 'user', content: [hidden] })).path).toBe(
      'content[0].toJSON',
    )
  })

  it('reads a getter once: a string that grows on the second read is neither validated short nor stored long', () => {
    const block = flipping({}, 'text', 'short', 'x'.repeat(30 * 1024 * 1024))
    const [entry] = store.append('s', { role: 'user', content: [block] })
    const stored = store
      .connection()
      .prepare('SELECT body FROM messages WHERE seq = ?')
      .pluck()
      .get(entry?.seq)
    expect((JSON.parse(stored as string) as { content: unknown }).content).toStrictEqual([{ text: 'short' }])
    expect(store.window('s').at(-1)?.content).toStrictEqual([{ text: 'short' }])
    expect(entry?.tokens).toBeLessThan(100)
  })

  it('reads a getter once: a role or block kind that changes between reads cannot slip past validation', () => {
    const message = flipping({ content: [{ text: 'ok' }] }, 'role', 'user', 'system')
    const [entry] = store.append('s', message)
    expect(entry?.message.role).toBe('user')
    expect(store.history('s', { fromSeq: entry?.seq }).map((e) => e.message.role)).toStrictEqual(['user'])
    const content = flipping([] as unknown[], '0', { text: 'fine' }, SMUGGLED)
    Object.defineProperty(content, 'length', { value: 1 })
    const [second] = store.append('s', { role: 'user', content })
    expect(store.message('s', { seq: second?.seq ?? -1 }).message.content).toStrictEqual([{ text: 'fine' }])
  })

  it('reads every property of a Proxy exactly once, and stores what it read', () => {
    const reads = new Map<PropertyKey, number>()
    const target = { role: 'user', content: [{ text: 'via proxy' }] }
    const proxy = new Proxy(target, {
      get(t, key, receiver) {
        reads.set(key, (reads.get(key) ?? 0) + 1)
        return Reflect.get(t, key, receiver) as unknown
      },
    })
    const [entry] = store.append('s', proxy)
    expect(reads.get('role')).toBe(1)
    expect(reads.get('content')).toBe(1)
    expect(entry?.message.content).toStrictEqual([{ text: 'via proxy' }])
  })

  it('refuses, with the path, a getter or Proxy trap that throws, and a revoked Proxy', () => {
    const before = ledgerChecksum(store.connection())
    const block = {}
    Object.defineProperty(block, 'text', {
      enumerable: true,
      get: () => {
        throw new Error('boom')
      },
    })
    const thrown = refusal(() => store.append('s', { role: 'user', content: [block] }))
    expect([thrown.code, thrown.path]).toStrictEqual(['INVALID_MESSAGE', 'content[0].text'])
    const { proxy, revoke } = Proxy.revocable({ text: 'x' }, {})
    revoke()
    const revoked = refusal(() => store.append('s', { role: 'user', content: [proxy] }))
    expect([revoked.code, revoked.path]).toStrictEqual(['INVALID_MESSAGE', 'content[0]'])
    expect(ledgerChecksum(store.connection())).toBe(before)
  })

  it('refuses holes in arrays, and ignores what JSON.stringify ignores (symbol keys, array extras)', () => {
    // eslint-disable-next-line no-sparse-arrays -- a hole is the point
    const sparse = [, { text: 'after a hole' }]
    expect(refusal(() => store.append('s', { role: 'user', content: sparse })).path).toBe('content[0]')
    const content = Object.assign([{ text: 'a' }], { extra: 'not JSON' })
    const message = { role: 'user', content, [Symbol('s')]: 1 }
    const [entry] = store.append('s', message)
    expect(JSON.stringify(store.window('s').at(-1))).toBe(
      JSON.stringify({ ...message, trackingId: entry?.trackingId }),
    )
  })

  it('stores plain JSON byte-identically, whatever its keys and nesting', () => {
    const json = fc.jsonValue({ maxDepth: 6 }).filter((v) => !JSON.stringify(v).includes('"__proto__"'))
    let runs = 0
    fc.assert(
      fc.property(json, json, fc.uuid(), (input, custom, trackingId) => {
        const session = `p${runs++}`
        const message = {
          role: 'assistant',
          content: [{ toolUse: { toolUseId: trackingId, name: 'f', input: input as JsonValue } }],
          trackingId,
          metadata: { custom: { value: custom as JsonValue } },
        }
        const expected = JSON.stringify(message)
        const [, entry] = store.append(session, [{ role: 'user', content: [{ text: 'go' }] }, message])
        expect(JSON.stringify(entry?.message)).toBe(expected)
        expect(JSON.stringify(store.window(session)[1])).toBe(expected)
        expect(JSON.stringify(store.history(session)[1]?.message)).toBe(expected)
      }),
      { numRuns: fcRuns(100) },
    )
  })
})
