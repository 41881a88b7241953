/**
 * A LangChain agent session with a tool, kept four ways (bench/langchain-sides.ts), each through the real
 * `createAgent` loop (langchain 1.x) with a scripted chat model that calls a tool every turn
 * (bench/langchain-fixtures.ts): (a) LangGraph's `SqliteSaver` as the checkpointer, the whole state;
 * (b) the same with `trimMessages` to the last 40 messages before the model; (c) ours — the ledger
 * middleware (`windowSize: 40, keepStateToWindow: true`) with the `SqliteSaver` beside it; (d) ours
 * without a checkpointer; and, for reference, (e) the agent with no memory at all (the loop's own cost).
 *
 * A turn is one `agent.invoke` with a human prompt: the model calls `search_docs`, the tool answers, the
 * model answers — 4 messages, ~2.8 KB of text (~3.8 KB as LangChain's stored JSON). Measured at 200, 2,000 and 10,000 messages of history:
 * each side is seeded with the same history (untimed; bench/langchain-sides.ts says how), then
 * `--warmup` turns (default 3), then `--turns` measured turns (default 20) running across the point, the
 * sides in rotating order turn by turn; a full garbage collection and a 25 ms pause, untimed, before every
 * side's turn (bench/turn-timing.ts).
 *
 * Per point and side:
 *   - time per turn, median and p95: the whole `invoke` (the checkpointer's reads and writes, the
 *     middleware, the model and tool calls), plus the event loop's next turn;
 *   - bytes written per turn: the process's `wchar` (/proc/self/io) over the measured turns ÷ turns, with
 *     a `wal_checkpoint(TRUNCATE)` of each of the side's SQLite files after them (WAL frames, then the
 *     pages the checkpoint writes into the database file: the other benches' method);
 *   - messages to the model (median over turns of the turn's largest request) and in the agent's state
 *     after the turn (what the checkpointer stores).
 * Ratios are ours ÷ theirs, from the same run; and each side's figures at the three sizes side by side,
 * with the last ÷ the first: flat is 1×.
 *
 *   npx tsx bench/langchain.ts [--turns N] [--warmup N] [--quick]    # or: npm run bench -- --langchain
 *
 * `--quick`: 5 measured turns per point. Always exits 0: measured, not asserted.
 */
import { mkdirSync, rmSync } from 'node:fs'
import { loadavg } from 'node:os'
import { pathToFileURL } from 'node:url'
import { parseOptions } from './args.js'
import { kb, median, Scratch } from './harness.js'
import { MESSAGES_PER_TURN, historyOf, scripts, type TurnScript } from './langchain-fixtures.js'
import { openSide, SIDES, WINDOW, type LangChainSide, type SideKey } from './langchain-sides.js'
import { machine, wchar } from './machine.js'
import { gc, nextTick, percentile, settle, table, us } from './turn-timing.js'

/** Where the session is measured, in messages of history. */
export const POINTS = [200, 2_000, 10_000] as const

/** What to run. */
export interface LangChainConfig {
  /** Messages of history at each point. */
  readonly points: readonly number[]
  /** Measured turns per point. */
  readonly turns: number
  /** Untimed turns before them. */
  readonly warmup: number
  /** The sides, in report order. */
  readonly sides: readonly SideKey[]
}

/** What one side measured at one point. */
export interface LangChainCell {
  /** The side. */
  readonly key: SideKey
  /** Median µs per turn. */
  readonly median: number
  /** 95th percentile µs per turn. */
  readonly p95: number
  /** Mean bytes written per turn. */
  readonly bytes: number
  /** Median over turns of the most messages one model call was given. */
  readonly toModel: number
  /** Median messages in the agent's state after a turn. */
  readonly state: number
}

interface Tally {
  times: number[]
  toModel: number[]
  state: number[]
  bytes: number
}

/**
 * Plays every side over `cfg.turns` measured turns around a point of `n` messages.
 *
 * @param all - every turn's script, long enough for the point and its turns
 * @param n - the point, messages of history
 * @param cfg - turns, warm-up, sides
 * @param dir - a scratch directory of this point's own
 * @returns a cell per side, in `cfg.sides` order
 */
