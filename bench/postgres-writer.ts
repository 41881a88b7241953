/**
 * One writer process of the PostgreSQL throughput bench (`bench/postgres.ts`): appends agent turns to a
 * session and applies the window after each, for a number of seconds, then prints what it did as one
 * JSON line: turns, per-call latencies (ms), lost races and locked retries.
 *
 * Usage: postgres-writer <url> <sessionId> <seconds> <seed>
 */
import { openPostgresContextStore } from '../src/backends/postgres/index.js'
import { TurnFactory } from './fixtures.js'

const [url, sessionId, secondsArg, seedArg] = process.argv.slice(2)
if (url === undefined || sessionId === undefined)
  throw new Error('usage: postgres-writer <url> <session> <s> <seed>')
const store = await openPostgresContextStore({ connectionString: url, maxConnections: 2 })
const manager = store.manager({ sessionId, windowSize: 40 })
const factory = new TurnFactory(`w${seedArg ?? '0'}`, Number(seedArg ?? 0) + 1)
const latencies: number[] = []
const until = performance.now() + Number(secondsArg ?? 10) * 1000
let turns = 0
while (performance.now() < until) {
  const turn = factory.turn()
  let t = performance.now()
  await manager.append(turn)
  latencies.push(performance.now() - t)
  t = performance.now()
  await manager.applyWindow()
  latencies.push(performance.now() - t)
  turns++
}
process.stdout.write(
  `${JSON.stringify({ turns, latencies, conflicts: store.stats.conflicts, locked: store.stats.locked })}\n`,
)
await store.close()
