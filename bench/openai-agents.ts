/**
 * An OpenAI Agents session kept three ways (bench/openai-agents-sides.ts): (a) the SDK examples'
 * file-backed `FileSession` (the whole item list in one JSON file, rewritten per `addItems`), (b) the SDK's
 * `MemorySession` (time only), (c) ours — `LedgerSession` on a SQLite file, windowSize 40.
 *
 * A turn is what the runner writes at the end of a run with one tool call — user message, reasoning,
 * `function_call`, `function_call_result` (~1 KB of output), final assistant message: 5 items, ~1.6 KB of
 * JSON (bench/openai-agents-fixtures.ts) — in one `addItems`, then the `getItems()` the runner does before
 * the next run. Measured at 200, 2,000 and 10,000 items already in the session: each side gets the same
 * history (untimed: one file write for (a), `initialItems` for (b), `addItems` of 1,000 items for (c)),
 * then 3 warm-up turns, then `--turns` measured turns (default 40) running across the checkpoint, the
 * sides in rotating order turn by turn; a full garbage collection and a 25 ms pause, untimed, before every
 * side's turn (bench/turn-timing.ts).
 *
 * Per checkpoint and side:
 *   - time per turn, median and p95: `addItems` + `getItems()`, plus the event loop's next turn (where the
 *     ledger indexes the turn for search);
 *   - bytes written per turn: the process's `wchar` (/proc/self/io) over the measured turns ÷ turns — for
 *     (a) exactly the JSON file written each turn; for (c) the WAL frames of its commits plus, by a
 *     checkpoint after the measured turns, the pages it writes into the database file (row f's method);
 *   - the items `getItems()` handed the model (median).
 * Ratios are (a) ÷ (c) and (b) ÷ (c), from the same run; and each side's figures at the three sizes side
 * by side, with the last ÷ the first: flat is 1×.
 *
 *   npx tsx bench/openai-agents.ts [--turns N] [--quick]    # or: npm run bench -- --openai-agents [...]
 *
 * `--quick`: 10 measured turns per checkpoint. Always exits 0: measured, not asserted.
 */
import { mkdirSync } from 'node:fs'
import { loadavg } from 'node:os'
import { pathToFileURL } from 'node:url'
import { protocol, type AgentInputItem } from '@openai/agents'
import { parseOptions } from './args.js'
import { kb, median, Scratch } from './harness.js'
import { machine, wchar } from './machine.js'
import { AgentTurns, ITEMS_PER_TURN } from './openai-agents-fixtures.js'
import { openSides, turn, WINDOW, type AgentsSide } from './openai-agents-sides.js'
import { gc, nextTick, percentile, settle, table, us } from './turn-timing.js'

/** Untimed turns before the measured ones, per checkpoint. */
const WARMUP = 3
/** Where the session is measured, in items already stored. */
const CHECKPOINTS = [200, 2_000, 10_000] as const
const NAMES = ['(a) FileSession (SDK example)', '(b) MemorySession (SDK)', '(c) ours (LedgerSession)']

/** What one side measured at one checkpoint. */
export interface AgentsCell {
  /** Median µs per turn. */
  readonly median: number
  /** 95th percentile µs per turn. */
  readonly p95: number
  /** Mean bytes written per turn; undefined for the in-memory session. */
  readonly bytes: number | undefined
  /** Median items `getItems()` returned. */
  readonly items: number
}

/**
 * Runs the three sides over `turns` measured turns around a checkpoint of `n` items.
 *
 * @param all - every turn's items, long enough for the checkpoint and its turns
 * @param n - the checkpoint, items already in the session
 * @param turns - measured turns
 * @param scratch - where the files go
 * @returns (a), (b), (c)
 */
export async function runCheckpoint(
  all: readonly AgentInputItem[],
  n: number,
  turns: number,
  scratch: Scratch,
): Promise<AgentsCell[]> {
  const start = Math.max(0, n - ITEMS_PER_TURN * (Math.floor(turns / 2) + WARMUP))
  const dir = scratch.file(`agents-${n}`)
  mkdirSync(dir)
  const sides = await openSides(all.slice(0, start), dir)
  const times = sides.map(() => [] as number[])
  const given = sides.map(() => [] as number[])
  const bytes = sides.map(() => 0)
  const step = async (t: number, measured: boolean): Promise<void> => {
    const at = start + ITEMS_PER_TURN * t
    for (let k = 0; k < sides.length; k++) {
      const i = (t + k) % sides.length
      const side = sides[i] as AgentsSide
      // Each side gets its own copies, as each run's items would be.
      const items = structuredClone(all.slice(at, at + ITEMS_PER_TURN))
      gc()
      await settle()
      const w0 = wchar() ?? 0
      const t0 = process.hrtime.bigint()
      const input = await turn(side.session, items)
      await nextTick()
      const elapsed = Number(process.hrtime.bigint() - t0) / 1000
      const w1 = wchar() ?? 0
      if (!measured) continue
      ;(times[i] as number[]).push(elapsed)
      ;(given[i] as number[]).push(input.length)
      bytes[i] = (bytes[i] as number) + (w1 - w0)
    }
  }
  for (let t = 0; t < WARMUP; t++) await step(t, false)
  for (const s of sides) s.checkpoint()
  for (let t = WARMUP; t < WARMUP + turns; t++) await step(t, true)
  sides.forEach((s, i) => {
    const w0 = wchar() ?? 0
    s.checkpoint()
    bytes[i] = (bytes[i] as number) + ((wchar() ?? 0) - w0)
    s.close()
  })
  return sides.map((s, i) => ({
    median: median(times[i] as number[]),
    p95: percentile(times[i] as number[], 0.95),
    bytes: s.writes ? (bytes[i] as number) / turns : undefined,
    items: median(given[i] as number[]),
  }))
}

