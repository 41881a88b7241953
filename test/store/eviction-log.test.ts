/**
 * The eviction log agrees with the window's history: after any sequence of appends, cuts, reductions,
 * pins, unpins, folds and dropped summaries, the log's answer to "when did seq N last leave" is the
 * session version at which N last went from in the window to out of it (watched after every operation),
 * and a seq that never left has no answer. Also: one row per run, not per message; what each cut writes
 * does not grow with history; the rows go with a deleted session.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PersistentConversationManager, type MessageData } from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-evictions-')

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

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('turn' as const), tool: fc.boolean() }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'apply' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reduce' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pin' as const), at: fc.nat(1000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unpin' as const), at: fc.nat(1000) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'fold' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'drop' as const }) },
)

describe('the eviction log', () => {
  it('answers when and why each seq last left the window, as the window history says', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 3, max: 9 }),
        async (ops, size) => {
          const store = dir.open(`p${Math.random().toString(36).slice(2)}.db`)
          try {
            const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: size })
            const db = store.connection()
            const version = (): number =>
              db.prepare<[], number>("SELECT version FROM sessions WHERE id = 's'").pluck().get() ?? 0
            // Every version at which each seq went from in the window to out of it.
            const departures = new Map<number, number[]>()
            const foldVersion = new Map<number, number>()
            let inWindow = new Set<number>()
            let n = 0
            const observe = (): void => {
              const now = new Set(
                m
                  .history({ limit: 10_000 })
                  .filter((e) => e.inWindow)
                  .map((e) => e.seq),
              )
              for (const s of inWindow)
                if (!now.has(s)) departures.set(s, [...(departures.get(s) ?? []), version()])
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
                m.append(msgs)
              } else if (o.kind === 'apply') m.applyWindow()
              else if (o.kind === 'reduce') m.reduce({ overflow: true })
              else if (o.kind === 'pin' || o.kind === 'unpin') {
                const count = store.session('s')?.messageCount ?? 0
                if (count > 0) {
                  const ref = { seq: o.at % count }
                  if (o.kind === 'pin') m.pin(ref)
                  else m.unpin(ref)
                }
              } else if (o.kind === 'fold') {
                const made = await m.summarize(() => 'summary', {
                  summaryRatio: 0.5,
                  preserveRecentMessages: 2,
                })
                if (made.summary !== undefined) foldVersion.set(made.summary.id, version())
              } else {
                const current = store.session('s')?.summaryId
                if (current !== undefined) {
                  // A dropped summary is taken back as if never made: what it folded, and everything from
                  // its old boundary on, is back in the window, their departures since the fold forgotten.
                  const dropped = m.summary(current)
                  const since = foldVersion.get(current) ?? 0
                  const count = store.session('s')?.messageCount ?? 0
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
                  m.dropSummary(current)
                }
              }
              observe()
            }
            const count = store.session('s')?.messageCount ?? 0
            for (let s = 0; s < count; s++) {
              const row = store.evictionOf('s', s)
              expect(row?.version, `seq ${s}`).toBe(departures.get(s)?.at(-1))
              if (row !== undefined) {
                expect(row.fromSeq).toBeLessThanOrEqual(s)
                expect(row.toSeq).toBeGreaterThanOrEqual(s)
                if (row.cut === 'fold') expect(row.summaryId).toBeDefined()
              }
            }
            // Rows of one cut never overlap.
            const rows = store.evictions('s', { limit: 10_000 })
            const byVersion = new Map<number, [number, number][]>()
            for (const r of rows)
              byVersion.set(r.version, [...(byVersion.get(r.version) ?? []), [r.fromSeq, r.toSeq]])
            for (const runs of byVersion.values()) {
              runs.sort((a, b) => a[0] - b[0])
              for (let i = 1; i < runs.length; i++)
                expect(runs[i]?.[0]).toBeGreaterThan(runs[i - 1]?.[1] ?? -1)
            }
          } finally {
            store.close()
          }
        },
      ),
      { numRuns: 100 },
    )
  })

  it('writes one row per run of seqs, with the cut and the reason', () => {
    const store = dir.open()
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 4, tokenBudget: 10_000 })
    for (let i = 0; i < 10; i++) m.append([user(`q${i}`), assistant(`a${i}`)])
    m.pin({ seq: 6 })
    m.applyWindow()
    expect(store.evictions('s').map((r) => [r.fromSeq, r.toSeq, r.cut, r.reason])).toStrictEqual([
      [0, 5, 'trim-point', 'window-size'],
      [7, 17, 'trim-point', 'window-size'],
    ])
    m.unpin({ seq: 6 })
    // Within the limits an unpinned row stays; the next cut releases it, as a row of its own.
    m.applyWindow()
    expect(store.evictionOf('s', 6)).toBeUndefined()
    m.append([user('q10'), assistant('a10')])
    m.applyWindow()
    const six = store.evictionOf('s', 6)
    expect(six).toMatchObject({ fromSeq: 6, toSeq: 6, cut: 'released', reason: 'window-size' })
    expect(store.evictionOf('s', 7)).toMatchObject({ fromSeq: 7, toSeq: 17 })
    expect(store.evictionOf('s', 19)).toBeUndefined()
    expect(store.evictions('s', { fromSeq: 7, limit: 1 }).map((r) => r.fromSeq)).toStrictEqual([7])
    // A budget cut names the budget.
    const b = new PersistentConversationManager({ store, sessionId: 'b', windowSize: 100, tokenBudget: 60 })
    for (let i = 0; i < 10; i++) b.append([user(`question number ${i}`), assistant(`answer number ${i}`)])
    b.applyWindow()
    expect(store.evictions('b')[0]).toMatchObject({ fromSeq: 0, cut: 'trim-point', reason: 'token-budget' })
    const window = b.window().length
    expect(window).toBeGreaterThan(2)
    expect(b.reduce({ overflow: true }).evicted).toBeGreaterThan(0)
    expect(store.evictions('b').at(-1)?.reason).toBe('overflow')
    expect(() => store.evictions('b', { limit: 0 })).toThrow(/options.limit/)
    expect(() => store.evictionOf('b', -1)).toThrow(/seq/)
    // A seq of the wrong type says so (the message said "got 3" for the string "3").
    expect(() => store.evictionOf('b', '3' as unknown as number)).toThrow(/got "3" \(a string\)/)
    expect(store.evictions('nobody')).toStrictEqual([])
  })

  it('does not make a cut write more as the history grows', () => {
    const store = dir.open()
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 6 })
    const db = store.connection()
    const rows = (): number => db.prepare<[], number>('SELECT count(*) FROM eviction_log').pluck().get() ?? 0
    const perCut: number[] = []
    for (let i = 0; i < 300; i++) {
      m.append([user(`q${i}`), assistant(`a${i}`)])
      const before = rows()
      m.applyWindow()
      perCut.push(rows() - before)
    }
    expect(Math.max(...perCut)).toBe(1)
    expect(rows()).toBeLessThanOrEqual(300)
  })
})
