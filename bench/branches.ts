/**
 * `npm run bench -- --branches [--postgres] [--quick]`: what branches cost (issue 26), on SQLite or, with
 * `--postgres`, on PostgreSQL (an embedded server started for the run, or `--url`'s):
 *
 *   fork:   a fork of a 1,000,000-message session (`--quick`: 100,000) against a fork of a 1,000-message
 *           one, at the newest message and at the middle — rows written, bytes written (SQLite: WAL
 *           frames of one page; PostgreSQL: WAL bytes) and time, side by side (medians of `--forks`);
 *   depth:  append one turn, applyWindow() and window() in a branch at depth 1, 10 and 100 (each branch
 *           1,000 messages deep, forked at its parent's newest message) against the same in an
 *           unbranched session of as many messages — same-run ratios, the issue's bar ≤ 1.3× at depth 10;
 *   search: a two-word search in a branch of the 1,000,000-message tree (forked at its middle, depth 1
 *           and depth 10) against the same search in the trunk session and over the whole archive —
 *           p50 / p99 against the 20 ms p50 of today's search (docs/benchmarks.md, "Search at scale").
 *
 * The large session is English-like text (bench/recall-corpus.ts), appended through the store in batches
 * of 1,000 on SQLite, written server-side in batches on PostgreSQL (bench/branch-sides.ts). Always exits
 * 0: measured, not asserted.
 *
 *   npm run bench -- --branches [--postgres [--url postgres://…]] [--quick] [--runs N] [--forks N] [--queries N]
 */
import { corpus, searchTable, twoWordQueries, type Corpus } from './recall-corpus.js'
import { parseOptions } from './args.js'
import { postgresSide, sqliteSide, type BranchSide } from './branch-sides.js'
import { TurnFactory } from './fixtures.js'
import { median, pair, renderTable, Scratch, summarize, type PairRun, type Row } from './harness.js'
import { machine } from './machine.js'
import { takeUrl, withBenchServer } from './postgres-server.js'

/** What to run. */
export interface BranchBenchConfig {
  /** Messages in the large session (forked, and the trunk of the searched tree). */
  readonly large: number
  /** Messages in the small session it is forked against. */
  readonly small: number
  /** Forks measured per session and fork point. */
  readonly forks: number
  /** The depths measured (the chain is as deep as the last). */
  readonly depths: readonly number[]
  /** Messages each branch of the chain (and of the searched branches) appends itself. */
  readonly perBranch: number
  /** Agent-loop turns timed per run and depth. */
  readonly iterations: number
  /** Runs of the agent loop. */
  readonly runs: number
  /** Search queries. */
  readonly queries: number
}

/** A fork's cost: medians over the forks measured. */
export interface ForkCost {
  readonly messages: number
  readonly at: 'newest' | 'middle'
  readonly rows: number
  readonly bytes: number
  readonly pages: number | undefined
  readonly us: number
}

/** Everything one backend measured. */
export interface BranchResults {
  readonly side: string
  readonly forks: ForkCost[]
  readonly depths: Row[]
  readonly search: [string, number[]][]
}

const LIMITS = { windowSize: 40, tokenBudget: undefined, first: 0, last: 0 }

function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

async function micros(fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint()
  await fn()
  return Number(process.hrtime.bigint() - t0) / 1000
}

/** Forks of `sessionId` (of `messages` messages) at one point: medians of rows, bytes and time. */
async function forkCost(
  side: BranchSide,
  sessionId: string,
  messages: number,
  at: 'newest' | 'middle',
  n: number,
) {
  const rows: number[] = []
  const bytes: number[] = []
  const pages: number[] = []
  const times: number[] = []
  const atSeq = at === 'newest' ? messages - 1 : Math.floor(messages / 2)
  for (let i = 0; i < n; i++) {
    const before = await side.settle()
    times.push(
      await micros(() => side.store.fork(sessionId, { atSeq, newSessionId: `${sessionId}-${at}-${i}` })),
    )
    const after = await side.written()
    rows.push(after.rows - before.rows)
    bytes.push(after.bytes - before.bytes)
    if (after.pages !== undefined) pages.push(after.pages - (before.pages ?? 0))
  }
  return {
    messages,
    at,
    rows: median(rows),
    bytes: median(bytes),
    pages: pages.length === 0 ? undefined : median(pages),
    us: median(times),
  }
}

/** Appends `n` messages of turns to a session in batches of up to 1,000, the window applied after each. */
async function grow(side: BranchSide, sessionId: string, turns: TurnFactory, n: number): Promise<void> {
  for (let done = 0; done < n; done += 1_000) {
    await side.store.append(sessionId, turns.turns(Math.ceil(Math.min(1_000, n - done) / 4)))
    await side.store.applyWindow(sessionId, LIMITS)
  }
}

