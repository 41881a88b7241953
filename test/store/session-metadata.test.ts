/**
 * An append's `sessionMetadata` fold on either backend (a conformance-suite file): it is called once,
 * inside the append's write, with the session's metadata, the entries the append newly wrote (not the ones
 * a retry or a unique id matched, not repair rows) and the rows' time; what it returns is stored with the
 * rows and read back by `sessions()` and `session()`. A fold that throws or returns what is not JSON undoes
 * the append; two stores racing appends with a counting fold lose no count. Through the manager and the
 * adapters' port too.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openPort } from '../../src/adapters/port.js'
import type { PostgresContextStore } from '../../src/backends/postgres/index.js'
import type { LedgerEntry, MessageData, SessionMetadataFold } from '../../src/index.js'
import { BACKEND, coreStoreOf, makeBackend, type LedgerStore } from '../helpers/backend.js'
import { assistant, toolUse, user } from '../helpers/messages.js'
import { refusalOf } from '../helpers/refusal.js'
import { fcRuns } from '../helpers/runs.js'

const backend = makeBackend()
let store: LedgerStore
let sid = ''
let tests = 0
beforeAll(async () => {
  store = await backend.open()
})
afterAll(async () => {
  await backend.cleanup()
})
beforeEach(() => {
  sid = `s${tests++}`
})

/** One call of a fold, as it saw it. */
interface Call {
  previous: unknown
  written: readonly LedgerEntry[]
  now: number
}

/** A fold that records its calls and returns `next(previous, written)`. */
function recording(next: (previous: unknown, written: readonly LedgerEntry[]) => unknown = () => undefined) {
  const calls: Call[] = []
  const fold: SessionMetadataFold = (previous, written, now) => {
    calls.push({ previous, written, now })
    return next(previous, written)
  }
  return { calls, fold }
}

/** The counting fold of the race: how many entries were written, and their seqs. */
interface Count {
  n: number
  seqs: number[]
}
const counting = (previous: unknown, written: readonly LedgerEntry[]): Count => {
  const prev = previous as Count | undefined
  return { n: (prev?.n ?? 0) + written.length, seqs: [...(prev?.seqs ?? []), ...written.map((e) => e.seq)] }
}

/** The PostgreSQL stores' lost races so far (0 on SQLite, whose writers wait for the lock instead). */
const conflicts = (stores: readonly LedgerStore[]): number =>
  stores.reduce((n, s) => n + ((s as Partial<PostgresContextStore>).stats?.conflicts ?? 0), 0)

const UI = 'ai-sdk/ui' as const
const ui = (id: string, role: 'user' | 'assistant', text: string): MessageData =>
  ({ id, role, parts: [{ type: 'text', text }] }) as unknown as MessageData

/** Everything a refused append must leave as it was. */
async function state(s: LedgerStore, sessionId: string): Promise<unknown> {
  return {
    history: await s.history(sessionId, { limit: 1000 }),
    session: await s.session(sessionId),
    sessions: await s.sessions(),
    checksum: await backend.checksum(s),
  }
}

