/**
 * Rewinding, deleting a tree, and bad input on either backend (a conformance-suite file; docs/design.md,
 * "Branches"). A rewind moves the rows after the point into an abandoned branch that stays listed and
 * readable, re-parents the branches forked after the point, and leaves the session's window valid; deleting
 * a session with live branches is refused unless the subtree is asked for; every bad input is a typed error
 * naming the session and the field, with every table of the ledger exactly as before.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { ErrorCode, MessageData, WindowLimits } from '../../src/index.js'
import { makeBackend, type LedgerStore } from '../helpers/backend.js'
import { refusalOf } from '../helpers/refusal.js'
import { assertWindowRulesViaApi as assertWindowRulesThroughApi } from '../helpers/window-rules.js'

const LIMITS: WindowLimits = { windowSize: 4, tokenBudget: undefined, first: 0, last: 0 }

function turn(t: number | string): MessageData[] {
  return [
    { role: 'user', content: [{ text: `question ${t}` }] },
    { role: 'assistant', content: [{ toolUse: { name: 'look', toolUseId: `c${t}`, input: { t } } }] },
    {
      role: 'user',
      content: [{ toolResult: { toolUseId: `c${t}`, status: 'success', content: [{ text: `found ${t}` }] } }],
    },
    { role: 'assistant', content: [{ text: `answer ${t}` }] },
  ]
}

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

async function fresh(): Promise<LedgerStore> {
  return backend.open()
}

/** A digest of every row of every table of the ledger: equal before and after means nothing was written. */
async function fingerprint(store: LedgerStore): Promise<string> {
  return backend.checksum(store)
}

const seqsOf = async (store: LedgerStore, id: string): Promise<number[]> =>
  (await store.history(id, { limit: 1000 })).map((e) => e.seq)

describe('rewind', () => {
  it('moves the rows after the point into an abandoned branch, listed and readable, and re-parents later forks', async () => {
    const store = await fresh()
    await store.append('s', [0, 1, 2, 3].flatMap(turn))
    await store.applyWindow('s', LIMITS)
    await store.fork('s', { atSeq: 5, newSessionId: 'early' })
    await store.fork('s', { atSeq: 11, newSessionId: 'late' })
    await store.append('late', turn('late'))
    const oldHistory = await store.history('s', { limit: 100 })
    const oldWindow = await store.windowEntries('s')
    const lateHistory = await store.history('late', { limit: 100 })
    const result = await store.rewind('s', { toSeq: 7, actor: 'user', reason: 'retry from turn 1' })
    expect(result.left).toBe(8)
    expect(result.session).toMatchObject({ sessionId: 's', messageCount: 8, ownMessages: 8, kind: 'root' })
    expect(result.abandoned).toMatchObject({
      sessionId: 's~1',
      parentId: 's',
      forkSeq: 7,
      kind: 'abandoned',
      actor: 'user',
      reason: 'retry from turn 1',
      messageCount: 16,
      ownMessages: 8,
    })
    expect(await store.history('s~1', { limit: 100 })).toStrictEqual(
      oldHistory.map((e) => ({ ...e, sessionId: 's~1' })),
    )
    expect(await store.windowEntries('s~1')).toStrictEqual(oldWindow)
    expect(await seqsOf(store, 's')).toStrictEqual([...Array(8).keys()])
    expect(await store.history('late', { limit: 100 })).toStrictEqual(lateHistory)
    expect((await store.branches('s')).map((b) => [b.sessionId, b.parentId, b.depth])).toStrictEqual([
      ['s', null, 0],
      ['early', 's', 1],
      ['s~1', 's', 1],
      ['late', 's~1', 2],
    ])
    // The session's window is restricted and valid: its newest turn stays.
    expect((await store.windowEntries('s')).map((e) => e.seq)).toStrictEqual([4, 5, 6, 7])
    await assertWindowRulesThroughApi(store, 's', LIMITS)
    await assertWindowRulesThroughApi(store, 's~1', LIMITS)
    // It goes on from there; a second rewind's branch takes the next free name.
    await store.append('s', turn('again'))
    expect(await seqsOf(store, 's')).toStrictEqual([...Array(12).keys()])
    expect((await store.rewind('s', { toSeq: 9 })).abandoned?.sessionId).toBe('s~2')
  })

  it('to the newest message writes nothing', async () => {
    const store = await fresh()
    await store.append('s', turn(0))
    const before = await fingerprint(store)
    expect(await store.rewind('s', { toSeq: 3 })).toMatchObject({ abandoned: undefined, left: 0 })
    expect(await fingerprint(store)).toBe(before)
  })

  it('of a branch to before its fork point leaves its old content as a sibling', async () => {
    const store = await fresh()
    await store.append('s', [0, 1, 2].flatMap(turn))
    await store.fork('s', { atSeq: 7, newSessionId: 'b' })
    await store.append('b', turn('b'))
    const old = (await store.history('b', { limit: 100 })).map((e) => e.message)
    const r = await store.rewind('b', { toSeq: 3, abandonedId: 'b-old' })
    expect(r.left).toBe(8)
    expect(r.abandoned).toMatchObject({ sessionId: 'b-old', parentId: 's', forkSeq: 7, kind: 'abandoned' })
    expect((await store.history('b-old', { limit: 100 })).map((e) => e.message)).toStrictEqual(old)
    expect((await store.history('b', { limit: 100 })).map((e) => e.message)).toStrictEqual(old.slice(0, 4))
    expect(await store.session('b')).toMatchObject({ parentId: 's', forkSeq: 3, messageCount: 4 })
    await store.append('b', turn('new'))
    expect(await seqsOf(store, 'b')).toStrictEqual([...Array(8).keys()])
    await assertWindowRulesThroughApi(store, 'b', LIMITS)
  })
})

