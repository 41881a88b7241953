/**
 * Contention: several processes on one ledger file, every call timed. By default 3 writers (an agent turn
 * to their own session and one to a shared session, `applyWindow()` after each), 2 pinners (pin and unpin
 * random messages) and 1 reader (`window()`, `session()`, `history()`, `sessions()`), each in a tight
 * loop for 15 s — see `bench/contention-worker.ts`. The API is synchronous, so a slow call is an event
 * loop frozen for that long: the figures that matter are p99 and max, per role and operation.
 *
 * Also printed: `DATABASE_BUSY` and other errors (there should be none), a lost-message check (every
 * acknowledged message is in the file, and nothing else is), bytes the processes wrote per acknowledged
 * message (`wchar` of /proc/self/io where Linux has it), the WAL's size at the end, and the load average
 * before and after — the machine may be shared, and the numbers are only as quiet as it is.
 *
 * Usage: `npm run bench -- --contention [--duration S] [--repeat N] [--writers N] [--pinners N]
 * [--readers N] [--max-pins N]`. `runContention(argv)` returns the report for `bench/run.ts`.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { openContextStore, PersistentConversationManager } from '../src/index.js'
import { parseOptions } from './args.js'
import { TurnFactory } from './fixtures.js'
import { Scratch } from './harness.js'
import type { Role, WorkerReport } from './contention-worker.js'

/** What to run. */
export interface ContentionConfig {
  /** Seconds each worker runs. */
  readonly duration: number
  /** How many times to run the whole thing. */
  readonly repeat: number
  /** Writer processes. */
  readonly writers: number
  /** Pinner processes. */
  readonly pinners: number
  /** Reader processes. */
  readonly readers: number
  /** Pins each pinner holds at most per session before it starts unpinning. */
  readonly maxPins: number
}

/** The summary of one run. */
export interface ContentionRun {
  /** Per role and operation: count, p50, p99, max (ms). */
  readonly rows: readonly { role: string; op: string; count: number; p50: number; p99: number; max: number }[]
  /** The slowest single call of the run, ms, and which. */
  readonly max: { ms: number; what: string }
  /** p99 over every call of every process, ms. */
  readonly p99: number
  /** Failed calls by code. */
  readonly errors: Record<string, number>
  /** Acknowledged messages missing from the file. */
  readonly lost: number
  /** Messages in the file nobody acknowledged (besides the prefill). */
  readonly extra: number
  /** Messages acknowledged. */
  readonly acked: number
  /** Bytes written by all processes per acknowledged message, when measurable. */
  readonly bytesPerMessage: number | undefined
  /** The largest the WAL grew during the run, bytes (sampled every 50 ms). */
  readonly walBytes: number
  /** 1-minute load average before and after. */
  readonly load: readonly [number, number]
}

const WORKER = fileURLToPath(new URL('./contention-worker.ts', import.meta.url))
const PREFILL_TURNS = 100
const WINDOW = 40

function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

/**
 * Reads the contention options from the command line.
 *
 * @param argv - arguments after the script name
 * @returns the configuration
 */
export function parseContentionArgs(argv: readonly string[]): ContentionConfig {
  const count = { type: 'integer', min: 0 } as const
  const o = parseOptions(argv, {
    duration: { type: 'integer', min: 1 },
    repeat: { type: 'integer', min: 1 },
    writers: count,
    pinners: count,
    readers: count,
    'max-pins': { type: 'integer', min: 1 },
  })
  return {
    duration: o.duration ?? 15,
    repeat: o.repeat ?? 1,
    writers: o.writers ?? 3,
    pinners: o.pinners ?? 2,
    readers: o.readers ?? 1,
    maxPins: o['max-pins'] ?? 10,
  }
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number
}

interface Child {
  readonly role: Role
  readonly index: number
  readonly process: ChildProcess
  readonly ready: Promise<void>
  readonly done: Promise<WorkerReport>
}

