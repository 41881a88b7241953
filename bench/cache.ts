/**
 * How much of each model request a provider's prompt cache can serve. A scripted conversation of 2,000
 * turns (a turn: a prompt, in about two turns of three a tool round, an answer), windowSize 40, runs under
 * each conversation manager; every request the model receives is recorded as the provider gets it (role
 * and content: Strands strips trackingId and metadata before a model call). Per request, the cached part
 * is the longest run of leading messages equal to the leading messages of the previous request — what a
 * cache breakpoint at the end of every request lets the next one read back. Reported per variant, over
 * the whole run, token-weighted: that share of all input tokens, and the input cost at Anthropic's prompt
 * caching prices (cache reads 0.1× the base input price, cache writes 1.25×) against sending the same
 * requests uncached, and against Strands' sliding window uncached.
 *
 * Tokens are the library's `estimateTokens` (~4 characters per token of text and tool input, 8 per tool
 * block, 4 per message) of the messages only: the system prompt and the tool specs are excluded from
 * every request alike (being constant, they would be cached in every variant and raise every share).
 *
 * Variants, the first four with a real Strands `Agent` and the scripted model:
 *   - Strands' SlidingWindowConversationManager (windowSize 40);
 *   - ours (the Strands adapter, windowSize 40), without `lowWaterMark` and with 0.75 and 0.5;
 * and, with the core manager driven through the same conversation (the Strands adapter has no summarizing
 * option yet), every turn's messages appended as the agent adds them and each request `window()`:
 *   - `summarizeExcess()` after every turn, without `lowWaterMark` and with 0.75 and 0.5;
 *   - `summarize()` (Strands' defaults: summaryRatio 0.3, preserveRecentMessages 10) after a turn that
 *     leaves the window over 40 messages.
 * The summarizer is synchronous and returns a fixed ~1,200-character text (~300 tokens); each call is
 * one more model request, counted at the base input price (its system prompt differs, so it shares no
 * cached prefix with the agent's requests). The core driver also replays ours with `applyWindow()`: its
 * requests must be identical to the Strands run's (checked by hash), which is what makes the summarizing
 * figures comparable with the others.
 *
 *   npx tsx bench/cache.ts [--turns N]     # default 2,000 turns per variant, ~1 min
 *
 * `runCache(turns, variants)` runs a subset for `npm run bench` (its prompt-cache rows).
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Agent, SlidingWindowConversationManager, tool } from '@strands-agents/sdk'
import type { Message } from '@strands-agents/sdk'
import { z } from 'zod'
import {
  estimateTokens,
  openContextStore,
  PersistentConversationManager as LedgerManager,
  type MessageData,
} from '../src/index.js'
import { PersistentConversationManager } from '../src/adapters/strands/index.js'
import { ScriptedModel, type ScriptedReply } from '../examples/strands-scripted-model.js'
import { parseOptions } from './args.js'
import { prng, TextSource } from './fixtures.js'
import { machine } from './machine.js'
import { CACHE_READ, CACHE_WRITE, PrefixCounter } from './prefix-cache.js'

/** The window of every variant. */
export const WINDOW = 40
/** Default turns per variant. */
export const TURNS = 2_000
/** Target: share of input tokens a prompt cache can serve, with `lowWaterMark`. */
export const CACHE_SHARE_TARGET = 0.8
export { CACHE_READ, CACHE_WRITE }
/** Characters of every summary the bench summarizer returns. */
const SUMMARY_CHARS = 1_200

/** One turn of the conversation, the same for every variant. */
interface TurnSpec {
  readonly prompt: string
  /** The tool round, in about two turns of three. */
  readonly tool: { readonly lead: string; readonly topic: string; readonly result: string } | undefined
  readonly answer: string
}

/**
 * The scripted conversation: prompts of 60–500 characters, tool results of 300–3,000, answers of
 * 150–1,200, a tool round in about two turns of three; seeded, so every variant gets the same text.
 *
 * @param turns - how many turns
 * @returns the turns
 */
export function conversation(turns: number): TurnSpec[] {
  const next = prng(2026)
  const texts = new TextSource(11)
  const between = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1))
  return Array.from({ length: turns }, (_, t) => ({
    prompt: `Q${t}: ${texts.text(between(60, 500))}`,
    tool:
      next() < 0.67
        ? {
            lead: texts.text(between(30, 120)),
            topic: texts.text(between(10, 40)),
            result: texts.text(between(300, 3_000)),
          }
        : undefined,
    answer: `A${t}: ${texts.text(between(150, 1_200))}`,
  }))
}

