/**
 * `store.search()` with a `sessionId` that names a branch, on SQLite files (docs/design.md, "Branches"):
 * the branch's conversation — its ancestors' rows up to each fork point and its own, never a sibling's
 * nor what its parent wrote after the fork — with each hit's seq, place in the window and pin as the
 * branch sees them; its filters, paging across the parts of its lineage, the messages waiting for the
 * index, the summary it inherited, and a search with no session filter listing every stored row once.
 * The brute-force property over random trees is in branches-search-property.test.ts.
 */
import { describe, expect, it } from 'vitest'
import type { ContextStore, MessageData, SearchHit } from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-branch-search-')

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })
const limits = (windowSize: number) => ({ windowSize, tokenBudget: undefined, first: 0, last: 0 })

/** `sessionId:seq` of each hit, in order. */
const where = (hits: readonly SearchHit[]): string[] => hits.map((h) => `${h.sessionId}:${h.seq}`)

/** A root of eight turns on a theme, a branch forked at seq 5, each side appending its own turns. */
function tree(store: ContextStore): void {
  for (let i = 0; i < 4; i++)
    store.append('root', [user(`question ${i} about replication`), assistant(`answer ${i} on replication`)])
  store.fork('root', { atSeq: 5, newSessionId: 'b' })
  store.append('root', [user('root only: replication after the fork'), assistant('root reply')])
  store.append('b', [user('branch only: replication in the branch'), assistant('branch reply')])
  store.fork('root', { atSeq: 3, newSessionId: 'sibling' })
  store.append('sibling', [user('sibling only: replication elsewhere')])
}

