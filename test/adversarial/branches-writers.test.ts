/**
 * Adversarial: a second writer on the same ledger (another connection, as another process would) racing
 * branch writes, on both backends (the conformance suite). Fork while the other appends to the parent,
 * rewind while the other appends to the branch or forks past the point, delete a subtree while the other
 * forks inside it. Every call ends with a value or a typed error; afterwards every session of the tree reads
 * a valid conversation (its parent's prefix then its own rows), no message is lost or doubled, and search
 * in a branch never shows a sibling's row.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { ContextLedgerError, type MessageData } from '../../src/index.js'
import { BACKEND, makeBackend } from '../helpers/backend.js'
import type { BranchStore } from '../helpers/branch-run.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

const ROUNDS = 6

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })
const pair = (tag: string): MessageData[] => [user(`ask ${tag}`), assistant(`reply ${tag}`)]

/** The value of a call, or the code of the ContextLedgerError it failed with (anything else fails). */
async function outcome<T>(p: Promise<T>): Promise<{ value: T } | { code: string }> {
  try {
    return { value: await p }
  } catch (error) {
    if (error instanceof ContextLedgerError) return { code: error.code }
    throw error
  }
}

async function two(): Promise<[BranchStore, BranchStore]> {
  const a = await backend.open()
  const b = await backend.reopen(a)
  return [a, b]
}

const textOf = (m: { content: readonly unknown[] }): string => JSON.stringify(m.content)

/** Each session's conversation as text, by id. */
async function conversations(store: BranchStore, root: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>()
  for (const b of await store.branches(root))
    out.set(
      b.sessionId,
      (await store.history(b.sessionId, { limit: 10_000 })).map((e) => textOf(e.message)),
    )
  return out
}

/**
 * The tree is sound: seqs dense from 0, each branch's conversation is its parent's up to forkSeq then its
 * own rows, counts agree, every window obeys the rules, and the own rows of all sessions hold each
 * message text at most once.
 */
async function assertSound(store: BranchStore, root: string): Promise<Map<string, string[]>> {
  const infos = await store.branches(root)
  const conv = await conversations(store, root)
  let own = 0
  for (const b of infos) {
    const h = await store.history(b.sessionId, { limit: 10_000 })
    expect(
      h.map((e) => e.seq),
      b.sessionId,
    ).toEqual(h.map((_, i) => i))
    expect(h.length, b.sessionId).toBe(b.messageCount)
    own += b.ownMessages
    if (b.parentId !== null) {
      const parent = conv.get(b.parentId)
      expect(parent, `${b.sessionId}'s parent ${b.parentId} is listed`).toBeDefined()
      // the parent may have rewound since: the branch's inherited prefix is the parent's *or* its abandoned
      // branch's — so compare with what the tree says: forkSeq < parent's count at fork. Weaker check:
      expect(b.forkSeq).not.toBeNull()
      expect(b.messageCount - b.ownMessages).toBe((b.forkSeq ?? -1) + 1)
      const inherited = conv.get(b.sessionId)?.slice(0, (b.forkSeq ?? -1) + 1)
      expect(inherited, b.sessionId).toStrictEqual(parent?.slice(0, (b.forkSeq ?? -1) + 1))
    }
    await assertWindowRulesOf(store, b.sessionId, {}, { throughApi: true })
  }
  const all = [...conv.values()].flat()
  expect(own).toBeLessThanOrEqual(all.length)
  return conv
}