/** Which manager a variant runs. */
export type CacheVariant =
  | { readonly kind: 'sliding' }
  | { readonly kind: 'ours'; readonly lowWaterMark: number | undefined }
  | { readonly kind: 'core'; readonly lowWaterMark: number | undefined }
  | { readonly kind: 'excess'; readonly lowWaterMark: number | undefined }
  | { readonly kind: 'ratio' }

/**
 * A variant's label.
 *
 * @param v - the variant
 * @returns e.g. `ours, lowWaterMark 0.75`
 */
export function label(v: CacheVariant): string {
  const lwm = (x: number | undefined): string => (x === undefined ? 'no lowWaterMark' : `lowWaterMark ${x}`)
  switch (v.kind) {
    case 'sliding':
      return "Strands' SlidingWindowConversationManager"
    case 'ours':
      return `ours, ${lwm(v.lowWaterMark)}`
    case 'core':
      return `ours (core manager), ${lwm(v.lowWaterMark)}`
    case 'excess':
      return `ours, summarizeExcess(), ${lwm(v.lowWaterMark)}`
    case 'ratio':
      return 'ours, summarize() (ratio 0.3) when over 40'
  }
}

/** What one variant's run measured. */
export interface CacheResult {
  readonly variant: CacheVariant
  /** Model requests of the agent. */
  readonly requests: number
  /** Input tokens of those requests. */
  readonly tokens: number
  /** Messages in those requests. */
  readonly messages: number
  /** Of those, the tokens in a prefix of the previous request. */
  readonly cached: number
  /**
   * Of those, the tokens of messages the previous request did not hold (its reply, the new prompt or tool
   * result): no cache can serve them, so `1 - fresh / tokens` is the best share any window could get.
   */
  readonly fresh: number
  /** Requests that do not extend the whole previous request (the window's start moved). */
  readonly breaks: number
  /** Summarizer calls, and the input tokens they were given (the messages and the request). */
  readonly summaries: number
  readonly summaryTokens: number
  /** SHA-256 of every request in order (canonical JSON), to compare two drivers. */
  readonly hash: string
}

/** Records the requests of one run, what a prefix cache would serve of each, and their hash. */
class PrefixRecorder extends PrefixCounter<MessageData> {
  private readonly digest = createHash('sha256')
  summaries = 0
  summaryTokens = 0

  constructor() {
    super((m) => estimateTokens(m))
  }

  /** @param messages - the request's messages, provider form (role and content) */
  override request(messages: readonly MessageData[]): string[] {
    const keys = super.request(messages)
    this.digest.update(`${keys.join('\n')}\n\n`)
    return keys
  }

  /** @param messages - what a summarizer call was given */
  summary(messages: readonly MessageData[]): void {
    this.summaries++
    for (const m of messages) this.summaryTokens += estimateTokens(m)
  }

  result(variant: CacheVariant): CacheResult {
    const { requests, tokens, messages, cached, fresh, breaks, summaries, summaryTokens } = this
    const hash = this.digest.digest('hex')
    return { variant, requests, tokens, messages, cached, fresh, breaks, summaries, summaryTokens, hash }
  }
}

/** The provider form of a Strands message (what its model providers format). */
function fromStrands(m: Message): MessageData {
  return { role: m.role, content: m.content.map((b) => b.toJSON()) } as MessageData
}

/** The provider form of a window message: trackingId and metadata are not sent. */
function fromWindow(m: MessageData): MessageData {
  return { role: m.role, content: m.content }
}

/** A real Strands `Agent` over the conversation, with Strands' sliding window or our adapter. */
async function runAgent(
  variant: CacheVariant,
  specs: readonly TurnSpec[],
  dir: string,
): Promise<CacheResult> {
  const recorder = new PrefixRecorder()
  let turn = 0
  const spec = (): TurnSpec => specs[turn] as TurnSpec
  const script = (call: { messages: readonly Message[] }): ScriptedReply => {
    recorder.request(call.messages.map(fromStrands))
    const s = spec()
    const last = call.messages.at(-1)
    const answered = last?.content.some((b) => b.type === 'toolResultBlock') === true
    if (s.tool === undefined || answered) return s.answer
    return [
      { text: s.tool.lead },
      { toolUse: { name: 'lookup', input: { topic: s.tool.topic }, toolUseId: `call-${turn}` } },
    ]
  }
  const lookup = tool({
    name: 'lookup',
    description: 'Looks a topic up',
    inputSchema: z.object({ topic: z.string() }),
    callback: () => spec().tool?.result ?? '',
  })
  const store = variant.kind === 'ours' ? openContextStore(join(dir, 'cache-agent.db')) : undefined
  const conversationManager =
    variant.kind === 'sliding' || store === undefined
      ? new SlidingWindowConversationManager({ windowSize: WINDOW })
      : new PersistentConversationManager({
          store,
          sessionId: 'cache',
          windowSize: WINDOW,
          ...(variant.kind === 'ours' && variant.lowWaterMark !== undefined
            ? { lowWaterMark: variant.lowWaterMark }
            : {}),
        })
  const agent = new Agent({
    model: new ScriptedModel({ script }),
    tools: [lookup],
    printer: false,
    conversationManager,
  })
  try {
    for (turn = 0; turn < specs.length; turn++) await agent.invoke(spec().prompt)
  } finally {
    store?.close()
  }
  return recorder.result(variant)
}

