/**
 * `npm run demo -- --postgres [--turns N] [--url postgres://…]`: the ledger on PostgreSQL, as a fleet of
 * stateless workers would use it. Without `--url` an embedded PostgreSQL server (binaries from the npm
 * registry) is started for the demo and removed at the end.
 *
 * Three workers — three stores, three connection pools, as three machines would have — serve one support
 * session turn after turn: whichever worker takes a turn appends the user's message, a tool call and its
 * result, the reply, and applies the window; the agent pins what it must not lose. Meanwhile the same
 * workers serve 20 other sessions at once. No worker keeps any state between turns: every window comes
 * from the database. Then a NEW process opens the database and checks it sees the same window.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
// In your project: import { openPostgresContextStore } from 'context-ledger/postgres'
import { openPostgresContextStore, type PostgresContextStore } from '../src/backends/postgres/index.js'
import type { MessageData, StoredMessageData } from '../src/index.js'
import { createDatabase, startServer, type TestServer } from '../test/postgres/server.js'
import { printRecallDemo } from './recall-demo.js'

const SESSION = 'support-42'
const LIMITS = { windowSize: 40, tokenBudget: 4_000, protectedMessages: { first: 1, last: 2 } }

const { values: args } = parseArgs({
  options: {
    turns: { type: 'string', default: '600' },
    url: { type: 'string' },
    postgres: { type: 'boolean', default: true },
    // The second process: the database to reopen and the window fingerprint the first one saw.
    resume: { type: 'string' },
    expect: { type: 'string' },
  },
})

function fingerprint(window: readonly StoredMessageData[]): string {
  return createHash('sha256').update(JSON.stringify(window)).digest('hex').slice(0, 16)
}

const int = (n: number): string => n.toLocaleString('en-US')

/** The second process: open the database afresh and show the same window. */
async function resume(url: string, expected: string | undefined): Promise<void> {
  const store = await openPostgresContextStore({ connectionString: url, readonly: true })
  try {
    const window = await store.window(SESSION)
    const session = await store.session(SESSION)
    const pins = await store.pinnedMessages({ sessionId: SESSION })
    console.log(`\nA new process (pid ${process.pid}) opened the database read-only:`)
    console.log(
      `  ${int(session?.messageCount ?? 0)} messages archived, ${window.length} in the window (boundary ${int(session?.boundary ?? 0)}), ${pins.length} pinned`,
    )
    const same = fingerprint(window) === expected
    console.log(
      `  window fingerprint ${fingerprint(window)}: ${same ? 'the same as the workers saw' : 'DIFFERENT'}`,
    )
    for (const p of pins) console.log(`  pinned seq ${p.seq} by ${p.actor}: ${p.reason ?? ''}`)
    if (!same) process.exitCode = 1
  } finally {
    await store.close()
  }
}

