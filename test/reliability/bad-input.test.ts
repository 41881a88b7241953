/**
 * Bad input gets a clear error and changes nothing: fast-check builds malformed messages — wrong types,
 * unknown block keys, missing ids, deep nesting, huge strings, lone UTF-16 surrogates, NaN and Infinity,
 * `__proto__` keys, values JSON cannot hold — each from a valid message with one known defect. Every one
 * must be refused with `INVALID_MESSAGE` whose `path` names exactly that defect, alone or inside a batch,
 * and a checksum of every row of the ledger must not change.
 */
import fc from 'fast-check'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import type { MessageData } from '../../src/index.js'
import { BACKEND, makeBackend, type LedgerStore } from '../helpers/backend.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'
import { refusalOf } from '../helpers/refusal.js'
import { fcRuns } from '../helpers/runs.js'

const RUNS = fcRuns(300)
const MAX_STRING = 4096
const MAX_DEPTH = 64

/** A malformed message and the path its defect must be reported at. */
interface BadCase {
  readonly input: unknown
  readonly path: string
  readonly what: string
}

type Json = Record<string, unknown>

/** Valid messages of every shape the defects are planted in. */
const base = (): Json => ({
  role: 'assistant',
  content: [
    { text: 'Looking it up.' },
    { toolUse: { toolUseId: 'call-1', name: 'search', input: { query: 'billing', opts: { limit: 3 } } } },
  ],
  trackingId: 'valid-0',
  metadata: { usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 }, custom: { note: 'x' } },
})
const resultBase = (): Json => ({
  role: 'user',
  content: [{ toolResult: { toolUseId: 'call-1', status: 'success', content: [{ text: 'found' }] } }],
})

/** Sets `value` at a dotted/indexed path inside a fresh copy of `message`. */
function plant(message: Json, path: (string | number)[], value: unknown): Json {
  let node = message as Record<string | number, unknown>
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>
  const last = path.at(-1) as string | number
  if (value === REMOVE) Reflect.deleteProperty(node, last)
  else node[last] = value
  return message
}
const REMOVE = Symbol('remove')

function formatPath(path: readonly (string | number)[]): string {
  let out = ''
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out === '' ? part : `.${part}`
  return out === '' ? '(message)' : out
}

// Values of the wrong JSON type that carry no defect of their own.
const wrongValue = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.integer(), { maxKeys: 3 }),
)

/** Fields of `base()` / `resultBase()` that must be a string, and what a wrong value there is. */
const stringFields: { make: () => Json; path: (string | number)[] }[] = [
  { make: base, path: ['content', 0, 'text'] },
  { make: base, path: ['content', 1, 'toolUse', 'name'] },
  { make: base, path: ['content', 1, 'toolUse', 'toolUseId'] },
  { make: base, path: ['trackingId'] },
  { make: resultBase, path: ['content', 0, 'toolResult', 'toolUseId'] },
  { make: resultBase, path: ['content', 0, 'toolResult', 'content', 0, 'text'] },
]

const wrongType: fc.Arbitrary<BadCase> = fc
  .tuple(fc.constantFrom(...stringFields), wrongValue)
  .map(([field, value]) => ({
    input: plant(field.make(), field.path, value),
    path: formatPath(field.path),
    what: 'wrong type',
  }))

const wrongShape: fc.Arbitrary<BadCase> = fc.oneof(
  fc
    .oneof(
      wrongValue,
      fc.string().filter((s) => s !== 'user' && s !== 'assistant'),
    )
    .map((v) => ({ input: plant(base(), ['role'], v), path: 'role', what: 'bad role' })),
  wrongValue
    .filter((v) => !Array.isArray(v))
    .map((v) => ({ input: plant(base(), ['content'], v), path: 'content', what: 'content not an array' })),
  fc
    .oneof(
      wrongValue,
      fc.string().filter((s) => s !== 'success' && s !== 'error'),
    )
    .map((v) => ({
      input: plant(resultBase(), ['content', 0, 'toolResult', 'status'], v),
      path: 'content[0].toolResult.status',
      what: 'bad status',
    })),
  fc
    .oneof(fc.string(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }))
    .map((v) => ({
      input: plant(base(), ['metadata', 'usage', 'inputTokens'], v),
      path: 'metadata.usage.inputTokens',
      what: 'usage not a number',
    })),
  fc.constantFrom(1, 'x', null, true).map((v) => ({
    input: plant(base(), ['content', 0], v),
    path: 'content[0]',
    what: 'block not an object',
  })),
  fc.constant({
    input: plant(base(), ['trackingId'], ''),
    path: 'trackingId',
    what: 'empty trackingId',
  }),
)

const knownKinds = new Set([
  'text',
  'toolUse',
  'toolResult',
  'reasoning',
  'cachePoint',
  'guardContent',
  'image',
  'video',
  'audio',
  'document',
  'citations',
])
const unknownKey = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,11}$/).filter((k) => !knownKinds.has(k))