export async function runPoint(
  all: readonly TurnScript[],
  n: number,
  cfg: LangChainConfig,
  dir: string,
): Promise<LangChainCell[]> {
  const start = Math.max(0, Math.round(n / MESSAGES_PER_TURN) - Math.floor(cfg.turns / 2) - cfg.warmup)
  const history = historyOf(all, start)
  const sides: LangChainSide[] = []
  for (const key of cfg.sides) sides.push(await openSide(key, history, dir))
  const tallies: Tally[] = sides.map(() => ({ times: [], toModel: [], state: [], bytes: 0 }))
  const step = async (t: number, measured: boolean): Promise<void> => {
    const script = all[start + t] as TurnScript
    for (let j = 0; j < sides.length; j++) {
      const i = (t + j) % sides.length
      const side = sides[i] as LangChainSide
      const tally = tallies[i] as Tally
      const calls = side.stage.calls.length
      gc()
      await settle()
      const w0 = wchar() ?? 0
      const t0 = process.hrtime.bigint()
      const state = await side.turn(script)
      await nextTick()
      const elapsed = Number(process.hrtime.bigint() - t0) / 1000
      const w1 = wchar() ?? 0
      if (!measured) continue
      tally.times.push(elapsed)
      tally.bytes += w1 - w0
      tally.state.push(state)
      tally.toModel.push(Math.max(...side.stage.calls.slice(calls).map((c) => c.messages)))
    }
  }
  try {
    for (let t = 0; t < cfg.warmup; t++) await step(t, false)
    for (const s of sides) s.checkpoint()
    for (let t = cfg.warmup; t < cfg.warmup + cfg.turns; t++) await step(t, true)
    sides.forEach((s, i) => {
      const w0 = wchar() ?? 0
      s.checkpoint()
      ;(tallies[i] as Tally).bytes += (wchar() ?? 0) - w0
    })
  } finally {
    for (const s of sides) s.close()
  }
  return sides.map((s, i) => {
    const t = tallies[i] as Tally
    return {
      key: s.key,
      median: median(t.times),
      p95: percentile(t.times, 0.95),
      bytes: t.bytes / cfg.turns,
      toModel: median(t.toModel),
      state: median(t.state),
    }
  })
}

/**
 * Every point, every side.
 *
 * @param cfg - what to run
 * @param scratch - where the files go
 * @returns per point, a cell per side
 */
export async function measureLangChain(
  cfg: LangChainConfig,
  scratch: Scratch,
): Promise<Map<number, LangChainCell[]>> {
  const last = Math.max(...cfg.points)
  const all = scripts(Math.ceil(last / MESSAGES_PER_TURN) + cfg.turns + cfg.warmup)
  const results = new Map<number, LangChainCell[]>()
  for (const n of cfg.points) {
    process.stderr.write(`LangChain agent at ${n.toLocaleString('en-US')} messages of history...\n`)
    const dir = scratch.file(`langchain-${n}`)
    mkdirSync(dir)
    results.set(n, await runPoint(all, n, cfg, dir))
    // The savers keep every checkpoint: gigabytes at 10,000 messages, not kept past their point.
    rmSync(dir, { recursive: true, force: true })
  }
  return results
}

function ratio(x: number | undefined, y: number | undefined): string {
  if (x === undefined || y === undefined || y === 0) return '—'
  const r = x / y
  // Two significant figures below 0.1: ours ÷ theirs goes down to 1/2,000 and less.
  return r >= 0.1 ? `${r.toFixed(2)}×` : `${r.toPrecision(2)}×`
}

const count = (x: number): string => Math.round(x).toLocaleString('en-US')

/** Each side's time and bytes at every point side by side, and the last ÷ the first. */
function flatness(results: ReadonlyMap<number, readonly LangChainCell[]>): string {
  const cells = [...results.values()]
  const keys = cells[0]?.map((c) => c.key) ?? []
  const rows: string[][] = []
  keys.forEach((key, i) => {
    const of = (c: readonly LangChainCell[]): LangChainCell => c[i] as LangChainCell
    const time = cells.map((c) => of(c).median)
    const bytes = cells.map((c) => of(c).bytes)
    rows.push([SIDES[key], 'time/turn p50', ...time.map(us), ratio(time.at(-1), time[0])])
    rows.push([SIDES[key], 'bytes written/turn', ...bytes.map(kb), ratio(bytes.at(-1), bytes[0])])
  })
  const at = [...results.keys()].map((n) => `at ${count(n)}`)
  return table(['way', 'per turn', ...at, 'last ÷ first'], rows)
}