async function main(): Promise<void> {
  if (args.resume !== undefined) return resume(args.resume, args.expect)
  const turns = Number(args.turns)
  let server: TestServer | undefined
  let url = args.url
  if (url === undefined) {
    console.log('Starting an embedded PostgreSQL server (its binaries came with npm ci)...')
    server = await startServer()
    url = (await createDatabase(server.url)).url
  }
  try {
    const workers: PostgresContextStore[] = []
    for (let w = 0; w < 3; w++)
      workers.push(await openPostgresContextStore({ connectionString: url, maxConnections: 4 }))
    console.log(
      `Three workers (three pools) serve session "${SESSION}" for ${int(turns)} turns, and 20 other sessions at once.`,
    )
    console.log(
      `Window: windowSize ${LIMITS.windowSize}, tokenBudget ${int(LIMITS.tokenBudget)}, first ${LIMITS.protectedMessages.first} and last ${LIMITS.protectedMessages.last} protected; applyWindow() after every turn.\n`,
    )
    const started = performance.now()
    let evicted = 0
    const runSession = async (sessionId: string, count: number, main: boolean): Promise<void> => {
      for (let t = 0; t < count; t++) {
        // Any worker may take any turn: nothing lives in a worker between turns.
        const store = workers[(t * 7 + sessionId.length) % workers.length] as PostgresContextStore
        const m = store.manager({ sessionId, ...LIMITS })
        const call = `${sessionId}-call-${t}`
        const turn: MessageData[] = [
          {
            role: 'user',
            content: [
              {
                text:
                  t === 0
                    ? 'Task: move the orders service to Postgres with no downtime.'
                    : `Step ${t}: check the next batch.`,
              },
            ],
          },
          {
            role: 'assistant',
            content: [
              {
                toolUse: {
                  toolUseId: call,
                  name: 'run_sql',
                  input: { query: `SELECT count(*) FROM orders_batch_${t}` },
                },
              },
            ],
          },
          {
            role: 'user',
            content: [
              {
                toolResult: {
                  toolUseId: call,
                  status: 'success',
                  content: [{ text: `batch ${t}: ${1000 + t} rows, lag ${t % 9} s` }],
                },
              },
            ],
          },
          { role: 'assistant', content: [{ text: `Batch ${t} checked.` }] },
        ]
        const entries = await m.append(turn)
        if (main && t === 0)
          await m.pin({ seq: entries[0]?.seq ?? 0 }, { actor: 'agent', reason: 'the task' })
        if (main && t === Math.floor(count / 2))
          await m.pin({ seq: entries[2]?.seq ?? 0 }, { actor: 'agent', reason: 'the batch where lag peaked' })
        const result = await m.applyWindow()
        if (main) evicted += result.evicted
      }
    }
    const trips = workers.reduce((a, w) => a + w.roundTrips, 0)
    await Promise.all([
      runSession(SESSION, turns, true),
      ...Array.from({ length: 20 }, (_, i) => runSession(`other-${i}`, Math.ceil(turns / 10), false)),
    ])
    const seconds = (performance.now() - started) / 1000
    const store = workers[0] as PostgresContextStore
    const window = await store.window(SESSION)
    const session = await store.session(SESSION)
    const all = await store.sessions()
    const messages = all.reduce((a, s) => a + s.messageCount, 0)
    const totalTrips = workers.reduce((a, w) => a + w.roundTrips, 0) - trips
    const conflicts = workers.reduce((a, w) => a + w.stats.conflicts, 0)
    console.log(
      `${int(messages)} messages in ${all.length} sessions in ${seconds.toFixed(1)} s (${int(Math.round(messages / seconds))} messages/s)`,
    )
    console.log(
      `"${SESSION}": ${int(session?.messageCount ?? 0)} messages archived, ${window.length} in the window, ${int(evicted)} evicted, ${session?.pinnedCount ?? 0} pinned`,
    )
    console.log(
      `${int(totalTrips)} round trips for ${int(messages / 4)} turns (an append and an applyWindow() each); ${conflicts} writes lost a race to another worker and ran again (each session's turns come one after another here; npm run bench -- --postgres races 8 writers on one session)`,
    )
    const t0 = workers[1]?.roundTrips ?? 0
    await workers[1]?.window(SESSION)
    console.log(
      `window() takes ${(workers[1]?.roundTrips ?? 0) - t0} round trip; append 2, applyWindow() 2 (1 when nothing moves)`,
    )
    // Recall: the whole archive is searchable (evicted turns too), and the eviction log says why one left.
    const hits = await store.search('batch 7 rows lag', { sessionId: SESSION, limit: 3 })
    console.log(`\nsearch("batch 7 rows lag") in "${SESSION}", best first:`)
    for (const h of hits)
      console.log(
        `  seq ${h.seq} (${h.inWindow ? 'in the window' : 'evicted'}): ${h.snippet.replace(/\s+/g, ' ').slice(0, 90)}`,
      )
    const left = hits.find((h) => !h.inWindow)
    const why = left === undefined ? undefined : await store.evictionOf(SESSION, left.seq)
    if (why !== undefined)
      console.log(
        `  seq ${left?.seq} left the window at ${why.at.toISOString()} by a ${why.cut} cut (${why.reason}), with seqs ${why.fromSeq}–${why.toSeq}`,
      )
    if (!(await printRecallDemo(store))) process.exitCode = 1
    for (const w of workers) await w.close()
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--resume', url, '--expect', fingerprint(window)],
      { stdio: 'inherit' },
    )
    if (child.status !== 0) process.exitCode = 1
  } finally {
    await server?.stop()
  }
}

await main()
