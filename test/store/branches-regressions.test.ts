/**
 * Regressions of branches (/work/wt/BRANCH-FINDINGS.md), each from the finding's minimal case, on both
 * backends (the conformance suite): the log clock never goes back, a rewind before a branch's fork point
 * takes the inherited summary with it, an inherited summary chain keeps the ends the branch's parent saw,
 * a rewind splits an eviction-log row that spans the new end.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { MessageData } from '../../src/index.js'
import { BACKEND, makeBackend } from '../helpers/backend.js'
import type { BranchStore } from '../helpers/branch-run.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })

async function open(): Promise<BranchStore> {
  return (await backend.open()) as BranchStore
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
