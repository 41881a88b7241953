/**
 * Options of the Strands adapter: the core manager's, plus Strands' proactive compression, tool-result
 * truncation, summaries, `pinFirst` and a logger. Checked once, in the constructor.
 */
import type { Logger, Model, ProactiveCompressionConfig } from '@strands-agents/sdk'
import { ContextLedgerError } from '../../errors.js'
import type { PersistentConversationManagerOptions as LedgerManagerOptions } from '../../manager/persistent-conversation-manager.js'
import type { ContextStore } from '../../store/context-store.js'
import { isAsyncStore, type AsyncContextStore } from './async-ledger.js'
import { defaultLogger } from './log.js'

/**
 * How the Strands manager makes summaries (its `summarize` option): the settings of Strands'
 * `SummarizingConversationManager`, every one optional.
 */
export interface StrandsSummarizeOptions {
  /**
   * The model that writes summaries. Default: the agent's own model (the one Strands passes to `reduce`,
   * `agent.model` after an invocation).
   */
  model?: Model | undefined
  /**
   * Share of the window folded on an overflow (or proactively), clamped to [0.1, 0.8] as in Strands.
   * Default 0.3.
   */
  summaryRatio?: number | undefined
  /** The newest messages of the window an overflow never folds (a soft bound, as in Strands). Default 10. */
  preserveRecentMessages?: number | undefined
  /** The summarizer's system prompt. Default `DEFAULT_SUMMARIZATION_PROMPT` (context-ledger's own). */
  systemPrompt?: string | undefined
}

/** The `summarize` option resolved: every field with its default, but the model (the agent's when absent). */
export interface ResolvedSummarize {
  /** The model that writes summaries, when not the agent's. */
  readonly model: Model | undefined
  /** As given (the core clamps it). */
  readonly summaryRatio: number | undefined
  /** As given (default 10, in the core). */
  readonly preserveRecentMessages: number | undefined
  /** As given (default `DEFAULT_SUMMARIZATION_PROMPT`, in the core). */
  readonly systemPrompt: string | undefined
  /** Whether `windowSize` or `tokenBudget` was given: then the excess is folded after each invocation. */
  readonly limited: boolean
}

/**
 * Options of the Strands {@link PersistentConversationManager}: the core manager's, plus Strands' own.
 * `store` is a SQLite store (`openContextStore`) or a PostgreSQL one (`openPostgresContextStore` of
 * `context-ledger/postgres`).
 */
export interface PersistentConversationManagerOptions<
  S extends ContextStore | AsyncContextStore = ContextStore,
> extends Omit<LedgerManagerOptions, 'store'> {
  /** The store holding the session: SQLite's, or PostgreSQL's (whose calls return Promises). */
  store: S
  /**
   * Fold what leaves the window into a summary instead of dropping it, as Strands'
   * `SummarizingConversationManager` does: on an overflow (and proactively, with `proactiveCompression`)
   * the oldest `summaryRatio` of the window is summarized by a model. `true` takes every default. Without
   * `windowSize` and `tokenBudget`, nothing else happens (the window is unlimited, as with Strands'
   * summarizing manager); with either, the excess over them is folded after each invocation instead of
   * slid away. Tool results are then not truncated unless `truncateToolResults: true`.
   */
  summarize?: true | StrandsSummarizeOptions | undefined
  /**
   * Strands' `pinFirst`: the first N messages of the session never leave the window (nor fold into a
   * summary). Another name for `protectedMessages: { first: N }`; give one or the other. Negative values
   * count as 0, as in Strands.
   */
  pinFirst?: number | undefined
  /**
   * Strands' proactive compression: `true` reduces when the projected input reaches 70% of the model's
   * context window, `{ compressionThreshold }` at that ratio (in (0, 1]). Off when omitted.
   */
  proactiveCompression?: boolean | ProactiveCompressionConfig | undefined
  /** Truncate oversized tool results in the window before evicting anything. Default true. */
  truncateToolResults?: boolean | undefined
  /**
   * Show the agent the window with runs of same-role messages merged, so roles strictly alternate (for
   * providers that require it, such as Bedrock Converse): `window({ alternate: true })`. The archive is
   * unchanged. Default false.
   */
  alternate?: boolean | undefined
  /**
   * When the messages the agent adds are written to the store:
   * - `'invocation'` (default): at the end of each `invoke()`, in one transaction with the window, so a
   *   turn's pages are written once; earlier when the store must see them first (overflow recovery, the
   *   `pin_message` tool, a message that needs a repair row or follows another writer's rows, `flush()`)
   *   and after every 32 held messages. A process killed mid-invocation loses what that invocation had not
   *   written yet; the ledger holds whole invocations.
   * - `'message'`: each message in its own transaction as the agent adds it; about twice the bytes
   *   written per turn (docs/benchmarks.md).
   */
  durability?: 'invocation' | 'message' | undefined
  /**
   * Where the manager reports what it handled on its own (repaired or refused messages, truncations the
   * store refused, overflows it could not recover from), one line each in Strands' `key=<value> | text`
   * style. A Strands `Logger` (the interface `configureLogging` takes). Default: `console.warn` and
   * `console.error`.
   */
  logger?: Logger | undefined
}

