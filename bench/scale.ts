/**
 * Scale: one ledger file of at least 1,000,000 messages across 1,000 sessions — one large session and
 * 999 small ones, written interleaved as concurrent agents would leave them — and, from that one file:
 *
 *   - append one agent turn (4 messages, one call) in a small and in the large session;
 *   - window() and applyWindow() after a turn, in a small and in the large session;
 *   - open + first window() in a fresh process (a child per sample), small and large session, with the
 *     file's pages in the OS cache and, where `dd iflag=nocache` can drop them, without;
 *   - file size per message (after a checkpoint, WAL included), and per table where SQLite has dbstat;
 *   - `context-ledger sessions` on the file in a fresh process, beyond `node -e 0` (bench/cli.ts).
 *
 * Usage: `npx tsx bench/scale.ts [--quick] [--sessions N] [--large N] [--small N] [--keep]`.
 * Defaults: 1,000 sessions, a 500,000-message session and 999 of 500 (≈1.0M messages). `--quick` builds
 * 100 sessions, 50,000 + 99 × 500. `--keep` leaves the file in place and prints its path.
 * Not part of CI: it takes minutes and about a gigabyte of disk; it measures and never fails.
 *
 * `runScale(argv)` runs the same from another script (e.g. `bench/run.ts --scale`).
 */
import { spawn } from 'node:child_process'
import { spawnSync } from 'node:child_process'
import { statSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import Database from 'better-sqlite3'
import { openContextStore, PersistentConversationManager, type ContextStore } from '../src/index.js'
import { TurnFactory } from './fixtures.js'
import { parseOptions } from './args.js'
import { median, Scratch, timeAgentLoop, type LoopTimings } from './harness.js'
import { machine } from './machine.js'
import { buildCli, cliRow, measureCli } from './cli.js'

/** What to build. */
interface ScaleConfig {
  readonly sessions: number
  readonly large: number
  readonly small: number
  readonly keep: boolean
}

const WINDOW = 40
const BATCH_TURNS = 250
const SAMPLES = 200
const SPAWNS = 7
const SELF = fileURLToPath(import.meta.url)

function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

function parseArgs(argv: readonly string[]): ScaleConfig {
  const o = parseOptions(argv, {
    quick: { type: 'flag' },
    keep: { type: 'flag' },
    sessions: { type: 'integer', min: 1 },
    large: { type: 'integer', min: 1 },
    small: { type: 'integer', min: 1 },
  })
  return {
    sessions: o.sessions ?? (o.quick ? 100 : 1000),
    large: o.large ?? (o.quick ? 50_000 : 500_000),
    small: o.small ?? 500,
    keep: o.keep,
  }
}

function p99(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] ?? Number.NaN
}

