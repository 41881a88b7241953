/**
 * What a Strands user pays per agent turn, ours against the two setups Strands offers. A real `Agent`
 * with the scripted model runs turns of four messages (prompt, tool call, tool result, answer) on top of
 * a history of 200, 2,000 and 10,000 messages, with:
 *
 *   (a) ours:    context-ledger's PersistentConversationManager (windowSize 40) on a SQLite file;
 *   (b) sliding: Strands' SlidingWindowConversationManager (windowSize 40) + SessionManager on
 *                LocalFileStorage — bounded, but trimmed messages are gone;
 *   (c) full:    NullConversationManager + SessionManager on LocalFileStorage — the whole history kept,
 *                and rewritten as one snapshot every turn.
 *
 * Per turn: median wall time, and bytes the process wrote during the turn (`wchar` of /proc/self/io;
 * file-size growth where /proc is missing), for ours including a WAL checkpoint after the measured turns. The three variants run over the same history turn by turn in
 * rotating order, so noise on a shared machine falls on all of them alike. Ratios come from this one run.
 *
 *   npx tsx bench/strands.ts            # 100 measured turns per cell
 *   npx tsx bench/strands.ts --quick    # 20 turns, 200 and 2,000 messages only
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import {
  Agent,
  NullConversationManager,
  SessionManager,
  SlidingWindowConversationManager,
} from '@strands-agents/sdk'
import type { ConversationManager, MessageData as StrandsMessageData } from '@strands-agents/sdk'
import { LocalFileStorage } from '@strands-agents/sdk/storage'
import { openContextStore, PersistentConversationManager as LedgerManager } from '../src/index.js'
import { PersistentConversationManager } from '../src/adapters/strands/index.js'
import { ScriptedModel } from '../examples/strands-scripted-model.js'
import { parseOptions } from './args.js'
import { median } from './harness.js'
import { wchar } from './machine.js'
import { history, lookup, script } from './strands-turns.js'

const { quick } = parseOptions(process.argv.slice(2), { quick: { type: 'flag' } })
const HISTORIES = quick ? [200, 2_000] : [200, 2_000, 10_000]
const TURNS = quick ? 20 : 100
const WARMUP_TURNS = 5
const WINDOW = 40

type Variant = 'ours' | 'sliding' | 'full'
const VARIANTS: readonly Variant[] = ['ours', 'sliding', 'full']
const LABEL: Record<Variant, string> = {
  ours: '(a) context-ledger',
  sliding: '(b) Strands sliding window + session',
  full: '(c) Strands full history + session',
}

interface Cell {
  msPerTurn: number
  bytesPerTurn: number
  growthPerTurn: number
  agentMessages: number
  archived: number
}

function dirBytes(path: string): number {
  let total = 0
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name)
    total += entry.isDirectory() ? dirBytes(full) : statSync(full).size
  }
  return total
}

/** One variant set up over a history of `n` messages, ready to run turns. */
interface Setup {
  readonly agent: Agent
  readonly dir: string
  archived(): number
  /** Copies the WAL into the database file (ours); nothing for the others. */
  checkpoint(): void
  close(): void
}

