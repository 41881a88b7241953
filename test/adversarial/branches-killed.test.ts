/**
 * Adversarial: a process forking, rewinding, appending on branches and deleting leaves, SIGKILLed at
 * random moments, on the backend the project selects (a SQLite file, or a PostgreSQL database whose client
 * dies mid-statement). After every kill: the tree is sound (each branch's inherited prefix is its parent's,
 * seqs dense, window rules hold), no half-written branch (every stored session is in the tree, every
 * message row belongs to a listed session), every acknowledged fork exists, every acknowledged message is
 * somewhere in the tree (unless its session was being deleted), and on SQLite `checkSession` and
 * `context-ledger check` find nothing.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { checkSession } from '../../src/check/check-session.js'
import { describeProblem } from '../../src/check/problems.js'
import { BACKEND, makeBackend } from '../helpers/backend.js'
import type { BranchStore } from '../helpers/branch-run.js'
import { sqliteOf } from '../helpers/ledger-open.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'
import { cli } from '../cli/support.js'
import { collect, LONG, useWorker } from '../reliability/support.js'
import { rng } from '../reliability/workers/worker-kit.js'

// CONTEXT_LEDGER_LONG=1 kills ten times as often (the default keeps the suite within its budget).
const KILLS = (BACKEND === 'postgres' ? 4 : 8) * (LONG ? 10 : 1)
const SEED = Number(process.env.CONTEXT_LEDGER_SEED ?? Date.now() % 1_000_000)

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})
const launch = useWorker('branch-crash-writer')

interface Acks {
  /** text → session it was appended to */
  messages: Map<string, string>
  forksAsked: Set<string>
  forksDone: Set<string>
  deletesAsked: Set<string>
}

async function runAndKill(location: string, run: number, acks: Acks, delay: number): Promise<string> {
  const child = launch([location, String(SEED), String(run)])
  let timer: NodeJS.Timeout | undefined
  const exit = await collect(child, (line) => {
    const [tag, a, b] = line.split(' ')
    if (tag === 'R') timer = setTimeout(() => child.kill('SIGKILL'), delay)
    else if (tag === 'A' && a !== undefined && b !== undefined) acks.messages.set(b, a)
    else if (tag === 'F' && a !== undefined) acks.forksAsked.add(a)
    else if (tag === 'f' && a !== undefined) acks.forksDone.add(a)
    else if (tag === 'D' && a !== undefined) acks.deletesAsked.add(a)
  })
  clearTimeout(timer)
  expect(exit.signal, `run ${run} ended by itself: ${exit.stderr}`).toBe('SIGKILL')
  return exit.stderr
}

const excused = (acks: Acks, session: string): boolean =>
  [...acks.deletesAsked].some((d) => session === d || session.startsWith(`${d}~`))

async function assertAfterKill(store: BranchStore, acks: Acks, run: number): Promise<void> {
  const tree = await store.branches('root')
  const byId = new Map(tree.map((b) => [b.sessionId, b]))
  const conv = new Map<string, string[]>()
  for (const b of tree)
    conv.set(
      b.sessionId,
      (await store.history(b.sessionId, { limit: 10_000 })).map((e) => JSON.stringify(e.message.content)),
    )
  let own = 0
  for (const b of tree) {
    const h = conv.get(b.sessionId) ?? []
    expect(h.length, `${b.sessionId} after run ${run}`).toBe(b.messageCount)
    own += b.ownMessages
    if (b.parentId !== null) {
      expect(byId.has(b.parentId), `${b.sessionId}'s parent ${b.parentId}`).toBe(true)
      const upTo = (b.forkSeq ?? -1) + 1
      expect(b.messageCount - b.ownMessages, b.sessionId).toBe(upTo)
      expect(h.slice(0, upTo), `${b.sessionId} inherits its parent's prefix`).toStrictEqual(
        conv.get(b.parentId)?.slice(0, upTo),
      )
    }
    await assertWindowRulesOf(store, b.sessionId, {}, { throughApi: true })
  }
  // no half-written branch: every session row and every message row is in the tree
  const sessions = await backend.scalar(store, {
    sqlite: 'SELECT count(*) FROM sessions',
    postgres: 'SELECT count(*)::int FROM context_ledger.sessions',
  })
  const rows = await backend.scalar(store, {
    sqlite: 'SELECT count(*) FROM messages',
    postgres: 'SELECT count(*)::int FROM context_ledger.messages',
  })
  expect(Number(sessions), `sessions after run ${run}`).toBe(tree.length)
  expect(Number(rows), `message rows after run ${run}`).toBe(own)
  for (const id of acks.forksDone)
    if (!excused(acks, id)) expect(byId.has(id), `acknowledged fork ${id}`).toBe(true)
  const everything = new Set([...conv.values()].flat())
  for (const [text, session] of acks.messages)
    if (!excused(acks, session))
      expect(everything.has(JSON.stringify([{ text }])), `acknowledged ${text} in ${session}`).toBe(true)
  const sqlite = sqliteOf(store)
  if (sqlite !== undefined)
    for (const b of tree)
      expect(
        checkSession(sqlite.store, b.sessionId).problems.map(describeProblem),
        `${b.sessionId} after run ${run}`,
      ).toStrictEqual([])
}

describe(`a branch writer killed with SIGKILL [${BACKEND}]`, () => {
  it(`leaves a sound tree after each of ${KILLS} kills (seed ${SEED})`, async () => {
    const first = await backend.open()
    const location = backend.location(first)
    // the root exists before the first kill (a worker killed while starting would leave no tree)
    await first.append('root', [
      { role: 'user', content: [{ text: 'start' }] },
      { role: 'assistant', content: [{ text: 'started' }] },
    ])
    await first.close()
    const r = rng(SEED)
    const acks: Acks = {
      messages: new Map(),
      forksAsked: new Set(),
      forksDone: new Set(),
      deletesAsked: new Set(),
    }
    for (let run = 0; run < KILLS; run++) {
      await runAndKill(location, run, acks, BACKEND === 'postgres' ? r.int(300, 3000) : r.int(20, 600))
      const store = await backend.openAt(location)
      const t0 = Date.now()
      await assertAfterKill(store, acks, run)
      if (process.env.ADV_DEBUG) console.log(run, (await store.branches('root')).length, Date.now() - t0)
      await store.close()
    }
    if (BACKEND === 'sqlite') {
      const checked = await cli(['check', location, '--json', '--no-progress'])
      expect((JSON.parse(checked.stdout) as { problems: unknown[] }).problems, checked.stderr).toStrictEqual(
        [],
      )
      expect(checked.code).toBe(0)
    }
    // the runs did fork and rewind (the test reached what it is about)
    expect(acks.forksDone.size).toBeGreaterThan(0)
  }, 480_000)
})
