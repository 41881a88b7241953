/**
 * Timing and reporting helpers for `bench/run.ts`. Every timed figure is a median of per-run medians, and
 * every ratio is computed inside one run (both sides measured interleaved, in the same process) before
 * the median over runs is taken — on a shared 2-core machine absolute times drift, ratios much less.
 * Byte counts, which the machine's load does not move, are reported as measured and held to an absolute
 * target.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { MessageData } from '../src/index.js'

/**
 * The median of a list of numbers (the mean of the middle two for an even count).
 *
 * @param values - the samples; not modified
 * @returns the median, or NaN for an empty list
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN
  const s = [...values].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2
}

/**
 * Runs `fn` once and returns how long it took.
 *
 * @param fn - the operation
 * @returns elapsed microseconds
 */
export function timeUs(fn: () => unknown): number {
  const t0 = process.hrtime.bigint()
  fn()
  return Number(process.hrtime.bigint() - t0) / 1000
}

/**
 * Runs an async `fn` once and returns how long it took until its promise settled. For work that only
 * awaits promises already resolved (a synchronous summarizer), this is the work plus a few microtask hops.
 *
 * @param fn - the operation
 * @returns elapsed microseconds
 */
export async function timeUsAsync(fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint()
  await fn()
  return Number(process.hrtime.bigint() - t0) / 1000
}

/** Per-run medians of two interleaved operations, and their ratio in that run. */
export interface PairRun {
  /** Median µs of the measured operation in this run. */
  readonly ours: number
  /** Median µs of the reference operation in this run. */
  readonly baseline: number
  /** `ours / baseline`, from the same run. */
  readonly ratio: number
}

/**
 * Times several operations round-robin, `iterations` times each, rotating which goes first so all of them
 * see the same background noise, and returns each one's median.
 *
 * @param iterations - samples per operation
 * @param ops - the operations; each receives the iteration index
 * @returns median µs per operation, in the order given
 */
export function interleavedRun(iterations: number, ops: readonly ((i: number) => unknown)[]): number[] {
  const samples = ops.map(() => [] as number[])
  for (let i = 0; i < iterations; i++) {
    for (let k = 0; k < ops.length; k++) {
      const j = (i + k) % ops.length
      const op = ops[j] as (i: number) => unknown
      ;(samples[j] as number[]).push(timeUs(() => op(i)))
    }
  }
  return samples.map(median)
}

/**
 * A {@link PairRun} from two per-run medians.
 *
 * @param ours - median µs of the measured operation
 * @param baseline - median µs of the reference in the same run
 * @returns the pair with its ratio
 */
export function pair(ours: number, baseline: number): PairRun {
  return { ours, baseline, ratio: ours / baseline }
}

/** One line of the result table. */
export interface Row {
  /** What was measured. */
  readonly operation: string
  /** Median over runs of our per-run medians, µs. */
  readonly ours: number
  /** Median over runs of the reference's per-run medians, µs. */
  readonly baseline: number
  /** Median over runs of the per-run ratio. */
  readonly ratio: number
  /**
   * The ratio (bytes rows: `ours`) must not exceed this, and `ours` must reach it in share rows; undefined
   * for informational rows.
   */
  readonly target: number | undefined
  /**
   * What `ours` and `baseline` count: microseconds (the default; the target bounds the ratio), bytes
   * (the target bounds `ours` itself, an absolute count rather than a same-run ratio), or a share in [0, 1]
   * (the target is a minimum for `ours`; deterministic, like bytes).
   */
  readonly unit?: 'µs' | 'bytes' | 'share'
}

/**
 * Folds several runs of a pair into one table row.
 *
 * @param operation - label
 * @param runs - the per-run results
 * @param target - the maximum acceptable ratio, if any
 * @returns the row
 */
export function summarize(operation: string, runs: readonly PairRun[], target: number | undefined): Row {
  return {
    operation,
    ours: median(runs.map((r) => r.ours)),
    baseline: median(runs.map((r) => r.baseline)),
    ratio: median(runs.map((r) => r.ratio)),
    target,
  }
}

function fmtUs(us: number): string {
  return `${us >= 100 ? us.toFixed(0) : us.toFixed(1)} µs`
}

/**
 * A byte count for a table cell.
 *
 * @param bytes - the count
 * @returns e.g. `18.4 KB` or `2.14 MB` (1 KB = 1,024 bytes)
 */
