/**
 * Options and arguments are checked before they are used: a bad one is refused with `INVALID_OPTIONS`
 * naming the field (also as the error's `path`), never silently replaced by a default, never turned into
 * a raw `TypeError` or `RangeError`, and never leaves a trace in the ledger.
 */
import { readdirSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  openContextStore,
  PersistentConversationManager,
  type ContextStore,
  type ContextStoreOptions,
  type WindowLimits,
} from '../../src/index.js'
import { ledgerChecksum } from '../reliability/db-checksum.js'
import { refusal } from '../helpers/refusal.js'
import { tempDir, tempStore, type TempDir } from '../helpers/temp-store.js'

const LIMITS: WindowLimits = { windowSize: 4, tokenBudget: undefined, first: 0, last: 0 }

describe('openContextStore options are not validated', () => {
  let dir: TempDir
  beforeEach(() => {
    dir = tempDir()
  })
  afterEach(() => {
    dir.cleanup()
  })

  it.each<[string, unknown, string]>([
    ["synchronous: 'ful' (would silently give NORMAL)", { synchronous: 'ful' }, 'synchronous'],
    ["synchronous: 'off'", { synchronous: 'off' }, 'synchronous'],
    ['an unknown key', { synchronus: 'full' }, 'synchronus'],
    ['limits.maxDepth: -1 (every message refused)', { limits: { maxDepth: -1 } }, 'limits.maxDepth'],
    ['limits.maxDepth: 1e6 (stack overflow)', { limits: { maxDepth: 1e6 } }, 'limits.maxDepth'],
    ['limits.maxDepth: 1.5', { limits: { maxDepth: 1.5 } }, 'limits.maxDepth'],
    [
      "limits.maxStringLength: '16M' (no limit)",
      { limits: { maxStringLength: '16M' } },
      'limits.maxStringLength',
    ],
    ['limits.maxStringLength: NaN', { limits: { maxStringLength: NaN } }, 'limits.maxStringLength'],
    ['an unknown limit', { limits: { maxKeys: 3 } }, 'limits.maxKeys'],
    ['limits: null', { limits: null }, 'limits'],
    ['busyTimeoutMs: -1 (STORAGE_ERROR)', { busyTimeoutMs: -1 }, 'busyTimeoutMs'],
    ['busyTimeoutMs: 1.5', { busyTimeoutMs: 1.5 }, 'busyTimeoutMs'],
    ["busyTimeoutMs: '5000'", { busyTimeoutMs: '5000' }, 'busyTimeoutMs'],
    ["readonly: 'yes'", { readonly: 'yes' }, 'readonly'],
    ['mustExist: 1', { mustExist: 1 }, 'mustExist'],
    ["onBackgroundError: 'log' (not a function)", { onBackgroundError: 'log' }, 'onBackgroundError'],
    ['null options', null, '(options)'],
  ])('refuses %s with INVALID_OPTIONS naming the field, creating no file', (_name, options, path) => {
    const error = refusal(() => openContextStore(dir.file('x.db'), options as ContextStoreOptions))
    expect([error.code, error.path], error.message).toStrictEqual(['INVALID_OPTIONS', path])
    expect(readdirSync(dir.path)).toStrictEqual([])
  })

  it('refuses a path that is not a string, and readonly or mustExist for an in-memory store', () => {
    expect(refusal(() => openContextStore(5 as unknown as string)).path).toBe('path')
    expect(refusal(() => openContextStore(':memory:', { readonly: true })).path).toBe('readonly')
    expect(refusal(() => openContextStore(':memory:', { mustExist: true })).path).toBe('mustExist')
  })

  it('refuses a path with a NUL, options that throw when read, and ignores inherited ones; takes -0 as 0', () => {
    expect(refusal(() => openContextStore(`${dir.file('a.db')}\0.evil`)).path).toBe('path')
    const throwing = Object.defineProperty({}, 'busyTimeoutMs', {
      enumerable: true,
      get: () => {
        throw new Error('boom')
      },
    })
    expect(refusal(() => openContextStore(dir.file('b.db'), throwing as ContextStoreOptions)).code).toBe(
      'INVALID_OPTIONS',
    )
    expect(readdirSync(dir.path)).toStrictEqual([])
    const inherited = Object.create({ readonly: true }) as ContextStoreOptions
    const store = openContextStore(dir.file('c.db'), inherited)
    expect(store.readonly).toBe(false)
    store.close()
    openContextStore(dir.file('d.db'), { busyTimeoutMs: -0 }).close()
  })

  it('takes synchronous in any letter case, and applies it', () => {
    const level = (synchronous: ContextStoreOptions['synchronous']): unknown => {
      const store = openContextStore(dir.file(`${String(synchronous)}.db`), { synchronous })
      const value = store.connection().pragma('synchronous', { simple: true })
      store.close()
      return value
    }
    expect([
      level('FULL'),
      level('Full' as 'full'),
      level('full'),
      level('NORMAL'),
      level(undefined),
    ]).toStrictEqual([2, 2, 2, 1, 1])
  })

  it('with maxDepth at its bound of 1000, stores a 990-level message and refuses a 100,000-level one without a RangeError', () => {
    const store = openContextStore(dir.file('deep.db'), { limits: { maxDepth: 1000 } })
    const nest = (levels: number): unknown => {
      let value: unknown = 'leaf'
      for (let i = 0; i < levels; i++) value = { d: value }
      return value
    }
    const message = (levels: number) => ({
      role: 'assistant',
      content: [{ toolUse: { toolUseId: `t${levels}`, name: 'f', input: nest(levels) } }],
    })
    const [, stored] = store.append('s', [{ role: 'user', content: [{ text: 'go' }] }, message(990)])
    expect(JSON.stringify(store.window('s')[1])).toBe(JSON.stringify(stored?.message))
    const error = refusal(() => store.append('s', message(100_000)))
    expect(error.code).toBe('INVALID_MESSAGE')
    expect(error.path?.startsWith('content[0].toolUse.input.d.d')).toBe(true)
    store.close()
  })
})

