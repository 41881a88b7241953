/**
 * The eviction log agrees with the window's history: after any sequence of appends, cuts, reductions,
 * pins, unpins, folds and dropped summaries, the log's answer to "when did seq N last leave" is the
 * session version at which N last went from in the window to out of it (watched after every operation),
 * and a seq that never left has no answer. Also: one row per run, not per message; what each cut writes
 * does not grow with history; the rows go with a deleted session. A conformance-suite file: the same
 * tests on SQLite and PostgreSQL.
 */
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import type { MessageData } from '../../src/index.js'
import { BACKEND, makeBackend, type LedgerStore } from '../helpers/backend.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

/** The session's version (bookkeeping the API does not show). */
const versionOf = async (store: LedgerStore, id: string): Promise<number> =>
  Number(
    (await backend.scalar(store, {
      sqlite: `SELECT version FROM sessions WHERE id = '${id}'`,
      postgres: `SELECT version FROM context_ledger.sessions WHERE id = '${id}'`,
    })) ?? 0,
  )

/** Rows of the eviction log, every session. */
const logRows = async (store: LedgerStore): Promise<number> =>
  Number(
    await backend.scalar(store, {
      sqlite: 'SELECT count(*) FROM eviction_log',
      postgres: 'SELECT count(*)::int FROM context_ledger.eviction_log',
    }),
  )

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })

type Op =
  | { kind: 'turn'; tool: boolean }
  | { kind: 'apply' }
  | { kind: 'reduce' }
  | { kind: 'pin'; at: number }
  | { kind: 'unpin'; at: number }
  | { kind: 'fold' }
  | { kind: 'drop' }
  | { kind: 'regen' }

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('turn' as const), tool: fc.boolean() }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'apply' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reduce' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pin' as const), at: fc.nat(1000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unpin' as const), at: fc.nat(1000) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'fold' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'drop' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'regen' as const }) },
)