describe('search in a branch', () => {
  it("finds its ancestors' rows up to the fork point and its own, never the parent's later rows nor a sibling's", () => {
    const store = dir.open()
    tree(store)
    const hits = store.search('replication', { sessionId: 'b', limit: 100 })
    expect(where(hits).sort()).toStrictEqual(['b:0', 'b:1', 'b:2', 'b:3', 'b:4', 'b:5', 'b:6'].sort())
    expect(hits.find((h) => h.seq === 6)?.snippet).toContain('branch only')
    expect(where(store.search('root only', { sessionId: 'b' }))).toStrictEqual([])
    expect(where(store.search('sibling', { sessionId: 'b' }))).toStrictEqual([])
    // The sibling forked at seq 3: it sees seqs 0–3 of the root and its own seq 4.
    expect(where(store.search('replication', { sessionId: 'sibling', limit: 100 })).sort()).toStrictEqual(
      ['sibling:0', 'sibling:1', 'sibling:2', 'sibling:3', 'sibling:4'].sort(),
    )
    // The parent does not see the branch's rows.
    expect(where(store.search('branch only', { sessionId: 'root' }))).toStrictEqual([])
  })

  it('reports each row once under the session that holds it when no session is named', () => {
    const store = dir.open()
    tree(store)
    const hits = store.search('replication', { limit: 100 })
    expect(where(hits).sort()).toStrictEqual(
      [
        'root:0',
        'root:1',
        'root:2',
        'root:3',
        'root:4',
        'root:5',
        'root:6',
        'root:7',
        'root:8',
        'b:6',
        'sibling:4',
      ].sort(),
    )
  })

  it("pages through the parts' merged ranking: any page is a slice of one big search", () => {
    const store = dir.open()
    tree(store)
    for (let i = 0; i < 6; i++) store.append('b', [user(`more replication ${i}`), assistant('ok')])
    const all = store.search('replication', { sessionId: 'b', limit: 1000 })
    expect(all.length).toBe(13)
    for (const size of [1, 2, 5])
      for (let offset = 0; offset < all.length; offset += size)
        expect(where(store.search('replication', { sessionId: 'b', limit: size, offset }))).toStrictEqual(
          where(all.slice(offset, offset + size)),
        )
    // The same ranking as the whole archive's, restricted to the branch's rows (scores are the index's).
    const scores = new Map(all.map((h) => [h.trackingId, h.score]))
    for (const h of store.search('replication', { limit: 1000 }))
      if (scores.has(h.trackingId)) expect(scores.get(h.trackingId)).toBeCloseTo(h.score, 9)
  })

  it('finds the same whether the rows wait for the index or are in it', () => {
    const store = dir.open()
    tree(store)
    const waiting = where(store.search('replication', { sessionId: 'b', limit: 100 }))
    expect(store.indexPending()).toBe(true)
    expect(where(store.search('replication', { sessionId: 'b', limit: 100 }))).toStrictEqual(waiting)
  })

  it('filters by the place and the pin the row has in the branch, not in its owner', () => {
    const store = dir.open()
    tree(store)
    store.applyWindow('root', limits(2))
    // The branch forked before the root's cut: its window keeps what it had.
    store.pin('b', { seq: 1 })
    store.pin('root', { seq: 2 })
    const inB = store.search('replication', { sessionId: 'b', limit: 100, inWindow: true })
    expect(where(inB).length).toBe(7)
    const pinned = store.search('replication', { sessionId: 'b', limit: 100, pinned: true })
    expect(where(pinned)).toStrictEqual(['b:1'])
    expect(pinned[0]?.pinned).toBe(true)
    expect(where(store.search('replication', { sessionId: 'root', pinned: true }))).toStrictEqual(['root:2'])
    store.applyWindow('b', limits(2))
    const out = store.search('replication', { sessionId: 'b', limit: 100, inWindow: false })
    expect(out.every((h) => !h.inWindow)).toBe(true)
    const history = new Map(store.history('b').map((e) => [e.seq, e.inWindow]))
    for (const h of store.search('replication', { sessionId: 'b', limit: 100 }))
      expect(h.inWindow, `seq ${h.seq}`).toBe(history.get(h.seq))
  })

  it('filters by role, time and tool as the trunk does', () => {
    const store = dir.open()
    tree(store)
    store.append('b', [
      assistant('calling'),
      {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 't1', name: 'kubectl', input: { q: 'replication' } } }],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 't1', status: 'success', content: [{ text: 'replication ok' }] } },
        ],
      },
    ])
    expect(
      where(store.search('replication', { sessionId: 'b', role: 'assistant', limit: 100 })).sort(),
    ).toStrictEqual(['b:1', 'b:3', 'b:5', 'b:9'].sort())
    expect(where(store.search('replication', { sessionId: 'b', toolName: 'kubectl' })).sort()).toStrictEqual([
      'b:10',
      'b:9',
    ])
    // `since`/`until` read each row's own append time, an inherited one's included.
    const times = new Map(store.history('b').map((e) => [e.seq, e.createdAt.getTime()]))
    const cut = times.get(4) ?? 0
    const hits = store.search('replication', { sessionId: 'b', limit: 100 })
    expect(
      where(store.search('replication', { sessionId: 'b', until: cut, limit: 100 })).sort(),
    ).toStrictEqual(where(hits.filter((h) => (times.get(h.seq) ?? 0) < cut)).sort())
    expect(
      where(store.search('replication', { sessionId: 'b', since: cut, limit: 100 })).sort(),
    ).toStrictEqual(where(hits.filter((h) => (times.get(h.seq) ?? 0) >= cut)).sort())
  })

  it('finds the summary its window inherited, and its own, with the end the branch gave them', async () => {
    const store = dir.open()
    for (let i = 0; i < 6; i++) store.append('root', [user(`turn ${i}`), assistant(`reply ${i}`)])
    const { PersistentConversationManager } = await import('../../src/index.js')
    const m = new PersistentConversationManager({ store, sessionId: 'root', windowSize: 4 })
    await m.summarize(() => 'Earlier: the team discussed quorum reads.', {
      summaryRatio: 0.5,
      preserveRecentMessages: 2,
    })
    const inherited = store.summaries('root')[0]?.id
    store.fork('root', { atSeq: store.messageCount('root') - 1, newSessionId: 'b' })
    const hit = store.search('quorum', { sessionId: 'b' })
    expect(hit.map((h) => [h.sessionId, h.kind, h.summaryId, h.inWindow])).toStrictEqual([
      ['b', 'summary', inherited, true],
    ])
    // A summary the root writes after the fork is not the branch's.
    await m.summarize(() => 'Later: the team discussed leases.', {
      summaryRatio: 0.5,
      preserveRecentMessages: 2,
    })
    expect(store.search('leases', { sessionId: 'b' })).toStrictEqual([])
    expect(store.search('leases', { sessionId: 'root' }).map((h) => h.kind)).toStrictEqual(['summary'])
  })

  it('names the summary a fold in the branch put a message in', async () => {
    const store = dir.open()
    for (let i = 0; i < 3; i++)
      store.append('root', [user(`turn ${i} mentions lag`), assistant(`reply ${i}`)])
    store.fork('root', { atSeq: 5, newSessionId: 'b' })
    for (let i = 3; i < 6; i++) store.append('b', [user(`turn ${i}`), assistant(`reply ${i}`)])
    const { PersistentConversationManager } = await import('../../src/index.js')
    const m = new PersistentConversationManager({ store, sessionId: 'b', windowSize: 4 })
    await m.summarize(() => 'Summary of the branch.', { summaryRatio: 0.5, preserveRecentMessages: 2 })
    const folded = store.search('lag', { sessionId: 'b', inWindow: false, limit: 100 })
    expect(folded.length).toBeGreaterThan(0)
    const id = store.summaries('b').find((s) => s.current)?.id
    for (const h of folded) expect(h.summaryId, `seq ${h.seq}`).toBe(id)
    // The root's rows left nothing in the root's own window.
    expect(store.search('lag', { sessionId: 'root', inWindow: false })).toStrictEqual([])
  })

  it('searches an abandoned branch: the rows a rewind took out of the conversation stay searchable', () => {
    const store = dir.open()
    tree(store)
    const r = store.rewind('root', { toSeq: 3 })
    expect(r.abandoned?.sessionId).toBe('root~1')
    expect(where(store.search('root only', { sessionId: 'root~1' }))).toStrictEqual(['root~1:8'])
    expect(where(store.search('root only', { sessionId: 'root' }))).toStrictEqual([])
    // The branch forked at 5 now hangs under the abandoned branch and still sees what it saw.
    expect(where(store.search('replication', { sessionId: 'b', limit: 100 })).length).toBe(7)
  })

  it('searches a branch at depth 12 as a brute force over its history finds', () => {
    const store = dir.open()
    store.append('s0', [user('level 0 marker'), assistant('ok')])
    for (let d = 1; d <= 12; d++) {
      store.fork(`s${d - 1}`, { atSeq: store.messageCount(`s${d - 1}`) - 1, newSessionId: `s${d}` })
      store.append(`s${d}`, [user(`level ${d} marker`), assistant('ok')])
      store.append(`s${d - 1}`, [user(`level ${d - 1} marker after the fork`), assistant('ok')])
    }
    const hits = store.search('marker', { sessionId: 's12', limit: 1000 })
    const expected = store
      .history('s12', { limit: 1000 })
      .filter((e) => JSON.stringify(e.message).includes('marker'))
      .map((e) => e.seq)
    expect(hits.map((h) => h.seq).sort((a, b) => a - b)).toStrictEqual(expected)
    expect(hits.some((h) => h.snippet.includes('after the fork'))).toBe(false)
  })
})