describe(`append's sessionMetadata [${BACKEND}]`, () => {
  it('a new session: no previous metadata, every entry written, the rows’ time; stored and listed', async () => {
    const { calls, fold } = recording((_, written) => ({ count: written.length, title: 'first' }))
    const entries = await store.append(sid, [user('q0'), assistant('a0')], { sessionMetadata: fold })
    expect(calls).toHaveLength(1)
    const [call] = calls
    expect(call?.previous).toBeUndefined()
    expect(call?.written).toStrictEqual(entries)
    expect(call?.now).toBe(entries[0]?.createdAt.getTime())
    expect((await store.session(sid))?.metadata).toStrictEqual({ count: 2, title: 'first' })
    const listed = (await store.sessions()).find((s) => s.id === sid)
    expect(listed?.metadata).toStrictEqual({ count: 2, title: 'first' })
  })

  it('an existing session: the stored metadata as previous, only the new entries written', async () => {
    await store.append(sid, [user('q0'), assistant('a0')], { sessionMetadata: counting })
    const { calls, fold } = recording(counting)
    const entries = await store.append(sid, [user('q1'), assistant('a1')], { sessionMetadata: fold })
    expect(calls[0]?.previous).toStrictEqual({ n: 2, seqs: [0, 1] })
    expect(calls[0]?.written.map((e) => e.seq)).toStrictEqual([2, 3])
    expect(calls[0]?.written).toStrictEqual(entries)
    expect((await store.session(sid))?.metadata).toStrictEqual({ n: 4, seqs: [0, 1, 2, 3] })
  })

  it('a batch of unique ids partly stored: written holds only the new ones; an identical retry writes []', async () => {
    const first = [ui('u0', 'user', 'hi'), ui('a0', 'assistant', 'hello')]
    await store.append(sid, first, { format: UI, sessionMetadata: counting })
    const { calls, fold } = recording(counting)
    const batch = [...first, ui('u1', 'user', 'again'), ui('a1', 'assistant', 'sure')]
    const entries = await store.append(sid, batch, { format: UI, sessionMetadata: fold })
    expect(entries.map((e) => e.seq)).toStrictEqual([0, 1, 2, 3])
    expect(calls[0]?.written).toStrictEqual(entries.slice(2))
    expect((await store.session(sid))?.metadata).toStrictEqual({ n: 4, seqs: [0, 1, 2, 3] })
    const before = Date.now()
    const again = await store.append(sid, batch, { format: UI, sessionMetadata: fold })
    const after = Date.now()
    expect(again).toStrictEqual(entries)
    expect(calls).toHaveLength(2)
    expect(calls[1]?.written).toStrictEqual([])
    expect(calls[1]?.now).toBeGreaterThanOrEqual(before)
    expect(calls[1]?.now).toBeLessThanOrEqual(after)
    expect((await store.session(sid))?.metadata).toStrictEqual({ n: 4, seqs: [0, 1, 2, 3] })
  })

  it('a retried Strands append (same trackingIds) is called with written = []', async () => {
    const batch = [user('q0', 'tq0'), user('q1', 'tq1')]
    await store.append(sid, batch, { sessionMetadata: counting })
    const { calls, fold } = recording(counting)
    expect(await store.append(sid, batch, { sessionMetadata: fold })).toHaveLength(2)
    expect(calls.map((c) => c.written)).toStrictEqual([[]])
    expect((await store.session(sid))?.metadata).toStrictEqual({ n: 2, seqs: [0, 1] })
  })

  it('a repair row is not among the written entries', async () => {
    await store.append(sid, [user('q0'), toolUse('A')], { sessionMetadata: counting })
    const { calls, fold } = recording(counting)
    // q1 leaves A unanswered: a repair row (seq 2) answers it first.
    const [entry] = await store.append(sid, user('q1'), { sessionMetadata: fold })
    expect(entry?.repair?.seq).toBe(2)
    expect(calls[0]?.written.map((e) => e.seq)).toStrictEqual([3])
    expect((await store.session(sid))?.metadata).toStrictEqual({ n: 3, seqs: [0, 1, 3] })
    expect(await store.messageCount(sid)).toBe(4)
  })

  it('undefined leaves the metadata as it is; null is stored as null; a session without any reads undefined', async () => {
    await store.append(sid, user('q0'))
    expect((await store.session(sid))?.metadata).toBeUndefined()
    await store.append(sid, user('q1'), { sessionMetadata: () => ({ kept: true }) })
    await store.append(sid, user('q2'), { sessionMetadata: () => undefined })
    await store.append(sid, user('q3'))
    expect((await store.session(sid))?.metadata).toStrictEqual({ kept: true })
    await store.append(sid, user('q4'), { sessionMetadata: () => null })
    expect((await store.session(sid))?.metadata).toBeNull()
    // A property whose value is undefined is left out, as JSON.stringify leaves it out.
    await store.append(sid, user('q5'), { sessionMetadata: () => ({ a: 1, b: undefined }) })
    expect((await store.session(sid))?.metadata).toStrictEqual({ a: 1 })
  })

  it('other writes leave the metadata as it is (window, pins, appends without the option)', async () => {
    await store.append(sid, [user('q0'), assistant('a0'), user('q1')], { sessionMetadata: counting })
    const m = backend.manager(store, { sessionId: sid, windowSize: 2 })
    await m.applyWindow()
    await m.pin({ seq: 2 })
    await m.append(assistant('a1'))
    expect((await store.session(sid))?.metadata).toStrictEqual({ n: 3, seqs: [0, 1, 2] })
    const other = await backend.reopen(store)
    expect((await other.session(sid))?.metadata).toStrictEqual({ n: 3, seqs: [0, 1, 2] })
  })

  it('is not called for an empty batch', async () => {
    const { calls, fold } = recording(counting)
    expect(await store.append(sid, [], { sessionMetadata: fold })).toStrictEqual([])
    expect(calls).toHaveLength(0)
    expect(await store.session(sid)).toBeUndefined()
  })
})