/** The core manager driven through the conversation, ending each turn with a window cut or a summary. */
async function runCore(variant: CacheVariant, specs: readonly TurnSpec[], dir: string): Promise<CacheResult> {
  const recorder = new PrefixRecorder()
  const store = openContextStore(join(dir, `cache-${variant.kind}.db`))
  const lowWaterMark = 'lowWaterMark' in variant ? variant.lowWaterMark : undefined
  const manager = new LedgerManager({
    store,
    sessionId: 'cache',
    windowSize: WINDOW,
    ...(lowWaterMark === undefined ? {} : { lowWaterMark }),
  })
  const texts = new TextSource(12)
  const summarizer = (messages: readonly MessageData[]): string => {
    recorder.summary(messages)
    return `Summary of ${messages.length - 1} messages: ${texts.text(SUMMARY_CHARS)}`
  }
  const request = (): void => {
    recorder.request(manager.window().map(fromWindow))
  }
  try {
    for (const [t, s] of specs.entries()) {
      manager.append({ role: 'user', content: [{ text: s.prompt }] })
      request()
      if (s.tool !== undefined) {
        const toolUseId = `call-${t}`
        manager.append([
          {
            role: 'assistant',
            content: [
              { text: s.tool.lead },
              { toolUse: { name: 'lookup', toolUseId, input: { topic: s.tool.topic } } },
            ],
          },
          {
            role: 'user',
            content: [{ toolResult: { toolUseId, status: 'success', content: [{ text: s.tool.result }] } }],
          },
        ])
        request()
      }
      manager.append({ role: 'assistant', content: [{ text: s.answer }] })
      switch (variant.kind) {
        case 'excess':
          await manager.summarizeExcess(summarizer)
          break
        case 'ratio':
          if ((store.session('cache')?.windowMessages ?? 0) > WINDOW) await manager.summarize(summarizer)
          break
        default:
          manager.applyWindow()
      }
    }
  } finally {
    store.close()
  }
  return recorder.result(variant)
}

/**
 * Runs the variants over the same conversation, one after the other (nothing here is timed).
 *
 * @param turns - turns per variant
 * @param variants - which managers
 * @returns one result per variant, in order
 */
