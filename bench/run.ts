/**
 * `npm run bench` — the library against a raw better-sqlite3 baseline, measured in the same process.
 *
 *   a. append one agent turn (4 messages)  vs  raw INSERT of the same 4 rows + UPDATE sessions, one txn
 *  a2. the same turn as AI SDK ModelMessages vs the Strands turn of (a) (bench/ai-sdk-append.ts)
 *   b. window() of 40 messages            vs  raw `ORDER BY seq DESC LIMIT 40` + JSON.parse
 *   c. append / applyWindow() / window() in a session of LARGE archived messages vs one of 1,000
 *   d. pin / append + applyWindow() / window() at 10,000 and 1,000 pins vs 100 (bench/pins.ts)
 *   e. contention: 3 writer, 2 pinner and 1 reader processes on one file, p50 / p99 / max of every call
 *      (bench/contention.ts; 15 s, 5 s with --quick)
 *   f. bytes written per 4-message turn of a real Strands Agent with our manager, at 200, 2,000 and 10,000
 *      messages of history (bench/strands-variants.ts; 100 turns, 20 with --quick): an absolute count
 *      against the turn's payload, not a same-run ratio — bytes written do not depend on machine noise
 *   g. summarize() (plan + write, trivial summarizer) and window() with a summary in the LARGE session vs
 *      one of 1,000, and that window() vs the raw last 40 rows (bench/summaries.ts)
 *   h. share of each model request's input tokens a prompt cache can serve over a scripted 2,000-turn
 *      Strands conversation (500 with --quick), lowWaterMark 0.75 and 0.5 vs Strands' sliding window
 *      (bench/cache.ts): deterministic, held to the target as measured
 *
 * Usage: `npm run bench [-- --quick] [-- --runs N]`. `--quick` uses 100,000 messages instead of 1,000,000
 * for (c) and (g). Prints medians over runs and same-run ratios; always exits 0 (measured, not asserted).
 * `npm run bench -- --contention [--duration S] [--repeat N] …` runs (e) alone; `--scale` the scale bench;
 * `--postgres [--quick] [--url postgres://…]` the PostgreSQL backend's bench (bench/postgres.ts);
 * `--postgres --search [--quick]` a two-word search over 1,000,000 messages on it (bench/postgres-search.ts).
 * `--recall [--quick]` the full-text index's write cost (rows a and f with and without it) and a two-word
 * search over 1,000,000 messages (bench/recall-cost.ts, bench/recall-search.ts). `--ai-sdk [--quick]
 * [--turns N] [--runs N]` an AI SDK chat, ours against the docs' saveChat and pruneMessages, and row a2
 * (bench/ai-sdk-chat.ts). `--openai-agents [--quick] [--turns N]` an OpenAI Agents session, time and bytes
 * per turn at 200, 2,000 and 10,000 items: ours against the SDK examples' FileSession and its MemorySession
 * (bench/openai-agents.ts). `--langchain [--quick] [--turns N]` a LangChain `createAgent` session with a
 * tool, time and bytes per turn at 200, 2,000 and 10,000 messages: ours (the ledger middleware, with and
 * without a checkpointer) against LangGraph's SqliteSaver, plain and with trimMessages (bench/langchain.ts).
 * `--claude [--postgres] [--quick]` the Claude Agent SDK's session store: append of a 100-entry batch and
 * load of a 10,000-entry session, ours (SQLite, and PostgreSQL with `--postgres`) against the SDK's
 * InMemorySessionStore and the CLI's JSONL files (bench/claude-agent.ts).
 * The flags are read in bench/run-other.ts.
 */
import { openContextStore, PersistentConversationManager, type ContextStore } from '../src/index.js'
import { WAL_CHECKPOINT_BYTES } from '../src/db/open.js'
import { parseOptions } from './args.js'
import { benchModelAppend } from './ai-sdk-append.js'
import { RawBaseline, serialize } from './baseline.js'
import { machine } from './machine.js'
import { runOther } from './run-other.js'
import { benchPins } from './pins.js'
import { fill, FILL_BATCH_TURNS, TurnFactory } from './fixtures.js'
import { benchSummaries } from './summaries.js'
import {
  interleavedRun,
  median,
  pair,
  renderTable,
  Scratch,
  summarize,
  timeAgentLoop,
  type LoopTimings,
  type PairRun,
  type Row,
} from './harness.js'

