/**
 * What the full-text index and the eviction log cost the write path (docs/benchmarks.md, "Recall"),
 * against the hard limits (rows a and f):
 *
 *   - bytes written per 4-message turn of a real Strands `Agent` (row f's method: `wchar` over the measured
 *     turns plus the WAL checkpoint), at 200, 2,000 and 10,000 messages of history: ≤ 25 KB;
 *   - `append()` of the row-a turn (4 messages of ~500 B), with the index against the same store without
 *     it (≤ 1.5×) and against the raw better-sqlite3 baseline (≤ 3×), interleaved call by call, each
 *     append followed by one turn of the event loop (timed apart), as an agent's appends are followed by
 *     the wait for its model: the index is written by a pass the store runs at that turn, once a batch of
 *     `SEARCH_BATCH_ROWS` messages waits (src/store/search-index.ts). Means, medians and p99 of the
 *     append; the pass's own time (the turn's, less an empty turn's) per append and per message; and
 *     the total work, append + pass, against the append without an index — the index's CPU is moved off
 *     the append, not removed. Then the same appends in a tight loop (no turn of the event loop: the
 *     append that finds `SEARCH_PENDING_MAX_ROWS` waiting indexes them).
 *
 * Two setups of a fresh ledger, through the store's connection only:
 *
 *   none     the view `search_text` replaced by an empty one: each batch's insert finds no text — the
 *            store without an index (the eviction log stays: every cut of a Strands turn writes its row)
 *   shipped  the index as migration 0008_recall creates it, written as the store writes it
 *
 *   npx tsx bench/recall-cost.ts            # 100 turns per history, 7 runs of 400 appends
 *   npx tsx bench/recall-cost.ts --quick    # 20 turns, 200 and 2,000 messages, 3 runs
 *   npx tsx bench/recall-cost.ts --turns 600
 */
import { WAL_CHECKPOINT_BYTES } from '../src/db/open.js'
import { openContextStore, PersistentConversationManager, type ContextStore } from '../src/index.js'
import { parseOptions } from './args.js'
import { RawBaseline } from './baseline.js'
import { TurnFactory } from './fixtures.js'
import { median, Scratch, timeUs } from './harness.js'
import { runHistory, TURN_BYTES_TARGET } from './strands-variants.js'

const options = parseOptions(process.argv.slice(2), {
  quick: { type: 'flag' },
  turns: { type: 'integer', min: 1 },
  runs: { type: 'integer', min: 1 },
})
const TURNS = options.turns ?? (options.quick ? 20 : 100)
const RUNS = options.runs ?? (options.quick ? 3 : 7)
const HISTORIES = options.quick ? [200, 2_000] : [200, 2_000, 10_000]
const APPENDS = 400

/** The store without an index: the view it reads is empty. */
function withoutIndex(store: ContextStore): void {
  store.connection().exec(`DROP VIEW search_text;
    CREATE VIEW search_text (doc, session, text) AS SELECT 0, 0, '' WHERE 0;`)
}

const VARIANTS: readonly { name: string; prepare: (store: ContextStore) => void }[] = [
  { name: 'none', prepare: withoutIndex },
  { name: 'shipped', prepare: () => undefined },
]

/** A store for row a's appends, set up as `prepare` says, with a history of 1,000 messages. */
function appendStore(
  scratch: Scratch,
  name: string,
  prepare: (store: ContextStore) => void,
): { append: (i: number) => void; turns: () => void; indexPending: () => void; close: () => void } {
  const store = openContextStore(scratch.file(`${name}.db`))
  prepare(store)
  const manager = new PersistentConversationManager({ store, sessionId: 'a', windowSize: 40 })
  const factory = new TurnFactory(name, 1)
  manager.append(factory.turns(250))
  let batch = factory.turns(0)
  return {
    turns: () => {
      batch = Array.from({ length: APPENDS }, () => factory.turn()).flat()
    },
    append: (i) => manager.append(batch.slice(4 * i, 4 * i + 4)),
    indexPending: () => {
      store.indexPending()
    },
    close: () => {
      store.close()
    },
  }
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0)
}