export function kb(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(2)} MB` : `${(bytes / 1024).toFixed(1)} KB`
}

/**
 * A byte limit for a table cell, whole kilobytes without decimals.
 *
 * @param bytes - the limit
 * @returns e.g. `≤ 25 KB`
 */
export function kbLimit(bytes: number): string {
  return `≤ ${Number.isInteger(bytes / 1024) ? `${bytes / 1024} KB` : kb(bytes)}`
}

function cells(r: Row): string[] {
  if (r.unit === 'share')
    return [
      r.operation,
      r.ours.toFixed(3),
      r.baseline.toFixed(3),
      `${r.ratio.toFixed(2)}×`,
      r.target === undefined ? '—' : `≥ ${r.target}`,
      r.target === undefined ? 'info' : r.ours >= r.target ? 'PASS' : 'MISS',
    ]
  if (r.unit === 'bytes')
    return [
      r.operation,
      kb(r.ours),
      kb(r.baseline),
      `${r.ratio.toFixed(1)}×`,
      r.target === undefined ? '—' : kbLimit(r.target),
      r.target === undefined ? 'info' : r.ours <= r.target ? 'PASS' : 'MISS',
    ]
  return [
    r.operation,
    fmtUs(r.ours),
    fmtUs(r.baseline),
    `${r.ratio.toFixed(2)}×`,
    r.target === undefined ? '—' : `≤ ${r.target}×`,
    r.target === undefined ? 'info' : r.ratio <= r.target ? 'PASS' : 'MISS',
  ]
}

/**
 * Renders rows as a Markdown table (readable in a terminal and pasteable into the README).
 *
 * @param rows - the results
 * @returns the table text
 */
export function renderTable(rows: readonly Row[]): string {
  const header = ['operation', 'ours', 'baseline', 'ratio', 'target', 'result']
  const body = rows.map(cells)
  const all = [header, ...body]
  const widths = header.map((_, c) => Math.max(...all.map((line) => (line[c] as string).length)))
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number))).join(' | ')} |`
  const rule = `|${widths.map((w, c) => (c === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`
  return [line(header), rule, ...body.map(line)].join('\n')
}

/** A scratch directory under `os.tmpdir()`, removed by `dispose()`. */
export class Scratch {
  /** The directory. */
  readonly dir: string

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'context-ledger-bench-'))
  }

  /**
   * A path inside the scratch directory.
   *
   * @param name - file name
   * @returns the absolute path
   */
  file(name: string): string {
    return join(this.dir, name)
  }

  /**
   * Size of a SQLite file including its WAL, in bytes.
   *
   * @param name - file name inside the directory
   * @returns bytes on disk (0 for a missing file)
   */
  sqliteBytes(name: string): number {
    let total = 0
    for (const suffix of ['', '-wal']) {
      try {
        total += statSync(this.file(name + suffix)).size
      } catch {
        // missing WAL: nothing to add
      }
    }
    return total
  }

  /** Deletes the directory and everything in it. */
  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/** A session the agent loop drives: its manager and where its turns come from. */
export interface LoopSide {
  /** The manager of the session. */
  readonly m: { append(turn: readonly MessageData[]): unknown; applyWindow(): unknown; window(): unknown }
  /** Its turns. */
  readonly turns: { turn(): MessageData[] }
}

/** Every sample of one session's agent loop, µs. */
export interface LoopTimings {
  /** `append()` of one turn. */
  readonly append: number[]
  /** `applyWindow()` after it. */
  readonly applyWindow: number[]
  /** `window()` after that. */
  readonly window: number[]
}

/**
 * The steady-state agent loop (append a turn, `applyWindow()`, `window()`) in several sessions,
 * interleaved and in alternating order so they all see the same background noise.
 *
 * @param sides - the sessions
 * @param iterations - turns timed per session
 * @param warmup - untimed turns per session first
 * @returns each session's samples, in the order given
 */
export function timeAgentLoop(sides: readonly LoopSide[], iterations: number, warmup: number): LoopTimings[] {
  const timings = sides.map((): LoopTimings => ({ append: [], applyWindow: [], window: [] }))
  for (const side of sides)
    for (let w = 0; w < warmup; w++) {
      side.m.append(side.turns.turn())
      side.m.applyWindow()
      side.m.window()
    }
  const order = sides.map((side, k) => ({ side, t: timings[k] as LoopTimings }))
  const reversed = [...order].reverse()
  for (let i = 0; i < iterations; i++)
    for (const { side, t } of i % 2 === 0 ? order : reversed) {
      const turn = side.turns.turn()
      t.append.push(timeUs(() => side.m.append(turn)))
      t.applyWindow.push(timeUs(() => side.m.applyWindow()))
      t.window.push(timeUs(() => side.m.window()))
    }
  return timings
}