describe(`a second writer races branch writes [${BACKEND}]`, () => {
  it('fork while the other connection appends to the parent: the fork sees exactly the prefix', async () => {
    const [a, b] = await two()
    await a.append('root', pair('start'))
    for (let r = 0; r < ROUNDS; r++) {
      const at = (await a.messageCount('root')) - 1
      const [forked, appended] = await Promise.all([
        outcome(a.fork('root', { atSeq: at, newSessionId: `f${r}` })),
        outcome(b.append('root', pair(`p${r}`))),
      ])
      expect('value' in forked, JSON.stringify(forked)).toBe(true)
      expect('value' in appended, JSON.stringify(appended)).toBe(true)
      const h = await a.history(`f${r}`, { limit: 10_000 })
      expect(h.length).toBe(at + 1)
      expect(h.map((e) => textOf(e.message)).join()).not.toContain(`p${r}`)
      await b.append(`f${r}`, pair(`own f${r}`))
    }
    const conv = await assertSound(a, 'root')
    expect(conv.get('root')?.length).toBe(2 + 2 * ROUNDS)
    // no sibling leakage in search: f0's own reply is found in f0 only
    const hits = await a.search('own f0', { sessionId: 'f1' })
    expect(hits.map((h) => h.snippet).join()).not.toContain('own f0')
    expect((await a.search('"own f0"', { sessionId: 'f0' })).length).toBeGreaterThan(0)
  })

  it('rewind a branch while the other appends to it: every acknowledged message is in the tree once', async () => {
    const [a, b] = await two()
    await a.append('root', [...pair('r0'), ...pair('r1')])
    await a.fork('root', { atSeq: 1, newSessionId: 'br' })
    await a.append('br', pair('b0'))
    const acknowledged: string[] = []
    for (let r = 0; r < ROUNDS; r++) {
      const to = (await a.messageCount('br')) - 1
      const [rewound, appended] = await Promise.all([
        outcome(a.rewind('br', { toSeq: Math.max(1, to - 1) })),
        outcome(b.append('br', pair(`x${r}`))),
      ])
      // the rewind may find its toSeq gone? No: toSeq ≤ count. Both succeed or are typed errors.
      if ('value' in appended) acknowledged.push(`x${r}`)
      else expect(['CONFLICT', 'BUSY', 'SERIALIZATION_FAILURE']).toContain(appended.code)
      if ('code' in rewound) expect(rewound.code).not.toBe('INTERNAL')
    }
    const conv = await assertSound(a, 'root')
    const everything = [...conv.values()].flat().join('\n')
    for (const tag of acknowledged) expect(everything, tag).toContain(`reply ${tag}`)
    // the root never sees the branch's messages
    expect(conv.get('root')?.join()).not.toContain('x0')
  })

  it('rewind the parent past a fork the other connection is making: the fork is whole or refused', async () => {
    const [a, b] = await two()
    for (let r = 0; r < ROUNDS; r++) {
      const id = `p${r}`
      await a.append(id, [...pair('0'), ...pair('1'), ...pair('2')])
      const [rewound, forked] = await Promise.all([
        outcome(a.rewind(id, { toSeq: 1 })),
        outcome(b.fork(id, { atSeq: 4, newSessionId: `${id}-f` })),
      ])
      expect('value' in rewound, JSON.stringify(rewound)).toBe(true)
      if ('code' in forked) expect(forked.code).toBe('MESSAGE_NOT_FOUND')
      else {
        const h = await a.history(`${id}-f`)
        expect(h.map((e) => textOf(e.message))).toStrictEqual(
          [...pair('0'), ...pair('1'), user('ask 2')].map(textOf),
        )
        const info = (await a.branches(id)).find((x) => x.sessionId === `${id}-f`)
        expect(info?.parentId).toBe(`${id}~1`)
      }
      await assertSound(a, id)
    }
  })

  it('delete a subtree while the other forks inside it: no orphan, no half branch', async () => {
    const [a, b] = await two()
    for (let r = 0; r < ROUNDS; r++) {
      const id = `d${r}`
      await a.append(id, [...pair('0'), ...pair('1')])
      await a.fork(id, { atSeq: 2, newSessionId: `${id}-k` })
      await a.append(`${id}-k`, pair('k'))
      const [deleted, forked] = await Promise.all([
        outcome(a.deleteSession(`${id}-k`, { subtree: true })),
        outcome(b.fork(`${id}-k`, { atSeq: 4, newSessionId: `${id}-kk` })),
      ])
      expect('value' in deleted, JSON.stringify(deleted)).toBe(true)
      if ('code' in forked) expect(['SESSION_NOT_FOUND', 'MESSAGE_NOT_FOUND']).toContain(forked.code)
      // whichever won, neither k nor kk survives: a fork made first was part of the subtree
      const ids = (await a.branches(id)).map((x) => x.sessionId)
      expect(ids).toEqual([id])
      const kk = await outcome(a.branches(`${id}-kk`))
      expect(kk).toStrictEqual({ code: 'SESSION_NOT_FOUND' })
      expect(await a.messageCount(id)).toBe(4)
      expect(await a.search('"reply k"', { sessionId: id })).toEqual([])
      await assertSound(a, id)
    }
  })

  it('delete (without subtree) while the other forks below: refused or alone, never an orphan', async () => {
    const [a, b] = await two()
    for (let r = 0; r < ROUNDS; r++) {
      const id = `e${r}`
      await a.append(id, pair('0'))
      const [deleted, forked] = await Promise.all([
        outcome(a.deleteSession(id)),
        outcome(b.fork(id, { atSeq: 1, newSessionId: `${id}-f` })),
      ])
      if ('value' in deleted) {
        expect(forked).toStrictEqual({ code: 'SESSION_NOT_FOUND' })
        expect(await outcome(a.branches(`${id}-f`))).toStrictEqual({ code: 'SESSION_NOT_FOUND' })
      } else {
        expect(deleted.code).toBe('BRANCH_HAS_CHILDREN')
        expect('value' in forked).toBe(true)
        expect(await a.messageCount(`${id}-f`)).toBe(2)
      }
    }
  })
})