function p99(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? Number.NaN
}

/** A turn of the event loop, timed: what a model call's wait gives the store (its index pass runs). */
async function turnUs(): Promise<number> {
  const t0 = process.hrtime.bigint()
  await new Promise((resolve) => setImmediate(resolve))
  return Number(process.hrtime.bigint() - t0) / 1000
}

/** Row a's samples of one arm: each append's µs, and the event-loop turn after it (agent mode). */
interface Arm {
  readonly appends: number[]
  readonly turns: number[]
}

const arm = (): Arm => ({ appends: [], turns: [] })

const us = (n: number): string => `${n.toFixed(0)} µs`

/** Row a's figures for one variant: with it, without an index, raw; as an agent runs, and in a tight loop. */
async function timeAppends(name: string, prepare: (store: ContextStore) => void): Promise<string[]> {
  const scratch = new Scratch()
  try {
    const withIt = appendStore(scratch, `with-${name}`, prepare)
    const without = appendStore(scratch, `without-${name}`, withoutIndex)
    const raw = new RawBaseline(scratch.file('raw.db'), WAL_CHECKPOINT_BYTES)
    const rawTurns = new TurnFactory('raw', 1)
    raw.append(1, rawTurns.turns(250))
    const ratioMedians: number[] = []
    const ratioMeans: number[] = []
    const ratioRaw: number[] = []
    const tightRatioMeans: number[] = []
    const agent: [Arm, Arm, Arm] = [arm(), arm(), arm()]
    const tight: [Arm, Arm] = [arm(), arm()]
    for (let r = 0; r < RUNS; r++) {
      // As an agent runs: each append, then a turn of the event loop (timed apart) — the model's wait,
      // where the index's pass runs — for every arm alike, in rotating order.
      withIt.turns()
      without.turns()
      let rawBatch = Array.from({ length: APPENDS }, () => rawTurns.turn())
      const run: [Arm, Arm, Arm] = [arm(), arm(), arm()]
      const ops = [
        (i: number) => {
          withIt.append(i)
        },
        (i: number) => {
          without.append(i)
        },
        (i: number) => {
          raw.append(1, rawBatch[i] ?? [])
        },
      ]
      for (let i = 0; i < APPENDS; i++)
        for (let k = 0; k < ops.length; k++) {
          const j = (i + k) % ops.length
          const op = ops[j] as (i: number) => void
          const a = run[j] as Arm
          a.appends.push(
            timeUs(() => {
              op(i)
            }),
          )
          a.turns.push(await turnUs())
        }
      ratioMedians.push(median(run[0].appends) / median(run[1].appends))
      ratioMeans.push(mean(run[0].appends) / mean(run[1].appends))
      ratioRaw.push(median(run[0].appends) / median(run[2].appends))
      run.forEach((a, i) => {
        agent[i]?.appends.push(...a.appends)
        agent[i]?.turns.push(...a.turns)
      })
      // A tight loop: no turn of the event loop at all, so no pass; what waits is indexed inside the
      // append that finds SEARCH_PENDING_MAX_ROWS waiting. Both stores start with nothing waiting.
      withIt.indexPending()
      without.indexPending()
      withIt.turns()
      without.turns()
      rawBatch = []
      const loop: [Arm, Arm] = [arm(), arm()]
      for (let i = 0; i < APPENDS; i++)
        for (let k = 0; k < 2; k++) {
          const j = (i + k) % 2
          const store = j === 0 ? withIt : without
          loop[j]?.appends.push(
            timeUs(() => {
              store.append(i)
            }),
          )
        }
      tightRatioMeans.push(mean(loop[0].appends) / mean(loop[1].appends))
      loop.forEach((a, i) => tight[i]?.appends.push(...a.appends))
      withIt.indexPending()
      without.indexPending()
    }
    withIt.close()
    without.close()
    raw.close()
    const [w, o, b] = agent
    // The index's pass runs in the turn after an append: its time is the turn's, less an empty turn's
    // (the raw arm schedules nothing). Per message: 4 messages an append.
    const idleWith = (sum(w.turns) - sum(b.turns)) / w.turns.length
    const idleWithout = (sum(o.turns) - sum(b.turns)) / o.turns.length
    const [tw, to] = tight
    return [
      `| ${name}: latency, medians | ${us(median(w.appends))} | ${us(median(o.appends))} | ${us(median(b.appends))} | **${median(ratioMedians).toFixed(2)}×** | ${median(ratioRaw).toFixed(2)}× |`,
      `| ${name}: latency, means | ${us(mean(w.appends))} | ${us(mean(o.appends))} | ${us(mean(b.appends))} | **${(mean(w.appends) / mean(o.appends)).toFixed(2)}×** (runs ${Math.min(...ratioMeans).toFixed(2)}–${Math.max(...ratioMeans).toFixed(2)}×) | — |`,
      `| ${name}: latency, p99 | ${us(p99(w.appends))} | ${us(p99(o.appends))} | ${us(p99(b.appends))} | ${(p99(w.appends) / p99(o.appends)).toFixed(2)}× | — |`,
      `| ${name}: idle pass per append (per message) | ${us(idleWith)} (${us(idleWith / 4)}) | ${us(idleWithout)} (${us(idleWithout / 4)}) | empty turn ${us(mean(b.turns))} | — | — |`,
      `| ${name}: total work, means (append + idle pass) | ${us(mean(w.appends) + idleWith)} | ${us(mean(o.appends))} (+ ${us(idleWithout)} idle) | — | **${((mean(w.appends) + idleWith) / mean(o.appends)).toFixed(2)}×** (${((mean(w.appends) + idleWith) / (mean(o.appends) + idleWithout)).toFixed(2)}× with the other's idle) | — |`,
      `| ${name}: tight loop (no event-loop turn), medians | ${us(median(tw.appends))} | ${us(median(to.appends))} | — | ${(median(tw.appends) / median(to.appends)).toFixed(2)}× | — |`,
      `| ${name}: tight loop, means | ${us(mean(tw.appends))} | ${us(mean(to.appends))} | — | **${(mean(tw.appends) / mean(to.appends)).toFixed(2)}×** (runs ${Math.min(...tightRatioMeans).toFixed(2)}–${Math.max(...tightRatioMeans).toFixed(2)}×) | — |`,
      `| ${name}: tight loop, p99 | ${us(p99(tw.appends))} | ${us(p99(to.appends))} | — | ${(p99(tw.appends) / p99(to.appends)).toFixed(2)}× | — |`,
    ]
  } finally {
    scratch.dispose()
  }
}