/** Ours ÷ theirs at every point: (c) and (d) against (a) and (b), where the run has them. */
function ratios(results: ReadonlyMap<number, readonly LangChainCell[]>): string {
  const rows: string[][] = []
  for (const [n, cells] of results) {
    const by = new Map(cells.map((c) => [c.key, c]))
    for (const ours of ['c', 'd'] as const)
      for (const theirs of ['a', 'b'] as const) {
        const o = by.get(ours)
        const t = by.get(theirs)
        if (o === undefined || t === undefined) continue
        const r = [ratio(o.median, t.median), ratio(o.p95, t.p95), ratio(o.bytes, t.bytes)]
        rows.push([count(n), `${ours} ÷ ${theirs}`, ...r])
      }
  }
  return rows.length === 0
    ? '(no ratios: the run has no side of ours)'
    : table(['history', 'ours ÷ theirs', 'time p50', 'p95', 'bytes'], rows)
}

/**
 * The report: every side at every point, each side's growth, the same-run ratios.
 *
 * @param results - per point, a cell per side
 * @param cfg - what ran
 * @param load - the load average (1 min) at the start and at the end
 * @returns the text
 */
export function renderLangChain(
  results: ReadonlyMap<number, readonly LangChainCell[]>,
  cfg: LangChainConfig,
  load: readonly [number, number],
): string {
  const rows: string[][] = []
  for (const [n, cells] of results)
    for (const c of cells)
      rows.push([
        count(n),
        SIDES[c.key],
        us(c.median),
        us(c.p95),
        kb(c.bytes),
        count(c.toModel),
        count(c.state),
      ])
  const header = [
    'history',
    'way',
    'time/turn p50',
    'p95',
    'bytes written/turn',
    'msgs to the model',
    'msgs in state',
  ]
  return [
    '',
    `Machine: ${machine()}; load average ${load[0].toFixed(2)} at the start, ${load[1].toFixed(2)} at the end.`,
    `LangChain createAgent with a tool, ${cfg.turns} measured turns per point (after ${cfg.warmup} warm-up turns), sides in rotating order.`,
    `A turn: one invoke, ${MESSAGES_PER_TURN} messages (prompt, tool call, tool result, answer). Window / trim: ${WINDOW} messages.`,
    '',
    table(header, rows),
    '',
    flatness(results),
    '',
    ratios(results),
    '',
    'bytes written: wchar of /proc/self/io over the measured turns, with a wal_checkpoint(TRUNCATE) of every',
    "SQLite file of the side after them. msgs to the model: the turn's largest request; msgs in state: what the",
    'agent state (and so its checkpointer) holds after the turn.',
    '',
  ].join('\n')
}

/**
 * Reads the options of `npm run bench -- --langchain`.
 *
 * @param argv - `--turns N`, `--warmup N`, `--quick`
 * @returns the configuration
 */
export function langChainConfig(argv: readonly string[]): LangChainConfig {
  const o = parseOptions(argv, {
    turns: { type: 'integer', min: 1 },
    warmup: { type: 'integer', min: 1 },
    quick: { type: 'flag' },
  })
  return {
    points: POINTS,
    turns: o.turns ?? (o.quick ? 5 : 20),
    warmup: o.warmup ?? 3,
    sides: Object.keys(SIDES) as SideKey[],
  }
}

/**
 * `npm run bench -- --langchain`: every side at every point.
 *
 * @param argv - the options
 * @returns the report
 */
export async function runLangChain(argv: readonly string[]): Promise<string> {
  const cfg = langChainConfig(argv)
  const load0 = loadavg()[0] ?? 0
  const scratch = new Scratch()
  try {
    const results = await measureLangChain(cfg, scratch)
    return renderLangChain(results, cfg, [load0, loadavg()[0] ?? 0])
  } finally {
    scratch.dispose()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  process.stdout.write(await runLangChain(process.argv.slice(2)))
