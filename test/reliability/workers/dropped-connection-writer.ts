/**
 * Dropped-connection worker: one of several processes writing to one PostgreSQL ledger while the parent
 * terminates their server backends (`pg_terminate_backend`) at random moments. It appends to its own
 * session and to one shared session (so writers lose races and take the session's lock, a transaction on
 * a checked-out connection), applies and reads the window, and reads on one snapshot (`store.reading`,
 * another checked-out connection). A failed call is reported, never thrown; a connection error that
 * escaped the store would end this process with an uncaught exception, which is what the parent checks.
 *
 * Protocol (stdout): `R` opened; `A <session> <trackingId>` an acknowledged message; `E <code> <message>`
 * a call refused with a ContextLedgerError; `X <message>` a call that failed with anything else;
 * `D <reconnects> <locked> <conflicts>` done.
 *
 * Usage: dropped-connection-writer <connection string> <worker> <iterations> <seed>
 */
import { ContextLedgerError } from '../../../src/index.js'
import { openPostgresContextStore, type PostgresContextStore } from '../../../src/backends/postgres/index.js'
import { MessageFactory, report, reportFailure, rng } from './worker-kit.js'

const [url, workerArg, countArg, seedArg] = process.argv.slice(2)
if (url === undefined || workerArg === undefined || countArg === undefined || seedArg === undefined)
  throw new Error('usage: dropped-connection-writer <url> <worker> <iterations> <seed>')
const worker = Number(workerArg)
const iterations = Number(countArg)
const r = rng(Number(seedArg) * 31 + worker)
setTimeout(() => process.exit(3), 540_000).unref()

let store: PostgresContextStore
try {
  store = await openPostgresContextStore({ connectionString: url, maxConnections: 4 })
} catch (error) {
  reportFailure(error)
  process.exit(1)
}
const limits = { windowSize: 12, protectedMessages: { first: 1, last: 2 } }
const sessions = [
  store.manager({ sessionId: `own-${worker}`, ...limits }),
  store.manager({ sessionId: 'shared', ...limits }),
]
const f = new MessageFactory(`w${worker}`)
report('R')

/** Runs one call, reporting how it failed. */
async function attempt<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn()
  } catch (error) {
    if (error instanceof ContextLedgerError) reportFailure(error)
    else report('X', String(error instanceof Error ? error.stack : error).replace(/\n/g, ' | '))
    return undefined
  }
}

process.stdin.once('data', () => void run())

async function run(): Promise<void> {
  for (let i = 0; i < iterations; i++) {
    const manager = sessions[r.chance(0.6) ? 1 : 0]
    if (manager === undefined) throw new Error('no manager')
    const pick = r.next()
    if (pick < 0.45) {
      const messages = [f.user(`worker ${worker} asks ${i}`)]
      if (r.chance(0.5)) messages.push(f.reply(`worker ${worker} answers ${i}`))
      if ((await attempt(() => manager.append(messages))) !== undefined)
        for (const m of messages) report('A', manager.sessionId, m.trackingId ?? '')
    } else if (pick < 0.65) await attempt(() => manager.applyWindow())
    else if (pick < 0.8) await attempt(() => manager.window())
    else
      await attempt(() =>
        store.reading(async (snapshot) => {
          const window = await snapshot.window(manager.sessionId)
          const history = await snapshot.history(manager.sessionId, { limit: 20 })
          const session = await snapshot.session(manager.sessionId)
          return [window.length, history.length, session?.messageCount]
        }),
      )
  }
  const { reconnects, locked, conflicts } = store.stats
  report('D', reconnects, locked, conflicts)
  await store.close()
  process.exit(0)
}
