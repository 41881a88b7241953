/**
 * Adversarial: hostile input to fork / rewind / branches / deleteSession on both backends (the conformance
 * suite). Every bad input is a `ContextLedgerError` whose code names the problem, and the ledger is
 * byte-identical afterwards (the backend's checksum of every row).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { ContextLedgerError, type MessageData } from '../../src/index.js'
import { BACKEND, makeBackend } from '../helpers/backend.js'
import type { BranchStore } from '../helpers/branch-run.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

const user = (text: string, trackingId?: string): MessageData => ({
  role: 'user',
  content: [{ text }],
  ...(trackingId === undefined ? {} : { trackingId }),
})
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })

/** A root of 6 messages (seqs 0–5), a fork `b` at 3 with 2 own rows, and `root` rewound to 1 once. */
async function tree(): Promise<BranchStore> {
  const store = await backend.open()
  await store.append('root', [
    user('q0', 't0'),
    assistant('a0'),
    user('q1', 't2'),
    assistant('a1'),
    user('q2', 't4'),
    assistant('a2'),
  ])
  await store.fork('root', { atSeq: 3, newSessionId: 'b' })
  await store.append('b', [user('b q', 'tb4'), assistant('b a')])
  await store.fork('root', { atSeq: 5, newSessionId: 'c' })
  await store.append('c', [user('c q', 'tc6')])
  return store
}

/** Calls `f` and expects a typed error with `code`; the ledger must not change. */
async function refused(
  store: BranchStore,
  code: string,
  f: () => Promise<unknown>,
  path?: string | RegExp,
): Promise<ContextLedgerError> {
  const before = await backend.checksum(store)
  let caught: unknown
  try {
    await f()
  } catch (error) {
    caught = error
  }
  expect(caught, 'the call must throw').toBeInstanceOf(ContextLedgerError)
  const error = caught as ContextLedgerError
  expect(error.code, error.message).toBe(code)
  if (typeof path === 'string') expect(error.path).toBe(path)
  else if (path !== undefined) expect(error.path ?? '').toMatch(path)
  expect(await backend.checksum(store)).toBe(before)
  return error
}

/** A readable name of a value for a test title. */
const label = (v: unknown): string =>
  typeof v === 'bigint' ? `${v}n` : typeof v === 'number' ? String(v) : JSON.stringify(v)

const badSeqs: unknown[] = [
  -1,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  1.5,
  '3',
  2 ** 53,
  -0.0001,
  null,
  true,
  {},
  [3],
  BigInt(3),
]