describe(`a refused sessionMetadata [${BACKEND}]`, () => {
  it('a fold that throws undoes the append: INVALID_OPTIONS at sessionMetadata, the throw as its cause', async () => {
    const thrown = new Error('summary broke')
    // A new session: not even created.
    const fresh = await refusalOf(() =>
      store.append(sid, user('q0'), {
        sessionMetadata: () => {
          throw thrown
        },
      }),
    )
    expect(fresh).toMatchObject({ code: 'INVALID_OPTIONS', path: 'sessionMetadata', sessionId: sid })
    expect(fresh.cause).toBe(thrown)
    expect(fresh.message).toContain('summary broke')
    expect(await store.session(sid)).toBeUndefined()
    // An existing one: rows, session row and metadata as they were.
    await store.append(sid, [user('q0'), toolUse('A')], { sessionMetadata: counting })
    const before = await state(store, sid)
    const error = await refusalOf(() =>
      store.append(sid, [user('q1'), assistant('a1')], {
        sessionMetadata: (prev) => {
          throw new TypeError(`cannot fold onto ${JSON.stringify(prev)}`)
        },
      }),
    )
    expect(error).toMatchObject({ code: 'INVALID_OPTIONS', path: 'sessionMetadata' })
    expect(error.cause).toBeInstanceOf(TypeError)
    expect(await state(store, sid)).toStrictEqual(before)
  })

  it('a value that is not plain JSON undoes the append with INVALID_OPTIONS at sessionMetadata', async () => {
    await store.append(sid, user('q0'), { sessionMetadata: () => ({ v: 1 }) })
    const before = await state(store, sid)
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const bad: unknown[] = [
      () => 1,
      Symbol('s'),
      10n,
      Number.NaN,
      { at: new Date(0) },
      new Map([[1, 2]]),
      { nested: [1, undefined] },
      { toJSON: () => 'x' },
      cyclic,
    ]
    for (const value of bad) {
      const error = await refusalOf(() => store.append(sid, user('q1'), { sessionMetadata: () => value }))
      expect(error).toMatchObject({ code: 'INVALID_OPTIONS', path: 'sessionMetadata' })
      expect(error.message).toContain('not plain JSON')
      expect(await state(store, sid)).toStrictEqual(before)
    }
  })

  it('an option that is not a function is INVALID_OPTIONS at sessionMetadata, nothing written', async () => {
    for (const value of [1, 'fold', {}, null, true]) {
      const error = await refusalOf(() =>
        store.append(sid, user('q0'), { sessionMetadata: value as unknown as SessionMetadataFold }),
      )
      expect(error).toMatchObject({ code: 'INVALID_OPTIONS', path: 'sessionMetadata' })
      expect(error.message).toContain('expected a function')
    }
    expect(await store.session(sid)).toBeUndefined()
  })
})