function start(role: Role, index: number, path: string, seed: number, cfg: ContentionConfig): Child {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      WORKER,
      role,
      path,
      String(index),
      String(seed),
      String(cfg.duration * 1000),
      String(cfg.writers),
      String(cfg.maxPins),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  let out = ''
  let onReady: () => void = () => {}
  const ready = new Promise<void>((resolve) => {
    onReady = resolve
  })
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => {
    out += chunk
    if (out.startsWith('R\n')) onReady()
  })
  const done = new Promise<WorkerReport>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0 || !out.includes('D\n')) {
        reject(new Error(`${role} ${index} exited with ${code}`))
        return
      }
      resolve(JSON.parse(readFileSync(`${path}.${role}-${index}.json`, 'utf8')) as WorkerReport)
    })
  })
  return { role, index, process: child, ready: Promise.race([ready, done.then(() => {})]), done }
}

/** Creates the file and gives every session some history, so pinners and readers have work at once. */
function prefill(path: string, writers: number): void {
  const store = openContextStore(path)
  const turns = new TurnFactory('prefill', 7)
  for (const sessionId of ['shared', ...Array.from({ length: writers }, (_, i) => `own-${i}`)]) {
    const manager = new PersistentConversationManager({ store, sessionId, windowSize: WINDOW })
    manager.append(turns.turns(PREFILL_TURNS))
    manager.applyWindow()
  }
  store.close()
}

/** Checks every acknowledged message is in the file, and that nothing else is (besides the prefill). */
function lostCheck(
  path: string,
  reports: readonly WorkerReport[],
  writers: number,
): { lost: number; extra: number } {
  const store = openContextStore(path)
  try {
    const acked = new Map<string, string[]>()
    for (const r of reports)
      for (const [sessionId, ids] of Object.entries(r.acked))
        acked.set(sessionId, [...(acked.get(sessionId) ?? []), ...ids])
    let lost = 0
    let extra = 0
    for (const sessionId of ['shared', ...Array.from({ length: writers }, (_, i) => `own-${i}`)]) {
      const ids = acked.get(sessionId) ?? []
      for (const trackingId of ids) {
        try {
          store.message(sessionId, { trackingId })
        } catch {
          lost++
        }
      }
      const count = store.session(sessionId)?.messageCount ?? 0
      extra += Math.max(0, count - PREFILL_TURNS * 4 - (ids.length - lost))
    }
    return { lost, extra }
  } finally {
    store.close()
  }
}

async function runOnce(scratch: Scratch, cfg: ContentionConfig, run: number): Promise<ContentionRun> {
  const path = scratch.file(`contention-${run}.db`)
  prefill(path, cfg.writers)
  const seed = Date.now() % 1_000_000
  const children: Child[] = []
  for (const [role, n] of [
    ['writer', cfg.writers],
    ['pinner', cfg.pinners],
    ['reader', cfg.readers],
  ] as const)
    for (let i = 0; i < n; i++) children.push(start(role, i, path, seed, cfg))
  await Promise.all(children.map((c) => c.ready))
  const loadBefore = loadavg()[0] ?? 0
  for (const c of children) c.process.stdin?.write('go\n')
  let walBytes = 0
  const sampler = setInterval(() => {
    try {
      walBytes = Math.max(walBytes, statSync(`${path}-wal`).size)
    } catch {
      // no WAL at this instant
    }
  }, 50)
  const reports = await Promise.all(children.map((c) => c.done)).finally(() => {
    clearInterval(sampler)
  })
  const loadAfter = loadavg()[0] ?? 0

  const byKey = new Map<string, number[]>()
  const all: number[] = []
  let max = { ms: 0, what: '' }
  for (const r of reports)
    for (const [op, times] of Object.entries(r.ops)) {
      const key = `${r.role}\u0000${op}`
      const list = byKey.get(key) ?? []
      for (const t of times) {
        list.push(t)
        all.push(t)
        if (t > max.ms) max = { ms: t, what: `${r.role} ${r.index} ${op}` }
      }
      byKey.set(key, list)
    }
  const rows = [...byKey.entries()].map(([key, times]) => {
    const [role, op] = key.split('\u0000') as [string, string]
    const sorted = times.sort((a, b) => a - b)
    return {
      role,
      op,
      count: sorted.length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted[sorted.length - 1] ?? Number.NaN,
    }
  })
  const errors: Record<string, number> = {}
  for (const r of reports)
    for (const [code, n] of Object.entries(r.errors)) {
      errors[code] = (errors[code] ?? 0) + n
      log(`  ${r.role} ${r.index}: ${n} × ${code}: ${r.samples[code] ?? ''}`)
    }
  const { lost, extra } = lostCheck(path, reports, cfg.writers)
  const acked = reports.reduce((n, r) => n + Object.values(r.acked).reduce((k, ids) => k + ids.length, 0), 0)
  const wchars = reports.map((r) => r.wchar)
  const bytes = wchars.every((w) => w !== undefined) ? wchars.reduce((a, b) => a + b, 0) : undefined
  return {
    rows,
    max,
    p99: percentile(
      all.sort((a, b) => a - b),
      99,
    ),
    errors,
    lost,
    extra,
    acked,
    bytesPerMessage: bytes === undefined || acked === 0 ? undefined : bytes / acked,
    walBytes,
    load: [loadBefore, loadAfter],
  }
}