describe(`fork: hostile input [${BACKEND}]`, () => {
  it.each(badSeqs.map((v) => [label(v), v]))(
    'atSeq %s is INVALID_OPTIONS at atSeq, nothing written',
    async (_, atSeq) => {
      const store = await tree()
      await refused(store, 'INVALID_OPTIONS', () => store.fork('root', { atSeq, newSessionId: 'x' }), 'atSeq')
    },
  )

  it('a seq past the end, or a huge safe integer, is MESSAGE_NOT_FOUND at atSeq', async () => {
    const store = await tree()
    // past 2^31 - 1 on PostgreSQL: see test/adversarial/pending/branches-huge-seq.test.ts.txt
    for (const atSeq of [6, 7, 2 ** 31 - 1])
      await refused(store, 'MESSAGE_NOT_FOUND', () => store.fork('root', { atSeq }), 'atSeq')
    // b holds seqs 0–5 (0–3 inherited, 4–5 own): 6 is past it, even though root has no row 6 either
    await refused(store, 'MESSAGE_NOT_FOUND', () => store.fork('b', { atSeq: 6 }), 'atSeq')
  })

  it('a trackingId that is not there, or is only in a sibling or in the parent after the fork point', async () => {
    const store = await tree()
    await refused(store, 'MESSAGE_NOT_FOUND', () => store.fork('root', { trackingId: 'nope' }), 'trackingId')
    // tb4 is b's own row: the root does not see it, nor does c
    await refused(store, 'MESSAGE_NOT_FOUND', () => store.fork('root', { trackingId: 'tb4' }), 'trackingId')
    await refused(store, 'MESSAGE_NOT_FOUND', () => store.fork('c', { trackingId: 'tb4' }), 'trackingId')
    // t4 is root's seq 4, after b's fork point 3: b does not see it
    await refused(store, 'MESSAGE_NOT_FOUND', () => store.fork('b', { trackingId: 't4' }), 'trackingId')
    await refused(store, 'MESSAGE_NOT_FOUND', () => store.rewind('b', { trackingId: 't4' }), 'trackingId')
    // c's own row from b: no
    await refused(store, 'MESSAGE_NOT_FOUND', () => store.rewind('b', { trackingId: 'tc6' }), 'trackingId')
  })

  it('a trackingId inherited from the parent names the inherited seq', async () => {
    const store = await tree()
    const info = await store.fork('b', { trackingId: 't2', newSessionId: 'b2' })
    expect(info.forkSeq).toBe(2)
    expect(info.parentId).toBe('b')
    expect(info.messageCount).toBe(3)
  })

  it('both or neither of atSeq and trackingId, unknown keys, non-object options', async () => {
    const store = await tree()
    await refused(store, 'INVALID_OPTIONS', () => store.fork('root', {}))
    await refused(store, 'INVALID_OPTIONS', () => store.fork('root', { atSeq: 1, trackingId: 't0' }))
    await refused(store, 'INVALID_OPTIONS', () => store.fork('root', { atSeq: 1, toSeq: 1 }))
    await refused(store, 'INVALID_OPTIONS', () => store.rewind('root', {}))
    await refused(store, 'INVALID_OPTIONS', () => store.rewind('root', { toSeq: 1, trackingId: 't0' }))
    await refused(store, 'INVALID_OPTIONS', () => store.rewind('root', { toSeq: 1, newSessionId: 'x' }))
    for (const o of [null, 3, 'atSeq', [1]])
      await refused(store, 'INVALID_OPTIONS', () =>
        store.fork('root', o as unknown as Record<string, unknown>),
      )
    await refused(store, 'INVALID_OPTIONS', () => store.fork('root', { atSeq: 1, trackingId: '' }))
    await refused(store, 'INVALID_OPTIONS', () => store.fork('root', { trackingId: '' }), 'trackingId')
    await refused(store, 'INVALID_OPTIONS', () => store.fork('root', { trackingId: 7 }), 'trackingId')
  })

  it('a session that does not exist is SESSION_NOT_FOUND for fork, rewind and branches', async () => {
    const store = await tree()
    await refused(store, 'SESSION_NOT_FOUND', () => store.fork('ghost', { atSeq: 0 }))
    await refused(store, 'SESSION_NOT_FOUND', () => store.rewind('ghost', { toSeq: 0 }))
    await refused(store, 'SESSION_NOT_FOUND', () => store.branches('ghost'))
  })

  it('newSessionId equal to the parent, a sibling, the root, or an abandoned branch is SESSION_EXISTS', async () => {
    const store = await tree()
    await store.rewind('root', { toSeq: 4 }) // root~1 holds seq 5
    for (const id of ['root', 'b', 'c', 'root~1'])
      await refused(
        store,
        'SESSION_EXISTS',
        () => store.fork('root', { atSeq: 1, newSessionId: id }),
        'newSessionId',
      )
    await refused(
      store,
      'SESSION_EXISTS',
      () => store.fork('b', { atSeq: 1, newSessionId: 'b' }),
      'newSessionId',
    )
  })

  it('bad newSessionIds (empty, lone surrogate, not a string) are INVALID_OPTIONS at newSessionId', async () => {
    const store = await tree()
    for (const id of ['', '\uD800', 5, null, {}])
      await refused(
        store,
        'INVALID_OPTIONS',
        () => store.fork('root', { atSeq: 1, newSessionId: id }),
        'newSessionId',
      )
  })

  it('a huge newSessionId is refused or kept exactly, never truncated', async () => {
    const store = await tree()
    const big = 'x'.repeat(100_000)
    const before = await backend.checksum(store)
    try {
      const info = await store.fork('root', { atSeq: 1, newSessionId: big })
      expect(info.sessionId).toBe(big)
      expect((await store.branches(big)).map((b) => b.sessionId)).toContain(big)
    } catch (error) {
      expect(error).toBeInstanceOf(ContextLedgerError)
      expect((error as ContextLedgerError).code).toBe('INVALID_OPTIONS')
      expect(await backend.checksum(store)).toBe(before)
    }
  })

  it('unicode ids (emoji, combining marks, RTL, NUL-free) round-trip through fork, branches and rewind', async () => {
    const store = await tree()
    const ids = ['🌳分支', 'e\u0301', '\u05D0\u05D1', 'a b/c\\d%_*']
    for (const id of ids) {
      const info = await store.fork('root', { atSeq: 2, newSessionId: id })
      expect(info.sessionId).toBe(id)
      await store.append(id, [assistant(`own ${id}`)])
      const r = await store.rewind(id, { toSeq: 2, abandonedId: `${id}~gone` })
      expect(r.abandoned?.sessionId).toBe(`${id}~gone`)
      expect(r.left).toBe(1)
    }
    const listed = (await store.branches('root')).map((b) => b.sessionId)
    for (const id of ids) {
      expect(listed).toContain(id)
      expect(listed).toContain(`${id}~gone`)
    }
    // "e\u0301" and its NFC form "\u00e9" are different ids
    const nfc = await store.fork('root', { atSeq: 0, newSessionId: '\u00e9' })
    expect(nfc.sessionId).toBe('\u00e9')
  })

  it('a NUL in an id is refused with a typed error or kept exactly', async () => {
    const store = await tree()
    const before = await backend.checksum(store)
    try {
      const info = await store.fork('root', { atSeq: 1, newSessionId: 'a\u0000b' })
      expect(info.sessionId).toBe('a\u0000b')
    } catch (error) {
      expect(error).toBeInstanceOf(ContextLedgerError)
      expect(await backend.checksum(store)).toBe(before)
    }
  })

  it('actor/reason/metadata that are not plain are INVALID_OPTIONS naming the field', async () => {
    const store = await tree()
    await refused(store, 'INVALID_OPTIONS', () => store.fork('root', { atSeq: 1, actor: '' }), 'actor')
    await refused(store, 'INVALID_OPTIONS', () => store.fork('root', { atSeq: 1, actor: 3 }), 'actor')
    await refused(
      store,
      'INVALID_OPTIONS',
      () => store.fork('root', { atSeq: 1, reason: '\uDC00' }),
      'reason',
    )
    await refused(store, 'INVALID_OPTIONS', () => store.rewind('root', { toSeq: 1, actor: {} }), 'actor')
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    await refused(
      store,
      'INVALID_OPTIONS',
      () => store.fork('root', { atSeq: 1, metadata: cyclic }),
      /metadata/,
    )
    await refused(
      store,
      'INVALID_OPTIONS',
      () => store.fork('root', { atSeq: 1, metadata: { f: () => 1 } }),
      /metadata/,
    )
  })
})

