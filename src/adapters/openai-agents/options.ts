/**
 * The options of `LedgerSession`, checked by its constructor: an unknown or bad option is its
 * `INVALID_OPTIONS`, naming the option, whichever backend the store is.
 */
import type { Model } from '@openai/agents'
import { z } from 'zod'
import type { TokenCounter } from '../../messages/tokens.js'
import { checkObject } from '../../store/check-args.js'
import { ContextStore } from '../../store/context-store.js'
import type { Summarizer } from '../../summaries/summarize.js'
import type { ProtectedMessages } from '../../window/window-options.js'
import { optionsError } from '../../window/window-options.js'
import { isAsyncStore, type AsyncContextStore } from '../strands/async-ledger.js'

/** A store a `LedgerSession` takes: SQLite's (`openContextStore`) or PostgreSQL's (`openPostgresContextStore`). */
export type LedgerSessionStore = ContextStore | AsyncContextStore

/** How a session's summaries are written: by an Agents `Model`, or by any summarizer function. */
export type LedgerSummarizeConfig =
  | {
      /** The model that writes them (any `Model`: `OpenAIResponsesModel`, an AI SDK model via `aisdk()`…). */
      readonly model: Model
      /** The system prompt (default `DEFAULT_SUMMARIZATION_PROMPT`). */
      readonly systemPrompt?: string | undefined
    }
  | Summarizer

/** Options of {@link LedgerSession}. */
export interface LedgerSessionOptions<S extends LedgerSessionStore = ContextStore> {
  /** The store: `openContextStore(path)`, or `openPostgresContextStore(…)` of `context-ledger/postgres`. */
  readonly store: S
  /** The session; created on the first item added. */
  readonly sessionId: string
  /** Most items in the window the model is given (default 40). */
  readonly windowSize?: number | undefined
  /** Most tokens in the window (none when omitted). */
  readonly tokenBudget?: number | undefined
  /** Ranges that always stay in the window. */
  readonly protectedMessages?: ProtectedMessages | undefined
  /** When the limits are exceeded, cut down to this share of them (in (0, 1); none by default). */
  readonly lowWaterMark?: number | undefined
  /**
   * Write summaries: what the limits would evict is folded into a summary instead (the core's
   * `summarizeExcess`), and `summarize()` works.
   */
  readonly summarize?: LedgerSummarizeConfig | undefined
  /** Counts an item's tokens (default: the format's built-in estimate). */
  readonly tokenCounter?: TokenCounter | undefined
  /**
   * Told when the window could not be brought within its limits after items were stored (a summary
   * model failing, a database gone during the fold): the call that stored them still succeeds, the window
   * is cut by eviction instead, or before the next read. Default: a process warning.
   */
  readonly onError?: ((error: unknown) => void) | undefined
}

const defined = (what: string) => z.custom<unknown>((v) => v !== undefined && v !== null, `expected ${what}`)

const optionsSchema = z.strictObject({
  store: z.custom<LedgerSessionStore>(
    (v) => v instanceof ContextStore || isAsyncStore(v),
    'expected a store from openContextStore() or openPostgresContextStore()',
  ),
  sessionId: z.string(),
  // The limits' values are checked by the core (window options).
  windowSize: z.unknown().optional(),
  tokenBudget: z.unknown().optional(),
  protectedMessages: z.unknown().optional(),
  lowWaterMark: z.unknown().optional(),
  tokenCounter: z.custom<TokenCounter>((v) => typeof v === 'function', 'expected a function').optional(),
  onError: z
    .custom<(error: unknown) => void>((v) => typeof v === 'function', 'expected a function')
    .optional(),
  summarize: z
    .union([
      z.custom<Summarizer>((v) => typeof v === 'function', 'expected a summarizer function'),
      z.strictObject({
        model: defined('an Agents Model').refine(
          (m) => typeof (m as { getResponse?: unknown }).getResponse === 'function',
          'expected an Agents Model (an object with getResponse)',
        ),
        systemPrompt: z.string().min(1).optional(),
      }),
    ])
    .optional(),
})

/**
 * Checks a `LedgerSession`'s options.
 *
 * @param options - what the caller passed
 * @returns them, typed
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the bad or unknown option
 */
export function checkSessionOptions<S extends LedgerSessionStore>(
  options: LedgerSessionOptions<S>,
): LedgerSessionOptions<S> {
  checkObject(options, 'options')
  const parsed = optionsSchema.safeParse(options)
  if (!parsed.success) throw optionsError(parsed.error, 'LedgerSession')
  return options
}
