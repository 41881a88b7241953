/**
 * The reads of a tree of branches, written against either backend (`makeBackend()`; docs/api.md,
 * "Branches"): a fork of a fork, a sibling, a rewind — and `search`, `evictions`/`evictionOf`,
 * `search_history` and `prune` on each, through the awaited API alone. A branch finds its ancestors' rows
 * up to each fork point and its own, never a sibling's nor what its parent wrote or cut after the fork; a
 * rewind's log row is about what left and no other row of the session reaches past its new end
 * (BRANCH-FINDINGS.md, "a rewind leaves an eviction-log row spanning past the session's new end"); prune
 * erases nothing a live branch still shows.
 *
 * Not yet in `CONFORMANCE` (vitest.config.ts): it runs in `unit` on SQLite only, because PostgreSQL's
 * `evictions`/`evictionOf` of a branch and the rewind's split of the eviction log do not read the lineage
 * yet (the two eviction-log tests fail there; `search`, `search_history` and `prune` pass). Add this file
 * to `CONFORMANCE` once they do; it needs no change.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { handleSearchHistory, type EvictionRecord } from '../../src/index.js'
import { coreManagerOf, makeBackend } from '../helpers/backend.js'
import type { BranchStore } from '../helpers/branch-run.js'
import { tree, turns, user, assistant, where } from '../helpers/branch-reads.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

const limits = (windowSize: number) => ({ windowSize, tokenBudget: undefined, first: 0, last: 0 })
const run = (e: EvictionRecord | undefined): string | undefined =>
  e === undefined ? undefined : `${e.fromSeq}-${e.toSeq} ${e.cut}`

async function open(): Promise<BranchStore> {
  return await backend.open()
}

/** What a session's own history says a search for `word` must find in it. */
async function expectedHits(store: BranchStore, id: string, word = 'replication'): Promise<string[]> {
  const rows = await store.history(id, { limit: 1000 })
  return rows
    .filter((e) => JSON.stringify(e.message).includes(word))
    .map((e) => `${id}:${e.seq}`)
    .sort()
}

describe('search on a tree of branches', () => {
  it("finds in each session exactly what its history holds: ancestors up to each fork, never a sibling's", async () => {
    const store = await open()
    await tree(store)
    for (const id of ['root', 'a', 'aa', 'b']) {
      const hits = await store.search('replication', { sessionId: id, limit: 100 })
      expect(where(hits), id).toStrictEqual(await expectedHits(store, id))
    }
    // aa: root 0–7, a's 8–9, its own 10–11 — not a's 10–11, not the root's later turn, not b's.
    expect(where(await store.search('replication', { sessionId: 'aa', limit: 100 }))).toHaveLength(6)
    expect(await store.search('late', { sessionId: 'aa' })).toStrictEqual([])
    expect(await store.search('"b question"', { sessionId: 'aa' })).toStrictEqual([])
    expect(await store.search('"b question"', { sessionId: 'a' })).toStrictEqual([])
    expect(await store.search('"aa question"', { sessionId: 'a' })).toStrictEqual([])
    // Not `"a question"`: `a` is a stop word of PostgreSQL's `english` configuration, so that phrase is
    // `question`, which b's own and inherited rows hold. What b finds for it is its conversation's alone.
    expect(where(await store.search('question', { sessionId: 'b', limit: 100 }))).toStrictEqual(
      await expectedHits(store, 'b', 'question'),
    )
    expect(await store.search('"aa question"', { sessionId: 'root' })).toStrictEqual([])
  })
})

