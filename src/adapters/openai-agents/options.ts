/**
 * The options of `LedgerSession`, checked by its constructor: an unknown or bad option is its
 * `INVALID_OPTIONS`, naming the option, whichever backend the store is.
 */
import type { Model } from '@openai/agents'
import { z } from 'zod'
import type { ContextStore } from '../../store/context-store.js'
import type { Summarizer } from '../../summaries/summarize.js'
import {
  adapterOptionFields,
  aFunction,
  checkAdapterOptions,
  defined,
  type AdapterSessionOptions,
  type AdapterStore,
} from '../session-options.js'

/** A store a `LedgerSession` takes: SQLite's (`openContextStore`) or PostgreSQL's (`openPostgresContextStore`). */
export type LedgerSessionStore = AdapterStore

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
export interface LedgerSessionOptions<
  S extends LedgerSessionStore = ContextStore,
> extends AdapterSessionOptions<S> {
  /**
   * Write summaries: what the limits would evict is folded into a summary instead (the core's
   * `summarizeExcess`), and `summarize()` works.
   */
  readonly summarize?: LedgerSummarizeConfig | undefined
  /**
   * Told when the window could not be brought within its limits after items were stored (a summary
   * model failing, a database gone during the fold): the call that stored them still succeeds, the window
   * is cut by eviction instead, or before the next read. Default: a process warning.
   */
  readonly onError?: ((error: unknown) => void) | undefined
}

const optionsSchema = z.strictObject({
  ...adapterOptionFields,
  onError: aFunction<(error: unknown) => void>().optional(),
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
  return checkAdapterOptions(options, optionsSchema, 'LedgerSession')
}