function ms(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)
}

function renderRun(run: ContentionRun, cfg: ContentionConfig, label: string): string {
  const header = ['role', 'operation', 'calls', 'p50 ms', 'p99 ms', 'max ms']
  const body = run.rows.map((r) => [r.role, r.op, String(r.count), ms(r.p50), ms(r.p99), ms(r.max)])
  const lines = [header, ...body]
  const widths = header.map((_, c) => Math.max(...lines.map((l) => (l[c] as string).length)))
  const fmt = (cells: readonly string[]): string =>
    `| ${cells.map((cell, c) => (c < 2 ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number))).join(' | ')} |`
  const rule = `|${widths.map((w, c) => (c < 2 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`
  const errors = Object.entries(run.errors)
  const busy = run.errors.DATABASE_BUSY ?? 0
  return [
    `${label}: ${cfg.writers} writers, ${cfg.pinners} pinners, ${cfg.readers} reader(s), ${cfg.duration} s, ` +
      `load average ${run.load[0].toFixed(2)} before, ${run.load[1].toFixed(2)} after (${cpus().length} CPUs)`,
    '',
    fmt(header),
    rule,
    ...body.map(fmt),
    '',
    `all calls: p99 ${ms(run.p99)} ms, max ${ms(run.max.ms)} ms (${run.max.what}); target: no call over 500 ms ` +
      `-> ${run.max.ms <= 500 ? 'PASS' : 'MISS'}`,
    `DATABASE_BUSY: ${busy}; other errors: ${
      errors
        .filter(([c]) => c !== 'DATABASE_BUSY')
        .map(([c, n]) => `${n} × ${c}`)
        .join(', ') || 'none'
    }`,
    `lost: ${run.lost} of ${run.acked.toLocaleString('en-US')} acknowledged messages; unacknowledged extra rows: ${run.extra}`,
    `bytes written per acknowledged message (all processes): ${run.bytesPerMessage === undefined ? 'n/a' : Math.round(run.bytesPerMessage).toLocaleString('en-US')}; ` +
      `largest WAL: ${(run.walBytes / 2 ** 20).toFixed(1)} MiB`,
  ].join('\n')
}

/**
 * Runs the contention bench.
 *
 * @param argv - command-line options (see the module comment)
 * @returns the report, one block per run
 */
export async function runContention(argv: readonly string[]): Promise<string> {
  const cfg = parseContentionArgs(argv)
  const scratch = new Scratch()
  const out: string[] = []
  try {
    for (let r = 0; r < cfg.repeat; r++) {
      log(`contention run ${r + 1}/${cfg.repeat}: ${cfg.duration} s, scratch in ${scratch.dir}`)
      const run = await runOnce(scratch, cfg, r)
      out.push(renderRun(run, cfg, `Contention run ${r + 1}/${cfg.repeat}`), '')
    }
  } finally {
    scratch.dispose()
  }
  return out.join('\n')
}