describe(`the eviction log [${BACKEND}]`, () => {
  it('answers when and why each seq last left the window, as the window history says', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 3, max: 9 }),
        async (ops, size) => {
          const store = await backend.open()
          try {
            const m = backend.manager(store, { sessionId: 's', windowSize: size })
            const version = (): Promise<number> => versionOf(store, 's')
            // Every version at which each seq went from in the window to out of it.
            const departures = new Map<number, number[]>()
            const foldVersion = new Map<number, number>()
            let inWindow = new Set<number>()
            let n = 0
            const observe = async (): Promise<void> => {
              const now = new Set(
                (await m.history({ limit: 10_000 })).filter((e) => e.inWindow).map((e) => e.seq),
              )
              const v = await version()
              for (const s of inWindow) if (!now.has(s)) departures.set(s, [...(departures.get(s) ?? []), v])
              inWindow = now
            }
            for (const o of ops) {
              if (o.kind === 'turn') {
                const msgs: MessageData[] = [user(`question ${n}`)]
                if (o.tool)
                  msgs.push(
                    {
                      role: 'assistant',
                      content: [{ toolUse: { toolUseId: `t${n}`, name: 'look', input: {} } }],
                    },
                    {
                      role: 'user',
                      content: [
                        { toolResult: { toolUseId: `t${n}`, status: 'success', content: [{ text: 'r' }] } },
                      ],
                    },
                  )
                msgs.push(assistant(`answer ${n}`))
                n++
                await m.append(msgs)
              } else if (o.kind === 'apply') await m.applyWindow()
              else if (o.kind === 'reduce') await m.reduce({ overflow: true })
              else if (o.kind === 'pin' || o.kind === 'unpin') {
                const count = (await store.session('s'))?.messageCount ?? 0
                if (count > 0) {
                  const ref = { seq: o.at % count }
                  if (o.kind === 'pin') await m.pin(ref)
                  else await m.unpin(ref)
                }
              } else if (o.kind === 'fold') {
                const made = await m.summarize(() => 'summary', {
                  summaryRatio: 0.5,
                  preserveRecentMessages: 2,
                })
                if (made.summary !== undefined) foldVersion.set(made.summary.id, await version())
              } else if (o.kind === 'regen') {
                // A regeneration stands for what its predecessor folded: the log's rows name the new one.
                const current = (await store.session('s'))?.summaryId
                if (current !== undefined) {
                  const made = await m.resummarize(current, () => `summary again ${n}`)
                  foldVersion.set(made.id, foldVersion.get(current) ?? 0)
                }
              } else {
                const current = (await store.session('s'))?.summaryId
                if (current !== undefined) {
                  // A dropped summary is taken back as if never made: what it folded, and everything from
                  // its old boundary on, is back in the window, their departures since the fold forgotten.
                  const dropped = await m.summary(current)
                  const since = foldVersion.get(current) ?? 0
                  const count = (await store.session('s'))?.messageCount ?? 0
                  const back = [
                    ...dropped.seqs.flatMap(([lo, hi]) => Array.from({ length: hi - lo }, (_, k) => lo + k)),
                    ...Array.from(
                      { length: Math.max(0, count - dropped.fromBoundary) },
                      (_, k) => dropped.fromBoundary + k,
                    ),
                  ]
                  for (const x of back) {
                    departures.set(
                      x,
                      (departures.get(x) ?? []).filter((v) => v < since),
                    )
                    inWindow.add(x)
                  }
                  await m.dropSummary(current)
                }
              }
              await observe()
            }
            const count = (await store.session('s'))?.messageCount ?? 0
            for (let s = 0; s < count; s++) {
              const row = await store.evictionOf('s', s)
              expect(row?.version, `seq ${s}`).toBe(departures.get(s)?.at(-1))
              if (row !== undefined) {
                expect(row.fromSeq).toBeLessThanOrEqual(s)
                expect(row.toSeq).toBeGreaterThanOrEqual(s)
                if (row.cut === 'fold') expect(row.summaryId).toBeDefined()
              }
            }
            // Rows of one cut never overlap.
            const rows = await store.evictions('s', { limit: 10_000 })
            // A fold's rows name a summary no regeneration has replaced.
            for (const r of rows)
              if (r.summaryId !== undefined)
                expect((await m.summary(r.summaryId)).endReason, `row ${r.fromSeq}-${r.toSeq}`).not.toBe(
                  'regenerated',
                )
            const byVersion = new Map<number, [number, number][]>()
            for (const r of rows)
              byVersion.set(r.version, [...(byVersion.get(r.version) ?? []), [r.fromSeq, r.toSeq]])
            for (const runs of byVersion.values()) {
              runs.sort((a, b) => a[0] - b[0])
              for (let i = 1; i < runs.length; i++)
                expect(runs[i]?.[0]).toBeGreaterThan(runs[i - 1]?.[1] ?? -1)
            }
          } finally {
            await store.close()
          }
        },
      ),
      { numRuns: BACKEND === 'sqlite' ? 100 : 40 },
    )
  })

  it('writes one row per run of seqs, with the cut and the reason', async () => {
    const store = await backend.open()
    const m = backend.manager(store, { sessionId: 's', windowSize: 4, tokenBudget: 10_000 })
    for (let i = 0; i < 10; i++) await m.append([user(`q${i}`), assistant(`a${i}`)])
    await m.pin({ seq: 6 })
    await m.applyWindow()
    expect((await store.evictions('s')).map((r) => [r.fromSeq, r.toSeq, r.cut, r.reason])).toStrictEqual([
      [0, 5, 'trim-point', 'window-size'],
      [7, 17, 'trim-point', 'window-size'],
    ])
    await m.unpin({ seq: 6 })
    // Within the limits an unpinned row stays; the next cut releases it, as a row of its own.
    await m.applyWindow()
    expect(await store.evictionOf('s', 6)).toBeUndefined()
    await m.append([user('q10'), assistant('a10')])
    await m.applyWindow()
    const six = await store.evictionOf('s', 6)
    expect(six).toMatchObject({ fromSeq: 6, toSeq: 6, cut: 'released', reason: 'window-size' })
    expect(six?.at).toBeInstanceOf(Date)
    expect(await store.evictionOf('s', 7)).toMatchObject({ fromSeq: 7, toSeq: 17 })
    expect(await store.evictionOf('s', 19)).toBeUndefined()
    expect((await store.evictions('s', { fromSeq: 7, limit: 1 })).map((r) => r.fromSeq)).toStrictEqual([7])
    expect(await m.evictions({ fromSeq: 7, limit: 1 })).toStrictEqual(
      await store.evictions('s', { fromSeq: 7, limit: 1 }),
    )
    // A budget cut names the budget.
    const b = backend.manager(store, { sessionId: 'b', windowSize: 100, tokenBudget: 60 })
    for (let i = 0; i < 10; i++)
      await b.append([user(`question number ${i}`), assistant(`answer number ${i}`)])
    await b.applyWindow()
    expect((await store.evictions('b'))[0]).toMatchObject({
      fromSeq: 0,
      cut: 'trim-point',
      reason: 'token-budget',
    })
    const window = (await b.window()).length
    expect(window).toBeGreaterThan(2)
    expect((await b.reduce({ overflow: true })).evicted).toBeGreaterThan(0)
    expect((await store.evictions('b')).at(-1)?.reason).toBe('overflow')
    await expect(store.evictions('b', { limit: 0 })).rejects.toThrow(/options.limit/)
    await expect(store.evictionOf('b', -1)).rejects.toThrow(/seq/)
    // A seq of the wrong type says so (the message said "got 3" for the string "3").
    await expect(store.evictionOf('b', '3' as unknown as number)).rejects.toThrow(/got "3" \(a string\)/)
    expect(await store.evictions('nobody')).toStrictEqual([])
    // A seq past any a ledger can hold has no row (PostgreSQL's seqs are 32-bit: not an error either).
    expect(await store.evictions('b', { fromSeq: 2 ** 31 })).toStrictEqual([])
    expect(await store.evictionOf('b', 2 ** 31)).toBeUndefined()
    // The rows go with a deleted session, and the result counts them.
    const rowsOfB = (await store.evictions('b', { limit: 10_000 })).length
    const before = await logRows(store)
    expect((await store.deleteSession('b')).evictions).toBe(rowsOfB)
    expect(await logRows(store)).toBe(before - rowsOfB)
    expect(await store.evictions('b')).toStrictEqual([])
  })

  it('takes a dropped fold back: its rows go, also those of kept rows it folded', async () => {
    const store = await backend.open()
    const m = backend.manager(store, { sessionId: 's', windowSize: 4 })
    for (let i = 0; i < 6; i++) await m.append([user(`q${i}`), assistant(`a${i}`)])
    await m.pin({ seq: 2 })
    await m.applyWindow()
    expect(await store.evictionOf('s', 2)).toBeUndefined()
    await m.unpin({ seq: 2 })
    const made = await m.summarize(() => 'what came before', { summaryRatio: 0.5, preserveRecentMessages: 2 })
    const id = made.summary?.id
    expect(id).toBeDefined()
    // The fold took the kept row that lost its pin, as a row of its own, naming the summary.
    expect(await store.evictionOf('s', 2)).toMatchObject({ fromSeq: 2, toSeq: 2, cut: 'fold', summaryId: id })
    const regenerated = await m.resummarize(id ?? -1, () => 'what came before, again')
    expect((await store.evictionOf('s', 2))?.summaryId).toBe(regenerated.id)
    await m.dropSummary(regenerated.id)
    // Back in the window as if never folded: its last departure is forgotten, and no row names the summary.
    expect((await m.history({ fromSeq: 2, limit: 1 }))[0]?.inWindow).toBe(true)
    expect(await store.evictionOf('s', 2)).toBeUndefined()
    const rows = await store.evictions('s', { limit: 10_000 })
    expect(rows.filter((r) => r.summaryId !== undefined)).toStrictEqual([])
  })

  it('does not make a cut write more as the history grows', async () => {
    const store = await backend.open()
    const m = backend.manager(store, { sessionId: 's', windowSize: 6 })
    const perCut: number[] = []
    for (let i = 0; i < 300; i++) {
      await m.append([user(`q${i}`), assistant(`a${i}`)])
      const before = await logRows(store)
      await m.applyWindow()
      perCut.push((await logRows(store)) - before)
    }
    expect(Math.max(...perCut)).toBe(1)
    expect(await logRows(store)).toBeLessThanOrEqual(300)
  })
})
