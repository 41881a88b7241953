/**
 * Summaries must cost the same whatever the archive holds (row g of `npm run bench`). In the large
 * session of row c (1,000,000 archived messages; 100,000 with `--quick`) and in a fresh 1,000-message
 * session per run, the steady state of an agent that folds a turn into its summary after every turn:
 *
 *   append a turn (untimed) → summarize() (timed) → window() (timed)
 *
 * The window holds the summary and a tail of 39 messages (no kept rows): a turn brings it to 44, and
 * `summarize({ summaryRatio: 0.12 })` folds the oldest ⌊44 × 0.12⌋ = 5 positions — the summary and the
 * next 4 messages, up to the same place in the next turn — into a new summary, back to 40. The summarizer
 * is synchronous and returns a fixed text, so the timed call is the fold's planning (one read snapshot),
 * the summary's validation and token count, and its write (one transaction), plus a few microtask hops;
 * no model. The raw baseline `ORDER BY seq DESC LIMIT 40` + `JSON.parse` (bench/baseline.ts) runs in the
 * same loop, against `window()` of the 1,000-message session.
 */
import { PersistentConversationManager, type ContextStore } from '../src/index.js'
import { WAL_CHECKPOINT_BYTES } from '../src/db/open.js'
import { RawBaseline } from './baseline.js'
import { fill, TurnFactory } from './fixtures.js'
import {
  median,
  pair,
  summarize,
  timeUs,
  timeUsAsync,
  type PairRun,
  type Row,
  type Scratch,
} from './harness.js'

const WINDOW = 40
const SMALL = 1_000
/** Share of the window `summarize()` folds: ⌊44 × 0.12⌋ = 5 positions, the summary and one turn's worth. */
const RATIO = 0.12
const ITERATIONS = 100
const WARMUP = 5
const SUMMARY = `Summary: ${'the user asked, the assistant looked it up and answered. '.repeat(8)}`

function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

/** Returns at once: the model is not what is measured. */
const summarizer = (): string => SUMMARY

/** One session in the summary steady state. */
interface Side {
  readonly m: PersistentConversationManager
  readonly turns: TurnFactory
  readonly summarize: number[]
  readonly window: number[]
}

/**
 * Brings a session to the steady state: a summary and a 39-message tail. `summarizeExcess()` folds what
 * is over windowSize 40 into the summary (the new one counted as one message), which leaves exactly that
 * whatever the window held before.
 */
async function settle(side: Side, store: ContextStore): Promise<void> {
  for (let i = 0; i < 20; i++) {
    side.m.append(side.turns.turn())
    await side.m.summarizeExcess(summarizer)
    const s = store.session(side.m.sessionId)
    if (s?.summaryId !== undefined && s.windowMessages === WINDOW) return
  }
  throw new Error(`session ${side.m.sessionId} did not settle at a summary and ${WINDOW - 1} messages`)
}

/** One steady-state step: a turn, then its fold into the summary. */
async function step(side: Side): Promise<number> {
  side.m.append(side.turns.turn())
  return timeUsAsync(() => side.m.summarize(summarizer, { summaryRatio: RATIO }))
}

/**
 * (g) `summarize()` and `window()` with a summary in the large session vs a 1,000-message one, and that
 * `window()` vs the raw last 40 rows.
 *
 * @param store - the file holding the large session of row c (small sessions are added to it)
 * @param largeSessionId - the large session
 * @param largeTurns - where the large session's turns come from
 * @param scratch - where the raw baseline's file goes
 * @param runs - runs (each with a fresh 1,000-message session)
 * @param label - the large session's size, e.g. `1M`
 * @returns the rows
 */
export async function benchSummaries(
  store: ContextStore,
  largeSessionId: string,
  largeTurns: TurnFactory,
  scratch: Scratch,
  runs: number,
  label: string,
): Promise<Row[]> {
  const open = (sessionId: string): PersistentConversationManager =>
    new PersistentConversationManager({ store, sessionId, windowSize: WINDOW })
  const raw = new RawBaseline(scratch.file('summaries-raw.db'), WAL_CHECKPOINT_BYTES)
  raw.append(1, new TurnFactory('R', 7).turns(SMALL / 4))
  const large: Side = { m: open(largeSessionId), turns: largeTurns, summarize: [], window: [] }
  await settle(large, store)
  const perRun = { summarize: [] as PairRun[], window: [] as PairRun[], raw: [] as PairRun[] }
  let off = 0
  for (let r = 0; r < runs; r++) {
    const small: Side = {
      m: open(`summaries-${r}`),
      turns: new TurnFactory(`G${r}`, 20 + r),
      summarize: [],
      window: [],
    }
    fill(small.m, small.turns, SMALL)
    await settle(small, store)
    for (let w = 0; w < WARMUP; w++) for (const side of [large, small]) await step(side)
    const sides = [large, small]
    const samples = sides.map(() => ({ summarize: [] as number[], window: [] as number[] }))
    const rawSamples: number[] = []
    for (let i = 0; i < ITERATIONS; i++) {
      const order = i % 2 === 0 ? [0, 1] : [1, 0]
      for (const k of order) {
        const side = sides[k] as Side
        const s = samples[k] as { summarize: number[]; window: number[] }
        s.summarize.push(await step(side))
        let size = 0
        s.window.push(
          timeUs(() => {
            size = side.m.window().length
          }),
        )
        if (size !== WINDOW) off++
      }
      rawSamples.push(timeUs(() => raw.lastMessages(1, WINDOW)))
    }
    const [big, little] = samples as [
      { summarize: number[]; window: number[] },
      { summarize: number[]; window: number[] },
    ]
    perRun.summarize.push(pair(median(big.summarize), median(little.summarize)))
    perRun.window.push(pair(median(big.window), median(little.window)))
    perRun.raw.push(pair(median(little.window), median(rawSamples)))
  }
  raw.close()
  if (off > 0) log(`note: ${off} windows did not hold ${WINDOW} messages (the summary and ${WINDOW - 1})`)
  const stats = store.session(largeSessionId)
  log(
    `  large session after the runs: ${(stats?.messageCount ?? 0).toLocaleString('en-US')} messages, ` +
      `window ${stats?.windowMessages ?? 0} (summary ${stats?.summaryId ?? 'none'})`,
  )
  return [
    summarize(`summarize() (plan + write): ${label} vs 1k msgs`, perRun.summarize, 1.3),
    summarize(`window() with a summary: ${label} vs 1k msgs`, perRun.window, 1.3),
    summarize(`window() with a summary (1 + ${WINDOW - 1} msgs) vs raw last ${WINDOW}`, perRun.raw, 2),
  ]
}