interface Config {
  quick: boolean
  runs: number
  large: number
}

function parseArgs(argv: readonly string[]): Config {
  const o = parseOptions(argv, { quick: { type: 'flag' }, runs: { type: 'integer', min: 1 } })
  return { quick: o.quick, runs: o.runs ?? 7, large: o.quick ? 100_000 : 1_000_000 }
}

const SMALL = 1_000
const WINDOW = 40

function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

/** (a) append one turn: ours vs raw (serializing) vs raw (pre-serialized rows). */
function benchAppend(scratch: Scratch, cfg: Config): Row[] {
  const store = openContextStore(scratch.file('append.db'))
  const manager = new PersistentConversationManager({ store, sessionId: 'append', windowSize: WINDOW })
  const raw = new RawBaseline(scratch.file('append-raw.db'), WAL_CHECKPOINT_BYTES)
  const ours = new TurnFactory('a', 1)
  const theirs = new TurnFactory('a', 1)
  const strict = new TurnFactory('a', 1)
  manager.append(ours.turns(FILL_BATCH_TURNS))
  raw.append(1, theirs.turns(FILL_BATCH_TURNS))
  raw.append(2, strict.turns(FILL_BATCH_TURNS))
  const iterations = 400
  const vsRaw: PairRun[] = []
  const vsStrict: PairRun[] = []
  for (let r = 0; r < cfg.runs; r++) {
    const a = Array.from({ length: iterations }, () => ours.turn())
    const b = Array.from({ length: iterations }, () => theirs.turn())
    const c = Array.from({ length: iterations }, () => serialize(strict.turn()))
    const [o, t, s] = interleavedRun(iterations, [
      (i) => manager.append(a[i] ?? []),
      (i) => {
        raw.append(1, b[i] ?? [])
      },
      (i) => {
        raw.appendSerialized(2, c[i] ?? [])
      },
    ]) as [number, number, number]
    vsRaw.push(pair(o, t))
    vsStrict.push(pair(o, s))
  }
  store.close()
  raw.close()
  return [
    summarize('append one turn (4 msgs, 1 txn)', vsRaw, 3),
    summarize('append one turn, vs pre-serialized raw rows', vsStrict, undefined),
  ]
}

/** (b) materialize a 40-message window: ours vs raw. */
function benchWindow(scratch: Scratch, cfg: Config): Row {
  const store = openContextStore(scratch.file('window.db'))
  const manager = new PersistentConversationManager({ store, sessionId: 'window', windowSize: WINDOW })
  const raw = new RawBaseline(scratch.file('window-raw.db'), WAL_CHECKPOINT_BYTES)
  fill(manager, new TurnFactory('w', 2), SMALL)
  raw.append(1, new TurnFactory('w', 2).turns(SMALL / 4))
  const size = manager.window().length
  if (size !== WINDOW) log(`note: the window holds ${size} messages, not ${WINDOW}`)
  const iterations = 1000
  const runs: PairRun[] = []
  for (let r = 0; r < cfg.runs; r++) {
    const [o, t] = interleavedRun(iterations, [() => manager.window(), () => raw.lastMessages(1, size)]) as [
      number,
      number,
    ]
    runs.push(pair(o, t))
  }
  store.close()
  raw.close()
  return summarize(`window() of ${size} messages`, runs, 2)
}

/** The large session rows c and g measure, in a file of its own. */
interface LargeSession {
  readonly store: ContextStore
  readonly sessionId: string
  readonly turns: TurnFactory
  /** Its size for row labels, e.g. `1M`. */
  readonly label: string
}

/** Builds the large session of rows c and g: `cfg.large` messages appended in batches of 1,000. */
function buildLarge(scratch: Scratch, cfg: Config): LargeSession {
  const store: ContextStore = openContextStore(scratch.file('flat.db'))
  const large = new PersistentConversationManager({ store, sessionId: 'large', windowSize: WINDOW })
  const turns = new TurnFactory('L', 3)
  log(
    `building a ${cfg.large.toLocaleString('en-US')}-message session (batches of ${FILL_BATCH_TURNS * 4})...`,
  )
  const ms = fill(large, turns, cfg.large)
  log(
    `  built in ${(ms / 1000).toFixed(1)} s (${Math.round(cfg.large / (ms / 1000)).toLocaleString('en-US')} msgs/s), ` +
      `${(scratch.sqliteBytes('flat.db') / 2 ** 20).toFixed(0)} MiB`,
  )
  const label = cfg.large >= 1_000_000 ? `${cfg.large / 1_000_000}M` : `${cfg.large / 1000}k`
  return { store, sessionId: 'large', turns, label }
}