const unknownKeys: fc.Arbitrary<BadCase> = fc.oneof(
  fc.tuple(unknownKey, fc.integer({ min: 0, max: 2 })).map(([key, at]) => {
    const m = base()
    ;(m.content as unknown[]).splice(at, 0, { [key]: { text: 'x' } })
    return { input: m, path: `content[${at}].${key}`, what: 'unknown block kind' }
  }),
  unknownKey.map((key) => ({
    input: plant(base(), ['content', 0, key], 'extra'),
    path: 'content[0]',
    what: 'block with two keys',
  })),
  unknownKey
    .filter((k) => !['toolUseId', 'name', 'input', 'reasoningSignature'].includes(k))
    .map((key) => ({
      input: plant(base(), ['content', 1, 'toolUse', key], 1),
      path: 'content[1].toolUse',
      what: 'unknown toolUse key',
    })),
  unknownKey
    .filter((k) => !['role', 'content', 'trackingId', 'metadata'].includes(k))
    .map((key) => ({ input: plant(base(), [key], 1), path: '(message)', what: 'unknown message key' })),
)

const missing: fc.Arbitrary<BadCase> = fc.constantFrom<BadCase>(
  {
    input: plant(base(), ['content', 1, 'toolUse', 'toolUseId'], REMOVE),
    path: 'content[1].toolUse.toolUseId',
    what: 'missing toolUseId',
  },
  {
    input: plant(resultBase(), ['content', 0, 'toolResult', 'toolUseId'], REMOVE),
    path: 'content[0].toolResult.toolUseId',
    what: 'missing result id',
  },
  {
    input: plant(base(), ['content', 1, 'toolUse', 'name'], REMOVE),
    path: 'content[1].toolUse.name',
    what: 'missing tool name',
  },
  { input: plant(base(), ['role'], REMOVE), path: 'role', what: 'missing role' },
  { input: plant(base(), ['content'], REMOVE), path: 'content', what: 'missing content' },
  {
    input: plant(resultBase(), ['content', 0, 'toolResult', 'status'], REMOVE),
    path: 'content[0].toolResult.status',
    what: 'missing status',
  },
)

/** Objects or arrays nested `levels` deep under `toolUse.input`, whose depth starts at 4. */
const deep: fc.Arbitrary<BadCase> = fc
  .tuple(fc.integer({ min: MAX_DEPTH - 3, max: 5000 }), fc.boolean())
  .map(([levels, arrays]) => {
    let value: unknown = 'leaf'
    for (let i = 0; i < levels; i++) value = arrays ? [value] : { a: value }
    // The first node deeper than MAX_DEPTH is MAX_DEPTH - 4 + 1 steps below input.
    const steps = MAX_DEPTH - 4 + 1
    return {
      input: plant(base(), ['content', 1, 'toolUse', 'input'], value),
      path: `content[1].toolUse.input${(arrays ? '[0]' : '.a').repeat(steps)}`,
      what: `nested ${levels} levels`,
    }
  })

const huge: fc.Arbitrary<BadCase> = fc
  .tuple(fc.constantFrom(...stringFields), fc.integer({ min: MAX_STRING + 1, max: MAX_STRING * 8 }))
  .map(([field, length]) => ({
    input: plant(field.make(), field.path, 'h'.repeat(length)),
    path: formatPath(field.path),
    what: `string of ${length}`,
  }))

const loneSurrogate: fc.Arbitrary<BadCase> = fc
  .tuple(
    fc.constantFrom(...stringFields, { make: base, path: ['metadata', 'custom', 'note'] }),
    fc.string({ unit: 'grapheme', maxLength: 10 }),
    fc.string({ unit: 'grapheme', maxLength: 10 }),
    fc.integer({ min: 0xd800, max: 0xdfff }),
  )
  .map(([field, before, after, unit]) => ({
    input: plant(field.make(), field.path, `${before}${String.fromCharCode(unit)}${after}`),
    path: formatPath(field.path),
    what: 'lone surrogate',
  }))

const nonFinite: fc.Arbitrary<BadCase> = fc
  .tuple(
    fc.constantFrom(NaN, Infinity, -Infinity),
    fc.constantFrom<(string | number)[]>(
      ['content', 1, 'toolUse', 'input', 'opts', 'limit'],
      ['metadata', 'usage', 'inputTokens'],
      ['metadata', 'custom', 'note'],
    ),
  )
  .map(([value, path]) => ({
    input: plant(base(), path, value),
    path: formatPath(path),
    what: String(value),
  }))

const protoKeys: fc.Arbitrary<BadCase> = fc.oneof(
  fc.constant({
    input: plant(
      base(),
      ['content', 1, 'toolUse', 'input'],
      JSON.parse('{"query":"x","__proto__":{"polluted":true}}'),
    ),
    path: 'content[1].toolUse.input.__proto__',
    what: '__proto__ in tool input',
  }),
  fc.constant({
    input: plant(base(), ['metadata', 'custom'], JSON.parse('{"__proto__":{"pinned":true}}')),
    path: 'metadata.custom.__proto__',
    what: '__proto__ in custom metadata',
  }),
  fc.constant({
    input: plant(base(), ['content', 0], JSON.parse('{"__proto__":{"text":"hi"}}')),
    path: 'content[0].__proto__',
    what: '__proto__ as a block',
  }),
  fc.constant({
    input: JSON.parse(
      '{"role":"user","content":[{"text":"hi"}],"__proto__":{"role":"assistant"}}',
    ) as unknown,
    path: '__proto__',
    what: '__proto__ on the message',
  }),
)

