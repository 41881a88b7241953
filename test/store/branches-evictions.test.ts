/**
 * The eviction log of a branch and of a rewind, on SQLite files (docs/api.md, "evictions"; docs/design.md,
 * "Branches"): a branch's log is its own rows, then what it inherits of its ancestors' — their rows from
 * before the fork about the seqs it inherits and below its boundary — never what they cut after; its own
 * rows answer "when did seq N last leave" first. A rewind writes one `'rewind'` row naming the abandoned
 * branch, which `evictionOf()` never answers with, and hands the rows about what left to the abandoned
 * branch. Every session stays clean under the checker.
 */
import { describe, expect, it } from 'vitest'
import { checkSession } from '../../src/check/check-session.js'
import { describeProblem } from '../../src/check/problems.js'
import {
  PersistentConversationManager,
  type ContextStore,
  type EvictionRecord,
  type MessageData,
} from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-branch-evictions-')

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })
const limits = (windowSize: number) => ({ windowSize, tokenBudget: undefined, first: 0, last: 0 })

/** A record's run, how it left, and where the branch has it from. */
const run = (e: EvictionRecord | undefined): string | undefined =>
  e === undefined
    ? undefined
    : `${e.fromSeq}-${e.toSeq} ${e.cut}${e.inheritedFrom === undefined ? '' : ` from ${e.inheritedFrom}`}${e.abandonedId === undefined ? '' : ` → ${e.abandonedId}`}`

function turns(store: ContextStore, id: string, n: number, tag = id): void {
  for (let i = 0; i < n; i++) store.append(id, [user(`${tag} q${i}`), assistant(`${tag} a${i}`)])
}

function clean(store: ContextStore, ...ids: string[]): void {
  for (const id of ids) expect(checkSession(store, id).problems.map(describeProblem), id).toStrictEqual([])
}

describe('the eviction log of a branch', () => {
  it("inherits its parent's cuts from before the fork, and none from after", () => {
    const store = dir.open()
    turns(store, 'root', 5)
    store.applyWindow('root', limits(4))
    const before = store.evictions('root')
    expect(before.map(run)).toStrictEqual(['0-5 trim-point'])
    store.fork('root', { atSeq: 9, newSessionId: 'b' })
    expect(store.evictions('b').map(run)).toStrictEqual(['0-5 trim-point from root'])
    expect(run(store.evictionOf('b', 3))).toBe('0-5 trim-point from root')
    // The root cuts again: the branch's window still holds those seqs, and its log says nothing of them.
    turns(store, 'root', 2, 'later')
    store.applyWindow('root', limits(4))
    expect(store.evictions('root').map(run)).toStrictEqual(['0-5 trim-point', '6-9 trim-point'])
    expect(store.evictions('b').map(run)).toStrictEqual(['0-5 trim-point from root'])
    expect(store.evictionOf('b', 7)).toBeUndefined()
    clean(store, 'root', 'b')
  })

  it('answers with its own cut first, and lists its own rows before inherited ones ending at one seq', () => {
    const store = dir.open()
    turns(store, 'root', 5)
    store.applyWindow('root', limits(4))
    store.fork('root', { atSeq: 9, newSessionId: 'b' })
    turns(store, 'b', 3, 'branch')
    store.applyWindow('b', limits(4))
    expect(store.evictions('b').map(run)).toStrictEqual(['0-5 trim-point from root', '6-11 trim-point'])
    expect(run(store.evictionOf('b', 7))).toBe('6-11 trim-point')
    expect(run(store.evictionOf('b', 2))).toBe('0-5 trim-point from root')
    // fromSeq and limit page through the merged list.
    expect(store.evictions('b', { fromSeq: 6 }).map(run)).toStrictEqual(['6-11 trim-point'])
    expect(store.evictions('b', { limit: 1 }).map(run)).toStrictEqual(['0-5 trim-point from root'])
    clean(store, 'root', 'b')
  })

  it('inherits through every fork on the way down, each up to its own fork', () => {
    const store = dir.open()
    turns(store, 'root', 4)
    store.applyWindow('root', limits(2))
    store.fork('root', { atSeq: 7, newSessionId: 'b' })
    turns(store, 'b', 3, 'b')
    store.applyWindow('b', limits(2))
    store.fork('b', { atSeq: 13, newSessionId: 'c' })
    turns(store, 'b', 2, 'b later')
    store.applyWindow('b', limits(2))
    turns(store, 'root', 2, 'root later')
    store.applyWindow('root', limits(2))
    expect(store.evictions('c').map(run)).toStrictEqual([
      '0-5 trim-point from root',
      '6-11 trim-point from b',
    ])
    clean(store, 'root', 'b', 'c')
  })

  it('lists no inherited row about seqs its window shows again, and cuts a run at its last inherited seq', () => {
    const store = dir.open()
    turns(store, 'root', 6)
    store.applyWindow('root', limits(2))
    expect(store.evictions('root').map(run)).toStrictEqual(['0-9 trim-point'])
    // Forked inside the evicted run: the branch's window opens again at its newest turn (seq 6).
    const b = store.fork('root', { atSeq: 6, newSessionId: 'b' })
    expect(store.session('b')?.boundary).toBe(6)
    expect(b.messageCount).toBe(7)
    expect(store.evictions('b').map(run)).toStrictEqual(['0-5 trim-point from root'])
    expect(store.evictionOf('b', 6)).toBeUndefined()
    clean(store, 'root', 'b')
  })
})