/** (c) flat cost: the same steady-state operations in the LARGE session and in a 1,000-message one. */
function benchFlat(session: LargeSession, cfg: Config): Row[] {
  const { store, label } = session
  const open = (sessionId: string): PersistentConversationManager =>
    new PersistentConversationManager({ store, sessionId, windowSize: WINDOW })
  const large = open(session.sessionId)
  const largeTurns = session.turns
  // A fresh 1,000-message session per run, so the small side stays near 1,000 messages.
  const smalls = Array.from({ length: cfg.runs }, (_, r) => {
    const m = open(`small-${r}`)
    fill(m, new TurnFactory(`S${r}`, 4), SMALL)
    return { m, turns: new TurnFactory(`S${r}x`, 5) }
  })

  // Time the steady state with a token budget that binds before windowSize does, so applyWindow()
  // exercises both cuts: the count walk and the bisection of cum_tokens.
  const stats = store.session('large')
  const perMessage =
    stats === undefined || stats.messageCount === 0 ? 100 : stats.totalTokens / stats.messageCount
  const budget = Math.round(perMessage * (WINDOW - 8))
  const budgeted = (m: PersistentConversationManager): PersistentConversationManager =>
    new PersistentConversationManager({
      store,
      sessionId: m.sessionId,
      windowSize: WINDOW,
      tokenBudget: budget,
    })
  log(`  steady state: windowSize ${WINDOW}, tokenBudget ${budget} (binds first)`)

  const iterations = 100
  const ops = ['append', 'applyWindow', 'window'] as const
  const perRun: Record<(typeof ops)[number], PairRun[]> = { append: [], applyWindow: [], window: [] }
  for (let r = 0; r < cfg.runs; r++) {
    const small = smalls[r] as { m: PersistentConversationManager; turns: TurnFactory }
    const [big, little] = timeAgentLoop(
      [
        { m: budgeted(large), turns: largeTurns },
        { m: budgeted(small.m), turns: small.turns },
      ],
      iterations,
      5,
    ) as [LoopTimings, LoopTimings]
    for (const op of ops) perRun[op].push(pair(median(big[op]), median(little[op])))
  }
  const messages = store.session('large')?.messageCount ?? 0
  const windowSize = large.window().length
  log(`  large session after the runs: ${messages.toLocaleString('en-US')} messages, window ${windowSize}`)
  return [
    summarize(`applyWindow() after a turn: ${label} vs 1k msgs`, perRun.applyWindow, 1.3),
    summarize(`window() (${windowSize} msgs): ${label} vs 1k msgs`, perRun.window, 1.3),
    summarize(`append one turn: ${label} vs 1k msgs`, perRun.append, 1.3),
  ]
}

/**
 * (f) bytes a Strands agent turn writes with our manager, checkpoint included, beside its payload: an
 * absolute count (bytes are deterministic), so one run and no baseline operation.
 */
async function benchStrandsBytes(cfg: Config): Promise<Row[]> {
  // Imported here: the Strands SDK is an optional peer dependency, needed by this row only.
  const { runHistory, TURN_BYTES_TARGET } = await import('./strands-variants.js')
  const rows: Row[] = []
  for (const n of [200, 2_000, 10_000]) {
    const { ours } = await runHistory(['ours'], n, cfg.quick ? 20 : 100)
    const payload = ours.payloadPerTurn ?? Number.NaN
    rows.push({
      operation: `Strands turn, bytes written (absolute): ${n >= 1000 ? `${n / 1000}k` : n} msgs`,
      ours: ours.bytesPerTurn,
      baseline: payload,
      ratio: ours.bytesPerTurn / payload,
      target: TURN_BYTES_TARGET,
      unit: 'bytes',
    })
  }
  return rows
}

/**
 * (h) how much of each model request a provider's prompt cache can serve, with `lowWaterMark` 0.75 and
 * 0.5 against Strands' sliding window, over a scripted conversation (bench/cache.ts): a share of input
 * tokens, deterministic (no timing), held to its target as measured.
 */
