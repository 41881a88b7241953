/**
 * The options of `LedgerSession`, checked by its constructor: an unknown or bad option is its
 * `INVALID_OPTIONS`, naming the option, whichever backend the store is.
 */
import type { Model } from '@openai/agents'
import { z } from 'zod'
import type { ContextStore } from '../../store/context-store.js'
import {
  adapterOptionFields,
  aFunction,
  checkAdapterOptions,
  summarizeOption,
  type AdapterSessionOptions,
  type AdapterStore,
  type ModelSummarizeConfig,
} from '../session-options.js'

/** A store a `LedgerSession` takes: SQLite's (`openContextStore`) or PostgreSQL's (`openPostgresContextStore`). */
export type LedgerSessionStore = AdapterStore

/**
 * How a session's summaries are written: by an Agents `Model` (any `Model`: `OpenAIResponsesModel`, an
 * AI SDK model via `aisdk()`…) and a system prompt, or by any summarizer function.
 */
export type LedgerSummarizeConfig = ModelSummarizeConfig<Model>

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
  summarize: summarizeOption('an Agents Model', 'getResponse'),
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
