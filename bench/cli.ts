/**
 * The command line's start-up cost: `context-ledger sessions <file>` in a fresh process against
 * `node -e 0`, spawned alternately, median of each; the difference is the CLI's own work (loading its
 * modules, opening the file, reading every session, printing the table) beyond Node's start. Target:
 * ≤ 200 ms on a 1,000,000-message, 1,000-session ledger (bench/scale.ts builds one and runs this).
 * It runs the built CLI (`dist/cli/main.js`, built first with the repository's build settings), as
 * `npx context-ledger` runs it.
 *
 * Usage: `npx tsx bench/cli.ts <ledger.db> [--spawns N]` for a file at hand.
 */
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseOptions } from './args.js'
import { median } from './harness.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const CLI = join(ROOT, 'dist', 'cli', 'main.js')

/** The target: process work beyond Node's start, ms. */
export const CLI_TARGET_MS = 200

/** What {@link measureCli} found. */
export interface CliTiming {
  /** Median wall time of `node -e 0`, ms. */
  readonly nodeMs: number
  /** Median wall time of `node dist/cli/main.js sessions <file>`, ms. */
  readonly cliMs: number
  /** Sessions it listed. */
  readonly sessions: number
}

function timed(args: readonly string[]): { ms: number; stdout: string } {
  const t0 = performance.now()
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 })
  const ms = performance.now() - t0
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${String(r.status)}: ${r.stderr}`)
  return { ms, stdout: r.stdout }
}

/** Builds `dist/` from the sources (the CLI runs as built JavaScript, as from the package). */
export function buildCli(): void {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  const r = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' })
  if (r.status !== 0) throw new Error('the build failed')
}

/**
 * Times `context-ledger sessions` on a ledger against Node's bare start.
 *
 * @param path - the ledger
 * @param spawns - processes of each kind
 * @returns the medians
 */
export function measureCli(path: string, spawns = 11): CliTiming {
  const node: number[] = []
  const cli: number[] = []
  // One of each first, unmeasured: the file's pages and Node's own files into the page cache.
  timed(['-e', '0'])
  timed([CLI, 'sessions', path])
  for (let i = 0; i < spawns; i++) {
    node.push(timed(['-e', '0']).ms)
    cli.push(timed([CLI, 'sessions', path]).ms)
  }
  const sessions = (JSON.parse(timed([CLI, 'sessions', path, '--json']).stdout) as { sessions: unknown[] })
    .sessions.length
  return { nodeMs: median(node), cliMs: median(cli), sessions }
}

/**
 * The Markdown row of the result.
 *
 * @param t - the timing
 * @param messages - messages in the ledger, for the label
 * @returns the row
 */
export function cliRow(t: CliTiming, messages: string): string {
  const beyond = t.cliMs - t.nodeMs
  return `| \`context-ledger sessions\` (${messages} messages, ${t.sessions} sessions): fresh process beyond \`node -e 0\` | ${beyond.toFixed(0)} ms (${t.cliMs.toFixed(0)} − ${t.nodeMs.toFixed(0)} ms) | ≤ ${CLI_TARGET_MS} ms | ${beyond <= CLI_TARGET_MS ? 'PASS' : 'MISS'} |`
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [path, ...rest] = process.argv.slice(2)
  if (path === undefined) throw new Error('usage: bench/cli.ts <ledger.db> [--spawns N]')
  const o = parseOptions(rest, { spawns: { type: 'integer', min: 1 } })
  buildCli()
  const t = measureCli(path, o.spawns)
  process.stdout.write(`${cliRow(t, 'this file’s')}\n`)
}