describe(`sessionMetadata through the manager and the adapters' port [${BACKEND}]`, () => {
  it('the manager passes it to the store, and still refuses an unknown option', async () => {
    const m = backend.manager(store, { sessionId: sid })
    await m.append([user('q0'), assistant('a0')], { sessionMetadata: counting, expectCount: 0 })
    expect((await store.session(sid))?.metadata).toStrictEqual({ n: 2, seqs: [0, 1] })
    const unknown = await refusalOf(() =>
      m.append(user('q1'), { sessionmetadata: counting } as unknown as { expectCount: number }),
    )
    expect(unknown).toMatchObject({ code: 'INVALID_OPTIONS', path: 'options.sessionmetadata' })
    expect(await refusalOf(() => m.append(user('q1'), { sessionMetadata: 'x' as never }))).toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'sessionMetadata',
    })
  })

  it('the port passes it with expectCount, in the session’s format', async () => {
    const { port } = openPort(coreStoreOf(store), { sessionId: sid, format: UI })
    const { calls, fold } = recording(counting)
    await port.append([ui('u0', 'user', 'hi')], { expectCount: 0, sessionMetadata: fold })
    await port.append([ui('u0', 'user', 'hi'), ui('a0', 'assistant', 'yo')], { sessionMetadata: fold })
    expect(calls.map((c) => c.written.map((e) => e.trackingId))).toStrictEqual([['u0'], ['a0']])
    expect((await store.session(sid))?.metadata).toStrictEqual({ n: 2, seqs: [0, 1] })
    expect(
      await refusalOf(() => port.append([ui('u1', 'user', 'x')], { expectCount: 5, sessionMetadata: fold })),
    ).toMatchObject({ code: 'APPEND_CONFLICT' })
    expect(calls).toHaveLength(2)
  })
})

describe(`two stores racing appends with a counting fold [${BACKEND}]`, () => {
  it('50 appends each, all at once: the count equals the messages, every seq counted once', async () => {
    const other = await backend.reopen(store)
    const stores = [store, other]
    const conflictsBefore = conflicts(stores)
    let calls = 0
    const fold: SessionMetadataFold = (previous, written) => {
      calls++
      return counting(previous, written)
    }
    await Promise.all(
      stores.flatMap((s, w) =>
        Array.from({ length: 50 }, (_, i) => s.append(sid, user(`w${w} m${i}`), { sessionMetadata: fold })),
      ),
    )
    const count = await store.messageCount(sid)
    expect(count).toBe(100)
    const metadata = (await other.session(sid))?.metadata as Count
    expect(metadata.n).toBe(count)
    expect([...metadata.seqs].sort((a, b) => a - b)).toStrictEqual(Array.from({ length: count }, (_, i) => i))
    if (BACKEND === 'postgres') {
      // The writers lost races, and the losers' folds ran again on the winners' metadata: more calls than
      // appends, and still no count lost or repeated.
      expect(conflicts(stores)).toBeGreaterThan(conflictsBefore)
      expect(calls).toBeGreaterThan(100)
    } else expect(calls).toBe(100)
  })

  it('as a property: random batches and retries from two stores; the fold sees every new row exactly once', async () => {
    const other = await backend.reopen(store)
    let run = 0
    const step = fc.record({ size: fc.integer({ min: 1, max: 3 }), retry: fc.boolean() })
    const plan = fc.tuple(
      fc.array(step, { minLength: 1, maxLength: 12 }),
      fc.array(step, { minLength: 1, maxLength: 12 }),
    )
    await fc.assert(
      fc.asyncProperty(plan, async (plans) => {
        const session = `${sid}-${run++}`
        const writer = async (s: LedgerStore, w: number) => {
          for (const [i, { size, retry }] of (plans[w] ?? []).entries()) {
            const batch = Array.from({ length: size }, (_, j) => user(`w${w} b${i} m${j}`, `w${w}-${i}-${j}`))
            await s.append(session, batch, { sessionMetadata: counting })
            // A retry of a batch whose rows are the session's newest writes nothing (another writer's
            // rows in between make it a repeat: new rows, counted).
            if (retry) await s.append(session, batch, { sessionMetadata: counting })
          }
        }
        await Promise.all([writer(store, 0), writer(other, 1)])
        const count = await store.messageCount(session)
        const metadata = (await store.session(session))?.metadata as Count
        expect(metadata.n).toBe(count)
        expect([...metadata.seqs].sort((a, b) => a - b)).toStrictEqual(
          Array.from({ length: count }, (_, i) => i),
        )
      }),
      { numRuns: fcRuns(BACKEND === 'postgres' ? 4 : 10) },
    )
  })
})