function setup(variant: Variant, n: number): Setup {
  const dir = mkdtempSync(join(tmpdir(), `context-ledger-bench-${variant}-`))
  const seed = history(n)
  let conversationManager: ConversationManager
  let sessionManager: SessionManager | undefined
  let messages: StrandsMessageData[] | undefined
  let close = (): void => {}
  let checkpoint = (): void => {}
  let archived: (() => number) | undefined
  if (variant === 'ours') {
    const store = openContextStore(join(dir, 'ledger.db'))
    // The history is already in the session, as after a long-running agent.
    const core = new LedgerManager({ store, sessionId: 'bench', windowSize: WINDOW })
    core.append(seed)
    core.applyWindow()
    conversationManager = new PersistentConversationManager({ store, sessionId: 'bench', windowSize: WINDOW })
    close = () => {
      store.close()
    }
    checkpoint = () => void store.connection().pragma('wal_checkpoint(TRUNCATE)')
    archived = () => store.session('bench')?.messageCount ?? 0
  } else {
    conversationManager =
      variant === 'sliding'
        ? new SlidingWindowConversationManager({ windowSize: WINDOW })
        : new NullConversationManager()
    sessionManager = new SessionManager({ sessionId: 'bench', storage: new LocalFileStorage(dir) })
    messages = seed as unknown as StrandsMessageData[]
  }
  const agent = new Agent({
    model: new ScriptedModel({ script }),
    tools: [lookup],
    conversationManager,
    ...(sessionManager === undefined ? {} : { sessionManager }),
    ...(messages === undefined ? {} : { messages }),
    printer: false,
  })
  return {
    agent,
    dir,
    // Strands keeps exactly what is in agent.messages (and in its snapshot).
    archived: archived ?? (() => agent.messages.length),
    checkpoint,
    close: () => {
      close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * Runs the three variants over the same history, turn by turn in rotating order, so that noise from the
 * shared machine (GC, other processes) falls on all of them alike.
 */
async function runHistory(n: number, turns: number): Promise<Record<Variant, Cell>> {
  const setups = VARIANTS.map((v) => setup(v, n))
  for (const s of setups) {
    for (let i = 0; i < WARMUP_TURNS; i++) await s.agent.invoke(`ask warmup ${i}`)
    s.checkpoint()
  }
  const times = setups.map(() => [] as number[])
  const bytes = setups.map(() => 0)
  const sizes0 = setups.map((s) => dirBytes(s.dir))
  const proc = wchar() !== undefined
  for (let t = 0; t < turns; t++) {
    for (let k = 0; k < setups.length; k++) {
      const i = (t + k) % setups.length
      const s = setups[i] as Setup
      const w0 = wchar()
      const t0 = performance.now()
      await s.agent.invoke(`ask question ${t}`)
      ;(times[i] as number[]).push(performance.now() - t0)
      const w1 = wchar()
      if (w0 !== undefined && w1 !== undefined) bytes[i] = (bytes[i] as number) + (w1 - w0)
    }
  }
  // SQLite writes each page twice: to the WAL at commit, and to the database file at the next checkpoint.
  // Checkpointing now (every 100 turns, more often than the store would) charges the second write too.
  setups.forEach((s, i) => {
    const w0 = wchar()
    s.checkpoint()
    const w1 = wchar()
    if (w0 !== undefined && w1 !== undefined) bytes[i] = (bytes[i] as number) + (w1 - w0)
  })
  const out = {} as Record<Variant, Cell>
  setups.forEach((s, i) => {
    const growth = (dirBytes(s.dir) - (sizes0[i] as number)) / turns
    out[VARIANTS[i] as Variant] = {
      msPerTurn: median(times[i] as number[]),
      bytesPerTurn: proc ? (bytes[i] as number) / turns : growth,
      growthPerTurn: growth,
      agentMessages: s.agent.messages.length,
      archived: s.archived(),
    }
    s.close()
  })
  return out
}

function kb(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(2)} MB` : `${(bytes / 1024).toFixed(1)} KB`
}

async function main(): Promise<void> {
  // One short pass of every variant first, so no variant pays for the JIT warming up.
  await runHistory(200, 10)
  const source = existsSync('/proc/self/io') ? 'wchar from /proc/self/io' : 'file-size growth'
  console.log(`Strands agent turn (4 messages, 1 tool call), ${TURNS} turns per cell; bytes = ${source}\n`)
  const rows: string[][] = [['history', 'variant', 'ms/turn', 'written/turn', 'messages kept', 'ratio']]
  for (const n of HISTORIES) {
    const cells = await runHistory(n, TURNS)
    const timeRatio = cells.ours.msPerTurn / cells.sliding.msPerTurn
    const bytesRatio = cells.full.bytesPerTurn / cells.ours.bytesPerTurn
    for (const v of VARIANTS) {
      const c = cells[v]
      rows.push([
        v === 'ours' ? n.toLocaleString('en-US') : '',
        LABEL[v],
        c.msPerTurn.toFixed(2),
        kb(c.bytesPerTurn),
        v === 'ours'
          ? `${c.archived.toLocaleString('en-US')} (window ${c.agentMessages})`
          : c.archived.toLocaleString('en-US'),
        v === 'ours'
          ? ''
          : v === 'sliding'
            ? `time (a)/(b) = ${timeRatio.toFixed(2)}×`
            : `bytes (c)/(a) = ${bytesRatio.toFixed(1)}×`,
      ])
    }
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? []
  const line = (r: string[]): string => `| ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`
  console.log(line(rows[0] as string[]))
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`)
  for (const r of rows.slice(1)) console.log(line(r))
}

await main()
