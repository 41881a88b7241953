/**
 * Runs a demo (or the CLI) as a user would, in a process of its own through tsx, from the repository root,
 * and reads numbers out of what it printed.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process'
import { join } from 'node:path'

const ROOT = join(import.meta.dirname, '..', '..')

/**
 * Runs a TypeScript file of the repository with tsx.
 *
 * @param script - relative to the repository root (`examples/strands-demo.ts`, `src/cli/main.ts`)
 * @param args - its arguments
 * @returns the finished process: status, stdout, stderr (text)
 */
export function tsx(script: string, ...args: string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, script), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  })
}

/**
 * The numbers a pattern's first group matches in a text, thousands separators dropped.
 *
 * @param text - what a demo printed
 * @param re - a global pattern whose first group is a number
 * @returns each match's number, in order
 */
export function numbersIn(text: string, re: RegExp): number[] {
  return [...text.matchAll(re)].map((m) => Number((m[1] ?? '').replaceAll(',', '')))
}
