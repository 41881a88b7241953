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
 * Usage: concurrent-bystander <pinner|reader> <db> <index> <writers> <seed>
 */
import { PersistentConversationManager } from '../../../src/index.js'
import { CONCURRENT_LIMITS, openOrExit, report, reportFailure, rng } from './worker-kit.js'

const [role, path, indexArg, writersArg, seedArg] = process.argv.slice(2)
if ((role !== 'pinner' && role !== 'reader') || path === undefined || seedArg === undefined)
  throw new Error('usage: concurrent-bystander <pinner|reader> <db> <index> <writers> <seed>')
const index = Number(indexArg)
const r = rng(Number(seedArg) * 17 + index + (role === 'pinner' ? 1000 : 2000))
/** Pins one pinner holds per session at most; past it, it unpins one of its own first. */
const MAX_PINS = 4
const CALLS_PER_TICK = 8
setTimeout(() => process.exit(3), 600_000).unref()

const store = openOrExit(path)
const sessions = ['shared', ...Array.from({ length: Number(writersArg) }, (_, w) => `own-${w}`)]
const managers = new Map(
  sessions.map((sessionId) => [
    sessionId,
    new PersistentConversationManager({ store, sessionId, ...CONCURRENT_LIMITS }),
  ]),
)
const mine = new Map<string, number[]>(sessions.map((s) => [s, []]))
let calls = 0
let slowest = 0

function timed(fn: () => unknown): void {
  const t = performance.now()
  try {
    fn()
  } catch (error) {
    reportFailure(error)
  } finally {
    calls++
    slowest = Math.max(slowest, performance.now() - t)
  }
}

function pinnerStep(): void {
  const sessionId = sessions[r.int(0, sessions.length - 1)] as string
  const manager = managers.get(sessionId) as PersistentConversationManager
  const pins = mine.get(sessionId) as number[]
  let count = 0
  timed(() => {
    count = store.session(sessionId)?.messageCount ?? 0
  })
  if (pins.length >= MAX_PINS) {
    const [seq] = pins.splice(r.int(0, pins.length - 1), 1)
    timed(() => manager.unpin({ seq: seq as number }, { actor: `pinner-${index}` }))
  } else if (count > 0) {
    const seq = r.int(0, count - 1)
    timed(() => manager.pin({ seq }, { actor: `pinner-${index}`, reason: 'concurrency test' }))
    pins.push(seq)
  }
}

function readerStep(): void {
  const sessionId = sessions[r.int(0, sessions.length - 1)] as string
  const manager = managers.get(sessionId) as PersistentConversationManager
  let count = 0
  timed(() => manager.window())
  timed(() => {
    count = store.session(sessionId)?.messageCount ?? 0
  })
  timed(() => manager.history({ fromSeq: r.int(0, Math.max(0, count - 1)), limit: 50 }))
  timed(() => store.sessions())
  timed(() => store.pinnedMessages({ sessionId }))
  // Searches while the writers append (and their commits index batches): always complete, never an error.
  timed(() => {
    const hits = manager.search('the', { limit: 5 })
    for (const h of hits)
      if (h.sessionId !== sessionId) throw new Error(`search of ${sessionId} found ${h.sessionId}`)
  })
  timed(() => store.search(`w${r.int(0, 3)}`, { match: 'any', limit: 20 }))
}

let stopped = false
report('R')
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk: string) => {
  if (chunk.includes('stop')) stopped = true
  if (chunk.includes('go')) tick()
})

function tick(): void {
  if (stopped) {
    report('D', calls, Math.round(slowest))
    store.close()
    process.exit(0)
  }
  for (let i = 0; i < CALLS_PER_TICK; i++) (role === 'pinner' ? pinnerStep : readerStep)()
  setImmediate(tick)
}
