/**
 * What every framework adapter's session takes besides its own options — the store, the session id, the
 * window's limits and the token counter — and their checks: one definition for the AI SDK's
 * `ledgerSession` and the OpenAI Agents `LedgerSession`. The limits' values are checked by the core
 * (window options); here only their presence and the option names.
 */
import { z } from 'zod'
import type { TokenCounter } from '../messages/tokens.js'
import type { Summarizer } from '../summaries/summarize.js'
import { checkObject } from '../store/check-args.js'
import { ContextStore } from '../store/context-store.js'
import type { ProtectedMessages } from '../window/window-options.js'
import { optionsError } from '../window/window-options.js'
import { isAsyncStore, type AsyncContextStore } from './strands/async-ledger.js'

/** A store an adapter's session takes: SQLite's (`openContextStore`) or PostgreSQL's (`openPostgresContextStore`). */
export type AdapterStore = ContextStore | AsyncContextStore

/** The options every adapter's session takes. */
export interface AdapterSessionOptions<S extends AdapterStore = ContextStore> {
  /**
   * The store holding the session: `openContextStore(path)`, or `openPostgresContextStore(…)` of
   * `context-ledger/postgres` (the same session, its calls awaited).
   */
  readonly store: S
  /** The session; created on the first write. */
  readonly sessionId: string
  /** Most messages (items) in the window (default 40). */
  readonly windowSize?: number | undefined
  /** Most tokens in the window (none when omitted). */
  readonly tokenBudget?: number | undefined
  /** Ranges that always stay in the window. */
  readonly protectedMessages?: ProtectedMessages | undefined
  /**
   * When the limits are exceeded, cut down to this share of them (in (0, 1); none by default): with
   * summaries, a fold then makes room for several steps instead of one, so the model writes fewer,
   * larger summaries, and a provider's prompt cache stays warm between cuts.
   */
  readonly lowWaterMark?: number | undefined
  /** Counts a message's tokens (default: the format's built-in estimate). */
  readonly tokenCounter?: TokenCounter | undefined
}

/** A value that is there (not undefined or null), for option schemas. */
export const defined = (what: string) =>
  z.custom<unknown>((v) => v !== undefined && v !== null, `expected ${what}`)

/** A function, for option schemas. */
export const aFunction = <F>() => z.custom<F>((v) => typeof v === 'function', 'expected a function')

/** How an adapter's summaries are written: by a framework's model `M`, or by any summarizer function. */
export type ModelSummarizeConfig<M> =
  | {
      /** The model that writes them. */
      readonly model: M
      /** The system prompt (default `DEFAULT_SUMMARIZATION_PROMPT`). */
      readonly systemPrompt?: string | undefined
    }
  | Summarizer

/**
 * The schema of a `summarize` option ({@link ModelSummarizeConfig}): a summarizer function, or
 * `{ model, systemPrompt? }` with a model recognized by a method it has.
 *
 * @param what - the model, as the error names it (`an Agents Model`)
 * @param method - a method every such model has (`getResponse`)
 * @returns the optional field's schema
 */
export const summarizeOption = (what: string, method: string) =>
  z
    .union([
      z.custom<Summarizer>((v) => typeof v === 'function', 'expected a summarizer function'),
      z.strictObject({
        model: defined(what).refine(
          (m) => typeof (m as Record<string, unknown>)[method] === 'function',
          `expected ${what} (an object with ${method})`,
        ),
        systemPrompt: z.string().min(1).optional(),
      }),
    ])
    .optional()

/** The zod fields of {@link AdapterSessionOptions}, to spread into an adapter's strict schema. */
export const adapterOptionFields = {
  store: z.custom<AdapterStore>(
    (v) => v instanceof ContextStore || isAsyncStore(v),
    'expected a store from openContextStore() or openPostgresContextStore()',
  ),
  sessionId: z.string(),
  windowSize: z.unknown().optional(),
  tokenBudget: z.unknown().optional(),
  protectedMessages: z.unknown().optional(),
  lowWaterMark: z.unknown().optional(),
  tokenCounter: aFunction<TokenCounter>().optional(),
}

/**
 * Checks an adapter's options with its schema.
 *
 * @param options - what the caller passed
 * @param schema - the adapter's strict schema
 * @param name - the adapter's entry point, for the error
 * @returns the options, as given
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the bad or unknown option
 */
export function checkAdapterOptions<T>(options: T, schema: z.ZodType, name: string): T {
  checkObject(options, 'options')
  const parsed = schema.safeParse(options)
  if (!parsed.success) throw optionsError(parsed.error, name)
  return options
}