/** The options split into what the base class, the core manager and the adapter each take. */
export interface ResolvedOptions {
  /** For Strands' `ConversationManager` constructor. */
  readonly base: { proactiveCompression?: boolean | ProactiveCompressionConfig }
  /** For the core manager (its `store` is SQLite's, or PostgreSQL's when {@link asyncStore} is set). */
  readonly core: Omit<LedgerManagerOptions, 'store'> & { store: ContextStore | AsyncContextStore }
  /** The PostgreSQL store, when `store` is one. */
  readonly asyncStore: AsyncContextStore | undefined
  /** Whether reductions truncate tool results first. */
  readonly truncateToolResults: boolean
  /** How summaries are made, when the window folds instead of sliding. */
  readonly summarize: ResolvedSummarize | undefined
  /** Whether the agent sees roles strictly alternating. */
  readonly alternate: boolean
  /** When added messages are written. */
  readonly durability: 'invocation' | 'message'
  /** Where reports go. */
  readonly logger: Logger
}

function invalid(field: string, expected: string, got: unknown): ContextLedgerError<'INVALID_OPTIONS'> {
  let shown: string
  try {
    // undefined for undefined, functions and symbols, whatever the lib's return type says
    const json = JSON.stringify(got) as string | undefined
    shown = json ?? String(got)
  } catch {
    shown = String(got)
  }
  if (shown.length > 200) shown = `${shown.slice(0, 200)}… (${shown.length} characters)`
  return new ContextLedgerError(
    'INVALID_OPTIONS',
    `Invalid PersistentConversationManager options at ${field}: expected ${expected}, got ${shown}`,
    { path: field },
  )
}

function isLogger(value: unknown): value is Logger {
  if (typeof value !== 'object' || value === null) return false
  const logger = value as Record<string, unknown>
  return ['debug', 'info', 'warn', 'error'].every((level) => typeof logger[level] === 'function')
}

/**
 * Checks the adapter's own options and splits them; the core manager checks the rest.
 *
 * @param options - what the caller passed
 * @returns the options for each part
 * @throws ContextLedgerError `INVALID_OPTIONS`
 */
export function resolveOptions(
  options: PersistentConversationManagerOptions<ContextStore | AsyncContextStore>,
): ResolvedOptions {
  // JavaScript callers can pass anything.
  const given: unknown = options
  if (typeof given !== 'object' || given === null)
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `PersistentConversationManager takes an options object with store and sessionId, got ${String(given)}`,
    )
  const {
    proactiveCompression,
    truncateToolResults,
    alternate,
    durability,
    logger,
    summarize,
    pinFirst,
    ...rest
  } = options
  if (truncateToolResults !== undefined && typeof truncateToolResults !== 'boolean')
    throw invalid('truncateToolResults', 'a boolean', truncateToolResults)
  if (alternate !== undefined && typeof alternate !== 'boolean')
    throw invalid('alternate', 'a boolean', alternate)
  // JavaScript callers can pass anything.
  const when: unknown = durability
  if (when !== undefined && when !== 'invocation' && when !== 'message')
    throw invalid('durability', "'invocation' or 'message'", when)
  const asyncStore = isAsyncStore(rest.store) ? rest.store : undefined
  // On PostgreSQL each added message is one write of its own, and overflow recovery evicts or folds.
  if (asyncStore !== undefined && when === 'invocation')
    throw invalid(
      'durability',
      "'message' (or none) with a PostgreSQL store: each message is written as it is added",
      when,
    )
  if (asyncStore !== undefined && truncateToolResults === true)
    throw invalid(
      'truncateToolResults',
      'false (or none) with a PostgreSQL store: overflow recovery evicts or summarizes without truncating tool results first',
      truncateToolResults,
    )
  if (logger !== undefined && !isLogger(logger))
    throw invalid('logger', 'an object with debug, info, warn and error functions', logger)
  let base: ResolvedOptions['base'] = {}
  if (proactiveCompression !== undefined && typeof proactiveCompression !== 'boolean') {
    const threshold: unknown = (proactiveCompression as { compressionThreshold?: unknown } | null)
      ?.compressionThreshold
    if (typeof threshold !== 'number' || !(threshold > 0 && threshold <= 1))
      throw invalid('proactiveCompression.compressionThreshold', 'a number in (0, 1]', threshold)
  }
  if (proactiveCompression !== undefined) base = { proactiveCompression }
  const core = withPinFirst(rest, pinFirst)
  const limited = core.windowSize !== undefined || core.tokenBudget !== undefined
  const resolved = resolveSummarize(summarize, limited)
  return {
    base,
    // Strands' summarizing manager never slides a window: without limits given, the core gets none.
    core: resolved !== undefined && !limited ? { ...core, windowSize: Number.MAX_SAFE_INTEGER } : core,
    asyncStore,
    truncateToolResults: asyncStore === undefined && (truncateToolResults ?? resolved === undefined),
    summarize: resolved,
    alternate: alternate ?? false,
    durability: asyncStore === undefined ? (durability ?? 'invocation') : 'message',
    logger: logger ?? defaultLogger,
  }
}

