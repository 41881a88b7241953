/**
 * Branches on PostgreSQL against SQLite, call for call (docs/design.md, "Branches"): the same forks (at the
 * newest message, earlier, of a fork), appends and windows in a branch, rewinds (a root with branches
 * after the point, a branch to before its own fork point) and a subtree delete, run on both stores; every
 * session of the tree then reads the same on both — window entries, history, facts, the tree, pin and edit
 * logs, summaries. Times and minted ids aside, a difference is a failure.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { MessageData, WindowLimits } from '../../src/index.js'
import { asyncSqliteStore, type LedgerStore } from '../helpers/ledger-open.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { useDatabases } from './databases.js'

const { database, open } = useDatabases()

const LIMITS: WindowLimits = { windowSize: 6, tokenBudget: undefined, first: 0, last: 2 }

/** One turn: a question, a tool call, its result, an answer. */
function turn(t: number | string): MessageData[] {
  return [
    { role: 'user', content: [{ text: `question ${t}` }], trackingId: `q${t}` },
    {
      role: 'assistant',
      content: [{ toolUse: { name: 'look', toolUseId: `c${t}`, input: { t } } }],
      trackingId: `u${t}`,
    },
    {
      role: 'user',
      content: [{ toolResult: { toolUseId: `c${t}`, status: 'success', content: [{ text: `found ${t}` }] } }],
      trackingId: `r${t}`,
    },
    { role: 'assistant', content: [{ text: `answer ${t}` }], trackingId: `a${t}` },
  ]
}

const MINTED = /[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}/g
/** Keys that hold a time (`at`, `createdAt`, `pinnedAt`, …). */
const TIMES = /^at$|At$/

/** A value with its times zeroed and minted UUIDs named alike (they differ between stores by design). */
function norm(value: unknown): unknown {
  // JSON.stringify gives undefined for undefined (a missing session): keep it.
  const text = JSON.stringify(value, (k, v: unknown) => (TIMES.test(k) ? 0 : v)) as string | undefined
  return text === undefined ? undefined : (JSON.parse(text.replace(MINTED, 'minted')) as unknown)
}

let dir: TempDir | undefined
afterEach(() => {
  dir?.cleanup()
  dir = undefined
})

/** Runs `call` on both stores and expects the same answer. */
async function both<T>(stores: readonly LedgerStore[], call: (s: LedgerStore) => Promise<T>): Promise<void> {
  const [sq, pg] = stores as [LedgerStore, LedgerStore]
  const want = await call(sq)
  expect(norm(await call(pg))).toStrictEqual(norm(want))
}

/** Every read of session `id` agrees between the stores. */
async function sameReads(stores: readonly LedgerStore[], id: string): Promise<void> {
  await both(stores, (s) => s.windowEntries(id))
  await both(stores, (s) => s.history(id, { limit: 1000 }))
  await both(stores, (s) => s.session(id))
  await both(stores, (s) => s.branches(id))
  await both(stores, (s) => s.pinEvents(id))
  await both(stores, (s) => s.edits(id))
  await both(stores, (s) => s.summaries(id))
  await both(stores, (s) => s.pinnedMessages({ sessionId: id }))
}

describe('branches on PostgreSQL against SQLite', () => {
  it('fork, write in a branch, rewind and delete read the same on both', async () => {
    dir = tempDir()
    const sqlite = dir.open()
    const stores = [asyncSqliteStore(sqlite, sqlite.path), await open(await database())] as const
    for (const s of stores) {
      await s.append('s', [0, 1, 2, 3].flatMap(turn))
      await s.applyWindow('s', LIMITS)
      await s.pin('s', { seq: 0 }, { reason: 'first' }, LIMITS)
    }
    await sameReads(stores, 's')
    // At the newest message, earlier, and earlier still (before the window).
    for (const [at, id] of [
      [15, 'b'],
      [9, 'c'],
      [2, 'd'],
    ] as const) {
      await both(stores, (s) => s.fork('s', { atSeq: at, newSessionId: id }))
      await sameReads(stores, id)
    }
    for (const s of stores) {
      await s.append('c', turn('x'))
      await s.applyWindow('c', LIMITS)
      await s.pin('c', { seq: 4 }, {}, LIMITS)
    }
    await sameReads(stores, 'c')
    await both(stores, (s) => s.fork('c', { trackingId: 'q2', newSessionId: 'cc' }))
    for (const s of stores) {
      await s.append('cc', turn('y'))
      await s.applyWindow('cc', LIMITS)
    }
    await sameReads(stores, 'cc')
    // A root with branches after the point, a branch to before its own fork point, into a branch's own rows.
    for (const [id, options] of [
      ['s', { toSeq: 10 }],
      ['cc', { toSeq: 5 }],
      ['c', { toSeq: 14, reason: 'undo' }],
    ] as const) {
      await both(stores, (s) => s.rewind(id, options))
      for (const b of await stores[0].branches(id)) await sameReads(stores, b.sessionId)
    }
    for (const s of stores) {
      await s.append('s', turn('z'))
      await s.applyWindow('s', LIMITS)
      await s.append('cc', turn('w'))
      await s.applyWindow('cc', LIMITS)
    }
    const tree = await stores[0].branches('s')
    expect(tree.length).toBeGreaterThan(4)
    for (const b of tree) await sameReads(stores, b.sessionId)
    for (const s of stores)
      await expect(s.deleteSession('s')).rejects.toMatchObject({ code: 'BRANCH_HAS_CHILDREN' })
    const [sq, pg] = stores
    const gone = await sq.deleteSession('s', { subtree: true })
    // PostgreSQL keeps dead row versions until VACUUM: `erased` is false there by design (docs/api.md).
    expect(norm(await pg.deleteSession('s', { subtree: true }))).toStrictEqual(
      norm({ ...gone, erased: false }),
    )
    expect(await pg.sessions()).toStrictEqual([])
  })
})
