/**
 * Compare-and-append: `append(…, { expectCount })` writes only onto a session that holds exactly that many
 * messages (0: not created yet), and otherwise refuses with `APPEND_CONFLICT`, writing nothing. The count
 * is read inside the write, so writers racing with the same expectation — two stores on one ledger, as
 * two processes — see exactly one succeed. Bad values are `INVALID_OPTIONS` at `expectCount`.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ContextLedgerError, type MessageData } from '../../src/index.js'
import { BACKEND, makeBackend, type LedgerStore } from '../helpers/backend.js'
import { assistant, toolUse, turns, user } from '../helpers/messages.js'
import { refusalOf } from '../helpers/refusal.js'
import { fcRuns } from '../helpers/runs.js'

// The conformance suite: the same tests on the backend the project selects (test/helpers/backend.ts).
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

/** What a refused append must leave as it was: the archive, the window and every row of the ledger. */
async function state(s: LedgerStore, sessionId: string): Promise<unknown> {
  return {
    history: await s.history(sessionId, { limit: 1000 }),
    window: await s.window(sessionId),
    session: await s.session(sessionId),
    checksum: await backend.checksum(s),
  }
}

describe(`append with expectCount [${BACKEND}]`, () => {
  it('appends when the session holds exactly that many messages, 0 for a new session', async () => {
    expect(await store.append(sid, turns(1), { expectCount: 0 })).toHaveLength(2)
    const [entry] = await store.append(sid, user('q1'), { expectCount: 2 })
    expect(entry?.seq).toBe(2)
    expect(await store.append(sid, [assistant('a1'), user('q2')], { expectCount: 3 })).toHaveLength(2)
    expect(await store.messageCount(sid)).toBe(5)
  })

  it('refuses any other count with APPEND_CONFLICT naming the session and both counts; nothing written', async () => {
    await store.append(sid, turns(2))
    const before = await state(store, sid)
    for (const expectCount of [0, 3, 5, 100]) {
      const error = await refusalOf(() => store.append(sid, user('late'), { expectCount }))
      expect(error).toMatchObject({ code: 'APPEND_CONFLICT', path: 'expectCount', sessionId: sid })
      expect(error.message).toContain(`"${sid}"`)
      expect(error.message).toContain(`holds 4 messages`)
      expect(error.message).toContain(`${expectCount} the append expected`)
      expect(await state(store, sid)).toStrictEqual(before)
    }
  })

  it('does not create a session it refuses an append to', async () => {
    const error = await refusalOf(() => store.append(sid, user('q0'), { expectCount: 1 }))
    expect(error.code).toBe('APPEND_CONFLICT')
    expect(await store.session(sid)).toBeUndefined()
    expect(await store.history(sid)).toStrictEqual([])
  })

  it('counts every row the archive holds, repair rows included', async () => {
    await store.append(sid, [user('q0'), toolUse('A')])
    // q1 leaves A unanswered: a repair row answers it first, so 2 messages become 4.
    const [repaired] = await store.append(sid, user('q1'), { expectCount: 2 })
    expect(repaired?.repair?.seq).toBe(2)
    expect(await store.messageCount(sid)).toBe(4)
    expect((await refusalOf(() => store.append(sid, user('q2'), { expectCount: 3 }))).code).toBe(
      'APPEND_CONFLICT',
    )
    expect(await store.append(sid, user('q2'), { expectCount: 4 })).toHaveLength(1)
  })

  it('refuses a retry of messages already appended when the count moved past it (no silent no-op)', async () => {
    const message = user('q0', 'tracked-1')
    await store.append(sid, message, { expectCount: 0 })
    // Without expectCount the retry is a no-op; with the count it was sent with, the count decides.
    expect(await store.append(sid, message)).toHaveLength(1)
    expect((await refusalOf(() => store.append(sid, message, { expectCount: 0 }))).code).toBe(
      'APPEND_CONFLICT',
    )
    expect(await store.messageCount(sid)).toBe(1)
  })

  it('checks an empty batch too: it writes nothing either way', async () => {
    await store.append(sid, turns(1))
    expect(await store.append(sid, [], { expectCount: 2 })).toStrictEqual([])
    expect((await refusalOf(() => store.append(sid, [], { expectCount: 1 }))).code).toBe('APPEND_CONFLICT')
    expect((await refusalOf(() => store.append(`${sid}-new`, [], { expectCount: 1 }))).code).toBe(
      'APPEND_CONFLICT',
    )
    expect(await store.append(`${sid}-new`, [], { expectCount: 0 })).toStrictEqual([])
    expect(await store.session(`${sid}-new`)).toBeUndefined()
  })

  it('refuses a value that is not an integer ≥ 0 with INVALID_OPTIONS at expectCount, writing nothing', async () => {
    await store.append(sid, turns(1))
    const before = await state(store, sid)
    for (const expectCount of [-1, 1.5, Number.NaN, Infinity, 2 ** 53, '2', null, true, {}]) {
      const error = await refusalOf(() =>
        store.append(sid, user('q1'), { expectCount: expectCount as unknown as number }),
      )
      expect(error).toMatchObject({ code: 'INVALID_OPTIONS', path: 'expectCount' })
      expect(await state(store, sid)).toStrictEqual(before)
    }
    // Checked before the count: a bad value on an empty batch, or on a session that does not exist.
    expect(await refusalOf(() => store.append('nobody', [], { expectCount: -1 }))).toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'expectCount',
    })
  })

  it('goes with the other options: a token counter and a format', async () => {
    const [entry] = await store.append(sid, user('q0'), { expectCount: 0, tokenCounter: () => 7 })
    expect(entry?.tokens).toBe(7)
    const other = `${sid}-model`
    await store.append(other, { role: 'user', content: 'hello' }, { format: 'ai-sdk/model', expectCount: 0 })
    expect((await store.session(other))?.format).toBe('ai-sdk/model')
  })
})