export async function runCache(turns: number, variants: readonly CacheVariant[]): Promise<CacheResult[]> {
  const specs = conversation(turns)
  const dir = mkdtempSync(join(tmpdir(), 'context-ledger-bench-cache-'))
  try {
    const out: CacheResult[] = []
    for (const v of variants)
      out.push(
        v.kind === 'sliding' || v.kind === 'ours'
          ? await runAgent(v, specs, dir)
          : await runCore(v, specs, dir),
      )
    return out
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The share of a run's input tokens a prefix cache serves.
 *
 * @param r - the run
 * @returns cached ÷ all input tokens of the agent's requests
 */
export function cachedShare(r: CacheResult): number {
  return r.cached / r.tokens
}

/**
 * Input cost with prompt caching, in base-price tokens: cached prefixes read at {@link CACHE_READ}, the
 * rest of every request written to the cache at {@link CACHE_WRITE}; summarizer calls at the base price.
 *
 * @param r - the run
 * @returns the cost, in tokens at the base input price
 */
export function cachedCost(r: CacheResult): number {
  return CACHE_READ * r.cached + CACHE_WRITE * (r.tokens - r.cached) + r.summaryTokens
}

/** Input cost of the same requests without caching, in base-price tokens. */
export function uncachedCost(r: CacheResult): number {
  return r.tokens + r.summaryTokens
}

const ALL: readonly CacheVariant[] = [
  { kind: 'sliding' },
  { kind: 'ours', lowWaterMark: undefined },
  { kind: 'ours', lowWaterMark: 0.75 },
  { kind: 'ours', lowWaterMark: 0.5 },
  { kind: 'core', lowWaterMark: undefined },
  { kind: 'core', lowWaterMark: 0.75 },
  { kind: 'core', lowWaterMark: 0.5 },
  { kind: 'excess', lowWaterMark: undefined },
  { kind: 'excess', lowWaterMark: 0.75 },
  { kind: 'excess', lowWaterMark: 0.5 },
  { kind: 'ratio' },
]

const count = (n: number): string => n.toLocaleString('en-US')

function render(results: readonly CacheResult[], turns: number): string {
  const sliding = results.find((r) => r.variant.kind === 'sliding')
  const reference = sliding === undefined ? undefined : uncachedCost(sliding)
  const header = [
    'variant',
    'requests',
    'input tokens',
    'messages/request',
    'cached share',
    'best possible',
    'window moves',
    'summarizer calls (input tokens)',
    'cost vs uncached',
    'cost vs sliding uncached',
    `≥ ${CACHE_SHARE_TARGET}`,
  ]
  const rows = results
    .filter((r) => r.variant.kind !== 'core')
    .map((r) => {
      const share = cachedShare(r)
      const withOption = 'lowWaterMark' in r.variant && r.variant.lowWaterMark !== undefined
      return [
        label(r.variant),
        count(r.requests),
        count(r.tokens),
        (r.messages / r.requests).toFixed(1),
        share.toFixed(3),
        (1 - r.fresh / r.tokens).toFixed(3),
        count(r.breaks),
        r.summaries === 0 ? '—' : `${count(r.summaries)} (${count(r.summaryTokens)})`,
        `${(cachedCost(r) / uncachedCost(r)).toFixed(3)}×`,
        reference === undefined ? '—' : `${(cachedCost(r) / reference).toFixed(3)}×`,
        withOption ? (share >= CACHE_SHARE_TARGET ? 'PASS' : 'MISS') : '',
      ]
    })
  const all = [header, ...rows]
  const widths = header.map((_, c) => Math.max(...all.map((r) => (r[c] as string).length)))
  const line = (r: readonly string[]): string =>
    `| ${r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number))).join(' | ')} |`
  const rule = `|${widths.map((w, c) => (c === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`
  const checks = results
    .filter((r) => r.variant.kind === 'core')
    .map((c) => {
      const lwm = 'lowWaterMark' in c.variant ? c.variant.lowWaterMark : undefined
      const agent = results.find((r) => r.variant.kind === 'ours' && r.variant.lowWaterMark === lwm)
      return `${label(c.variant)}: ${agent === undefined ? 'no Strands run to compare' : agent.hash === c.hash ? 'the same requests as the Strands Agent' : `DIFFERENT requests from the Strands Agent (${cachedShare(c).toFixed(3)} vs ${cachedShare(agent).toFixed(3)})`}`
    })
  const plain = results.find((r) => r.variant.kind === 'ours' && r.variant.lowWaterMark === undefined)
  if (sliding !== undefined && plain !== undefined)
    checks.push(
      `${label(plain.variant)} against ${label(sliding.variant)}: ${plain.hash === sliding.hash ? 'the same requests' : 'different requests'}`,
    )
  return [
    '',
    `Machine: ${machine()}`,
    `${count(turns)} turns per variant, windowSize ${WINDOW}; tokens by estimateTokens, messages only (no system prompt, no tool specs).`,
    `cached share = tokens in a prefix of the previous request ÷ all input tokens; best possible = 1 − tokens of messages the`,
    'previous request did not hold (no cache can serve them) ÷ all; window moves = requests that do not extend the whole previous',
    `request. Cost at Anthropic's prompt caching prices: cache reads ${CACHE_READ}×, cache writes ${CACHE_WRITE}× the`,
    'base input price (every request ends in a cache breakpoint); summarizer calls at 1×, uncached.',
    '',
    line(header),
    rule,
    ...rows.map(line),
    '',
    'Same requests? (SHA-256 of every request in order; the summarizing variants run on the core-manager driver):',
    ...checks.map((c) => `- ${c}`),
    '',
  ].join('\n')
}

const argv = process.argv.slice(2)
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const o = parseOptions(argv, { turns: { type: 'integer', min: 1 } })
  const turns = o.turns ?? TURNS
  const t0 = performance.now()
  const results = await runCache(turns, ALL)
  process.stdout.write(render(results, turns))
  process.stderr.write(`(${((performance.now() - t0) / 1000).toFixed(0)} s)\n`)
}