function ratio(x: number | undefined, y: number | undefined): string {
  return x === undefined || y === undefined ? '—' : `${(x / y).toFixed(1)}×`
}

/** Each side's time and bytes at every checkpoint side by side, and the last ÷ the first. */
function flatness(results: ReadonlyMap<number, readonly AgentsCell[]>): string {
  const sizes = [...results.keys()]
  const cells = [...results.values()]
  const rows: string[][] = []
  NAMES.forEach((name, i) => {
    const of = (c: readonly AgentsCell[]): AgentsCell => c[i] as AgentsCell
    const time = cells.map((c) => of(c).median)
    rows.push([name, 'time/turn p50', ...time.map(us), ratio(time.at(-1), time[0])])
    const written = cells.map((c) => of(c).bytes)
    if (written.every((b) => b !== undefined))
      rows.push([name, 'bytes written/turn', ...written.map(kb), ratio(written.at(-1), written[0])])
  })
  const at = sizes.map((n) => `at ${n.toLocaleString('en-US')} items`)
  return table(['way', 'per turn', ...at, at.length > 1 ? 'last ÷ first' : '—'], rows)
}

/**
 * The report: every side at every checkpoint, each side's growth, the same-run ratios.
 *
 * @param results - per checkpoint, (a), (b), (c)
 * @param turns - measured turns per checkpoint
 * @param turnBytes - bytes of one turn's items as compact JSON
 * @param load - the load average (1 min) at the start and at the end
 * @returns the text
 */
export function renderAgents(
  results: ReadonlyMap<number, readonly AgentsCell[]>,
  turns: number,
  turnBytes: number,
  load: readonly [number, number],
): string {
  const rows: string[][] = []
  const ratios: string[][] = []
  for (const [n, cells] of results) {
    const at = n.toLocaleString('en-US')
    cells.forEach((c, i) =>
      rows.push([
        at,
        NAMES[i] as string,
        us(c.median),
        us(c.p95),
        c.bytes === undefined ? '—' : kb(c.bytes),
        Math.round(c.items).toLocaleString('en-US'),
      ]),
    )
    const ours = cells[2] as AgentsCell
    for (const i of [0, 1]) {
      const c = cells[i] as AgentsCell
      const b = c.bytes === undefined ? '—' : ratio(c.bytes, ours.bytes)
      ratios.push([at, `${'ab'[i]} ÷ c`, ratio(c.median, ours.median), ratio(c.p95, ours.p95), b])
    }
  }
  return [
    '',
    `Machine: ${machine()}; load average ${load[0].toFixed(2)} at the start, ${load[1].toFixed(2)} at the end.`,
    `OpenAI Agents session, ${turns} measured turns per checkpoint (after ${WARMUP} warm-up turns), sides in rotating order.`,
    `A turn: ${ITEMS_PER_TURN} items, ${turnBytes.toLocaleString('en-US')} B of JSON, one addItems, then getItems().`,
    `(c): windowSize ${WINDOW}, SQLite file (WAL, synchronous=NORMAL).`,
    '',
    table(['items', 'way', 'time/turn p50', 'p95', 'bytes written/turn', 'items to the model'], rows),
    '',
    flatness(results),
    '',
    table(['items', 'ratio', 'time p50', 'p95', 'bytes'], ratios),
    '',
    'bytes written: wchar of /proc/self/io over the measured turns (for (c) the WAL and a checkpoint after the',
    'turns); (b) writes nothing. items to the model: what getItems() returned (ours: the window).',
    '',
  ].join('\n')
}

/**
 * `npm run bench -- --openai-agents`: the three sessions at every checkpoint.
 *
 * @param argv - options: `--turns N`, `--quick`
 * @returns the report
 */
export async function runOpenAIAgents(argv: readonly string[]): Promise<string> {
  const o = parseOptions(argv, { turns: { type: 'integer', min: 2 }, quick: { type: 'flag' } })
  const turns = o.turns ?? (o.quick ? 10 : 40)
  const last = CHECKPOINTS[CHECKPOINTS.length - 1] as number
  const all = new AgentTurns().items(last + ITEMS_PER_TURN * (Math.ceil(turns / 2) + WARMUP))
  const refused = all.slice(0, 50).findIndex((item) => !protocol.ModelItem.safeParse(item).success)
  if (refused >= 0) throw new Error(`fixture item ${refused} is not an item the SDK's schema accepts`)
  const turnBytes = Buffer.byteLength(JSON.stringify(all.slice(0, ITEMS_PER_TURN)))
  const load0 = loadavg()[0] ?? 0
  const scratch = new Scratch()
  const results = new Map<number, AgentsCell[]>()
  try {
    for (const n of CHECKPOINTS) {
      process.stderr.write(`OpenAI Agents session at ${n.toLocaleString('en-US')} items...\n`)
      results.set(n, await runCheckpoint(all, n, turns, scratch))
    }
  } finally {
    scratch.dispose()
  }
  return renderAgents(results, turns, turnBytes, [load0, loadavg()[0] ?? 0])
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  process.stdout.write(await runOpenAIAgents(process.argv.slice(2)))