async function benchCache(cfg: Config): Promise<Row[]> {
  // Imported here: the Strands SDK is an optional peer dependency.
  const { runCache, cachedShare, CACHE_SHARE_TARGET } = await import('./cache.js')
  const turns = cfg.quick ? 500 : 2_000
  const [sliding, ...ours] = await runCache(turns, [
    { kind: 'sliding' },
    { kind: 'ours', lowWaterMark: 0.75 },
    { kind: 'ours', lowWaterMark: 0.5 },
  ])
  if (sliding === undefined) return []
  const base = cachedShare(sliding)
  return ours.map((r) => ({
    operation: `prompt-cache share, ${turns.toLocaleString('en-US')} turns: lowWaterMark ${'lowWaterMark' in r.variant ? r.variant.lowWaterMark : ''} vs sliding`,
    ours: cachedShare(r),
    baseline: base,
    ratio: cachedShare(r) / base,
    target: CACHE_SHARE_TARGET,
    unit: 'share' as const,
  }))
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2)
  if (await runOther(argv)) return
  const cfg = parseArgs(argv)
  const scratch = new Scratch()
  try {
    log(`context-ledger bench: ${cfg.runs} runs${cfg.quick ? ' (--quick)' : ''}, scratch in ${scratch.dir}`)
    const rows: Row[] = []
    log('a. append one turn...')
    rows.push(...benchAppend(scratch, cfg))
    log('a2. append one AI SDK ModelMessage turn...')
    rows.push(benchModelAppend(scratch, cfg.runs).row)
    log('b. window()...')
    rows.push(benchWindow(scratch, cfg))
    log('c. flat cost...')
    const large = buildLarge(scratch, cfg)
    try {
      rows.push(...benchFlat(large, cfg))
      log('g. summaries: flat cost...')
      rows.push(
        ...(await benchSummaries(large.store, large.sessionId, large.turns, scratch, cfg.runs, large.label)),
      )
    } finally {
      large.store.close()
    }
    log('d. pins...')
    rows.push(...benchPins(scratch, Math.min(cfg.runs, cfg.quick ? 3 : 5)))
    log('f. bytes of a Strands turn...')
    rows.push(...(await benchStrandsBytes(cfg)))
    log('h. prompt cache...')
    rows.push(...(await benchCache(cfg)))
    const out = [
      '',
      `Machine: ${machine()}`,
      `Medians of ${cfg.runs} runs (each the median of 100–1,000 calls). ratio = ours / baseline computed inside each run,`,
      'then the median over runs (so it can differ from the quotient of the two median columns).',
      '',
      renderTable(rows),
      '',
      'Baselines: (a) raw better-sqlite3, same 4 messages: tracking id + JSON.stringify + INSERT each (UNIQUE',
      '(session, seq)) + UPDATE sessions, one transaction; (a2) ours appending the Strands turn of (a), the same',
      'texts as 4 AI SDK ModelMessages (user, assistant + tool-call, tool result, assistant) against it;',
      '(b) raw SELECT ... ORDER BY seq DESC LIMIT n +',
      `JSON.parse; (c) the same operation of ours in a session of 1,000 messages (windowSize ${WINDOW} and a token`,
      'budget that binds first, so applyWindow() runs both the count and the token cut); (d) the same operation',
      'of ours in the same session when it held 100 pins (windowSize 40; every pin brings an evicted message',
      'back, so window() returns every pinned message and grows with them by design); (f) none: bytes written',
      'per 4-message turn of a real Strands Agent (wchar, WAL checkpoint included) are an absolute count,',
      "deterministic, held to the target itself; the baseline column is the turn's payload (the 4 stored JSON",
      'bodies) and the ratio is written / payload; (g) the same operation of ours in a session of 1,000 messages,',
      `and raw ORDER BY seq DESC LIMIT ${WINDOW} + JSON.parse for window() (summary + ${WINDOW - 1} tail); (h) Strands'`,
      'SlidingWindowConversationManager (windowSize 40) over the same conversation: share of input tokens (estimateTokens,',
      "messages only) that repeat a prefix of the previous request's input, target a minimum for ours.",
      'WAL, synchronous=NORMAL on both sides. Targets are the performance goals of the library; this program never fails on a MISS.',
      '',
    ]
    process.stdout.write(out.join('\n'))
    log('e. contention...')
    const { runContention } = await import('./contention.js')
    process.stdout.write(`\n${await runContention(['--duration', cfg.quick ? '5' : '15'])}`)
  } finally {
    scratch.dispose()
  }
}

await main()