describe(`manager.append with expectCount [${BACKEND}]`, () => {
  it('passes it to the store: one message returns one entry, a conflict writes nothing', async () => {
    const m = backend.manager(store, { sessionId: sid })
    const entry = await m.append(user('q0'), { expectCount: 0 })
    expect(entry.seq).toBe(0)
    expect(await m.append([assistant('a0'), user('q1')], { expectCount: 1 })).toHaveLength(2)
    const error = await refusalOf(() => m.append(assistant('a1'), { expectCount: 1 }))
    expect(error).toMatchObject({ code: 'APPEND_CONFLICT', path: 'expectCount', sessionId: sid })
    expect(await store.messageCount(sid)).toBe(3)
    // Its old call shapes still work.
    expect((await m.append(assistant('a1'))).seq).toBe(3)
  })

  it('refuses an unknown option and a bad expectCount with INVALID_OPTIONS', async () => {
    const m = backend.manager(store, { sessionId: sid })
    const unknown = await refusalOf(() =>
      m.append(user('q0'), { expectcount: 0 } as unknown as { expectCount: number }),
    )
    expect(unknown).toMatchObject({ code: 'INVALID_OPTIONS', path: 'options.expectcount' })
    expect(await refusalOf(() => m.append(user('q0'), { expectCount: -2 }))).toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'expectCount',
    })
    expect(await store.session(sid)).toBeUndefined()
  })
})

describe(`writers racing with one expectCount [${BACKEND}]`, () => {
  it('exactly one of several stores on one ledger succeeds, round after round, new session first', async () => {
    const stores = [store, ...(await Promise.all([1, 2, 3].map(() => backend.reopen(store))))]
    let count = 0
    for (let round = 0; round < 6; round++) {
      const settled = await Promise.allSettled(
        stores.map((s, i) =>
          s.append(sid, [user(`r${round} w${i}`), assistant(`ok ${i}`)], { expectCount: count }),
        ),
      )
      const won = settled.filter((r) => r.status === 'fulfilled')
      const lost = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []))
      expect(won).toHaveLength(1)
      expect(lost).toHaveLength(stores.length - 1)
      for (const reason of lost) {
        expect(reason).toBeInstanceOf(ContextLedgerError)
        expect(reason).toMatchObject({ code: 'APPEND_CONFLICT', sessionId: sid })
      }
      count += 2
      expect(await store.messageCount(sid)).toBe(count)
      // The winner's two messages, together: no loser's message slipped in between.
      const history = await store.history(sid, { fromSeq: count - 2 })
      const texts = history.map((e) => (e.message.content[0] as { text: string }).text)
      expect(texts[1]).toBe(`ok ${texts[0]?.split(' w')[1]}`)
    }
  })
})

describe(`expectCount as a property [${BACKEND}]`, () => {
  it('an append succeeds exactly when it expects the count the session holds, and the count follows', async () => {
    let run = 0
    const ops = fc.array(
      fc.record({ off: fc.integer({ min: -2, max: 2 }), n: fc.integer({ min: 1, max: 3 }) }),
      {
        minLength: 1,
        maxLength: 8,
      },
    )
    await fc.assert(
      fc.asyncProperty(ops, async (steps) => {
        const session = `${sid}-${run++}`
        let count = 0
        for (const [i, { off, n }] of steps.entries()) {
          const expectCount = count + off
          const messages: MessageData[] = Array.from({ length: n }, (_, j) =>
            j % 2 === 0 ? user(`q${i}.${j}`) : assistant(`a${i}.${j}`),
          )
          if (expectCount < 0) continue
          if (off === 0) {
            expect(await store.append(session, messages, { expectCount })).toHaveLength(n)
            count += n
          } else {
            const error = await refusalOf(() => store.append(session, messages, { expectCount }))
            expect(error.code).toBe('APPEND_CONFLICT')
          }
          expect(await store.messageCount(session)).toBe(count)
        }
      }),
      { numRuns: fcRuns(15) },
    )
  })
})
