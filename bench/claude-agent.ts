/**
 * `npm run bench -- --claude [--postgres]`: the Claude Agent SDK's session store calls, ours against the
 * SDK's `InMemorySessionStore` and against the CLI's own JSONL files (bench/claude-agent-sides.ts), on
 * realistic transcript entries made from a recorded real-CLI session (bench/claude-agent-fixtures.ts,
 * ~0.7 KB of JSON an entry):
 *
 *   append: one `append(key, entries)` of a 100-entry batch into a session already holding 1,000
 *           entries — `--appends` measured batches (default 30) after 3 warm-up ones, the sides in
 *           rotating order batch by batch, a full garbage collection and a 25 ms pause (untimed) before
 *           every call, the event loop's next turn inside the timing (where the ledger indexes for
 *           search); time p50 / p95 and bytes written per batch;
 *   load:   one `load(key)` of a 10,000-entry session (filled untimed in 100-entry batches) — `--loads`
 *           measured loads (default 15) after 2 warm-up ones, rotating; time p50 / p95, the session's
 *           size on disk, and what a load wrote (ours: nothing). Every side's load must return the
 *           entries appended, deep-equal, or the bench stops.
 *
 * Ratios are ours ÷ each other side, from the same run. `--postgres` adds ours on PostgreSQL (an embedded
 * server started for the run, or `--url`'s). `--quick`: 10 appends and 5 loads.
 * Always exits 0: measured, not asserted.
 *
 *   npx tsx bench/claude-agent.ts [--postgres [--url postgres://…]] [--quick] [--appends N] [--loads N]
 */
import { mkdirSync } from 'node:fs'
import { loadavg } from 'node:os'
import { isDeepStrictEqual } from 'node:util'
import { pathToFileURL } from 'node:url'
import type { SessionKey } from '@anthropic-ai/claude-agent-sdk'
import { createDatabase } from '../test/postgres/server.js'
import { parseOptions } from './args.js'
import { ClaudeEntries } from './claude-agent-fixtures.js'
import { renderClaude } from './claude-agent-report.js'
import { CLAUDE_SIDES, openClaudeSide, type ClaudeSide, type ClaudeSideKey } from './claude-agent-sides.js'
import { median, Scratch } from './harness.js'
import { takeUrl, withBenchServer } from './postgres-server.js'
import { gc, nextTick, percentile, settle } from './turn-timing.js'

/** What to run. */
export interface ClaudeBenchConfig {
  /** Entries per appended batch. */
  readonly batch: number
  /** Entries already in the session the batches are appended to. */
  readonly history: number
  /** Entries in the session that is loaded. */
  readonly loadSize: number
  /** Measured appends per side. */
  readonly appends: number
  /** Measured loads per side. */
  readonly loads: number
  /** Untimed calls before the measured ones. */
  readonly warmup: number
  /** The sides, in report order. */
  readonly sides: readonly ClaudeSideKey[]
  /** The PostgreSQL server's admin URL, when `postgres` is a side. */
  readonly pgAdmin?: string
}

/** What one side measured. */
export interface ClaudeCell {
  /** The side. */
  readonly key: ClaudeSideKey
  /** Median µs per call. */
  readonly p50: number
  /** 95th percentile µs per call. */
  readonly p95: number
  /** Mean bytes written per call (undefined: the side writes nothing). */
  readonly bytes: number | undefined
  /** Bytes on disk after the phase (undefined: nothing on disk). */
  readonly size: number | undefined
}

/** Both phases' cells, and the entries' mean size. */
export interface ClaudeResults {
  readonly append: ClaudeCell[]
  readonly load: ClaudeCell[]
  /** Mean bytes of an entry as compact JSON. */
  readonly entryBytes: number
}

const KEY: SessionKey = {
  projectKey: '-home-user-project',
  sessionId: 'b0c0e1a2-0000-4000-8000-000000000001',
}

/** The sides of a phase, and how to release them. */
interface Opened {
  readonly sides: ClaudeSide[]
  /** Closes them and drops the phase's database. */
  close(): Promise<void>
}