describe('store and manager arguments', () => {
  let store: ContextStore
  let cleanup: () => void
  let manager: PersistentConversationManager
  beforeEach(() => {
    ;({ store, cleanup } = tempStore())
    manager = new PersistentConversationManager({ store, sessionId: 's', windowSize: 4 })
    manager.append([
      { role: 'user', content: [{ text: 'q' }] },
      { role: 'assistant', content: [{ text: 'a' }] },
    ])
  })
  afterEach(() => {
    cleanup()
  })

  const calls: [string, () => unknown, string][] = [
    ['manager.pin(null) (a raw TypeError)', () => manager.pin(null as never), 'ref'],
    ['manager.unpin({})', () => manager.unpin({} as never), 'ref'],
    [
      '{ windowIndex: 0, seq: 1 } (the seq silently used)',
      () => manager.pin({ windowIndex: 0, seq: 1 }),
      'ref',
    ],
    ['{ seq: -1 }', () => manager.pin({ seq: -1 }), 'ref.seq'],
    ['{ seq: 1.5 }', () => manager.pin({ seq: 1.5 }), 'ref.seq'],
    ['{ windowIndex: NaN }', () => manager.pin({ windowIndex: NaN }), 'ref.windowIndex'],
    ['{ trackingId: 5 }', () => manager.pin({ trackingId: 5 } as never), 'ref.trackingId'],
    ['{ seq: 0, extra: 1 }', () => manager.pin({ seq: 0, extra: 1 } as never), 'ref.extra'],
    ['pin attribution null', () => manager.pin({ seq: 0 }, null as never), 'attribution'],
    ["pin actor ''", () => manager.pin({ seq: 0 }, { actor: '' }), 'attribution.actor'],
    ['pin reason 5', () => manager.pin({ seq: 0 }, { reason: 5 } as never), 'attribution.reason'],
    ['manager.history(null) (a raw TypeError)', () => manager.history(null as never), 'options'],
    ['history({ fromSeq: -1 })', () => manager.history({ fromSeq: -1 }), 'options.fromSeq'],
    ["history({ limit: 'all' })", () => manager.history({ limit: 'all' } as never), 'options.limit'],
    ['history({ from: 3 })', () => manager.history({ from: 3 } as never), 'options.from'],
    ['manager.message(null)', () => manager.message(null as never), 'ref'],
    [
      'applyWindow with { windowSize: NaN, tokenBudget: -1, first: -3, last: 1.5 } (a nonsense result)',
      () => store.applyWindow('s', { windowSize: NaN, tokenBudget: -1, first: -3, last: 1.5 }),
      'limits.windowSize',
    ],
    [
      'applyWindow tokenBudget -1',
      () => store.applyWindow('s', { ...LIMITS, tokenBudget: -1 }),
      'limits.tokenBudget',
    ],
    ['applyWindow first -3', () => store.applyWindow('s', { ...LIMITS, first: -3 }), 'limits.first'],
    ['applyWindow last 1.5', () => store.applyWindow('s', { ...LIMITS, last: 1.5 }), 'limits.last'],
    [
      'applyWindow with an extra key',
      () => store.applyWindow('s', { ...LIMITS, size: 3 } as never),
      'limits.size',
    ],
    ['applyWindow limits null', () => store.applyWindow('s', null as never), 'limits'],
    ["applyWindow mode 'sideways'", () => store.applyWindow('s', LIMITS, 'sideways' as never), 'mode'],
    ['pin limits {}', () => store.pin('s', { seq: 0 }, {}, {} as never), 'limits.windowSize'],
    [
      'setWindowContent ref { nope: 1 }',
      () => {
        store.setWindowContent('s', { nope: 1 } as never, null)
      },
      'ref.nope',
    ],
    [
      'pinnedMessages({ sessionId: 5 }) (returned [])',
      () => store.pinnedMessages({ sessionId: 5 } as never),
      'options.sessionId',
    ],
    ['pinnedMessages(null)', () => store.pinnedMessages(null as never), 'options'],
    [
      "pinnedMessages({ session: 's' })",
      () => store.pinnedMessages({ session: 's' } as never),
      'options.session',
    ],
    ['a session id with a lone surrogate (window)', () => store.window('a\ud800'), 'sessionId'],
    [
      'a session id with a lone surrogate (append)',
      () => store.append('\udc00b', { role: 'user', content: [{ text: 'x' }] }),
      'sessionId',
    ],
    [
      'append with tokenCounter null',
      () => store.append('s', { role: 'user', content: [{ text: 'x' }] }, null as never),
      'tokenCounter',
    ],
    [
      'a manager for a session id with a lone surrogate',
      () => new PersistentConversationManager({ store, sessionId: 'x\ud800' }),
      'sessionId',
    ],
  ]
  it.each(calls)(
    'refuses %s with INVALID_OPTIONS naming the field, changing nothing',
    (_name, call, path) => {
      const before = ledgerChecksum(store.connection())
      const error = refusal(call)
      expect([error.code, error.path], error.message).toStrictEqual(['INVALID_OPTIONS', path])
      expect(ledgerChecksum(store.connection())).toBe(before)
    },
  )

  const messages: [string, unknown, string | RegExp][] = [
    ['empty content: [] (providers refuse empty messages)', { role: 'user', content: [] }, 'content'],
    [
      "an empty text block { text: '' }",
      { role: 'assistant', content: [{ text: 'a' }, { text: '' }] },
      'content[1].text',
    ],
    [
      'an object key with a lone surrogate',
      { role: 'user', content: [{ text: 'x' }], metadata: { custom: { ['k\ud800']: 1 } } },
      /^metadata\.custom\.k/,
    ],
    [
      'a 20 MB object key',
      {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 't', name: 'f', input: { ['k'.repeat(20 * 1024 * 1024)]: 1 } } }],
      },
      /^content\[0\]\.toolUse\.input\.k{64}…$/,
    ],
  ]
  it.each(messages)('refuses %s with INVALID_MESSAGE naming it, changing nothing', (_name, message, path) => {
    const before = ledgerChecksum(store.connection())
    const error = refusal(() => store.append('s', message))
    expect(error.code).toBe('INVALID_MESSAGE')
    expect(error.path).toMatch(path)
    expect(error.message.length).toBeLessThan(1000)
    expect(ledgerChecksum(store.connection())).toBe(before)
  })

  it('still takes a well-formed ref, attribution and history options', () => {
    expect(manager.pin({ seq: 1, trackingId: undefined }, { actor: 'agent', reason: 'r' }).changed).toBe(true)
    expect(manager.history({ fromSeq: 1, limit: 1 }).map((e) => e.seq)).toStrictEqual([1])
    expect(store.pinnedMessages({ sessionId: 's' }).map((p) => p.seq)).toStrictEqual([1])
    expect(manager.message({ windowIndex: 0 }).seq).toBe(0)
  })
})