describe('the eviction log of a rewind', () => {
  it("writes one 'rewind' row naming the abandoned branch, which never answers evictionOf", () => {
    const store = dir.open()
    turns(store, 's', 5)
    store.applyWindow('s', limits(4))
    const r = store.rewind('s', { toSeq: 7, reason: 'bad tool run' })
    expect(r.abandoned?.sessionId).toBe('s~1')
    const log = store.evictions('s')
    expect(log.map(run)).toStrictEqual(['0-5 trim-point', '8-9 rewind → s~1'])
    expect(log.at(-1)).toMatchObject({ cut: 'rewind', reason: 'rewind', abandonedId: 's~1' })
    expect(log.at(-1)?.summaryId).toBeUndefined()
    // The session appends again at seqs 8 and 9: the rewind's row is about the messages that left.
    store.append('s', [user('new q'), assistant('new a')])
    expect(store.evictionOf('s', 8)).toBeUndefined()
    store.append('s', [user('newer q'), assistant('newer a')])
    store.applyWindow('s', limits(2))
    expect(run(store.evictionOf('s', 8))).toBe('6-9 trim-point')
    // The abandoned branch holds the window as it was, and the rows about it.
    expect(store.evictions('s~1').map(run)).toStrictEqual(['0-5 trim-point from s'])
    clean(store, 's', 's~1')
  })

  it("gives the abandoned branch the rows about seqs the session's window shows again", () => {
    const store = dir.open()
    turns(store, 's', 6)
    store.applyWindow('s', limits(2))
    expect(store.evictions('s').map(run)).toStrictEqual(['0-9 trim-point'])
    // Rewound inside the evicted run: the session's window opens again at seq 6.
    store.rewind('s', { toSeq: 6 })
    expect(store.session('s')?.boundary).toBe(6)
    expect(store.evictions('s').map(run)).toStrictEqual(['0-5 trim-point', '7-11 rewind → s~1'])
    // The abandoned branch: the part before 6 inherited from the session, the rest its own.
    expect(store.evictions('s~1').map(run)).toStrictEqual(['0-5 trim-point from s', '6-9 trim-point'])
    expect(run(store.evictionOf('s~1', 8))).toBe('6-9 trim-point')
    clean(store, 's', 's~1')
  })

  it("keeps a rewind's row when a dropped summary takes its fold's rows back", async () => {
    const store = dir.open()
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 6 })
    turns(store, 's', 4)
    store.rewind('s', { toSeq: 5 })
    turns(store, 's', 3, 'again')
    const made = await m.summarize(() => 'Summary.', { summaryRatio: 0.5, preserveRecentMessages: 2 })
    const id = made.summary?.id
    if (id === undefined) throw new Error('no summary was made')
    expect(store.evictions('s').some((e) => e.cut === 'fold')).toBe(true)
    m.dropSummary(id)
    const log = store.evictions('s')
    expect(log.some((e) => e.cut === 'fold')).toBe(false)
    expect(log.filter((e) => e.cut === 'rewind').map(run)).toStrictEqual(['6-7 rewind → s~1'])
    clean(store, 's', 's~1')
  })

  it('names no abandoned branch once it was deleted', () => {
    const store = dir.open()
    turns(store, 's', 3)
    store.rewind('s', { toSeq: 1 })
    store.deleteSession('s~1')
    const row = store.evictions('s').at(-1)
    expect(row).toMatchObject({ cut: 'rewind', fromSeq: 2, toSeq: 5 })
    expect(row?.abandonedId).toBeUndefined()
    clean(store, 's')
  })

  it('rewinds a branch to before its fork point: the abandoned branch keeps the rows it had', () => {
    const store = dir.open()
    turns(store, 'root', 4)
    store.applyWindow('root', limits(4))
    store.fork('root', { atSeq: 7, newSessionId: 'b' })
    turns(store, 'b', 3, 'b')
    store.applyWindow('b', limits(4))
    const before = store.evictions('b').map(run)
    const r = store.rewind('b', { toSeq: 2 })
    expect(r.abandoned?.sessionId).toBe('b~1')
    expect(store.evictions('b').at(-1)).toMatchObject({
      cut: 'rewind',
      fromSeq: 3,
      toSeq: 13,
      abandonedId: 'b~1',
    })
    expect(store.evictions('b~1').map(run).sort()).toStrictEqual(before.sort())
    clean(store, 'root', 'b', 'b~1')
  })
})
