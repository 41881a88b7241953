/**
 * `repairMessage`: each repair rule on its own, then a property — a valid message with one planted defect
 * of a repairable kind (lone surrogates, over-long strings and keys, deep nesting, values JSON cannot
 * hold, `__proto__` keys, empty text) always comes out valid under the same limits, with its repairs
 * recorded; a valid message comes back untouched.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_MESSAGE_LIMITS,
  validateMessage,
  type JsonValue,
  type MessageData,
  type MessageLimits,
} from '../../src/index.js'
import {
  EMPTY_MESSAGE_PLACEHOLDER,
  MAX_RECORDED_REPAIRS,
  repairMessage,
} from '../../src/messages/repair-message.js'
import { everyBlockMessage, everyToolResultMessage } from '../helpers/all-blocks.js'
import { refusal } from '../helpers/refusal.js'
import { fcRuns } from '../helpers/runs.js'

function nested(depth: number, leaf: JsonValue = 'leaf'): JsonValue {
  let value: JsonValue = leaf
  for (let i = 0; i < depth; i++) value = { next: value }
  return value
}

function toolResult(content: unknown[]): MessageData {
  return {
    role: 'user',
    content: [{ toolResult: { toolUseId: 't1', status: 'success', content } }],
  } as MessageData
}

const recorded = (message: MessageData): unknown => message.metadata?.custom?.contextLedger

describe('repairMessage', () => {
  it('returns a valid message untouched', () => {
    for (const message of [everyBlockMessage, everyToolResultMessage]) {
      const result = repairMessage(message)
      expect(result.message).toBe(message)
      expect(result.repairs).toStrictEqual([])
    }
  })

  it('replaces lone surrogates with U+FFFD, in values and in keys, and records where', () => {
    const message: MessageData = {
      role: 'assistant',
      content: [
        { text: 'caf\uD83D' },
        {
          toolUse: {
            toolUseId: 'c1',
            name: 'search',
            input: { ['k\uDC00']: 'v', ok: 'deploy went fine 👍' },
          },
        },
      ],
      metadata: { custom: { note: '\uDBFFx' } },
    }
    const { message: repaired, repairs } = repairMessage(message)
    expect(repaired.content).toStrictEqual([
      { text: 'caf\uFFFD' },
      {
        toolUse: { toolUseId: 'c1', name: 'search', input: { ['k\uFFFD']: 'v', ok: 'deploy went fine 👍' } },
      },
    ])
    expect(repairs).toStrictEqual([
      { path: 'content[0].text', problem: 'lone-surrogate' },
      { path: 'content[1].toolUse.input.k\uFFFD', problem: 'lone-surrogate-key' },
      { path: 'metadata.custom.note', problem: 'lone-surrogate' },
    ])
    expect(repaired.metadata).toStrictEqual({
      custom: { note: '\uFFFDx', contextLedger: { repaired: repairs } },
    })
    expect(() => validateMessage(repaired)).not.toThrow()
    // Pure: the input is unchanged.
    expect((message.content[0] as { text: string }).text).toBe('caf\uD83D')
  })

  it('keeps both keys when two differ only in their lone surrogates', () => {
    const input = { ['a\uD800']: 1, ['a\uDBFF']: 2 }
    const { message } = repairMessage({
      role: 'assistant',
      content: [{ toolUse: { toolUseId: 'c', name: 'n', input } }],
    })
    expect((message.content[0] as { toolUse: { input: unknown } }).toolUse.input).toStrictEqual({
      'a\uFFFD': 1,
      'a\uFFFD (2)': 2,
    })
  })

  it('cuts a string over the limit around a marker, on code point boundaries, and records its length', () => {
    const text = `${'😀'.repeat(20_000)}${'x'.repeat(17 * 1024 * 1024)}`
    const { message, repairs } = repairMessage(toolResult([{ text }]))
    const cut = (message.content[0] as { toolResult: { content: { text: string }[] } }).toolResult.content[0]
      ?.text as string
    expect(cut.length).toBeLessThanOrEqual(DEFAULT_MESSAGE_LIMITS.maxStringLength)
    expect(cut.length).toBeGreaterThan(DEFAULT_MESSAGE_LIMITS.maxStringLength - 40)
    expect(cut.isWellFormed()).toBe(true)
    expect(cut.startsWith('😀😀')).toBe(true)
    const removed = Number(/<truncated chars="(\d+)"\/>/.exec(cut)?.[1])
    const marker = `\n<truncated chars="${removed}"/>\n`
    expect(cut.length - marker.length + removed).toBe(text.length)
    expect(repairs).toStrictEqual([
      {
        path: 'content[0].toolResult.content[0].text',
        problem: 'string-too-long',
        originalLength: text.length,
      },
    ])
    expect(() => validateMessage(message)).not.toThrow()
  })

  it('replaces media bytes over the limit by a text placeholder naming the size', () => {
    const limits: MessageLimits = { maxDepth: 64, maxStringLength: 1000 }
    const bytes = Buffer.alloc(3000, 1).toString('base64')
    const message: MessageData = {
      role: 'user',
      content: [
        { image: { format: 'png', source: { bytes } } },
        {
          toolResult: {
            toolUseId: 't1',
            status: 'success',
            content: [{ document: { name: 'report', format: 'pdf', source: { bytes } } }, { text: 'ok' }],
          },
        },
      ],
    }
    const { message: repaired, repairs } = repairMessage(message, limits)
    expect(repaired.content).toStrictEqual([
      { text: "[image: png, about 3000 bytes, removed: over the ledger's limit of 1000 base64 characters]" },
      {
        toolResult: {
          toolUseId: 't1',
          status: 'success',
          content: [
            {
              text: "[document: report, pdf, about 3000 bytes, removed: over the ledger's limit of 1000 base64 characters]",
            },
            { text: 'ok' },
          ],
        },
      },
    ])
    expect(repairs.map((r) => [r.path, r.problem, r.originalLength])).toStrictEqual([
      ['content[0].image.source.bytes', 'media-too-large', 4000],
      ['content[1].toolResult.content[0].document.source.bytes', 'media-too-large', 4000],
    ])
    expect(() => validateMessage(repaired, limits)).not.toThrow()
  })

  it('replaces JSON nested deeper than the limit by its JSON text, one level down', () => {
    const deep = nested(70)
    const { message, repairs } = repairMessage({
      role: 'assistant',
      content: [{ toolUse: { toolUseId: 'c', name: 'n', input: deep } }],
    })
    expect(repairs).toHaveLength(1)
    expect(repairs[0]?.problem).toBe('too-deep')
    expect(repairs[0]?.path.split('.next')).toHaveLength(61)
    expect(() => validateMessage(message)).not.toThrow()
    // Following the structure down and parsing the text at the bottom gives back the original.
    let node = (message.content[0] as { toolUse: { input: JsonValue } }).toolUse.input as Record<
      string,
      JsonValue
    >
    let depth = 0
    while (typeof node.next === 'object') {
      node = node.next as Record<string, JsonValue>
      depth++
    }
    expect(depth).toBe(59)
    let restored: JsonValue = JSON.parse(node.next as string) as JsonValue
    for (let i = 0; i < 60; i++) restored = { next: restored }
    expect(restored).toStrictEqual(deep)
  })

  it('survives nesting too deep to serialize, cycles and BigInts', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    let deep: unknown = 'leaf'
    for (let i = 0; i < 200_000; i++) deep = [deep]
    for (const input of [cyclic, deep, { big: 10n ** 30n }]) {
      const { message } = repairMessage({
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 'c', name: 'n', input: input as JsonValue } }],
      })
      expect(() => validateMessage(message)).not.toThrow()
    }
  })

  it('turns values JSON cannot hold into their JSON form, and renames __proto__ keys', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as Record<string, unknown>
    Object.assign(input, {
      nan: Number.NaN,
      inf: Number.POSITIVE_INFINITY,
      gone: undefined,
      list: [undefined, 1],
      when: new Date(0),
      fn: () => 1,
    })
    const { message, repairs } = repairMessage({
      role: 'assistant',
      content: [{ toolUse: { toolUseId: 'c', name: 'n', input: input as JsonValue } }],
    })
    expect((message.content[0] as { toolUse: { input: unknown } }).toolUse.input).toStrictEqual({
      '[__proto__]': { polluted: true },
      ok: 1,
      nan: null,
      inf: null,
      list: [null, 1],
      when: '1970-01-01T00:00:00.000Z',
    })
    expect(repairs.map((r) => r.problem).sort()).toStrictEqual([
      'not-json',
      'not-json',
      'not-json',
      'not-json',
      'not-json',
      'not-json',
      'prototype-key',
    ])
    expect(() => validateMessage(message)).not.toThrow()
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('drops empty text blocks, and gives a message left with no content one placeholder block', () => {
    const mixed = repairMessage({ role: 'user', content: [{ text: '' }, { text: 'hi' }, { text: '' }] })
    expect(mixed.message.content).toStrictEqual([{ text: 'hi' }])
    expect(mixed.repairs).toStrictEqual([
      { path: 'content[0]', problem: 'empty-text' },
      { path: 'content[2]', problem: 'empty-text' },
    ])
    const empty = repairMessage({ role: 'assistant', content: [{ text: '' }] })
    expect(empty.message.content).toStrictEqual([{ text: EMPTY_MESSAGE_PLACEHOLDER }])
    expect(empty.repairs.map((r) => r.problem)).toStrictEqual(['empty-text', 'empty-content'])
    const none = repairMessage({ role: 'assistant', content: [] })
    expect(none.message.content).toStrictEqual([{ text: EMPTY_MESSAGE_PLACEHOLDER }])
  })

  it('keeps metadata and earlier contextLedger keys, records at most MAX_RECORDED_REPAIRS repairs, and counts the rest', () => {
    const content = Array.from({ length: MAX_RECORDED_REPAIRS + 5 }, (_, i) => ({ text: `${i}\uD800` }))
    const { message, repairs } = repairMessage({
      role: 'user',
      content,
      trackingId: 'keep-me',
      metadata: {
        usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
        custom: { contextLedger: { a: 1 } },
      },
    })
    expect(repairs).toHaveLength(MAX_RECORDED_REPAIRS + 5)
    expect(message.trackingId).toBe('keep-me')
    expect(message.metadata?.usage).toStrictEqual({ inputTokens: 1, outputTokens: 2, totalTokens: 3 })
    const ours = recorded(message) as { a: number; repaired: unknown[]; repairsOmitted: number }
    expect(ours.a).toBe(1)
    expect(ours.repaired).toHaveLength(MAX_RECORDED_REPAIRS)
    expect(ours.repairsOmitted).toBe(5)
  })

  it('makes any message with one planted repairable defect valid under the same limits (property)', () => {
    const limits: MessageLimits = { maxDepth: 12, maxStringLength: 300 }
    const skip = new Set(['bytes', 'redactedContent', 'role', 'status', 'cacheType', 'type', 'trackingId'])
    type Path = (string | number)[]
    /** Every string leaf a repairable defect may be planted at (not base64, not an enum). */
    function stringPaths(value: unknown, path: Path, out: Path[]): Path[] {
      if (typeof value === 'string') {
        if (!skip.has(String(path.at(-1)))) out.push(path)
      } else if (Array.isArray(value)) value.forEach((v, i) => stringPaths(v, [...path, i], out))
      else if (typeof value === 'object' && value !== null)
        for (const [k, v] of Object.entries(value)) stringPaths(v, [...path, k], out)
      return out
    }
    const bases = [everyBlockMessage, everyToolResultMessage]
    const defect = fc.oneof(
      fc.string({ maxLength: 5 }).map((s) => `${s}\uD83D`),
      fc.string({ maxLength: 5 }).map((s) => `\uDE00${s}`),
      fc.integer({ min: 301, max: 2000 }).map((n) => '🚀'.repeat(n >> 1) + 'x'.repeat(n & 1)),
      fc.integer({ min: 13, max: 40 }).map((d) => nested(d)),
      fc.constantFrom<unknown>(Number.NaN, Number.NEGATIVE_INFINITY, new Date(5)),
    )
    const planted = fc
      .tuple(fc.integer({ min: 0, max: bases.length - 1 }), fc.nat(), defect)
      .map(([b, at, value]) => {
        const message = structuredClone(bases[b] as MessageData)
        const paths = stringPaths(message, [], [])
        const path = paths[at % paths.length] as Path
        let node = message as unknown as Record<string | number, unknown>
        for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>
        const last = path.at(-1) as string | number
        // Deep values and non-JSON values go where any JSON may be: tool input, json items, custom metadata.
        const anyJson = path.includes('input') || path.includes('json') || path.includes('custom')
        node[last] = typeof value === 'string' || anyJson ? value : `${String(value)}\uD800`
        return message
      })
    fc.assert(
      fc.property(planted, (message) => {
        expect(refusal(() => validateMessage(message, limits)).code).toBe('INVALID_MESSAGE')
        const { message: repaired, repairs } = repairMessage(message, limits)
        expect(repairs.length).toBeGreaterThan(0)
        expect(() => validateMessage(repaired, limits)).not.toThrow()
        expect((recorded(repaired) as { repaired: unknown[] }).repaired).toHaveLength(repairs.length)
      }),
      { numRuns: fcRuns(150) },
    )
  })
})
