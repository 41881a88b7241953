/**
 * Regressions of branches (/work/wt/BRANCH-FINDINGS.md), each from the finding's minimal case, on both
 * backends (the conformance suite): the log clock never goes back, a rewind before a branch's fork point
 * takes the inherited summary with it, an inherited summary chain keeps the ends the branch's parent saw,
 * a rewind splits an eviction-log row that spans the new end, a rewind between two folds hands the abandoned
 * branch the fold row of the summary the session keeps, a fork whose new window lets the inherited summary go
 * records that end in the branch.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { checkSession } from '../../src/check/check-session.js'
import { describeProblem } from '../../src/check/problems.js'
import type { MessageData, SummaryRecord } from '../../src/index.js'
import { BACKEND, makeBackend } from '../helpers/backend.js'
import { sqliteOf } from '../helpers/ledger-open.js'
import { NO_LIMITS } from '../helpers/branch-model.js'
import { ratioFold } from '../helpers/ratio-fold.js'
import type { BranchStore } from '../helpers/branch-run.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })

async function open(): Promise<BranchStore> {
  return await backend.open()
}

const call = (id: string): MessageData => ({
  role: 'assistant',
  content: [{ toolUse: { name: 'look', toolUseId: id, input: {} } }],
})
const result = (id: string): MessageData => ({
  role: 'user',
  content: [{ toolResult: { toolUseId: id, status: 'success', content: [{ text: `found ${id}` }] } }],
})

/** Folds the start of a session's window into a summary (`ratio` of it, nothing preserved). */
const fold = (store: BranchStore, id: string, ratio: number): Promise<SummaryRecord> =>
  ratioFold(store, id, NO_LIMITS, ratio, (plan) => ({
    text: `summary ${plan.input.length}`,
    uid: `summary-${id}-${Math.random().toString(36).slice(2)}`,
  }))

/** A session's summaries as `id ended-or-current inherited`. */
async function listed(store: BranchStore, id: string): Promise<string[]> {
  return (await store.summaries(id)).map(
    (r) => `${r.id} ${r.current ? 'current' : (r.endReason ?? 'open')}${r.inherited ? ' inherited' : ''}`,
  )
}

/** The window rules read through the API (what PostgreSQL and branches are checked by). */
async function rulesHold(store: BranchStore, ...ids: string[]): Promise<void> {
  for (const id of ids) await assertWindowRulesOf(store, id, {}, { throughApi: true })
}

/** A root `[user m0, assistant m1]`. */
async function twoMessages(): Promise<BranchStore> {
  const store = await open()
  await store.append('root', [user('m0'), assistant('m1')])
  return store
}

describe(`the log clock [${BACKEND}]`, () => {
  it('does not go back when the newest fork is deleted: a later branch keeps the pin log from before it', async () => {
    const store = await twoMessages()
    await store.fork('root', { atSeq: 0, newSessionId: 'b1' })
    await store.pin('root', { seq: 0 })
    await store.deleteSession('b1')
    await store.fork('root', { atSeq: 1, newSessionId: 'b2' })
    expect((await store.pinEvents('b2')).map((e) => [e.seq, e.action])).toStrictEqual([[0, 'pin']])
    // An entry the root writes after b2's fork stays the root's.
    await store.unpin('root', { seq: 0 })
    expect((await store.pinEvents('b2')).map((e) => [e.seq, e.action])).toStrictEqual([[0, 'pin']])
    expect((await store.pinEvents('root')).map((e) => e.action)).toStrictEqual(['pin', 'unpin'])
  })

  it('does not go back when a subtree or a rewind abandoned branch is deleted: edits reach the next branch', async () => {
    const store = await twoMessages()
    await store.append('root', [user('m2'), assistant('m3')])
    await store.fork('root', { atSeq: 1, newSessionId: 'b1' })
    await store.fork('b1', { atSeq: 1, newSessionId: 'b1.1' })
    const abandoned = (await store.rewind('root', { toSeq: 1 })).abandoned?.sessionId
    expect(abandoned).toBeDefined()
    await store.editMessage('root', { seq: 1 }, assistant('m1 edited'))
    await store.deleteSession('b1', { subtree: true })
    await store.deleteSession(abandoned as string)
    await store.fork('root', { atSeq: 1, newSessionId: 'b2' })
    expect((await store.edits('b2')).map((e) => [e.seq, e.kind])).toStrictEqual([[1, 'edit']])
    expect((await store.window('b2')).map((m) => m.content)).toStrictEqual([
      user('m0').content,
      assistant('m1 edited').content,
    ])
  })
})