/** Opens every side on fresh storage: a folder of the phase's own, or a new database. */
async function openSides(cfg: ClaudeBenchConfig, scratch: Scratch, phase: string): Promise<Opened> {
  const sides: ClaudeSide[] = []
  const drops: (() => Promise<void>)[] = []
  for (const key of cfg.sides) {
    let where = scratch.file(`${phase}-${key}`)
    if (key === 'postgres') {
      if (cfg.pgAdmin === undefined) throw new Error('the postgres side needs a server (--postgres)')
      const db = await createDatabase(cfg.pgAdmin)
      drops.push(db.drop)
      where = db.url
    } else mkdirSync(where)
    sides.push(await openClaudeSide(key, where, KEY))
  }
  return {
    sides,
    close: async () => {
      for (const s of sides) await s.close()
      for (const drop of drops) await drop()
    },
  }
}

/** Fills every side with the same `n` entries, in batches; returns them. */
async function fill(sides: readonly ClaudeSide[], n: number, batch: number, gens: ClaudeEntries[]) {
  let entries: ReturnType<ClaudeEntries['next']> = []
  for (const [i, side] of sides.entries()) {
    const all = (gens[i] as ClaudeEntries).next(n)
    for (let at = 0; at < all.length; at += batch) await side.store.append(KEY, all.slice(at, at + batch))
    entries = all
  }
  return entries
}

interface Tally {
  readonly times: number[]
  bytes: number
}

/** Times `call` on each side in rotating order, `rounds` times after `warmup` untimed rounds. */
async function rotate(
  sides: readonly ClaudeSide[],
  rounds: number,
  warmup: number,
  call: (side: ClaudeSide, i: number) => Promise<void>,
): Promise<Tally[]> {
  const tallies: Tally[] = sides.map(() => ({ times: [], bytes: 0 }))
  for (let r = 0; r < warmup + rounds; r++) {
    if (r === warmup) for (const s of sides) await s.checkpoint()
    for (let j = 0; j < sides.length; j++) {
      const i = (r + j) % sides.length
      const side = sides[i] as ClaudeSide
      gc()
      await settle()
      const w0 = (await side.written()) ?? 0
      const t0 = process.hrtime.bigint()
      await call(side, i)
      await nextTick()
      const elapsed = Number(process.hrtime.bigint() - t0) / 1000
      const w1 = (await side.written()) ?? 0
      if (r < warmup) continue
      ;(tallies[i] as Tally).times.push(elapsed)
      ;(tallies[i] as Tally).bytes += w1 - w0
    }
  }
  for (const [i, side] of sides.entries()) {
    const w0 = (await side.written()) ?? 0
    await side.checkpoint()
    ;(tallies[i] as Tally).bytes += ((await side.written()) ?? 0) - w0
  }
  return tallies
}

async function cells(sides: readonly ClaudeSide[], tallies: readonly Tally[], calls: number) {
  const out: ClaudeCell[] = []
  for (const [i, side] of sides.entries()) {
    const t = tallies[i] as Tally
    const writes = (await side.written()) !== undefined
    out.push({
      key: side.key,
      p50: median(t.times),
      p95: percentile(t.times, 0.95),
      bytes: writes ? t.bytes / calls : undefined,
      size: await side.size(),
    })
  }
  return out
}

/** The append phase: 100-entry batches into a session of `history` entries. */
async function measureAppend(cfg: ClaudeBenchConfig, scratch: Scratch): Promise<ClaudeCell[]> {
  const opened = await openSides(cfg, scratch, 'append')
  const { sides } = opened
  try {
    const gens = sides.map(() => new ClaudeEntries(KEY.sessionId))
    await fill(sides, cfg.history, cfg.batch, gens)
    const rounds = cfg.warmup + cfg.appends
    // Every batch made before the timing; each side gets the same entries, its own copies.
    const batches = gens.map((g) => Array.from({ length: rounds }, () => g.next(cfg.batch)))
    let round = 0
    const tallies = await rotate(sides, cfg.appends, cfg.warmup, async (side, i) => {
      await side.store.append(KEY, batches[i]?.[Math.floor(round++ / sides.length)] ?? [])
    })
    return await cells(sides, tallies, cfg.appends)
  } finally {
    await opened.close()
  }
}