describe(`rewind: hostile input [${BACKEND}]`, () => {
  it.each(badSeqs.map((v) => [label(v), v]))(
    'toSeq %s is INVALID_OPTIONS at toSeq, nothing written',
    async (_, toSeq) => {
      const store = await tree()
      await refused(store, 'INVALID_OPTIONS', () => store.rewind('root', { toSeq }), 'toSeq')
    },
  )

  it('rewinding past the newest is MESSAGE_NOT_FOUND at toSeq', async () => {
    const store = await tree()
    for (const toSeq of [6, 100, 2 ** 31 - 1])
      await refused(store, 'MESSAGE_NOT_FOUND', () => store.rewind('root', { toSeq }), 'toSeq')
    await refused(store, 'MESSAGE_NOT_FOUND', () => store.rewind('b', { toSeq: 6 }), 'toSeq')
  })

  it('rewinding to the newest seq writes nothing, twice to the same seq writes once', async () => {
    const store = await tree()
    const before = await backend.checksum(store)
    const same = await store.rewind('root', { toSeq: 5 })
    expect(same.abandoned).toBeUndefined()
    expect(same.left).toBe(0)
    expect(await backend.checksum(store)).toBe(before)

    const first = await store.rewind('root', { toSeq: 4 })
    expect(first.abandoned?.sessionId).toBe('root~1')
    const after = await backend.checksum(store)
    const again = await store.rewind('root', { toSeq: 4 })
    expect(again.abandoned).toBeUndefined()
    expect(again.left).toBe(0)
    expect(await backend.checksum(store)).toBe(after)
    // a later rewind picks the next free k
    const second = await store.rewind('root', { toSeq: 3 })
    expect(second.abandoned?.sessionId).toBe('root~2')
  })

  it('abandonedId that exists (the session itself, a sibling, an earlier abandoned branch) is SESSION_EXISTS', async () => {
    const store = await tree()
    await store.rewind('root', { toSeq: 5 - 0 }) // no-op
    await store.append('root', [user('q3'), assistant('a3')]) // root 0–7
    await store.rewind('root', { toSeq: 6 }) // root~1
    for (const id of ['root', 'b', 'c', 'root~1'])
      await refused(
        store,
        'SESSION_EXISTS',
        () => store.rewind('root', { toSeq: 4, abandonedId: id }),
        'abandonedId',
      )
  })

  it('the default abandoned id skips an id a user took: root~1 held by a fork', async () => {
    const store = await tree()
    await store.fork('root', { atSeq: 0, newSessionId: 'root~1' })
    const r = await store.rewind('root', { toSeq: 4 })
    expect(r.abandoned?.sessionId).toBe('root~2')
    expect((await store.branches('root')).find((b) => b.sessionId === 'root~1')?.kind).toBe('fork')
  })

  it("rewinding a branch to its own fork point leaves it the parent's prefix; before it, less", async () => {
    const store = await tree()
    const r = await store.rewind('b', { toSeq: 3 })
    expect(r.left).toBe(2)
    expect(r.session.messageCount).toBe(4)
    expect(r.session.ownMessages).toBe(0)
    const r2 = await store.rewind('b', { toSeq: 1 })
    expect(r2.session.messageCount).toBe(2)
    expect(r2.left).toBe(2)
    const h = await store.history('b')
    expect(h.map((m) => m.seq)).toEqual([0, 1])
    // the root is untouched
    expect((await store.history('root')).length).toBe(6)
  })

  it('rewinding a root to seq 0 (the first message) keeps one message', async () => {
    const store = await tree()
    const r = await store.rewind('root', { toSeq: 0 })
    expect(r.session.messageCount).toBe(1)
    // b forked at 3 and c at 5 now hang below the abandoned branch, their conversations intact
    const infos = await store.branches('root')
    const byId = new Map(infos.map((i) => [i.sessionId, i]))
    expect(byId.get('b')?.parentId).toBe('root~1')
    expect(byId.get('c')?.parentId).toBe('root~1')
    expect(byId.get('b')?.messageCount).toBe(6)
    expect(byId.get('c')?.messageCount).toBe(7)
    expect((await store.history('b')).map((m) => m.seq)).toEqual([0, 1, 2, 3, 4, 5])
  })

  it('forking an abandoned branch works and it sees exactly what was rewound away', async () => {
    const store = await tree()
    await store.rewind('root', { toSeq: 1 })
    const info = await store.fork('root~1', { atSeq: 4, newSessionId: 'revived' })
    expect(info.kind).toBe('fork')
    const texts = (await store.history('revived')).map((m) => JSON.stringify(m.message.content))
    expect(texts.join()).toContain('q2')
    expect(texts.join()).not.toContain('b q')
    await store.append('revived', [assistant('back')])
    expect(await store.messageCount('revived')).toBe(6)
  })

  it('appending to an abandoned branch: allowed or typed, never corrupting the parent', async () => {
    const store = await tree()
    await store.rewind('root', { toSeq: 1 })
    try {
      await store.append('root~1', [assistant('late')])
    } catch (error) {
      expect(error).toBeInstanceOf(ContextLedgerError)
    }
    expect(await store.messageCount('root')).toBe(2)
  })
})