describe(`summaries of a rewound branch [${BACKEND}]`, () => {
  it('leave with the rows they stand for when a branch is rewound to before its fork point', async () => {
    const store = await open()
    await store.append('root', [user('m0'), call('c0'), result('c0'), assistant('m3')])
    await store.append('root', [user('m4')])
    const summary = await fold(store, 'root', 0.4)
    expect(summary.seqs).toStrictEqual([[0, 3]])
    await store.fork('root', { atSeq: 4, newSessionId: 'b1' })
    expect(await listed(store, 'b1')).toStrictEqual([`${summary.id} current inherited`])
    const { abandoned } = await store.rewind('b1', { toSeq: 0 })
    expect((await store.window('b1')).map((m) => m.content)).toStrictEqual([user('m0').content])
    expect(await listed(store, 'b1')).toStrictEqual([])
    // The abandoned branch holds what b1 was: it shows the summary.
    expect(await listed(store, abandoned?.sessionId ?? '')).toStrictEqual([`${summary.id} current inherited`])
    await rulesHold(store, 'root', 'b1', abandoned?.sessionId ?? '')
  })

  it('leave when the branch had replaced the inherited summary with its own fold', async () => {
    const store = await open()
    await store.append('root', [user('m0'), call('c0'), result('c0'), assistant('m3')])
    await store.append('root', [user('m4')])
    const first = await fold(store, 'root', 0.4)
    await store.fork('root', { atSeq: 4, newSessionId: 'b1' })
    await store.append('b1', [assistant('m5'), user('m6'), assistant('m7')])
    const own = await fold(store, 'b1', 0.5)
    expect(own.replaces).toBe(first.id)
    const { abandoned } = await store.rewind('b1', { toSeq: 0 })
    expect(await listed(store, 'b1')).toStrictEqual([])
    const a = abandoned?.sessionId ?? ''
    expect(await listed(store, a)).toStrictEqual([`${own.id} current`, `${first.id} replaced inherited`])
    await rulesHold(store, 'root', 'b1', a)
  })
})

describe(`an inherited summary chain [${BACKEND}]`, () => {
  it("keeps the ends the branch's parent saw, not what the owner did after the fork", async () => {
    const store = await twoMessages()
    const first = await fold(store, 'root', 0.5)
    await store.fork('root', { atSeq: 1, newSessionId: 'b1' })
    const second = await fold(store, 'b1', 0.5)
    expect(second.replaces).toBe(first.id)
    await store.fork('b1', { atSeq: 1, newSessionId: 'b2' })
    const chain = [`${second.id} current inherited`, `${first.id} replaced inherited`]
    expect(await listed(store, 'b2')).toStrictEqual(chain)
    // The root evicts its summary after both forks: neither branch sees it.
    await store.applyWindow('root', { ...NO_LIMITS, windowSize: 1 })
    expect((await listed(store, 'root'))[0]).toBe(`${first.id} evicted`)
    expect(await listed(store, 'b1')).toStrictEqual([
      `${second.id} current`,
      `${first.id} replaced inherited`,
    ])
    expect(await listed(store, 'b2')).toStrictEqual(chain)
    await rulesHold(store, 'root', 'b1', 'b2')
  })
})

describe(`the eviction log of a rewound session [${BACKEND}]`, () => {
  it('keeps no row of the session spanning past its new end (the checker agrees)', async () => {
    const store = await twoMessages()
    await store.append('root', [user('m2')])
    await store.applyWindow('root', { ...NO_LIMITS, windowSize: 1 })
    expect((await store.evictions('root')).map((e) => [e.fromSeq, e.toSeq, e.cut])).toStrictEqual([
      [0, 1, expect.any(String)],
    ])
    const { abandoned } = await store.rewind('root', { toSeq: 0 })
    const log = async (id: string): Promise<string[]> =>
      (await store.evictions(id)).map(
        (e) =>
          `${e.fromSeq}-${e.toSeq} ${e.cut}${e.inheritedFrom === undefined ? '' : ` from ${e.inheritedFrom}`}`,
      )
    // The session shows seq 0 again: no row of its own says it left; the rewind's row names what left.
    expect(await log('root')).toStrictEqual(['1-2 rewind'])
    expect(await log(abandoned?.sessionId ?? '')).toStrictEqual(['0-1 trim-point'])
    await rulesHold(store, 'root', abandoned?.sessionId ?? '')
    const sqlite = sqliteOf(store)
    if (sqlite !== undefined)
      for (const id of ['root', abandoned?.sessionId ?? ''])
        expect(checkSession(sqlite.store, id).problems.map(describeProblem), id).toStrictEqual([])
  })
})

