/**
 * A connection keeps a branch's lineage across calls (src/store/branches/router.ts) and must read it again
 * when the tree changes: on another connection (`PRAGMA data_version`) or on its own (TEMP triggers,
 * src/db/tree-watch.ts). Each case reads a branch on one connection (so its lineage is kept), changes the
 * tree on another, and checks the first connection's next reads against a store opened afterwards (which
 * has nothing kept). A stale lineage would look for moved rows in their old owner and lose them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ContextStore, MessageData, WindowLimits } from '../../src/index.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'

const LIMITS: WindowLimits = { windowSize: 6, tokenBudget: undefined, first: 0, last: 0 }

function turns(from: number, count: number): MessageData[] {
  const out: MessageData[] = []
  for (let t = from; t < from + count; t++)
    out.push(
      { role: 'user', content: [{ text: `question ${t}` }] },
      { role: 'assistant', content: [{ text: `answer ${t}` }] },
    )
  return out
}

/** What a branch looks like through the calls that route through its lineage. */
function readsOf(store: ContextStore, id: string): unknown {
  return {
    history: store.history(id).map((e) => [e.seq, JSON.stringify(e.message)]),
    window: store.window(id),
    count: store.messageCount(id),
    tree: store.branches(id).map((b) => [b.sessionId, b.parentId, b.forkSeq, b.kind]),
  }
}

let dir: TempDir
beforeEach(() => {
  dir = tempDir('context-ledger-lineage-')
})
afterEach(() => {
  dir.cleanup()
})

/** A root of 10 turns, a branch forked at seq 13 with 3 turns of its own, and one below it. */
function tree(a: ContextStore): void {
  a.append('root', turns(0, 10))
  a.applyWindow('root', LIMITS)
  a.fork('root', { atSeq: 13, newSessionId: 'b' })
  a.append('b', turns(100, 3))
  a.fork('b', { atSeq: 17, newSessionId: 'c' })
  a.append('c', turns(200, 2))
}

describe('a lineage kept across calls', () => {
  it("sees another connection's rewind that re-parents the branch", () => {
    const a = dir.open()
    tree(a)
    const before = readsOf(a, 'c')
    const b = dir.open()
    const result = b.rewind('root', { toSeq: 5 })
    expect(result.abandoned?.sessionId).toBe('root~1')
    // b is now below root~1, which holds seqs 6..19 that root held when `a` read c's lineage.
    expect(a.branches('b').find((x) => x.sessionId === 'b')?.parentId).toBe('root~1')
    const after = readsOf(a, 'c')
    expect(after).toEqual(readsOf(dir.open(), 'c'))
    expect((after as { history: unknown }).history).toEqual((before as { history: unknown }).history)
    a.append('c', turns(300, 1))
    a.applyWindow('c', LIMITS)
    expect(readsOf(a, 'c')).toEqual(readsOf(dir.open(), 'c'))
  })

  it("sees another connection's rewind of a branch to before its own fork point", () => {
    const a = dir.open()
    tree(a)
    readsOf(a, 'c')
    readsOf(a, 'b')
    dir.open().rewind('b', { toSeq: 9 })
    const fresh = dir.open()
    expect(readsOf(a, 'b')).toEqual(readsOf(fresh, 'b'))
    expect(a.messageCount('b')).toBe(10)
    expect(readsOf(a, 'c')).toEqual(readsOf(fresh, 'c'))
  })

  it("sees another connection's fork, delete and first append in a branch", () => {
    const a = dir.open()
    tree(a)
    readsOf(a, 'c')
    const b = dir.open()
    b.fork('c', { atSeq: 21, newSessionId: 'd' })
    expect(readsOf(a, 'd')).toEqual(readsOf(dir.open(), 'd'))
    // The branch's first append sets the fork point's cut flags (a lineage column).
    b.append('d', turns(400, 1))
    expect(readsOf(a, 'd')).toEqual(readsOf(dir.open(), 'd'))
    b.deleteSession('d')
    expect(a.history('d')).toEqual(dir.open().history('d'))
    expect(a.messageCount('d')).toBe(0)
    expect(readsOf(a, 'c')).toEqual(readsOf(dir.open(), 'c'))
  })

  it("sees its own connection's rewinds and forks between calls", () => {
    const a = dir.open()
    tree(a)
    readsOf(a, 'c')
    a.rewind('root', { toSeq: 3 })
    expect(readsOf(a, 'c')).toEqual(readsOf(dir.open(), 'c'))
    a.rewind('c', { toSeq: 15 })
    expect(readsOf(a, 'c')).toEqual(readsOf(dir.open(), 'c'))
    a.fork('c', { atSeq: 15, newSessionId: 'e' })
    a.append('e', turns(500, 1))
    expect(readsOf(a, 'e')).toEqual(readsOf(dir.open(), 'e'))
  })
})
