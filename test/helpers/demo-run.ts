/**
 * Runs a demo (or the CLI) as a user would, in a process of its own through tsx, from the repository root,
 * and reads numbers out of what it printed; {@link runDemoOnce} runs one for a whole test file.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import { tempDir } from './temp-store.js'

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

/** What a demo printed and the ledger file it left (set once the file's `beforeAll` has run it). */
export interface DemoRun {
  /** Its standard output. */
  readonly out: string
  /** The ledger file it wrote (`--db`), in a temp directory removed after the test file. */
  readonly file: string
  /** {@link numbersIn} its output. */
  numbers(re: RegExp): number[]
}

/**
 * Runs `npm run demo -- --<flag> --db <file>` once for the test file that calls this (it takes seconds):
 * registers the `beforeAll` that runs it — and checks it exited 0 with no error printed — and the
 * `afterAll` that removes its temp directory.
 *
 * @param flag - the demo's flag, without `--` (`langchain`, `openai-agents`, `ai-sdk`)
 * @param fileName - the ledger file's name in the temp directory
 * @returns the run, filled in by the `beforeAll`
 */
export function runDemoOnce(flag: string, fileName: string): DemoRun {
  const dir = tempDir(`context-ledger-${flag}-demo-`)
  const run = { out: '', file: dir.file(fileName), numbers: (re: RegExp) => numbersIn(run.out, re) }
  beforeAll(() => {
    const done = tsx('examples/strands-demo.ts', `--${flag}`, '--db', run.file)
    expect(done.stderr).not.toMatch(/Error/)
    expect(done.status).toBe(0)
    run.out = done.stdout
  }, 120_000)
  afterAll(() => {
    dir.cleanup()
  })
  return run
}
