/**
 * The inherited summary's end at a fork, on PostgreSQL against SQLite. A fork not at the parent's newest
 * message applies the parent's limits to the new window, which may let the summary it inherited go; the
 * branch's row then records that end (`flush-branch.ts`, `CREATED_BRANCH`). Its neighbours: a fork of a
 * branch that itself shows an inherited summary, a fork then a rewind, a fork where the parent's summary
 * has already ended, a fork named by trackingId, a fork at a fork point, a rewind before the fork point
 * then a fork. After each, every session of the tree reads the same on both stores (`summaries()`,
 * `session()`, the window, history), and the window rules hold through the API on both.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { checkSession } from '../../src/check/check-session.js'
import { describeProblem } from '../../src/check/problems.js'
import type { MessageData, SummaryRecord, WindowLimits } from '../../src/index.js'
import { ratioFold } from '../helpers/ratio-fold.js'
import { asyncSqliteStore, sqliteOf, type LedgerStore } from '../helpers/ledger-open.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'
import { useDatabases } from './databases.js'
import { norm } from './differential.js'

const { database, open } = useDatabases()

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }], trackingId: text })
const assistant = (text: string): MessageData => ({
  role: 'assistant',
  content: [{ text }],
  trackingId: text,
})
const call = (id: string): MessageData => ({
  role: 'assistant',
  content: [{ toolUse: { name: 'look', toolUseId: id, input: {} } }],
  trackingId: `use-${id}`,
})
const result = (id: string): MessageData => ({
  role: 'user',
  content: [{ toolResult: { toolUseId: id, status: 'success', content: [{ text: `found ${id}` }] } }],
  trackingId: `res-${id}`,
})
const turn = (t: string): MessageData[] => [user(`q${t}`), call(`c${t}`), result(`c${t}`), assistant(`a${t}`)]

const SMALL: WindowLimits = { windowSize: 3, tokenBudget: undefined, first: 0, last: 0 }
const WIDE: WindowLimits = { windowSize: 40, tokenBudget: undefined, first: 0, last: 0 }

/** Folds the start of `id`'s window into a summary, named from the plan: the same on both stores. */
const fold = (store: LedgerStore, id: string, limits: WindowLimits, ratio = 1): Promise<SummaryRecord> =>
  ratioFold(store, id, limits, ratio, (plan) => ({
    text: `summary of ${plan.input.map((m) => m.trackingId).join(' ')}`,
    uid: `summary-${id}-${plan.input.length}-${plan.newBoundary}`,
  }))

let dir: TempDir | undefined
afterEach(() => {
  dir?.cleanup()
  dir = undefined
})

/** Both stores, the SQLite one first. */
async function stores(): Promise<readonly [LedgerStore, LedgerStore]> {
  dir = tempDir()
  const sqlite = dir.open()
  return [asyncSqliteStore(sqlite, sqlite.path), await open(await database())]
}

/** Runs `call` on both stores; the answers (or the error codes) must agree. */
async function both<T>(
  s: readonly [LedgerStore, LedgerStore],
  what: string,
  call: (x: LedgerStore) => Promise<T>,
) {
  const run = async (x: LedgerStore): Promise<unknown> => {
    try {
      return { value: await call(x) }
    } catch (error) {
      return { code: (error as { code?: unknown }).code ?? String(error) }
    }
  }
  const want = await run(s[0])
  expect(norm(await run(s[1])), what).toStrictEqual(norm(want))
  return want
}

/** Every session of the tree holding `root` reads the same on both stores, and the rules hold on both. */
async function agree(s: readonly [LedgerStore, LedgerStore], root: string, what: string): Promise<void> {
  await both(s, `${what}: branches`, (x) => x.branches(root))
  for (const b of await s[0].branches(root)) {
    const id = b.sessionId
    await both(s, `${what}: summaries(${id})`, (x) => x.summaries(id))
    await both(s, `${what}: session(${id})`, (x) => x.session(id))
    await both(s, `${what}: windowEntries(${id})`, (x) => x.windowEntries(id))
    await both(s, `${what}: history(${id})`, (x) => x.history(id))
    for (const x of s) await assertWindowRulesOf(x, id, {}, { throughApi: true })
    // SQLite's check (its bookkeeping read with its own SQL): PostgreSQL has none to compare.
    const sqlite = sqliteOf(s[0])?.store
    if (sqlite !== undefined)
      expect(checkSession(sqlite, id).problems.map(describeProblem), `${what}: check(${id})`).toStrictEqual(
        [],
      )
  }
}

/** The root `s`: a turn folded into a summary, then two more turns, the window applied with `limits`. */
async function summarized(s: readonly [LedgerStore, LedgerStore], limits: WindowLimits): Promise<void> {
  for (const x of s) {
    await x.append('s', turn('0'))
    await x.applyWindow('s', SMALL)
  }
  await both(s, 'fold', (x) => fold(x, 's', SMALL))
  for (const x of s) {
    await x.append('s', [...turn('1'), ...turn('2')])
    await x.applyWindow('s', limits)
  }
  await agree(s, 's', 'setup')
}

