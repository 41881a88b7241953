/**
 * Crash-test worker for branches: forever, on a random live session of the tree under `root`, it appends
 * a pair, forks (at a random seq, sometimes of an abandoned branch), rewinds (to a random seq), or deletes
 * a leaf with its abandoned branches; the parent SIGKILLs it at random moments.
 *
 * Protocol (stdout, one line each): `R` ready; `A <session> <text>` a message whose append returned;
 * `F <id>` a fork about to be asked for, `f <id>` once it returned; `W <session> <toSeq>` a rewind about to
 * be asked for, `w <session> <toSeq>` once it returned; `D <id>` a delete about to be asked for, `d <id>`
 * once it returned.
 *
 * Usage: branch-crash-writer <ledger> <seed> <run>, the ledger a SQLite file or a PostgreSQL connection
 * string (driven through the conformance suite's async API).
 */
import type { MessageData } from '../../../src/index.js'
import { openLedger } from '../../helpers/ledger-open.js'
import { report, rng } from './worker-kit.js'

const [path, seedArg, runArg] = process.argv.slice(2)
if (path === undefined || seedArg === undefined || runArg === undefined)
  throw new Error('usage: branch-crash-writer <db> <seed> <run>')
const run = Number(runArg)
const r = rng(Number(seedArg) * 7919 + run)
setTimeout(() => process.exit(3), 60_000).unref()

interface Info {
  sessionId: string
  kind: string
  messageCount: number
  parentId: string | null
}
const store = await openLedger(path)
report('R')

const text = (n: number): string => `m${run}.${n}`
const pair = (n: number): MessageData[] => [
  { role: 'user', content: [{ text: text(n) }] },
  { role: 'assistant', content: [{ text: text(n + 1) }] },
]

async function appendPair(id: string, n: number): Promise<void> {
  await store.append(id, pair(n))
  report('A', id, text(n))
  report('A', id, text(n + 1))
}

let n = 0
if ((await store.messageCount('root').catch(() => 0)) === 0) {
  await appendPair('root', n)
  n += 2
}
for (let step = 0; ; step++) {
  const tree = await store.branches('root')
  const live = tree.filter((b) => b.kind !== 'abandoned')
  const s = live[r.int(0, live.length - 1)] as Info
  const roll = r.int(0, 9)
  if (roll < 4) {
    await appendPair(s.sessionId, n)
    n += 2
  } else if (roll < 7) {
    const from = r.chance(0.2) ? (tree[r.int(0, tree.length - 1)] as Info) : s
    const id = `k${run}.${step}`
    report('F', id)
    await store.fork(from.sessionId, { atSeq: r.int(0, from.messageCount - 1), newSessionId: id })
    report('f', id)
  } else if (roll < 9) {
    if (s.messageCount > 1) {
      const toSeq = r.int(0, s.messageCount - 2)
      report('W', s.sessionId, toSeq)
      await store.rewind(s.sessionId, { toSeq })
      report('w', s.sessionId, toSeq)
    }
  } else {
    const leaves = live.filter(
      (b) =>
        b.parentId !== null && !tree.some((c) => c.kind !== 'abandoned' && isBelow(tree, c, b.sessionId)),
    )
    const victim = leaves[r.int(0, Math.max(0, leaves.length - 1))]
    if (victim !== undefined) {
      report('D', victim.sessionId)
      await store.deleteSession(victim.sessionId, { subtree: true })
      report('d', victim.sessionId)
    }
  }
}

/** Whether `c` is strictly below `ancestor` in `tree`. */
function isBelow(tree: readonly Info[], c: Info, ancestor: string): boolean {
  let p = c.parentId
  while (p !== null) {
    if (p === ancestor) return true
    p = tree.find((x) => x.sessionId === p)?.parentId ?? null
  }
  return false
}