describe(`a fork or rewind inside a step's answers [${BACKEND}]`, () => {
  /** `[q0, a0, q1, call c0, result c0, calls c1+c2, repair c2, result c1, q2]`: the store repairs c2 at 6. */
  async function halfAnswered(): Promise<BranchStore> {
    const store = await open()
    await store.append('root', [user('q0'), assistant('a0')])
    const calls: MessageData = {
      role: 'assistant',
      content: [
        { toolUse: { name: 'look', toolUseId: 'c1', input: {} } },
        { toolUse: { name: 'look', toolUseId: 'c2', input: {} } },
      ],
    }
    await store.append('root', [user('q1'), call('c0'), result('c0'), calls])
    await store.append('root', [result('c1'), user('q2')])
    const history = await store.history('root', { limit: 100 })
    expect(history.map((e) => e.message.content.map((b) => Object.keys(b)[0]).join('+'))).toStrictEqual([
      'text',
      'text',
      'text',
      'toolUse',
      'toolResult',
      'toolUse+toolUse',
      'toolResult',
      'toolResult',
      'text',
    ])
    return store
  }

  it('waits for the rest of the step: the window rules hold, and the next append answers the call', async () => {
    const store = await halfAnswered()
    await store.fork('root', { atSeq: 6, newSessionId: 'b' })
    await store.rewind('root', { toSeq: 6 })
    for (const id of ['root', 'b']) {
      await rulesHold(store, id)
      await store.append(id, [result('c1'), assistant('done')])
      await rulesHold(store, id)
      const window = await store.window(id)
      expect(window.at(-2)?.content).toStrictEqual(result('c1').content)
    }
  })
})

describe(`a rewind between two folds [${BACKEND}]`, () => {
  it('hands the abandoned branch the fold row of the summary the session keeps (the checker agrees)', async () => {
    const store = await twoMessages()
    await store.append('root', [user('m2'), assistant('m3'), user('m4')])
    const first = await fold(store, 'root', 0.4)
    const second = await fold(store, 'root', 0.5)
    expect([first.seqs, second.seqs, second.replaces]).toStrictEqual([[[0, 2]], [[2, 3]], first.id])
    const { abandoned } = await store.rewind('root', { toSeq: 1 })
    const a = abandoned?.sessionId ?? ''
    // The second summary folded seq 2, which left: it moved with it; the first stays the root's, and the
    // abandoned branch (the root's window as it was) lists it as the inherited link its own one replaced.
    expect(await listed(store, 'root')).toStrictEqual([`${first.id} replaced`])
    expect(await listed(store, a)).toStrictEqual([`${second.id} current`, `${first.id} replaced inherited`])
    // The root shows seqs 0–1 again: the fold row into the first summary is the abandoned branch's now.
    const log = async (id: string): Promise<string[]> =>
      (await store.evictions(id)).map((e) => `${e.fromSeq}-${e.toSeq} ${e.cut} ${String(e.summaryId)}`)
    expect(await log('root')).toStrictEqual(['2-4 rewind undefined'])
    expect(await log(a)).toStrictEqual([`0-1 fold ${first.id}`, `2-2 fold ${second.id}`])
    await rulesHold(store, 'root', a)
    const sqlite = sqliteOf(store)
    if (sqlite !== undefined)
      for (const id of ['root', a])
        expect(checkSession(sqlite.store, id).problems.map(describeProblem), id).toStrictEqual([])
  })
})

describe(`a fork whose new window lets the inherited summary go [${BACKEND}]`, () => {
  // Found by the branches property on PostgreSQL (seed -2071423339): the new branch's row was inserted
  // without the end of the summary it showed at the fork, so that summary stayed open in the branch.
  it('records the end in the branch (evicted) and leaves the parent’s summary shown', async () => {
    const store = await open()
    const turn = (t: number): MessageData[] => [
      user(`q${t}`),
      call(`c${t}`),
      result(`c${t}`),
      assistant(`a${t}`),
    ]
    await store.append('root', turn(0))
    const manager = backend.manager(store, {
      sessionId: 'root',
      windowSize: 3,
      protectedMessages: { last: 0 },
    })
    const folded = await manager.summarizeExcess(() => ({ text: 'the first turn', model: 'scripted' }))
    expect(folded.summary?.id).toBeDefined()
    await store.append('root', turn(1))
    // At the call of the second turn (seq 5): the branch's window starts at the parent's boundary, then the
    // parent's limits (3 messages) move it past the summary.
    const b = await store.fork('root', { atSeq: 5 })
    const id = folded.summary?.id
    expect(await listed(store, b.sessionId)).toStrictEqual([`${id} evicted inherited`])
    expect((await store.session(b.sessionId))?.summaryId).toBeUndefined()
    expect(await listed(store, 'root')).toStrictEqual([`${id} current`])
    await rulesHold(store, 'root', b.sessionId)
  })
})
