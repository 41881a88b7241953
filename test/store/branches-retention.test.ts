/**
 * Retention on a tree of branches, on SQLite files (docs/api.md, "prune"): `prune()` erases a message's
 * content only when neither the session that holds it nor any live branch that inherits it shows it —
 * in the tail, kept or pinned — while an abandoned branch's window keeps nothing; and a branch's prune
 * touches its own rows only (an inherited row is its owner's to prune). The window of every session is
 * the same before and after, and the checker finds every session clean.
 */
import { describe, expect, it } from 'vitest'
import { checkSession } from '../../src/check/check-session.js'
import { describeProblem } from '../../src/check/problems.js'
import type { ContextStore, MessageData } from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-branch-retention-')

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })
const limits = (windowSize: number) => ({ windowSize, tokenBudget: undefined, first: 0, last: 0 })
const everything = { before: Date.now() + 86_400_000, keepPinned: true } as const

function turns(store: ContextStore, id: string, n: number): void {
  for (let i = 0; i < n; i++) store.append(id, [user(`${id} q${i}`), assistant(`${id} a${i}`)])
}

/** The seqs of a session whose content retention erased. */
function prunedSeqs(store: ContextStore, id: string): number[] {
  return store
    .history(id, { limit: 1000 })
    .filter((e) => JSON.stringify(e.message).includes('"pruned":true'))
    .map((e) => e.seq)
}

function clean(store: ContextStore, ...ids: string[]): void {
  for (const id of ids) expect(checkSession(store, id).problems.map(describeProblem), id).toStrictEqual([])
}

describe('prune on a tree of branches', () => {
  it("keeps what a live branch's window shows, though its owner evicted it", () => {
    const store = dir.open()
    turns(store, 'root', 6)
    store.fork('root', { atSeq: 11, newSessionId: 'b' })
    store.applyWindow('root', limits(2))
    const windows = ['root', 'b'].map((id) => JSON.stringify(store.window(id)))
    const r = store.prune({ ...everything, sessionId: 'root' })
    // The root evicted 0–9, but the branch's window is still all twelve messages.
    expect(r.pruned).toBe(0)
    expect(prunedSeqs(store, 'root')).toStrictEqual([])
    expect(['root', 'b'].map((id) => JSON.stringify(store.window(id)))).toStrictEqual(windows)
    clean(store, 'root', 'b')
  })

  it('prunes once every live branch that inherits a row has let it go', () => {
    const store = dir.open()
    turns(store, 'root', 6)
    store.fork('root', { atSeq: 11, newSessionId: 'b' })
    store.applyWindow('root', limits(2))
    turns(store, 'b', 2)
    store.applyWindow('b', limits(6))
    // The branch's window: seqs 10 on (its last six). Rows 0–9 left both windows.
    expect(store.session('b')?.boundary).toBe(10)
    const windows = ['root', 'b'].map((id) => JSON.stringify(store.window(id)))
    expect(store.prune(everything).pruned).toBe(10)
    expect(prunedSeqs(store, 'root')).toStrictEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    // The branch reads the pruned rows it inherits; its own rows are in its window.
    expect(prunedSeqs(store, 'b')).toStrictEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(['root', 'b'].map((id) => JSON.stringify(store.window(id)))).toStrictEqual(windows)
    clean(store, 'root', 'b')
  })

  it('keeps an inherited row a branch pins or keeps', () => {
    const store = dir.open()
    turns(store, 'root', 6)
    store.fork('root', { atSeq: 11, newSessionId: 'b' })
    store.pin('b', { seq: 2 })
    turns(store, 'b', 3)
    store.applyWindow('b', limits(4))
    store.applyWindow('root', limits(2))
    expect(store.history('b', { fromSeq: 2, limit: 1 })[0]?.inWindow).toBe(true)
    store.prune(everything)
    expect(prunedSeqs(store, 'root')).toStrictEqual([0, 1, 3, 4, 5, 6, 7, 8, 9])
    clean(store, 'root', 'b')
  })

  it("does not keep what only an abandoned branch's window shows", () => {
    const store = dir.open()
    turns(store, 's', 6)
    store.applyWindow('s', limits(12))
    // The rewind leaves s~1 holding seqs 4–11 and the whole window as it was; s keeps 0–3 only.
    const r = store.rewind('s', { toSeq: 3 })
    expect(r.abandoned?.kind).toBe('abandoned')
    turns(store, 's', 3)
    store.applyWindow('s', limits(2))
    // Seqs 0–3 left the window of s; s~1's window still shows them, but s~1 is abandoned.
    store.prune({ ...everything, sessionId: 's' })
    expect(prunedSeqs(store, 's').filter((seq) => seq < 4)).toStrictEqual([0, 1, 2, 3])
    clean(store, 's', 's~1')
  })

  it("prunes a branch's own rows only: an inherited row is its owner's", () => {
    const store = dir.open()
    turns(store, 'root', 3)
    store.fork('root', { atSeq: 5, newSessionId: 'b' })
    turns(store, 'b', 4)
    store.applyWindow('b', limits(2))
    expect(store.prune({ ...everything, sessionId: 'b' }).pruned).toBe(6)
    expect(prunedSeqs(store, 'b')).toStrictEqual([6, 7, 8, 9, 10, 11])
    expect(prunedSeqs(store, 'root')).toStrictEqual([])
    clean(store, 'root', 'b')
  })
})