/** The agent loop in a branch at each depth against an unbranched session as long. */
async function depthCost(side: BranchSide, cfg: BranchBenchConfig): Promise<Row[]> {
  const deepest = Math.max(...cfg.depths)
  let count = 0
  await grow(side, 'chain-0', new TurnFactory('c0', 11), cfg.perBranch)
  count += Math.ceil(cfg.perBranch / 4) * 4
  for (let d = 1; d <= deepest; d++) {
    await side.store.fork(`chain-${d - 1}`, { atSeq: count - 1, newSessionId: `chain-${d}` })
    await grow(side, `chain-${d}`, new TurnFactory(`c${d}`, 11 + d), cfg.perBranch)
    count += Math.ceil(cfg.perBranch / 4) * 4
  }
  for (const d of cfg.depths)
    await grow(side, `flat-${d}`, new TurnFactory(`f${d}`, 50 + d), cfg.perBranch * (d + 1))
  log(
    `  a chain of ${deepest} branches (${count.toLocaleString('en-US')} messages at its end) and unbranched sessions`,
  )
  const ops = ['append', 'applyWindow', 'window'] as const
  const runs = new Map<string, PairRun[]>()
  const factories = new Map(
    cfg.depths.flatMap((d) => [
      [`chain-${d}`, new TurnFactory(`x${d}`, 7)],
      [`flat-${d}`, new TurnFactory(`y${d}`, 8)],
    ]),
  )
  const loop = async (id: string, t: Record<(typeof ops)[number], number[]>): Promise<void> => {
    const turn = (factories.get(id) as TurnFactory).turn()
    t.append.push(await micros(() => side.store.append(id, turn)))
    t.applyWindow.push(await micros(() => side.store.applyWindow(id, LIMITS)))
    t.window.push(await micros(() => side.store.window(id)))
  }
  for (let r = 0; r < cfg.runs; r++)
    for (const d of cfg.depths) {
      const branch = { append: [], applyWindow: [], window: [] }
      const flat = { append: [], applyWindow: [], window: [] }
      for (let i = 0; i < cfg.iterations; i++)
        for (const [id, t] of i % 2 === 0
          ? ([
              [`chain-${d}`, branch],
              [`flat-${d}`, flat],
            ] as const)
          : ([
              [`flat-${d}`, flat],
              [`chain-${d}`, branch],
            ] as const))
          await loop(id, t)
      for (const op of ops) {
        const key = `${op}-${d}`
        runs.set(key, [...(runs.get(key) ?? []), pair(median(branch[op]), median(flat[op]))])
      }
    }
  return cfg.depths.flatMap((d) =>
    ops.map((op) =>
      summarize(
        `${op === 'append' ? 'append one turn' : `${op}()`}: branch at depth ${d} vs unbranched, ${(cfg.perBranch * (d + 1)).toLocaleString('en-US')} msgs`,
        runs.get(`${op}-${d}`) ?? [],
        d <= 10 ? 1.3 : undefined,
      ),
    ),
  )
}

/** Two-word searches in branches of the large tree, in its trunk and over the whole archive. */
async function searchCost(
  side: BranchSide,
  cfg: BranchBenchConfig,
  c: Corpus,
): Promise<[string, number[]][]> {
  const middle = Math.floor(cfg.large / 2)
  const text = (i: number): { role: 'user' | 'assistant'; content: { text: string }[] } => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: [{ text: c.sentence(20 + (i % 30)) }],
  })
  await side.store.fork('large', { atSeq: middle - 1, newSessionId: 'search-1' })
  let count = middle
  for (let d = 1; d <= 10; d++) {
    if (d > 1) await side.store.fork(`search-${d - 1}`, { atSeq: count - 1, newSessionId: `search-${d}` })
    const own = d === 1 ? cfg.perBranch : Math.ceil(cfg.perBranch / 10)
    await side.store.append(
      `search-${d}`,
      Array.from({ length: own }, (_, k) => text(count + k)),
    )
    await side.store.applyWindow(`search-${d}`, LIMITS)
    count += own
  }
  const queries = await twoWordQueries(c, cfg.queries, async (x) => {
    const [e] = await side.store.history('large', { fromSeq: Math.floor(x * middle), limit: 1 })
    const block = e?.message.content[0]
    return block !== undefined && 'text' in block ? block.text : ''
  })
  const kinds: [string, { sessionId?: string }][] = [
    ['two words said together, whole archive', {}],
    [`the same, the trunk session (${cfg.large.toLocaleString('en-US')} msgs)`, { sessionId: 'large' }],
    ['the same, a branch forked at its middle (depth 1)', { sessionId: 'search-1' }],
    ['the same, a branch at depth 10', { sessionId: 'search-10' }],
  ]
  // Warm the cache as a long-running process has it.
  for (const q of queries.slice(0, 20)) for (const [, o] of kinds) await side.store.search(q, o)
  const times = kinds.map((): number[] => [])
  for (const q of queries)
    for (const [k, [, o]] of kinds.entries())
      times[k]?.push((await micros(() => side.store.search(q, o))) / 1000)
  return kinds.map(([name], k) => [name, times[k] ?? []])
}