const notJson: fc.Arbitrary<BadCase> = fc
  .tuple(
    fc.constantFrom<unknown>(
      undefined,
      () => 1,
      Symbol('s'),
      10n,
      new Date(0),
      new Map(),
      new Uint8Array(2),
      Object.create({ x: 1 }),
    ),
    fc.constantFrom<(string | number)[]>(
      ['content', 1, 'toolUse', 'input', 'opts', 'limit'],
      ['metadata', 'custom', 'note'],
      ['content', 0, 'text'],
    ),
  )
  .map(([value, path]) => ({ input: plant(base(), path, value), path: formatPath(path), what: typeof value }))

const badMessage: fc.Arbitrary<BadCase> = fc.oneof(
  wrongType,
  wrongShape,
  unknownKeys,
  missing,
  deep,
  huge,
  loneSurrogate,
  nonFinite,
  protoKeys,
  notJson,
)

// The conformance suite: the same tests on the backend the project selects (test/helpers/backend.ts).
const backend = makeBackend()
let store: LedgerStore
beforeEach(async () => {
  store = await backend.open({ limits: { maxStringLength: MAX_STRING, maxDepth: MAX_DEPTH } })
  // Something to protect: a session with a tool call, a pin and an applied window.
  const manager = backend.manager(store, { sessionId: 's', windowSize: 4 })
  for (let i = 0; i < 5; i++) {
    const turn = [{ role: 'user', content: [{ text: `q${i}` }] }, base(), resultBase()]
    await manager.append(
      turn.map((m, j) => ({ ...m, trackingId: `seed-${i}-${j}` })) as unknown as MessageData[],
    )
  }
  await manager.pin({ seq: 1 })
  await manager.applyWindow()
})
afterAll(async () => {
  await backend.cleanup()
})

describe(`bad input [${BACKEND}]`, () => {
  it('is refused with INVALID_MESSAGE naming the defect, and the ledger does not change', async () => {
    const before = await backend.checksum(store)
    const seen = new Map<string, number>()
    await fc.assert(
      fc.asyncProperty(badMessage, fc.integer({ min: 0, max: 3 }), async (bad, position) => {
        seen.set(bad.what.replace(/\d+/g, 'N'), (seen.get(bad.what.replace(/\d+/g, 'N')) ?? 0) + 1)
        // Alone, and at `position` in a batch of otherwise valid messages.
        const single = await refusalOf(() => store.append('s', bad.input))
        expect(single.code).toBe('INVALID_MESSAGE')
        expect(single.path, `${bad.what}: ${single.message}`).toBe(bad.path)
        const batch: unknown[] = [0, 1, 2].map((i) => ({ role: 'user', content: [{ text: `ok ${i}` }] }))
        batch.splice(position, 0, bad.input)
        const inBatch = await refusalOf(() => store.append('s', batch))
        expect(inBatch.code).toBe('INVALID_MESSAGE')
        // In a batch the path starts at the element: `[2].content[0].text`, or `[2]` for the message itself.
        expect(inBatch.path).toBe(bad.path === '(message)' ? `[${position}]` : `[${position}].${bad.path}`)
        expect(await backend.checksum(store)).toBe(before)
      }),
      { numRuns: RUNS },
    )
    // Every family of defect was exercised.
    expect(seen.size).toBeGreaterThanOrEqual(20)
    await assertWindowRulesOf(store, 's')
    // And the checksum does see a change when one happens.
    await store.append('s', { role: 'user', content: [{ text: 'valid' }] })
    expect(await backend.checksum(store)).not.toBe(before)
  })

  it('refuses a string over the default 16 Mi limit and a 100,000-level nesting without overflowing the stack', async () => {
    const other = await backend.open()
    const before = await backend.checksum(other)
    const big = await refusalOf(() =>
      other.append('s', { role: 'user', content: [{ text: 'x'.repeat(16 * 1024 * 1024 + 1) }] }),
    )
    expect([big.code, big.path]).toStrictEqual(['INVALID_MESSAGE', 'content[0].text'])
    let value: unknown = 1
    for (let i = 0; i < 100_000; i++) value = [value]
    const deepError = await refusalOf(() =>
      other.append('s', plant(base(), ['content', 1, 'toolUse', 'input'], value)),
    )
    expect(deepError.code).toBe('INVALID_MESSAGE')
    expect(deepError.path?.startsWith('content[1].toolUse.input[0]')).toBe(true)
    expect(await backend.checksum(other)).toBe(before)
  })

  it('leaves Object.prototype alone after a __proto__ payload', async () => {
    await refusalOf(() =>
      store.append('s', plant(base(), ['metadata', 'custom'], JSON.parse('{"__proto__":{"polluted":true}}'))),
    )
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined()
  })
})
