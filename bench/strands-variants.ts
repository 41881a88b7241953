/**
 * The setups a Strands agent turn is measured with, and the measurement itself, shared by
 * `bench/strands.ts` (every variant, time and bytes) and `npm run bench` (bytes of ours only). A real
 * `Agent` with the scripted model runs the turn of `strands-turns.ts` (prompt, tool call, tool result,
 * answer) on top of a history of `n` messages, with:
 *
 *   ours:        context-ledger's PersistentConversationManager (windowSize 40) on a SQLite file, with
 *                the default `durability: 'invocation'` (a turn's messages and window in one transaction);
 *   oursMessage: the same with `durability: 'message'` (one transaction per message, then the window);
 *   sliding:     Strands' SlidingWindowConversationManager (windowSize 40) + SessionManager on
 *                LocalFileStorage — bounded, but trimmed messages are gone;
 *   full:        NullConversationManager + SessionManager on LocalFileStorage — the whole history kept,
 *                and rewritten as one snapshot every turn.
 *
 * Per turn: median wall time, and bytes the process wrote during the turn (`wchar` of /proc/self/io;
 * file-size growth where /proc is missing), for ours including a WAL checkpoint after the measured turns.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import {
  Agent,
  NullConversationManager,
  SessionManager,
  SlidingWindowConversationManager,
} from '@strands-agents/sdk'
import type { MessageData as StrandsMessageData } from '@strands-agents/sdk'
import { LocalFileStorage } from '@strands-agents/sdk/storage'
import { openContextStore, PersistentConversationManager as LedgerManager } from '../src/index.js'
import type { ContextStore } from '../src/index.js'
import { PersistentConversationManager } from '../src/adapters/strands/index.js'
import { ScriptedModel } from '../examples/strands-scripted-model.js'
import { median } from './harness.js'
import { wchar } from './machine.js'
import { history, lookup, script } from './strands-turns.js'

/** The window of every variant. */
export const WINDOW = 40

/** Untimed turns each variant runs before the measured ones. */
const WARMUP_TURNS = 5

/** Target for ours: bytes written per 4-message turn (~1.1 KB of JSON here), checkpoint included. */
export const TURN_BYTES_TARGET = 25 * 1024

export type Variant = 'ours' | 'oursMessage' | 'sliding' | 'full'

export const LABEL: Record<Variant, string> = {
  ours: '(a) context-ledger',
  oursMessage: "(a') context-ledger, durability 'message'",
  sliding: '(b) Strands sliding window + session',
  full: '(c) Strands full history + session',
}

/** What one variant measured over one history. */
export interface Cell {
  /** Median wall time of a turn. */
  readonly msPerTurn: number
  /** Bytes the process wrote per turn (`wchar`; file growth without /proc), ours with its checkpoint. */
  readonly bytesPerTurn: number
  /** Growth of the variant's directory per turn. */
  readonly growthPerTurn: number
  /** Messages the agent holds after the turns. */
  readonly agentMessages: number
  /** Messages the variant keeps (ours: the whole session). */
  readonly archived: number
  /** Ours: bytes of the JSON bodies the measured turns stored, per turn; undefined for Strands'. */
  readonly payloadPerTurn: number | undefined
}

function dirBytes(path: string): number {
  let total = 0
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name)
    total += entry.isDirectory() ? dirBytes(full) : statSync(full).size
  }
  return total
}

/** Bytes of the bodies of a session's messages from `seq` on, as stored. */
function storedBytes(store: ContextStore, sessionId: string, seq: number): number {
  return store
    .connection()
    .prepare<[string, number], number>(
      `SELECT coalesce(sum(length(CAST(m.body AS BLOB))), 0) FROM messages m
       JOIN sessions s ON s.pk = m.session WHERE s.id = ? AND m.seq >= ?`,
    )
    .pluck()
    .get(sessionId, seq) as number
}

/** One variant set up over a history of `n` messages, ready to run turns. */
interface Setup {
  readonly agent: Agent
  readonly dir: string
  archived(): number
  /** Copies the WAL into the database file (ours); nothing for the others. */
  checkpoint(): void
  /** Ours: bytes of the bodies stored since `mark()`; undefined for Strands'. */
  payloadSinceMark(): number | undefined
  /** Notes where the measured turns start. */
  mark(): void
  close(): void
}