describe('the inherited summary at a fork, PostgreSQL against SQLite', () => {
  it('forks of a branch that let its inherited summary go, at and around its fork point', async () => {
    const s = await stores()
    await summarized(s, WIDE)
    // b shows the root's summary (a fork at the newest message); its children are forked earlier.
    await both(s, 'fork b', (x) => x.fork('s', { atSeq: 11, newSessionId: 'b' }))
    for (const x of s) await x.applyWindow('b', SMALL)
    await agree(s, 's', 'b small')
    for (const [at, id] of [
      [9, 'b1'],
      [5, 'b2'],
      [4, 'b3'],
      [11, 'b4'],
    ] as const)
      await both(s, `fork ${id}`, (x) => x.fork('b', { atSeq: at, newSessionId: id }))
    await agree(s, 's', 'forks of b')
    // A grandchild of a grandchild, by trackingId, at b2's own fork point.
    await both(s, 'fork b2.1', (x) => x.fork('b2', { trackingId: 'use-c1', newSessionId: 'b2.1' }))
    await agree(s, 's', 'fork of b2 at its fork point')
  })

  it('a grandchild forked where the inherited summary’s limits let it go, by seq and by trackingId', async () => {
    const s = await stores()
    for (const x of s) {
      await x.append('s', turn('0'))
      await x.applyWindow('s', SMALL)
    }
    await both(s, 'fold', (x) => fold(x, 's', SMALL))
    // b shows the root's summary; its own turn is appended without a window applied (as a busy agent does).
    await both(s, 'fork b', (x) => x.fork('s', { atSeq: 3, newSessionId: 'b' }))
    for (const x of s) await x.append('b', turn('1'))
    await agree(s, 's', 'b')
    expect((await s[1].summaries('b')).map((r) => [r.current, r.inherited])).toStrictEqual([[true, true]])
    for (const at of [4, 5, 6, 7]) {
      await both(s, `fork b at ${at}`, (x) => x.fork('b', { atSeq: at, newSessionId: `b-${at}` }))
      await both(s, `fork b at ${at} again`, (x) =>
        x.fork(`b-${at}`, { atSeq: at, newSessionId: `b-${at}-${at}` }),
      )
    }
    await both(s, 'fork b by trackingId', (x) => x.fork('b', { trackingId: 'use-c1', newSessionId: 'b-t' }))
    await agree(s, 's', 'grandchildren')
    // At least one grandchild let the summary go, and one kept it.
    const shown = await Promise.all(
      [4, 5, 6, 7].map(async (at) => (await s[1].session(`b-${at}`))?.summaryId),
    )
    expect(shown).toContain(undefined)
    expect(shown.some((id) => id !== undefined)).toBe(true)
  })

  it('a fork, then a rewind of it and of the parent, then forks again', async () => {
    const s = await stores()
    await summarized(s, WIDE)
    await both(s, 'fork b', (x) => x.fork('s', { atSeq: 9, newSessionId: 'b' }))
    for (const x of s) {
      await x.append('b', turn('b'))
      await x.applyWindow('b', SMALL)
    }
    await agree(s, 's', 'b written')
    await both(s, 'rewind b into its own rows', (x) => x.rewind('b', { toSeq: 11 }))
    await agree(s, 's', 'b rewound')
    await both(s, 'rewind b before its fork point', (x) => x.rewind('b', { toSeq: 5 }))
    await agree(s, 's', 'b rewound before its fork point')
    await both(s, 'fork b.1', (x) => x.fork('b', { atSeq: 4, newSessionId: 'b.1' }))
    await both(s, 'rewind s', (x) => x.rewind('s', { toSeq: 6 }))
    await agree(s, 's', 's rewound')
    await both(s, 'fork s at the rewound end', (x) => x.fork('s', { atSeq: 6, newSessionId: 'c' }))
    await agree(s, 's', 'fork after the rewind')
  })

  it('a fork where the parent has already let its summary go, and where it folded again since', async () => {
    const s = await stores()
    await summarized(s, WIDE)
    await both(s, 'fork keep', (x) => x.fork('s', { atSeq: 11, newSessionId: 'keep' }))
    // The root lets the summary go, then folds again over the summary's successor.
    for (const x of s) await x.applyWindow('s', SMALL)
    await agree(s, 's', 'summary gone')
    await both(s, 'fork gone-newest', (x) => x.fork('s', { atSeq: 11, newSessionId: 'gone-newest' }))
    await both(s, 'fork gone-early', (x) => x.fork('s', { atSeq: 6, newSessionId: 'gone-early' }))
    await agree(s, 's', 'forks after the end')
    for (const x of s) {
      await x.append('s', turn('3'))
      await x.applyWindow('s', { ...SMALL, windowSize: 6 })
    }
    await both(s, 'fold again', (x) => fold(x, 's', { ...SMALL, windowSize: 6 }, 0.5))
    await agree(s, 's', 'second fold')
    for (const [at, id] of [
      [15, 'second-newest'],
      [13, 'second-early'],
      [12, 'second-earlier'],
    ] as const)
      await both(s, `fork ${id}`, (x) => x.fork('s', { atSeq: at, newSessionId: id }))
    await agree(s, 's', 'forks of the second summary')
    // A fold in the branch that inherited the first summary, over it.
    for (const x of s) await x.applyWindow('keep', SMALL)
    await both(s, 'fold in keep', (x) => fold(x, 'keep', SMALL, 0.5))
    await both(s, 'fork keep.1', (x) => x.fork('keep', { atSeq: 10, newSessionId: 'keep.1' }))
    await agree(s, 's', 'fold in a branch')
  })
})
