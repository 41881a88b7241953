/**
 * Options of the Strands adapter: the core manager's, plus Strands' proactive compression, tool-result
 * truncation and a logger. Checked once, in the constructor.
 */
import type { Logger, ProactiveCompressionConfig } from '@strands-agents/sdk'
import { ContextLedgerError } from '../../errors.js'
import type { PersistentConversationManagerOptions as LedgerManagerOptions } from '../../manager/persistent-conversation-manager.js'
import { defaultLogger } from './log.js'

/** Options of the Strands {@link PersistentConversationManager}: the core manager's, plus Strands' own. */
export interface PersistentConversationManagerOptions extends LedgerManagerOptions {
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
  /** For the core manager. */
  readonly core: LedgerManagerOptions
  /** Whether reductions truncate tool results first. */
  readonly truncateToolResults: boolean
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
export function resolveOptions(options: PersistentConversationManagerOptions): ResolvedOptions {
  // JavaScript callers can pass anything.
  const given: unknown = options
  if (typeof given !== 'object' || given === null)
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `PersistentConversationManager takes an options object with store and sessionId, got ${String(given)}`,
    )
  const { proactiveCompression, truncateToolResults, alternate, durability, logger, ...core } = options
  if (truncateToolResults !== undefined && typeof truncateToolResults !== 'boolean')
    throw invalid('truncateToolResults', 'a boolean', truncateToolResults)
  if (alternate !== undefined && typeof alternate !== 'boolean')
    throw invalid('alternate', 'a boolean', alternate)
  // JavaScript callers can pass anything.
  const when: unknown = durability
  if (when !== undefined && when !== 'invocation' && when !== 'message')
    throw invalid('durability', "'invocation' or 'message'", when)
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
  return {
    base,
    core,
    truncateToolResults: truncateToolResults ?? true,
    alternate: alternate ?? false,
    durability: durability ?? 'invocation',
    logger: logger ?? defaultLogger,
  }
}
