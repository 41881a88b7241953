/**
 * What the full-text index and the eviction log cost the write path (docs/benchmarks.md, "Recall"),
 * against the hard limits (rows a and f):
 *
 *   - bytes written per 4-message turn of a real Strands `Agent` (row f's method: `wchar` over the measured
 *     turns plus the WAL checkpoint), at 200, 2,000 and 10,000 messages of history: ≤ 25 KB;
 *   - `append()` of the row-a turn (4 messages of ~500 B), with the index against the same store without
 *     it (≤ 1.5×) and against the raw better-sqlite3 baseline (≤ 3×), interleaved call by call. The index
 *     is written in batches (one insert per `SEARCH_BATCH_ROWS` messages, in the append that completes
 *     the batch), so the means are the figure that counts; the medians are given too.
 *
 * Two setups of a fresh ledger, through the store's connection only:
 *
 *   none     the view `search_text` replaced by an empty one: each batch's insert finds no text — the
 *            store without an index (the eviction log stays: every cut of a Strands turn writes its row)
 *   shipped  the index as migration 0008_recall creates it, batched as the store writes it
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
): { append: (i: number) => void; turns: () => void; close: () => void } {
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
    close: () => {
      store.close()
    },
  }
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length
}

/** Row a's figures for one variant: with it, without an index, raw; medians and means. */
function timeAppends(name: string, prepare: (store: ContextStore) => void): string {
  const scratch = new Scratch()
  try {
    const withIt = appendStore(scratch, `with-${name}`, prepare)
    const without = appendStore(scratch, `without-${name}`, withoutIndex)
    const raw = new RawBaseline(scratch.file('raw.db'), WAL_CHECKPOINT_BYTES)
    const rawTurns = new TurnFactory('raw', 1)
    raw.append(1, rawTurns.turns(250))
    const ratioWithout: number[] = []
    const ratioRaw: number[] = []
    const all: [number[], number[], number[]] = [[], [], []]
    for (let r = 0; r < RUNS; r++) {
      withIt.turns()
      without.turns()
      const rawBatch = Array.from({ length: APPENDS }, () => rawTurns.turn())
      const samples: [number[], number[], number[]] = [[], [], []]
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
          samples[j]?.push(
            timeUs(() => {
              op(i)
            }),
          )
        }
      ratioWithout.push(median(samples[0]) / median(samples[1]))
      ratioRaw.push(median(samples[0]) / median(samples[2]))
      samples.forEach((s, i) => all[i]?.push(...s))
    }
    withIt.close()
    without.close()
    raw.close()
    const [w, o, b] = all
    return `| ${name} | ${median(w).toFixed(0)} µs (mean ${mean(w).toFixed(0)}) | ${median(o).toFixed(0)} µs (mean ${mean(o).toFixed(0)}) | ${median(b).toFixed(0)} µs | ${median(ratioWithout).toFixed(2)}× (means ${(mean(w) / mean(o)).toFixed(2)}×) | ${median(ratioRaw).toFixed(2)}× |`
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
  console.log(`\nappend() of one row-a turn (${RUNS} runs of ${APPENDS} appends, interleaved):\n`)
  console.log('| variant | with | without an index | raw | with ÷ without (≤ 1.5×) | with ÷ raw (≤ 3×) |')
  console.log('|---|---:|---:|---:|---:|---:|')
  for (const v of VARIANTS.filter((x) => x.name !== 'none')) console.log(timeAppends(v.name, v.prepare))
}

await main()
