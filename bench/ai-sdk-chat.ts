/**
 * An AI SDK chat kept three ways (bench/ai-sdk-sides.ts): (a) the AI SDK docs' `saveChat` / `loadChat`
 * JSON file with the whole chat for the model, (b) the same with `pruneMessages` for the model's input,
 * (c) ours — a ledger session of `ai-sdk/ui` messages (windowSize 40, lowWaterMark 0.75) through the core
 * store and manager directly, not the `context-ledger/ai-sdk` adapter (written at the same time), so this
 * bench does not depend on it.
 *
 * The chat (bench/ai-sdk-fixtures.ts): a user text of 200–400 characters of English-like prose, an
 * assistant message with a `step-start`, a reasoning part in about one turn of three, a `tool-search_docs`
 * part (`output-available`, a 1–4 KB JSON output) in about one turn of three, and a text of 500–1,500
 * characters. Measured at 200, 2,000 and 10,000 messages of history: each side gets the same history
 * (written once, untimed: one `saveChat` for (a)/(b), appends of 1,000 messages for (c)), then 3 warm-up
 * turns, then `--turns` measured turns (default 40) that run across the checkpoint (from 40 messages
 * before it to 40 after), the sides in rotating order turn by turn so the machine's noise falls on all.
 *
 * Per checkpoint and side:
 *   - time per turn, median and p95: the whole turn (load or window, the model's input, save), plus the
 *     event loop's next turn (where the ledger indexes the turn for search); a full garbage collection
 *     runs, untimed, before every side's turn (see `gc` below);
 *   - bytes written per turn: the process's `wchar` (/proc/self/io) over the measured turns, divided by
 *     them — for (a)/(b) exactly the JSON file written each turn; for (c) the WAL frames of its commits
 *     and, by a checkpoint after the measured turns, the pages that checkpoint writes into the database
 *     file (SQLite writes every page twice), as row f counts;
 *   - the model's input tokens per turn (median; the `ai-sdk/model` format's built-in estimate, ~4
 *     characters a token, of `convertToModelMessages`' output — the system prompt and tools excluded);
 *   - the prompt-cache share as row h defines it: of all input tokens of the measured turns, those in a
 *     run of leading messages equal to the previous request's; and the input cost with a prompt cache,
 *     in base-price tokens per turn (cache reads 0.1×, writes 1.25×, as bench/cache.ts prices them).
 * Ratios are (a) ÷ (c) and (b) ÷ (c), from the same run.
 *
 *   npx tsx bench/ai-sdk-chat.ts [--turns N] [--quick] [--runs N]    # or: npm run bench -- --ai-sdk [...]
 *
 * Row a2 (bench/ai-sdk-append.ts, `--runs` runs) is printed first.
 *
 * `--quick`: 20 measured turns, checkpoints 200 and 2,000 only. Always exits 0: measured, not asserted.
 */
import { mkdirSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { safeValidateUIMessages, type ModelMessage } from 'ai'
import { modelTokens } from '../src/formats/ai-sdk-model/derive.js'
import type { ModelMessageData } from '../src/formats/ai-sdk-model/types.js'
import { parseOptions } from './args.js'
import { runModelAppend } from './ai-sdk-append.js'
import { UIChat, type ChatMessage } from './ai-sdk-fixtures.js'
import { LOW_WATER_MARK, openSides, WINDOW, type ChatSide } from './ai-sdk-sides.js'
import { kb, median, Scratch } from './harness.js'
import { machine, wchar } from './machine.js'
import { CACHE_READ, CACHE_WRITE, PrefixCounter } from './prefix-cache.js'
import { gc, nextTick, percentile, settle, table, us } from './turn-timing.js'

/** Untimed turns before the measured ones, per checkpoint. */
const WARMUP = 3
/** Where the chat is measured, in messages of history. */
const CHECKPOINTS = [200, 2_000, 10_000] as const

/** What one side measured at one checkpoint. */
export interface ChatCell {
  /** Median µs per turn. */
  readonly median: number
  /** 95th percentile µs per turn. */
  readonly p95: number
  /** Mean bytes written per turn. */
  readonly bytes: number
  /** Median input tokens per turn. */
  readonly tokens: number
  /** Cached share of the input tokens. */
  readonly share: number
  /** Input cost per turn with a prompt cache, base-price tokens. */
  readonly cost: number
}

const tokensOf = (m: ModelMessage): number => modelTokens(m as ModelMessageData)

/**
 * Runs the three sides over `turns` measured turns around a checkpoint of `n` messages.
 *
 * @param history - the whole chat, long enough for the checkpoint and its turns
 * @param n - the checkpoint, messages of history
 * @param turns - measured turns
 * @param scratch - where the files go
 * @returns (a), (b), (c)
 */
export async function runCheckpoint(
  history: readonly ChatMessage[],
  n: number,
  turns: number,
  scratch: Scratch,
): Promise<ChatCell[]> {
  const start = Math.max(0, n - 2 * (Math.floor(turns / 2) + WARMUP))
  const dir = scratch.file(`chat-${n}`)
  mkdirSync(dir)
  const sides = await openSides(history.slice(0, start), (name) => `${dir}/${name}`)
  const counters = sides.map(() => new PrefixCounter<ModelMessage>(tokensOf, (m) => JSON.stringify(m)))
  const times = sides.map(() => [] as number[])
  const tokens = sides.map(() => [] as number[])
  const bytes = sides.map(() => 0)
  const step = async (t: number, measured: boolean): Promise<void> => {
    const user = history[start + 2 * t] as ChatMessage
    const answer = history[start + 2 * t + 1] as ChatMessage
    for (let k = 0; k < sides.length; k++) {
      const i = (t + k) % sides.length
      const side = sides[i] as ChatSide
      gc()
      await settle()
      const w0 = wchar() ?? 0
      const t0 = process.hrtime.bigint()
      const input = await side.turn(user, answer)
      await nextTick()
      const us = Number(process.hrtime.bigint() - t0) / 1000
      const w1 = wchar() ?? 0
      const counter = counters[i] as PrefixCounter<ModelMessage>
      counter.request(input)
      if (!measured) continue
      ;(times[i] as number[]).push(us)
      bytes[i] = (bytes[i] as number) + (w1 - w0)
      ;(tokens[i] as number[]).push(input.reduce((s, m) => s + tokensOf(m), 0))
    }
  }
  for (let t = 0; t < WARMUP; t++) await step(t, false)
  for (const c of counters) c.restart()
  for (const s of sides) s.checkpoint()
  for (let t = WARMUP; t < WARMUP + turns; t++) await step(t, true)
  sides.forEach((s, i) => {
    const w0 = wchar() ?? 0
    s.checkpoint()
    bytes[i] = (bytes[i] as number) + ((wchar() ?? 0) - w0)
    s.close()
  })
  return sides.map((_, i) => {
    const c = counters[i] as PrefixCounter<ModelMessage>
    return {
      median: median(times[i] as number[]),
      p95: percentile(times[i] as number[], 0.95),
      bytes: (bytes[i] as number) / turns,
      tokens: median(tokens[i] as number[]),
      share: c.share(),
      cost: (CACHE_READ * c.cached + CACHE_WRITE * (c.tokens - c.cached)) / c.requests,
    }
  })
}

const NAMES = ['(a) saveChat/loadChat, all', '(b) saveChat/loadChat + pruneMessages', '(c) ours (ledger)']

/**
 * The report: one table of every side at every checkpoint, one of the ratios.
 *
 * @param results - per checkpoint, (a), (b), (c)
 * @param turns - measured turns per checkpoint
 * @returns the text
 */
export function renderChat(results: ReadonlyMap<number, readonly ChatCell[]>, turns: number): string {
  const rows: string[][] = []
  const ratios: string[][] = []
  for (const [n, cells] of results) {
    const at = n.toLocaleString('en-US')
    cells.forEach((c, i) =>
      rows.push([
        at,
        NAMES[i] as string,
        us(c.median),
        us(c.p95),
        kb(c.bytes),
        Math.round(c.tokens).toLocaleString('en-US'),
        c.share.toFixed(3),
        Math.round(c.cost).toLocaleString('en-US'),
      ]),
    )
    const ours = cells[2] as ChatCell
    for (const i of [0, 1]) {
      const c = cells[i] as ChatCell
      ratios.push([
        at,
        `${'ab'[i]} ÷ c`,
        `${(c.median / ours.median).toFixed(1)}×`,
        `${(c.p95 / ours.p95).toFixed(1)}×`,
        `${(c.bytes / ours.bytes).toFixed(1)}×`,
        `${(c.tokens / ours.tokens).toFixed(1)}×`,
        `${(c.cost / ours.cost).toFixed(1)}×`,
      ])
    }
  }
  return [
    '',
    `Machine: ${machine()}`,
    `AI SDK chat, ${turns} measured turns per checkpoint (after ${WARMUP} warm-up turns), sides in rotating order.`,
    `(c): windowSize ${WINDOW}, lowWaterMark ${LOW_WATER_MARK}, format 'ai-sdk/ui', SQLite file (WAL, synchronous=NORMAL).`,
    '',
    table(
      [
        'messages',
        'way',
        'time/turn p50',
        'p95',
        'bytes written/turn',
        'input tokens/turn',
        'cache share',
        'cost/turn',
      ],
      rows,
    ),
    '',
    table(['messages', 'ratio', 'time p50', 'p95', 'bytes', 'input tokens', 'cost'], ratios),
    '',
    'bytes written: wchar of /proc/self/io (for (c) the WAL and a checkpoint after the turns); input tokens: the',
    "'ai-sdk/model' estimate (~4 chars a token) of convertToModelMessages' output; cache share: tokens in a prefix of the",
    'previous request ÷ all input tokens; cost/turn: base-price input tokens with a prompt cache (reads 0.1×, writes 1.25×).',
    '',
  ].join('\n')
}

/**
 * `npm run bench -- --ai-sdk`: the chat at every checkpoint.
 *
 * @param argv - options: `--turns N`, `--quick`, `--runs N` (row a2's runs, default 7)
 * @returns the report: row a2 (bench/ai-sdk-append.ts), then the chat
 */
export async function runAiSdkChat(argv: readonly string[]): Promise<string> {
  const o = parseOptions(argv, {
    turns: { type: 'integer', min: 2 },
    quick: { type: 'flag' },
    runs: { type: 'integer', min: 1 },
  })
  process.stderr.write('AI SDK ModelMessage append vs Strands (row a2)...\n')
  const append = runModelAppend(o.runs ?? 7)
  const turns = o.turns ?? (o.quick ? 20 : 40)
  const checkpoints = o.quick ? CHECKPOINTS.slice(0, 2) : CHECKPOINTS
  const last = checkpoints[checkpoints.length - 1] as number
  const history = new UIChat().turns(last / 2 + turns + WARMUP)
  const check = await safeValidateUIMessages({ messages: history.slice(0, 400) })
  if (!check.success) throw new Error(`the fixtures are not valid UI messages: ${check.error.message}`)
  const scratch = new Scratch()
  const results = new Map<number, ChatCell[]>()
  try {
    for (const n of checkpoints) {
      process.stderr.write(`AI SDK chat at ${n.toLocaleString('en-US')} messages...\n`)
      results.set(n, await runCheckpoint(history, n, turns, scratch))
    }
  } finally {
    scratch.dispose()
  }
  return `${append}${renderChat(results, turns)}`
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  process.stdout.write(await runAiSdkChat(process.argv.slice(2)))