const fmt = (us: number): string => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`)
const count = (n: number): string => n.toLocaleString('en-US')

/** Builds the ledger: small sessions and the large one filled in interleaved rounds. */
function build(store: ContextStore, cfg: ScaleConfig): { ms: number; messages: number } {
  const managers = Array.from(
    { length: cfg.sessions },
    (_, i) =>
      new PersistentConversationManager({
        store,
        sessionId: i === 0 ? 'large' : `small-${String(i).padStart(4, '0')}`,
        windowSize: WINDOW,
      }),
  )
  const factories = managers.map((_, i) => new TurnFactory(`s${i}`, i + 1))
  const target = managers.map((_, i) => (i === 0 ? cfg.large : cfg.small))
  const done = managers.map(() => 0)
  const rounds = 5
  const t0 = performance.now()
  let messages = 0
  for (let round = 1; round <= rounds; round++) {
    managers.forEach((m, i) => {
      const goal = Math.floor(((target[i] as number) * round) / rounds / 4) * 4
      while ((done[i] as number) < goal) {
        const turns = Math.min(BATCH_TURNS, (goal - (done[i] as number)) / 4)
        m.append((factories[i] as TurnFactory).turns(turns))
        m.applyWindow()
        done[i] = (done[i] as number) + turns * 4
        messages += turns * 4
      }
    })
    const s = (performance.now() - t0) / 1000
    log(
      `  round ${round}/${rounds}: ${count(messages)} messages, ${s.toFixed(0)} s, ${count(Math.round(messages / s))} msgs/s`,
    )
  }
  return { ms: performance.now() - t0, messages }
}

/** Steady-state agent loop in two sessions, interleaved so both see the same background noise. */
function measureLoop(store: ContextStore, sessions: readonly string[]): LoopTimings[] {
  const sides = sessions.map((sessionId, i) => ({
    m: new PersistentConversationManager({ store, sessionId, windowSize: WINDOW }),
    turns: new TurnFactory(`measure-${i}`, 1000 + i),
  }))
  return timeAgentLoop(sides, SAMPLES, 10)
}

/** Drops the file's pages from the OS page cache, if `dd iflag=nocache` is available. */
function evict(path: string): boolean {
  let ok = true
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      statSync(file)
    } catch {
      continue
    }
    const r = spawnSync('dd', [`if=${file}`, 'iflag=nocache', 'count=0'], { stdio: 'ignore' })
    ok &&= r.status === 0
  }
  return ok
}

interface OpenSample {
  /** open + first window(), measured inside the child, µs. */
  readonly openWindowUs: number
  /** Whole child process, spawn to exit, ms. */
  readonly processMs: number
  /** Messages in the window. */
  readonly size: number
}

/** One fresh process: `node --import tsx bench/scale.ts --open <db> <session>`. */
function openInChild(path: string, sessionId: string): Promise<OpenSample> {
  const t0 = performance.now()
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, '--open', path, sessionId], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => {
    out += chunk
  })
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`open child exited with ${code}`))
        return
      }
      const r = JSON.parse(out) as { us: number; size: number }
      resolve({ openWindowUs: r.us, processMs: performance.now() - t0, size: r.size })
    })
  })
}

/** Child mode: time opening the store and materializing the first window, print it as JSON. */
function childOpen(path: string, sessionId: string): void {
  const t0 = process.hrtime.bigint()
  const store = openContextStore(path)
  const window = store.window(sessionId)
  const us = Number(process.hrtime.bigint() - t0) / 1000
  store.close()
  process.stdout.write(JSON.stringify({ us, size: window.length }))
}

async function measureOpen(
  path: string,
  sessions: readonly string[],
  cold: boolean,
): Promise<OpenSample[][]> {
  const out = sessions.map(() => [] as OpenSample[])
  for (let i = 0; i < SPAWNS; i++)
    for (const [k, sessionId] of sessions.entries()) {
      if (cold) evict(path)
      ;(out[k] as OpenSample[]).push(await openInChild(path, sessionId))
    }
  return out
}

function tableSizes(path: string): string[] {
  const db = new Database(path, { readonly: true })
  try {
    const rows = db
      .prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC')
      .all() as { name: string; bytes: number }[]
    return rows.slice(0, 8).map((r) => `${r.name} ${(r.bytes / 2 ** 20).toFixed(0)} MiB`)
  } catch {
    return ['(dbstat not compiled in)']
  } finally {
    db.close()
  }
}

/**
 * Builds the ledger and prints the figures (Markdown) to stdout; progress goes to stderr.
 *
 * @param argv - command-line arguments (see the module comment)
 */
export async function runScale(argv: readonly string[]): Promise<void> {
  const cfg = parseArgs(argv)
  const scratch = new Scratch()
  const path = scratch.file('scale.db')
  try {
    log(
      `context-ledger scale: ${count(cfg.sessions)} sessions, one of ${count(cfg.large)} messages and ${count(cfg.sessions - 1)} of ${count(cfg.small)}, in ${path}`,
    )
    const store = openContextStore(path)
    const built = build(store, cfg)
    const small = `small-${String(Math.max(1, cfg.sessions >> 1)).padStart(4, '0')}`
    log('measuring append / applyWindow / window...')
    const [largeT, smallT] = measureLoop(store, ['large', small]) as [LoopTimings, LoopTimings]
    const messages = store.sessions().reduce((n, s) => n + s.messageCount, 0)
    const largeCount = store.session('large')?.messageCount ?? 0
    const smallCount = store.session(small)?.messageCount ?? 0
    store.connection().pragma('wal_checkpoint(TRUNCATE)')
    store.close()
    const bytes = scratch.sqliteBytes('scale.db')

    log('measuring open + first window in fresh processes...')
    const [warmLarge, warmSmall] = (await measureOpen(path, ['large', small], false)) as [
      OpenSample[],
      OpenSample[],
    ]
    const canEvict = evict(path)
    const cold = canEvict
      ? ((await measureOpen(path, ['large', small], true)) as [OpenSample[], OpenSample[]])
      : undefined

    log('measuring context-ledger sessions in fresh processes...')
    buildCli()
    const cliTiming = measureCli(path)

    const row = (what: string, l: readonly number[], s: readonly number[]): string =>
      `| ${what} | ${fmt(median(l))} (p99 ${fmt(p99(l))}) | ${fmt(median(s))} (p99 ${fmt(p99(s))}) | ${(median(l) / median(s)).toFixed(2)}× |`
    const openRow = (what: string, l: readonly OpenSample[], s: readonly OpenSample[]): string =>
      `| ${what} | ${fmt(median(l.map((x) => x.openWindowUs)))} (process ${median(l.map((x) => x.processMs)).toFixed(0)} ms) | ${fmt(median(s.map((x) => x.openWindowUs)))} (process ${median(s.map((x) => x.processMs)).toFixed(0)} ms) | ${(median(l.map((x) => x.openWindowUs)) / median(s.map((x) => x.openWindowUs))).toFixed(2)}× |`
    const out = [
      '',
      `Machine: ${machine()}`,
      `Ledger: ${count(messages)} messages in ${count(cfg.sessions)} sessions, built in ${(built.ms / 1000).toFixed(0)} s ` +
        `(${count(Math.round(built.messages / (built.ms / 1000)))} msgs/s, batches of ${BATCH_TURNS * 4} + applyWindow); ` +
        `file ${(bytes / 2 ** 20).toFixed(0)} MiB = ${(bytes / messages).toFixed(0)} bytes per message (~500 B of JSON each)`,
      `Largest objects: ${tableSizes(path).join(', ')}`,
      '',
      `| operation (windowSize ${WINDOW}) | large session (${count(largeCount)} msgs) | small session (${count(smallCount)} msgs) | large / small |`,
      '|---|---:|---:|---:|',
      row('append one turn (4 msgs, 1 call)', largeT.append, smallT.append),
      row('applyWindow() after the turn', largeT.applyWindow, smallT.applyWindow),
      row(`window() (${WINDOW} msgs)`, largeT.window, smallT.window),
      openRow('open + first window(), fresh process, file cached', warmLarge, warmSmall),
      cold === undefined
        ? '| open + first window(), file evicted | (dd iflag=nocache unavailable) | | |'
        : openRow('open + first window(), file evicted from the page cache', cold[0], cold[1]),
      '',
      '| command line | result | target | |',
      '|---|---:|---:|---:|',
      cliRow(cliTiming, count(messages)),
      '',
      `Medians of ${SAMPLES} calls each (open: ${SPAWNS} child processes each; "process" is spawn to exit, Node boot and the TypeScript loader included).`,
      '',
    ]
    process.stdout.write(out.join('\n'))
    if (cfg.keep) log(`kept ${path}`)
  } finally {
    if (!cfg.keep) scratch.dispose()
  }
}

const argv = process.argv.slice(2)
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (argv[0] === '--open') childOpen(argv[1] as string, argv[2] as string)
  else await runScale(argv)
}
