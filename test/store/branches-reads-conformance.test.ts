/**
 * The reads of a tree of branches on either backend (a conformance-suite file; docs/api.md, "Branches"):
 * a fork of a fork beside a sibling, read through the awaited API alone. An unfiltered search lists each
 * stored row once, under the session that holds it; `read_history` on a fork of a fork reads its
 * ancestors' rows up to each fork point and its own, never a sibling's nor what its parent wrote after
 * the fork. The rest of the branch reads (search, evictions, a rewind's log, prune) are in
 * branches-reads-backends.test.ts, which waits for PostgreSQL to have them.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { handleReadHistory } from '../../src/index.js'
import { coreManagerOf, makeBackend } from '../helpers/backend.js'
import type { BranchStore } from '../helpers/branch-run.js'
import { tree, where } from '../helpers/branch-reads.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

async function open(): Promise<BranchStore> {
  return await backend.open()
}

describe('search on a tree of branches', () => {
  it('lists each stored row once, under the session that holds it, when no session is named', async () => {
    const store = await open()
    await tree(store)
    const hits = await store.search('replication', { limit: 100 })
    // The root's 6 + 1 turns, a's 2, aa's 1, b's 1: one hit per user message that holds the word.
    expect(hits).toHaveLength(11)
    expect(new Set(where(hits)).size).toBe(11)
    expect(hits.filter((h) => h.sessionId === 'aa').map((h) => h.seq)).toStrictEqual([10])
  })
})

describe('the recall tools on a branch', () => {
  it("read a fork of a fork's conversation across its fork points, never a sibling's or the parent's later rows", async () => {
    const store = await open()
    await tree(store)
    const m = backend.manager(store, { sessionId: 'aa', windowSize: 4 })
    await m.applyWindow()
    const read = await handleReadHistory(coreManagerOf(m), { fromSeq: 6, toSeq: 11 })
    expect(read.status).toBe('success')
    expect(read.text).toContain('root question 3')
    expect(read.text).toContain('a question 0')
    expect(read.text).toContain('aa question 0')
    expect(read.text).not.toContain('a question 1')
    expect(read.text).not.toContain('late root')
    expect(read.text).not.toContain('b question')
  })
})