/**
 * Measures every part on one backend.
 *
 * @param side - the backend
 * @param cfg - the sizes
 * @returns the results
 */
export async function measureBranches(side: BranchSide, cfg: BranchBenchConfig): Promise<BranchResults> {
  const c = corpus(7)
  log(`${side.name}: filling a ${cfg.large.toLocaleString('en-US')}-message session...`)
  const t0 = performance.now()
  await side.fill('large', (i) => c.sentence(20 + (i % 30)), cfg.large)
  log(`  in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  await side.fill('small', (i) => c.sentence(20 + (i % 30)), cfg.small)
  log('fork cost...')
  const forks: ForkCost[] = []
  for (const at of ['newest', 'middle'] as const) {
    forks.push(await forkCost(side, 'large', cfg.large, at, cfg.forks))
    forks.push(await forkCost(side, 'small', cfg.small, at, cfg.forks))
  }
  log('search in branches...')
  const search = await searchCost(side, cfg, c)
  log('the agent loop at depth...')
  const depths = await depthCost(side, cfg)
  return { side: side.name, forks, depths, search }
}

/**
 * The report: the fork table, the depth ratios and the search table.
 *
 * @param r - what was measured
 * @param cfg - the sizes
 * @returns markdown
 */
export function renderBranches(r: BranchResults, cfg: BranchBenchConfig): string {
  const large = cfg.large.toLocaleString('en-US')
  const small = cfg.small.toLocaleString('en-US')
  const cell = (f: ForkCost | undefined, k: 'rows' | 'bytes' | 'us'): string => {
    if (f === undefined) return '—'
    if (k === 'rows') return String(f.rows)
    if (k === 'us') return `${f.us >= 100 ? f.us.toFixed(0) : f.us.toFixed(1)} µs`
    return `${(f.bytes / 1024).toFixed(1)} KB${f.pages === undefined ? '' : ` (${f.pages} pages)`}`
  }
  const lines = ['| fork | ' + `${large} msgs | ${small} msgs | ratio |`, '|---|---:|---:|---:|']
  for (const at of ['newest', 'middle'] as const) {
    const big = r.forks.find((f) => f.at === at && f.messages === cfg.large)
    const little = r.forks.find((f) => f.at === at && f.messages === cfg.small)
    for (const k of ['rows', 'bytes', 'us'] as const) {
      const name = {
        rows: 'rows written',
        bytes: r.side === 'SQLite' ? 'bytes written (WAL)' : 'WAL bytes',
        us: 'time',
      }[k]
      const a = big?.[k] ?? Number.NaN
      const b = little?.[k] ?? Number.NaN
      lines.push(
        `| ${name}, at the ${at} message | ${cell(big, k)} | ${cell(little, k)} | ${(a / b).toFixed(2)}× |`,
      )
    }
  }
  return [
    '',
    `Branches on ${r.side}. Machine: ${machine()}`,
    '',
    `Fork (medians of ${cfg.forks} forks each):`,
    '',
    ...lines,
    '',
    `The agent loop in a branch (each branch ${cfg.perBranch.toLocaleString('en-US')} messages deep) vs an unbranched session of as many messages (medians of ${cfg.runs} runs of ${cfg.iterations} turns; windowSize 40):`,
    '',
    renderTable(r.depths),
    '',
    `Two-word search, ${cfg.queries} queries, limit 20:`,
    '',
    ...searchTable(r.search),
    '',
  ].join('\n')
}

/**
 * Runs the bench.
 *
 * @param argv - `--postgres`, `--url`, `--quick`, `--runs N`, `--forks N`, `--queries N`
 * @returns the report
 */
export async function runBranches(argv: readonly string[]): Promise<string> {
  const { url, rest } = takeUrl(argv.filter((a) => a !== '--postgres'))
  const o = parseOptions(rest, {
    quick: { type: 'flag' },
    runs: { type: 'integer', min: 1 },
    forks: { type: 'integer', min: 1 },
    queries: { type: 'integer', min: 1 },
  })
  const cfg: BranchBenchConfig = {
    large: o.quick ? 100_000 : 1_000_000,
    small: 1_000,
    forks: o.forks ?? 7,
    depths: [1, 10, 100],
    perBranch: 1_000,
    iterations: o.quick ? 30 : 100,
    runs: o.runs ?? (o.quick ? 3 : 5),
    queries: o.queries ?? (o.quick ? 50 : 200),
  }
  if (!argv.includes('--postgres')) {
    const scratch = new Scratch()
    const side = sqliteSide(scratch)
    try {
      return renderBranches(await measureBranches(side, cfg), cfg)
    } finally {
      await side.close()
      scratch.dispose()
    }
  }
  return withBenchServer(url, async (admin) => {
    const side = await postgresSide(admin)
    try {
      return renderBranches(await measureBranches(side, cfg), cfg)
    } finally {
      await side.close()
    }
  })
}
