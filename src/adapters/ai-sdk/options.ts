/**
 * The options of `ledgerSession`, checked by `ledgerSession` itself: an unknown or bad option is its
 * `INVALID_OPTIONS`, naming the option, whichever backend the store is.
 */
import type { ToolSet } from 'ai'
import { z } from 'zod'
import type { TokenCounter } from '../../messages/tokens.js'
import { checkObject } from '../../store/check-args.js'
import { ContextStore } from '../../store/context-store.js'
import type { ProtectedMessages } from '../../window/window-options.js'
import { optionsError } from '../../window/window-options.js'
import { isAsyncStore, type AsyncContextStore } from '../strands/async-ledger.js'
import type { LedgerSummarizeConfig } from './summarize.js'

/** A store `ledgerSession` takes: SQLite's (`openContextStore`) or PostgreSQL's (`openPostgresContextStore`). */
export type LedgerSessionStore = ContextStore | AsyncContextStore

/** Options of {@link ledgerSession}. */
export interface LedgerSessionOptions<S extends LedgerSessionStore = ContextStore> {
  /**
   * The store holding the session: `openContextStore(path)`, or `openPostgresContextStore(…)` of
   * `context-ledger/postgres` (the same session, its calls awaited).
   */
  readonly store: S
  /** The session; created on the first append. */
  readonly sessionId: string
  /** `'model'` (default): `ModelMessage`s of an agent loop; `'ui'`: `UIMessage`s of a chat UI. */
  readonly format?: 'model' | 'ui' | undefined
  /** Most messages in the window (default 40). */
  readonly windowSize?: number | undefined
  /** Most tokens in the window (none when omitted). */
  readonly tokenBudget?: number | undefined
  /** Ranges that always stay in the window. */
  readonly protectedMessages?: ProtectedMessages | undefined
  /**
   * When the limits are exceeded, cut down to this share of them (in (0, 1); none by default): with
   * `summarize`, a fold then makes room for several steps instead of one, so the model writes fewer,
   * larger summaries, and a provider's prompt cache stays warm between cuts.
   */
  readonly lowWaterMark?: number | undefined
  /**
   * Write summaries with this model: what the limits would evict is folded into a summary instead
   * (the core's `summarizeExcess`), and {@link LedgerSession.summarize} works.
   */
  readonly summarize?: LedgerSummarizeConfig | undefined
  /** Counts a message's tokens (default: the format's built-in estimate). */
  readonly tokenCounter?: TokenCounter | undefined
  /**
   * The tools the model is given (a `'ui'` session): `window()` passes them to `convertToModelMessages`,
   * so a tool part's output becomes the model's input through the tool's `toModelOutput`.
   */
  readonly tools?: ToolSet | undefined
}

const defined = (what: string) => z.custom<unknown>((v) => v !== undefined && v !== null, `expected ${what}`)

const optionsSchema = z.strictObject({
  store: z.custom<LedgerSessionStore>(
    (v) => v instanceof ContextStore || isAsyncStore(v),
    'expected a store from openContextStore() or openPostgresContextStore()',
  ),
  sessionId: z.string(),
  format: z.enum(['model', 'ui']).optional(),
  // The limits' values are checked by the core (window options).
  windowSize: z.unknown().optional(),
  tokenBudget: z.unknown().optional(),
  protectedMessages: z.unknown().optional(),
  lowWaterMark: z.unknown().optional(),
  tokenCounter: z.custom<TokenCounter>((v) => typeof v === 'function', 'expected a function').optional(),
  summarize: z
    .strictObject({
      model: defined('a LanguageModel'),
      systemPrompt: z.string().min(1).optional(),
      maxOutputTokens: z.number().int().min(1).optional(),
    })
    .optional(),
  tools: z.record(z.string(), defined('a tool')).optional(),
})

/**
 * Checks `ledgerSession`'s options.
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
  if (!parsed.success) throw optionsError(parsed.error, 'ledgerSession')
  return options
}
