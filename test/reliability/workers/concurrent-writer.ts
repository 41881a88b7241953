/**
 * Concurrency-test worker: one of several processes writing to the same file at once. It opens the
 * file as soon as it starts (so several processes migrate a fresh file together), waits for `go` on
 * stdin, then alternates between its own session — message by message, tool rounds included, sometimes
 * left open — and the shared session, where it appends whole turns as one batch (how writers sharing a
 * session keep each other's tool pairs intact). Pins, unpins, window applications and overflow
 * reductions are interleaved on both. Any error is reported, never thrown: the parent expects none.
 *
 * Protocol (stdout): `R` opened; `A <session> <json>` an acknowledged message; `W <session> <boundary>`
 * an applied window; `E <code> <message>` an error; `D <ownMessages> <sharedMessages> <ms> <slowestMs>`
 * (on PostgreSQL followed by `<lostRaces> <lockedRetries>`)
 * done.
 *
 * Usage: concurrent-writer <ledger> <worker> <messagesPerSession> <seed>, the ledger a SQLite file or a
 * PostgreSQL connection string (the worker drives either through the conformance suite's async API).
 */
import type { MessageData } from '../../../src/index.js'
import { managerOf, type LedgerManager } from '../../helpers/ledger-open.js'
import {
  CONCURRENT_LIMITS,
  MessageFactory,
  openLedgerOrExit,
  report,
  reportFailure,
  rng,
} from './worker-kit.js'

const [path, workerArg, countArg, seedArg] = process.argv.slice(2)
if (path === undefined || workerArg === undefined || countArg === undefined || seedArg === undefined)
  throw new Error('usage: concurrent-writer <db> <worker> <messagesPerSession> <seed>')
const worker = Number(workerArg)
const MAX_PINS = 8
const target = Number(countArg)
const r = rng(Number(seedArg) * 31 + worker)
setTimeout(() => process.exit(3), 600_000).unref()

const store = await openLedgerOrExit(path)
const ownId = `own-${worker}`
const own = await managerOf(store, { sessionId: ownId, ...CONCURRENT_LIMITS })
const shared = await managerOf(store, { sessionId: 'shared', ...CONCURRENT_LIMITS })
const f = new MessageFactory(`w${worker}`)
report('R')

let slowest = 0
async function timed<T>(fn: () => Promise<T>): Promise<T | undefined> {
  const t = performance.now()
  try {
    return await fn()
  } catch (error) {
    reportFailure(error)
    return undefined
  } finally {
    slowest = Math.max(slowest, performance.now() - t)
  }
}

async function append(manager: LedgerManager, messages: MessageData[]): Promise<void> {
  if ((await timed(() => manager.append(messages))) === undefined) return
  for (const m of messages) report('A', manager.sessionId, JSON.stringify(m))
}

function turn(): MessageData[] {
  const out = [f.user(`worker ${worker}: ${'q'.repeat(r.int(1, 120))}`, r.chance(0.03))]
  for (let k = r.chance(0.6) ? r.int(1, 2) : 0; k > 0; k--) {
    const { message, ids } = f.toolUse(r.int(1, 3))
    out.push(message, f.toolResult(ids, r.int(0, 200)))
  }
  out.push(f.reply(`worker ${worker} reply: ${'a'.repeat(r.int(1, 200))}`))
  return out
}

async function maintain(manager: LedgerManager): Promise<void> {
  if (r.chance(0.08)) {
    // Pins stay few, as an agent's do: past MAX_PINS a pin is traded for an unpin.
    const pins = await store.pinnedMessages({ sessionId: manager.sessionId })
    const count = (await store.session(manager.sessionId))?.messageCount ?? 0
    const pick = pins[r.int(0, pins.length - 1)]
    if (pins.length < MAX_PINS && count > 0)
      await timed(() => manager.pin({ seq: r.int(0, count - 1) }, { actor: `worker-${worker}` }))
    else if (pick !== undefined)
      await timed(() => manager.unpin({ seq: pick.seq }, { actor: `worker-${worker}` }))
  }
  const result = await timed(() =>
    r.chance(0.05) ? manager.reduce({ overflow: true }) : manager.applyWindow(),
  )
  if (result !== undefined) report('W', manager.sessionId, result.boundary)
}

process.stdin.once('data', () => void run())

async function run(): Promise<void> {
  const started = performance.now()
  let ownCount = 0
  let sharedCount = 0
  while (ownCount < target || sharedCount < target) {
    if (ownCount < target) {
      // Own session: message by message, as an agent loop appends; a tool round is sometimes left open.
      for (const m of turn()) {
        const open = m.role === 'user' && m.content.some((b) => 'toolResult' in b) && r.chance(0.05)
        if (!open) await append(own, [m])
        ownCount++
      }
      await maintain(own)
    }
    if (sharedCount < target) {
      const messages = turn()
      await append(shared, messages)
      sharedCount += messages.length
      await maintain(shared)
    }
  }
  // On PostgreSQL: the writes that lost a race (and ran again) and those that took the session's lock.
  const stats = (store as { stats?: { conflicts: number; locked: number } }).stats
  report(
    'D',
    ownCount,
    sharedCount,
    Math.round(performance.now() - started),
    Math.round(slowest),
    ...(stats === undefined ? [] : [stats.conflicts, stats.locked]),
  )
  await store.close()
  process.exit(0)
}
