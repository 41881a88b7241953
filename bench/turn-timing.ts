/**
 * What the turn-by-turn benches (bench/ai-sdk-chat.ts, bench/openai-agents.ts) share: a forced garbage
 * collection and a pause before every side's turn, the event loop's next turn inside the timing, the p95,
 * and the Markdown table their reports print.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * The `p` quantile of a list (nearest rank).
 *
 * @param values - the samples; not modified
 * @param p - the quantile, in (0, 1]
 * @returns the sample at that rank, NaN for an empty list
 */
export function percentile(values: readonly number[], p: number): number {
  const s = [...values].sort((x, y) => x - y)
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] ?? Number.NaN
}

/**
 * Waits 25 ms (untimed) after the forced collection: its concurrent sweeping, and the kernel's handling of
 * the megabytes a file-rewriting side just wrote, otherwise run on the 2 cores during the next side's turn.
 *
 * @returns a promise settled 25 ms later
 */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 25))
}

/**
 * The event loop's next turn, where the ledger indexes what was appended for search.
 *
 * @returns a promise settled by `setImmediate`
 */
export function nextTick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

setFlagsFromString('--expose-gc')
/**
 * A full garbage collection, run (untimed) before every side's turn: otherwise the garbage of a side's
 * multi-megabyte parses is collected inside whichever turn comes next, often ours. Each side's own garbage
 * is then mostly collected outside its timing too, which flatters the file-rewriting sides, not ours.
 */
export const gc = runInNewContext('gc') as () => void

/**
 * A duration for a table cell.
 *
 * @param x - microseconds
 * @returns e.g. `640 µs`, `2.26 ms`, `178.7 ms`
 */
export function us(x: number): string {
  return x >= 10_000
    ? `${(x / 1000).toFixed(1)} ms`
    : x >= 1000
      ? `${(x / 1000).toFixed(2)} ms`
      : `${x.toFixed(0)} µs`
}

/**
 * A Markdown table: the first two columns left-aligned (labels), the others right-aligned (figures).
 *
 * @param header - the column names
 * @param rows - the cells, row by row
 * @returns the table text
 */
export function table(header: readonly string[], rows: readonly string[][]): string {
  const all = [header, ...rows]
  const w = header.map((_, c) => Math.max(...all.map((r) => (r[c] ?? '').length)))
  const line = (r: readonly string[]): string =>
    `| ${r.map((x, c) => (c < 2 ? x.padEnd(w[c] as number) : x.padStart(w[c] as number))).join(' | ')} |`
  const rule = `|${w.map((x, c) => (c < 2 ? '-'.repeat(x + 2) : `${'-'.repeat(x + 1)}:`)).join('|')}|`
  return [line(header), rule, ...rows.map(line)].join('\n')
}