describe('deleteSession', () => {
  it('refuses a session with a live branch unless the subtree goes too; abandoned branches go with it', async () => {
    const store = await fresh()
    await store.append('s', [0, 1].flatMap(turn))
    await store.rewind('s', { toSeq: 3 })
    await store.fork('s', { atSeq: 1, newSessionId: 'b' })
    const before = await fingerprint(store)
    const e = await refusalOf(() => store.deleteSession('s'))
    expect(e).toMatchObject({ code: 'BRANCH_HAS_CHILDREN', sessionId: 's', path: 'subtree' })
    expect(await fingerprint(store)).toBe(before)
    await store.deleteSession('b')
    expect(await store.deleteSession('s')).toMatchObject({ deleted: true, messages: 8 })
    expect(await store.sessions()).toStrictEqual([])
    await store.append('t', turn(0))
    await store.fork('t', { atSeq: 3, newSessionId: 'u' })
    await store.append('u', turn(1))
    expect(await store.deleteSession('t', { subtree: true })).toMatchObject({ deleted: true, messages: 8 })
    expect(await store.sessions()).toStrictEqual([])
  })
})

describe('bad input', () => {
  const cases: [string, (s: LedgerStore) => unknown, ErrorCode, string | undefined][] = [
    ['a fork of a missing session', (s) => s.fork('nobody', { atSeq: 0 }), 'SESSION_NOT_FOUND', 'sessionId'],
    ['a fork past the newest message', (s) => s.fork('s', { atSeq: 8 }), 'MESSAGE_NOT_FOUND', 'atSeq'],
    [
      'a fork at an unknown trackingId',
      (s) => s.fork('s', { trackingId: 'nope' }),
      'MESSAGE_NOT_FOUND',
      'trackingId',
    ],
    [
      'a fork to an existing id',
      (s) => s.fork('s', { atSeq: 1, newSessionId: 'b' }),
      'SESSION_EXISTS',
      'newSessionId',
    ],
    [
      'a fork with both points',
      (s) => s.fork('s', { atSeq: 1, trackingId: 'x' }),
      'INVALID_OPTIONS',
      'atSeq',
    ],
    ['a fork with no point', (s) => s.fork('s', {}), 'INVALID_OPTIONS', 'atSeq'],
    ['a fork at a negative seq', (s) => s.fork('s', { atSeq: -1 }), 'INVALID_OPTIONS', 'atSeq'],
    [
      'a fork with metadata that is not JSON',
      (s) => s.fork('s', { atSeq: 1, metadata: () => 1 }),
      'INVALID_OPTIONS',
      'metadata',
    ],
    [
      'a rewind of a missing session',
      (s) => s.rewind('nobody', { toSeq: 0 }),
      'SESSION_NOT_FOUND',
      'sessionId',
    ],
    ['a rewind past the newest message', (s) => s.rewind('s', { toSeq: 8 }), 'MESSAGE_NOT_FOUND', 'toSeq'],
    [
      'a rewind to an existing id',
      (s) => s.rewind('s', { toSeq: 1, abandonedId: 'b' }),
      'SESSION_EXISTS',
      'abandonedId',
    ],
    [
      'a rewind with both points',
      (s) => s.rewind('s', { toSeq: 1, trackingId: 'x' }),
      'INVALID_OPTIONS',
      'toSeq',
    ],
    ['branches of a missing session', (s) => s.branches('nobody'), 'SESSION_NOT_FOUND', 'sessionId'],
    ['a delete with a live branch', (s) => s.deleteSession('s'), 'BRANCH_HAS_CHILDREN', 'subtree'],
    [
      'a delete with a bad option',
      (s) => s.deleteSession('s', { subtree: 'yes' as never }),
      'INVALID_OPTIONS',
      'options.subtree',
    ],
  ]
  it.each(cases)('%s is refused, nothing written', async (_what, call, code, path) => {
    const store = await fresh()
    await store.append('s', [0, 1].flatMap(turn))
    await store.fork('s', { atSeq: 3, newSessionId: 'b' })
    await store.append('b', turn('b'))
    const before = await fingerprint(store)
    const e = await refusalOf(() => call(store))
    expect(e.code).toBe(code)
    expect(e.path).toBe(path)
    if (code !== 'INVALID_OPTIONS') expect(e.sessionId).toBeDefined()
    expect(e.message.length).toBeGreaterThan(10)
    expect(await fingerprint(store)).toBe(before)
  })
})
