/**
 * A rewind to before a branch's own fork point, on PostgreSQL against SQLite. Found by the deep-lineage
 * property (test/postgres/branches-deep-differential.test.ts, seed -480996151, shrunk by hand): a branch
 * `f8` forked at the newest message of a branch `f7` whose parent limits are small, rewound to a call `f7`
 * made (seq 3, before `f8`'s fork point 6), reads `[0, 3]` as its window on PostgreSQL — the call's turn
 * with a hole (boundary 3, the user's question kept) — where SQLite reads `[0, 1, 2, 3]`, the same window
 * both backends give a fork of `f7` at seq 3 (what the branch is after the rewind, by docs/design.md,
 * "Branches"). Not caused by the lineage walk of f96b33c (the same on the statement before it): the rewind
 * set the new fork point's flags on the session but not on the slice's row, so the planner it runs next
 * read the row's owner's flags (a call answered next in `f7`: a cut before it) and cut there.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { MessageData, WindowLimits } from '../../src/index.js'
import { asyncSqliteStore, type LedgerStore } from '../helpers/ledger-open.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { useDatabases } from './databases.js'

const { database, open } = useDatabases()

const said = (role: 'user' | 'assistant', text: string, trackingId: string): MessageData => ({
  role,
  content: [{ text }],
  trackingId,
})
const use = (call: string, trackingId: string): MessageData => ({
  role: 'assistant',
  content: [{ toolUse: { name: 'look', toolUseId: call, input: {} } }],
  trackingId,
})
const answer = (call: string, trackingId: string): MessageData => ({
  role: 'user',
  content: [{ toolResult: { toolUseId: call, status: 'success', content: [{ text: 'found' }] } }],
  trackingId,
})

const LIMITS: WindowLimits = { windowSize: 2, tokenBudget: 60, first: 0, last: 1 }

let dir: TempDir | undefined
afterEach(() => {
  dir?.cleanup()
  dir = undefined
})

/** What the window of `f8` and of a fork of `f7` at seq 3 read, after the rewind. */
async function windows(
  store: LedgerStore,
): Promise<{ rewound: unknown[]; forked: unknown[]; boundary: unknown }> {
  await store.append('r', [
    said('user', 'ask', 'u0'),
    use('c0', 'x0'),
    answer('c0', 'y0'),
    said('assistant', 'ok', 'a0'),
  ])
  await store.fork('r', { atSeq: 2, newSessionId: 'f7' })
  await store.applyWindow('f7', LIMITS)
  await store.append('f7', [
    use('c1', 'x1'),
    answer('c1', 'y1'),
    said('user', 'q', 'u2'),
    said('assistant', 'a', 'a2'),
  ])
  await store.fork('f7', { atSeq: 6, newSessionId: 'f8' })
  await store.rewind('f8', { toSeq: 3 })
  await store.fork('f7', { atSeq: 3, newSessionId: 'g' })
  return {
    rewound: (await store.windowEntries('f8')).map((e) => e.seq),
    forked: (await store.windowEntries('g')).map((e) => e.seq),
    boundary: (await store.session('f8'))?.boundary,
  }
}

describe('a rewind to before the fork point, PostgreSQL against SQLite', () => {
  it('the rewound branch’s window is a fork’s at that point on both (PostgreSQL read [0, 3])', async () => {
    dir = tempDir()
    const sqlite = dir.open()
    const want = await windows(asyncSqliteStore(sqlite, sqlite.path))
    expect(want).toStrictEqual({ rewound: [0, 1, 2, 3], forked: [0, 1, 2, 3], boundary: 0 })
    expect(await windows(await open(await database()))).toStrictEqual(want)
  })
})