async function main(): Promise<void> {
  console.log(`Bytes written per Strands turn (${TURNS} turns per history, row f's method):\n`)
  console.log(
    `| variant | ${HISTORIES.map((n) => `${n.toLocaleString('en-US')} msgs`).join(' | ')} | ≤ 25 KB |`,
  )
  console.log(`|---|${HISTORIES.map(() => '---:').join('|')}|---|`)
  for (const v of VARIANTS) {
    const cells: number[] = []
    for (const n of HISTORIES) cells.push((await runHistory(['ours'], n, TURNS, v.prepare)).ours.bytesPerTurn)
    const pass = cells.every((c) => c <= TURN_BYTES_TARGET) ? 'PASS' : 'MISS'
    console.log(`| ${v.name} | ${cells.map((c) => `${(c / 1024).toFixed(1)} KB`).join(' | ')} | ${pass} |`)
  }
  console.log(
    `\nappend() of one row-a turn (${RUNS} runs of ${APPENDS} appends, interleaved; each followed by a turn of the event loop, timed apart, then ${APPENDS} more in a tight loop):\n`,
  )
  console.log('| variant | with | without an index | raw | with ÷ without (≤ 1.5×) | with ÷ raw (≤ 3×) |')
  console.log('|---|---:|---:|---:|---:|---:|')
  for (const v of VARIANTS.filter((x) => x.name !== 'none'))
    for (const line of await timeAppends(v.name, v.prepare)) console.log(line)
}

await main()