/** The core options with `pinFirst` (Strands' name) as `protectedMessages.first`. */
function withPinFirst<T extends Omit<LedgerManagerOptions, 'store'>>(core: T, pinFirst: unknown): T {
  if (pinFirst === undefined) return core
  if (typeof pinFirst !== 'number' || !Number.isSafeInteger(pinFirst))
    throw invalid('pinFirst', 'an integer', pinFirst)
  if (core.protectedMessages !== undefined || core.protectedMessageRange !== undefined)
    throw invalid(
      'pinFirst',
      'no protectedMessages or protectedMessageRange beside it (pinFirst is protectedMessages.first)',
      pinFirst,
    )
  return { ...core, protectedMessages: { first: Math.max(0, pinFirst) } }
}

function isModel(value: unknown): value is Model {
  if (typeof value !== 'object' || value === null) return false
  const model = value as Record<string, unknown>
  return typeof model.streamAggregated === 'function' && typeof model.getConfig === 'function'
}

const SUMMARIZE_KEYS = new Set(['model', 'summaryRatio', 'preserveRecentMessages', 'systemPrompt'])

/** Longest system prompt the core takes. */
const MAX_PROMPT = 1_000_000

/**
 * Checks the `summarize` option.
 *
 * @param summarize - as given
 * @param limited - whether `windowSize` or `tokenBudget` was given
 * @returns the settings, or undefined when summaries are off
 */
function resolveSummarize(summarize: unknown, limited: boolean): ResolvedSummarize | undefined {
  if (summarize === undefined) return undefined
  const none = {
    model: undefined,
    summaryRatio: undefined,
    preserveRecentMessages: undefined,
    systemPrompt: undefined,
    limited,
  }
  if (summarize === true) return none
  if (typeof summarize !== 'object' || summarize === null || Array.isArray(summarize))
    throw invalid(
      'summarize',
      'true or an object { model?, summaryRatio?, preserveRecentMessages?, systemPrompt? }',
      summarize,
    )
  const given = summarize as Record<string, unknown>
  const unknown = Object.keys(given).find((key) => !SUMMARIZE_KEYS.has(key))
  if (unknown !== undefined)
    throw invalid(
      `summarize.${unknown}`,
      'one of model, summaryRatio, preserveRecentMessages, systemPrompt',
      given[unknown],
    )
  const { model, summaryRatio, preserveRecentMessages, systemPrompt } = given
  if (model !== undefined && !isModel(model))
    throw invalid('summarize.model', 'a Strands Model (with streamAggregated and getConfig)', model)
  if (summaryRatio !== undefined && (typeof summaryRatio !== 'number' || !Number.isFinite(summaryRatio)))
    throw invalid('summarize.summaryRatio', 'a finite number (clamped to [0.1, 0.8])', summaryRatio)
  if (
    preserveRecentMessages !== undefined &&
    (typeof preserveRecentMessages !== 'number' ||
      !Number.isSafeInteger(preserveRecentMessages) ||
      preserveRecentMessages < 0)
  )
    throw invalid('summarize.preserveRecentMessages', 'an integer ≥ 0', preserveRecentMessages)
  if (
    systemPrompt !== undefined &&
    (typeof systemPrompt !== 'string' || systemPrompt.length === 0 || systemPrompt.length > MAX_PROMPT)
  )
    throw invalid(
      'summarize.systemPrompt',
      `a non-empty string of at most ${MAX_PROMPT} characters`,
      systemPrompt,
    )
  return {
    model,
    summaryRatio: summaryRatio,
    preserveRecentMessages: preserveRecentMessages,
    systemPrompt: systemPrompt,
    limited,
  }
}