/** The load phase: the whole `loadSize`-entry session, read back. */
async function measureLoad(cfg: ClaudeBenchConfig, scratch: Scratch): Promise<ClaudeCell[]> {
  const opened = await openSides(cfg, scratch, 'load')
  const { sides } = opened
  try {
    const appended = await fill(
      sides,
      cfg.loadSize,
      cfg.batch,
      sides.map(() => new ClaudeEntries(KEY.sessionId)),
    )
    for (const side of sides)
      if (!isDeepStrictEqual(await side.store.load(KEY), appended))
        throw new Error(
          `${CLAUDE_SIDES[side.key]}: load() did not return the ${cfg.loadSize} entries appended`,
        )
    const tallies = await rotate(sides, cfg.loads, Math.min(cfg.warmup, 2), async (side) => {
      const loaded = await side.store.load(KEY)
      if (loaded?.length !== cfg.loadSize) throw new Error(`${side.key}: load() returned ${loaded?.length}`)
    })
    return await cells(sides, tallies, cfg.loads)
  } finally {
    await opened.close()
  }
}

/**
 * Both phases on every side.
 *
 * @param cfg - what to run
 * @param scratch - where the files go
 * @returns the cells
 */
export async function measureClaude(cfg: ClaudeBenchConfig, scratch: Scratch): Promise<ClaudeResults> {
  const sample = new ClaudeEntries(KEY.sessionId).next(1200)
  const entryBytes = sample.reduce((s, e) => s + Buffer.byteLength(JSON.stringify(e)), 0) / sample.length
  process.stderr.write(`append: ${cfg.appends} batches of ${cfg.batch} entries per side...\n`)
  const append = await measureAppend(cfg, scratch)
  process.stderr.write(
    `load: ${cfg.loads} loads of ${cfg.loadSize.toLocaleString('en-US')} entries per side...\n`,
  )
  const load = await measureLoad(cfg, scratch)
  return { append, load, entryBytes }
}

/**
 * Reads the options of `npm run bench -- --claude`.
 *
 * @param argv - `--postgres`, `--quick`, `--appends N`, `--loads N` (`--url` is taken out before)
 * @returns the configuration, without the server
 */
export function claudeConfig(argv: readonly string[]): ClaudeBenchConfig {
  const o = parseOptions(argv, {
    postgres: { type: 'flag' },
    quick: { type: 'flag' },
    appends: { type: 'integer', min: 2 },
    loads: { type: 'integer', min: 2 },
  })
  return {
    batch: 100,
    history: 1_000,
    loadSize: 10_000,
    appends: o.appends ?? (o.quick ? 10 : 30),
    loads: o.loads ?? (o.quick ? 5 : 15),
    warmup: 3,
    sides: ['jsonl', 'memory', 'sqlite', ...(o.postgres ? (['postgres'] as const) : [])],
  }
}

/**
 * `npm run bench -- --claude [--postgres]`: every side, both phases.
 *
 * @param argv - the options
 * @returns the report
 */
export async function runClaude(argv: readonly string[]): Promise<string> {
  const { url, rest } = takeUrl(argv)
  const cfg = claudeConfig(rest)
  const load0 = loadavg()[0] ?? 0
  const scratch = new Scratch()
  try {
    const run = async (pgAdmin?: string) => {
      const full = { ...cfg, ...(pgAdmin === undefined ? {} : { pgAdmin }) }
      return renderClaude(await measureClaude(full, scratch), full, [load0, loadavg()[0] ?? 0])
    }
    return cfg.sides.includes('postgres') ? await withBenchServer(url, run) : await run()
  } finally {
    scratch.dispose()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  process.stdout.write(await runClaude(process.argv.slice(2)))