function setup(variant: Variant, n: number, prepare?: (store: ContextStore) => void): Setup {
  const dir = mkdtempSync(join(tmpdir(), `context-ledger-bench-${variant}-`))
  const seed = history(n)
  const base = { model: new ScriptedModel({ script }), tools: [lookup], printer: false }
  const remove = (): void => {
    rmSync(dir, { recursive: true, force: true })
  }
  if (variant === 'ours' || variant === 'oursMessage') {
    const store = openContextStore(join(dir, 'ledger.db'))
    prepare?.(store)
    // The history is already in the session, as after a long-running agent.
    const core = new LedgerManager({ store, sessionId: 'bench', windowSize: WINDOW })
    core.append(seed)
    core.applyWindow()
    const durability = variant === 'ours' ? 'invocation' : 'message'
    const agent = new Agent({
      ...base,
      conversationManager: new PersistentConversationManager({
        store,
        sessionId: 'bench',
        windowSize: WINDOW,
        durability,
      }),
    })
    const count = (): number => store.messageCount('bench')
    let from = count()
    return {
      agent,
      dir,
      archived: count,
      checkpoint: () => void store.connection().pragma('wal_checkpoint(TRUNCATE)'),
      mark: () => {
        from = count()
      },
      payloadSinceMark: () => storedBytes(store, 'bench', from),
      close: () => {
        store.close()
        remove()
      },
    }
  }
  const agent = new Agent({
    ...base,
    conversationManager:
      variant === 'sliding'
        ? new SlidingWindowConversationManager({ windowSize: WINDOW })
        : new NullConversationManager(),
    sessionManager: new SessionManager({ sessionId: 'bench', storage: new LocalFileStorage(dir) }),
    messages: seed as unknown as StrandsMessageData[],
  })
  return {
    agent,
    dir,
    // Strands keeps exactly what is in agent.messages (and in its snapshot).
    archived: () => agent.messages.length,
    checkpoint: () => {},
    mark: () => {},
    payloadSinceMark: () => undefined,
    close: remove,
  }
}

/**
 * A turn of the event loop, as a real model's response takes (the scripted model answers without one):
 * an agent's process awaits the network between two invocations, and the store's work scheduled for
 * then (the full-text index's pass, src/store/search-index.ts) runs there.
 *
 * @returns a promise settled after the turn
 */
function modelWait(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/**
 * Runs the variants over the same history of `n` messages, `turns` measured turns each, turn by turn in
 * rotating order, so that noise from the shared machine (GC, other processes) falls on all of them alike.
 *
 * @param variants - which setups to run
 * @param n - messages of history before the turns
 * @param turns - measured turns per variant
 * @param prepare - runs on each of our stores right after it is opened (bench/recall-cost.ts sets the
 *   full-text index up differently with it)
 * @returns each variant's figures
 */
export async function runHistory<V extends Variant>(
  variants: readonly V[],
  n: number,
  turns: number,
  prepare?: (store: ContextStore) => void,
): Promise<Record<V, Cell>> {
  const setups = variants.map((v) => setup(v, n, prepare))
  for (const s of setups) {
    for (let i = 0; i < WARMUP_TURNS; i++) {
      await s.agent.invoke(`ask warmup ${i}`)
      await modelWait()
    }
    s.checkpoint()
    s.mark()
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
      // Inside the measured turn: what the store does at the event loop's next turn (the full-text
      // index's pass) is part of the turn's bytes and time.
      await modelWait()
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
  const out = {} as Record<V, Cell>
  setups.forEach((s, i) => {
    const growth = (dirBytes(s.dir) - (sizes0[i] as number)) / turns
    const payload = s.payloadSinceMark()
    out[variants[i] as V] = {
      msPerTurn: median(times[i] as number[]),
      bytesPerTurn: proc ? (bytes[i] as number) / turns : growth,
      growthPerTurn: growth,
      agentMessages: s.agent.messages.length,
      archived: s.archived(),
      payloadPerTurn: payload === undefined ? undefined : payload / turns,
    }
    s.close()
  })
  return out
}
