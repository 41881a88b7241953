/**
 * The round trips a branch's calls take on PostgreSQL (docs/design.md, "Branches on PostgreSQL"), as
 * `postgres-store.test.ts` counts a trunk's: a fork, a rewind, and an append, `window()` and
 * `applyWindow()` in a branch at depth 1 and 3 — the same counts with 40 and with 4,000 archived messages,
 * and the same at each depth: a branch's reads are one statement however deep its lineage.
 */
import { describe, expect, it } from 'vitest'
import type { PostgresContextStore } from '../../src/backends/postgres/index.js'
import type { MessageData } from '../../src/index.js'
import { useDatabases } from './databases.js'

const { database, open } = useDatabases()

const turn = (i: number | string): MessageData[] => [
  { role: 'user', content: [{ text: `question ${i}` }] },
  { role: 'assistant', content: [{ toolUse: { toolUseId: `c${i}`, name: 'look', input: { i } } }] },
  {
    role: 'user',
    content: [{ toolResult: { toolUseId: `c${i}`, status: 'success', content: [{ text: 'ok' }] } }],
  },
  { role: 'assistant', content: [{ text: `answer ${i}` }] },
]

const LIMITS = { windowSize: 20, protectedMessages: { first: 1, last: 2 } }

/** Round trips a call takes. */
async function trips(store: PostgresContextStore, fn: () => Promise<unknown>): Promise<number> {
  const before = store.roundTrips
  await fn()
  return store.roundTrips - before
}

/** A session `id` of `archived` messages (whole turns), its window applied. */
async function filled(store: PostgresContextStore, id: string, archived: number): Promise<void> {
  const m = store.manager({ sessionId: id, ...LIMITS })
  const turns = archived / 4
  for (let i = 0; i < turns; i += 25)
    await m.append(Array.from({ length: Math.min(25, turns - i) }, (_, k) => turn(i + k)).flat())
  await m.applyWindow()
}

/** The calls in branch `id`: an append, its window, a cut that moves, one that does not. */
async function inBranch(store: PostgresContextStore, id: string): Promise<Record<string, number>> {
  const m = store.manager({ sessionId: id, ...LIMITS })
  return {
    append: await trips(store, () => m.append(turn(`${id}-a`))),
    window: await trips(store, () => m.window()),
    applyWindow: await trips(store, () => m.applyWindow()),
    applyWithinLimits: await trips(store, () => m.applyWindow()),
  }
}

describe('round trips of branches', () => {
  it('fork 2, rewind 2, and in a branch at depth 1 or 3 append 2, window 1, applyWindow 2 (1 when nothing moves) — with 40 and 4,000 archived', async () => {
    const store = await open(await database())
    const counts: Record<string, number[]> = {}
    const add = (seen: Record<string, number>): void => {
      for (const [k, v] of Object.entries(seen)) (counts[k] ??= []).push(v)
    }
    for (const archived of [40, 4000]) {
      const root = `rt-${archived}`
      await filled(store, root, archived)
      expect((await store.session(root))?.messageCount).toBe(archived)
      const forks = {
        forkNewest: await trips(store, () =>
          store.fork(root, { atSeq: archived - 1, newSessionId: `${root}-a` }),
        ),
        forkEarlier: await trips(store, () =>
          store.fork(root, { atSeq: archived - 9, newSessionId: `${root}-b` }),
        ),
      }
      add(forks)
      add(
        Object.fromEntries(
          Object.entries(await inBranch(store, `${root}-a`)).map(([k, v]) => [`d1.${k}`, v]),
        ),
      )
      await store.fork(`${root}-a`, { atSeq: archived + 3, newSessionId: `${root}-aa` })
      await store.fork(`${root}-aa`, { atSeq: archived + 3, newSessionId: `${root}-aaa` })
      add(
        Object.fromEntries(
          Object.entries(await inBranch(store, `${root}-aaa`)).map(([k, v]) => [`d3.${k}`, v]),
        ),
      )
      // A rewind of the branch at depth 3 into its inherited rows, and one of the trunk.
      add({
        rewindBranch: await trips(store, () => store.rewind(`${root}-aaa`, { toSeq: archived - 5 })),
        rewindTrunk: await trips(store, () => store.rewind(root, { toSeq: archived - 13 })),
      })
      expect((await store.branches(root)).length).toBe(7)
    }
    expect(counts).toStrictEqual({
      forkNewest: [2, 2],
      forkEarlier: [2, 2],
      'd1.append': [2, 2],
      'd1.window': [1, 1],
      'd1.applyWindow': [2, 2],
      'd1.applyWithinLimits': [1, 1],
      'd3.append': [2, 2],
      'd3.window': [1, 1],
      'd3.applyWindow': [2, 2],
      'd3.applyWithinLimits': [1, 1],
      rewindBranch: [2, 2],
      rewindTrunk: [2, 2],
    })
  })
})
