/**
 * How long the randomized tests run. The defaults keep `npm test` quick; two environment variables ask
 * for more: `FC_RUNS=<n>` sets the run count of every fast-check property, and `CONTEXT_LEDGER_LONG=1`
 * runs the long variants (ten times the properties' runs, and more kills, processes and messages in the
 * reliability suite).
 */

/** True when `CONTEXT_LEDGER_LONG=1`: run the long variants. */
export const LONG = process.env.CONTEXT_LEDGER_LONG === '1'

/**
 * The run count of a fast-check property.
 *
 * @param runs - the default count
 * @returns `FC_RUNS` when set, else ten times `runs` under `CONTEXT_LEDGER_LONG=1`, else `runs`
 * @throws Error when `FC_RUNS` is not a positive integer
 */
export function fcRuns(runs: number): number {
  const given = process.env.FC_RUNS
  if (given === undefined || given === '') return LONG ? runs * 10 : runs
  const n = Number(given)
  if (!Number.isInteger(n) || n < 1) throw new Error(`FC_RUNS must be a positive integer, not "${given}"`)
  return n
}