describe(`deleteSession: hostile input [${BACKEND}]`, () => {
  it('bad options are INVALID_OPTIONS; live children refuse; nothing written', async () => {
    const store = await tree()
    for (const o of [{ subtree: 'yes' }, { subtree: 1 }, { subtree: true, extra: 1 }, 3])
      await refused(store, 'INVALID_OPTIONS', () =>
        store.deleteSession('root', o as unknown as { subtree?: boolean }),
      )
    await refused(store, 'BRANCH_HAS_CHILDREN', () => store.deleteSession('root'))
    await refused(store, 'BRANCH_HAS_CHILDREN', () => store.deleteSession('root', { subtree: false }))
  })

  it('deleting a leaf keeps its siblings and parent whole; subtree removes every descendant', async () => {
    const store = await tree()
    await store.fork('b', { atSeq: 5, newSessionId: 'bb' })
    await store.append('bb', [user('bb q')])
    const bHistory = await store.history('b')
    await store.deleteSession('c')
    expect(await store.history('b')).toEqual(bHistory)
    expect((await store.history('root')).length).toBe(6)
    await refused(store, 'BRANCH_HAS_CHILDREN', () => store.deleteSession('b'))
    await store.deleteSession('b', { subtree: true })
    expect((await store.branches('root')).map((x) => x.sessionId)).toEqual(['root'])
    await refused(store, 'SESSION_NOT_FOUND', () => store.branches('bb'))
    expect((await store.history('root')).length).toBe(6)
  })

  it('deleting a root whose only descendants are abandoned takes them with it', async () => {
    const store = await backend.open()
    await store.append('r', [user('q'), assistant('a'), user('q2'), assistant('a2')])
    await store.rewind('r', { toSeq: 1 })
    await store.deleteSession('r')
    await refused(store, 'SESSION_NOT_FOUND', () => store.branches('r~1'))
  })
})