describe('the eviction log on a tree of branches', () => {
  it("inherits a parent's cut from before the fork through a fork of a fork, and none made later or by a sibling", async () => {
    const store = await open()
    await turns(store, 'root', 5)
    await store.applyWindow('root', limits(4))
    expect((await store.evictions('root')).map(run)).toStrictEqual(['0-5 trim-point'])
    await store.fork('root', { atSeq: 9, newSessionId: 'a' })
    await store.fork('a', { atSeq: 9, newSessionId: 'aa' })
    await store.fork('root', { atSeq: 9, newSessionId: 'b' })
    for (const id of ['a', 'aa', 'b']) {
      const log = await store.evictions(id)
      expect(log.map(run), id).toStrictEqual(['0-5 trim-point'])
      expect(log[0]?.inheritedFrom, id).toBe('root')
      expect(run(await store.evictionOf(id, 3)), id).toBe('0-5 trim-point')
    }
    // The root and the sibling b cut again, after the forks: a and aa still show those seqs.
    await turns(store, 'root', 2, 'later')
    await store.applyWindow('root', limits(4))
    await turns(store, 'b', 2)
    await store.applyWindow('b', limits(2))
    expect((await store.evictions('b')).map(run)).toContain('6-11 trim-point')
    for (const id of ['a', 'aa']) {
      expect((await store.evictions(id)).map(run), id).toStrictEqual(['0-5 trim-point'])
      expect(await store.evictionOf(id, 7), id).toBeUndefined()
    }
  })

  it('leaves no row of a rewound session reaching past its new end; the rewind row names what left', async () => {
    // BRANCH-FINDINGS.md, "a rewind leaves an eviction-log row spanning past the session's new end".
    const store = await open()
    await store.append('root', [user('hello'), assistant('hi')])
    await store.append('root', [user('again')])
    await store.applyWindow('root', limits(1))
    expect((await store.evictions('root')).map(run)).toStrictEqual(['0-1 trim-point'])
    const r = await store.rewind('root', { toSeq: 0 })
    expect(r.abandoned?.sessionId).toBe('root~1')
    const log = await store.evictions('root')
    for (const e of log.filter((x) => x.cut !== 'rewind')) expect(e.toSeq, run(e)).toBeLessThanOrEqual(0)
    expect(log.filter((x) => x.cut === 'rewind').map((e) => [run(e), e.abandonedId])).toStrictEqual([
      ['1-2 rewind', 'root~1'],
    ])
    expect(await store.evictionOf('root', 1)).toBeUndefined()
    // The abandoned branch holds the window the session had, and the cut that made it.
    expect(run(await store.evictionOf('root~1', 1))).toBe('0-1 trim-point')
    expect((await store.window('root~1')).map((m) => JSON.stringify(m.content))).toStrictEqual([
      JSON.stringify([{ text: 'again' }]),
    ])
  })
})

describe('the recall tools on a branch', () => {
  it("search a fork of a fork's conversation, never a sibling's or the parent's later rows", async () => {
    const store = await open()
    await tree(store)
    const m = backend.manager(store, { sessionId: 'aa', windowSize: 4 })
    await m.applyWindow()
    const manager = coreManagerOf(m)
    const found = await handleSearchHistory(manager, { query: 'replication', limit: 20 })
    expect(found.status).toBe('success')
    const seqs = [...found.text.matchAll(/seq (\d+)/g)].map((x) => Number(x[1]))
    expect(new Set(seqs)).toStrictEqual(new Set([0, 2, 4, 6, 8, 10]))
    for (const word of ['late', '"b question"']) {
      const none = await handleSearchHistory(manager, { query: word })
      expect(none.status, word).toBe('success')
      expect(none.text, word).not.toMatch(/seq \d+/)
    }
  })
})

describe('prune on a tree of branches', () => {
  it("erases nothing a live branch's window shows, though its owner evicted it", async () => {
    const store = await open()
    await turns(store, 'root', 6)
    await store.fork('root', { atSeq: 11, newSessionId: 'a' })
    await store.fork('a', { atSeq: 11, newSessionId: 'aa' })
    await store.applyWindow('root', limits(2))
    await store.applyWindow('a', limits(2))
    const windows = await Promise.all(
      ['root', 'a', 'aa'].map(async (id) => JSON.stringify(await store.window(id))),
    )
    const r = await store.prune({ before: Date.now() + 86_400_000, keepPinned: true })
    // aa's window still shows all twelve messages the root holds.
    expect(r.pruned).toBe(0)
    expect(
      await Promise.all(['root', 'a', 'aa'].map(async (id) => JSON.stringify(await store.window(id)))),
    ).toStrictEqual(windows)
    // Once aa lets them go too, they are pruned, and every session reads them pruned.
    await store.applyWindow('aa', limits(2))
    expect((await store.prune({ before: Date.now() + 86_400_000, keepPinned: true })).pruned).toBe(10)
    const history = await store.history('aa', { limit: 100 })
    expect(history.filter((e) => JSON.stringify(e.message).includes('"pruned":true'))).toHaveLength(10)
  })
})
