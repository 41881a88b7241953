/**
 * Concurrency-test worker that is not one of the writers: a `pinner` pins and unpins random messages of
 * random sessions (through a manager with the writers' limits, so a pin brings its partners back), a
 * `reader` reads windows, history pages, the session list and the pins, and searches — both in a loop while the
 * writers write, on the same file. Any error is reported, never thrown: the parent expects none.
 *
 * The loop yields to the event loop every few calls so the `stop` line on stdin is seen.
 *
 * Protocol (stdout): `R` opened; `E <code> <message>` an error; `D <calls> <slowestMs>` stopped.
 *
 * Usage: concurrent-bystander <pinner|reader> <ledger> <index> <writers> <seed> (a file or a connection string)
 */
import { managerOf, sqliteOf, type LedgerManager } from '../../helpers/ledger-open.js'
import { CONCURRENT_LIMITS, openLedgerOrExit, report, reportFailure, rng } from './worker-kit.js'

const [role, path, indexArg, writersArg, seedArg] = process.argv.slice(2)
if ((role !== 'pinner' && role !== 'reader') || path === undefined || seedArg === undefined)
  throw new Error('usage: concurrent-bystander <pinner|reader> <db> <index> <writers> <seed>')
const index = Number(indexArg)
const r = rng(Number(seedArg) * 17 + index + (role === 'pinner' ? 1000 : 2000))
/** Pins one pinner holds per session at most; past it, it unpins one of its own first. */
const MAX_PINS = 4
const CALLS_PER_TICK = 8
setTimeout(() => process.exit(3), 600_000).unref()

const store = await openLedgerOrExit(path)
const sessions = ['shared', ...Array.from({ length: Number(writersArg) }, (_, w) => `own-${w}`)]
const managers = new Map<string, LedgerManager>()
for (const sessionId of sessions)
  managers.set(sessionId, await managerOf(store, { sessionId, ...CONCURRENT_LIMITS }))
const mine = new Map<string, number[]>(sessions.map((s) => [s, []]))
let calls = 0
let slowest = 0

async function timed(fn: () => Promise<unknown>): Promise<void> {
  const t = performance.now()
  try {
    await fn()
  } catch (error) {
    reportFailure(error)
  } finally {
    calls++
    slowest = Math.max(slowest, performance.now() - t)
  }
}

async function pinnerStep(): Promise<void> {
  const sessionId = sessions[r.int(0, sessions.length - 1)] as string
  const manager = managers.get(sessionId) as LedgerManager
  const pins = mine.get(sessionId) as number[]
  let count = 0
  await timed(async () => {
    count = (await store.session(sessionId))?.messageCount ?? 0
  })
  if (pins.length >= MAX_PINS) {
    const [seq] = pins.splice(r.int(0, pins.length - 1), 1)
    await timed(() => manager.unpin({ seq: seq as number }, { actor: `pinner-${index}` }))
  } else if (count > 0) {
    const seq = r.int(0, count - 1)
    await timed(() => manager.pin({ seq }, { actor: `pinner-${index}`, reason: 'concurrency test' }))
    pins.push(seq)
  }
}

async function readerStep(): Promise<void> {
  const sessionId = sessions[r.int(0, sessions.length - 1)] as string
  const manager = managers.get(sessionId) as LedgerManager
  let count = 0
  await timed(() => manager.window())
  await timed(async () => {
    count = (await store.session(sessionId))?.messageCount ?? 0
  })
  await timed(() => manager.history({ fromSeq: r.int(0, Math.max(0, count - 1)), limit: 50 }))
  await timed(() => store.sessions())
  await timed(() => store.pinnedMessages({ sessionId }))
  // Searches while the writers append (and their commits index batches): always complete, never an error.
  // SQLite's full-text index only (PostgreSQL has no search yet, see docs/postgres.md).
  const file = sqliteOf(store)?.store
  if (file !== undefined) {
    await timed(() => {
      const hits = file.search('the', { sessionId, limit: 5 })
      for (const h of hits)
        if (h.sessionId !== sessionId) throw new Error(`search of ${sessionId} found ${h.sessionId}`)
      return Promise.resolve()
    })
    await timed(() => Promise.resolve(file.search(`w${r.int(0, 3)}`, { match: 'any', limit: 20 })))
  }
}

let stopped = false
report('R')
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk: string) => {
  if (chunk.includes('stop')) stopped = true
  if (chunk.includes('go')) void tick()
})

async function tick(): Promise<void> {
  if (stopped) {
    report('D', calls, Math.round(slowest))
    await store.close()
    process.exit(0)
  }
  for (let i = 0; i < CALLS_PER_TICK; i++) await (role === 'pinner' ? pinnerStep : readerStep)()
  setImmediate(() => void tick())
}
