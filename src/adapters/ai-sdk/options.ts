/**
 * The options of `ledgerSession`, checked by `ledgerSession` itself: an unknown or bad option is its
 * `INVALID_OPTIONS`, naming the option, whichever backend the store is.
 */
import type { ToolSet } from 'ai'
import { z } from 'zod'
import type { ContextStore } from '../../store/context-store.js'
import {
  adapterOptionFields,
  aFunction,
  checkAdapterOptions,
  defined,
  type AdapterSessionOptions,
  type AdapterStore,
} from '../session-options.js'
import type { LedgerSummarizeConfig } from './summarize.js'

/** A store `ledgerSession` takes: SQLite's (`openContextStore`) or PostgreSQL's (`openPostgresContextStore`). */
export type LedgerSessionStore = AdapterStore

/** Options of {@link ledgerSession}. */
export interface LedgerSessionOptions<
  S extends LedgerSessionStore = ContextStore,
> extends AdapterSessionOptions<S> {
  /** `'model'` (default): `ModelMessage`s of an agent loop; `'ui'`: `UIMessage`s of a chat UI. */
  readonly format?: 'model' | 'ui' | undefined
  /**
   * Write summaries with this model: what the limits would evict is folded into a summary instead
   * (the core's `summarizeExcess`), and {@link LedgerSession.summarize} works.
   */
  readonly summarize?: LedgerSummarizeConfig | undefined
  /**
   * The tools the model is given (a `'ui'` session): `window()` passes them to `convertToModelMessages`,
   * so a tool part's output becomes the model's input through the tool's `toModelOutput`.
   */
  readonly tools?: ToolSet | undefined
  /**
   * Told when the window could not be brought within its limits after messages were stored (the summary
   * model failing or writing a summary over the budget, a database gone during the fold): the call that
   * stored them still succeeds, the window is cut by eviction instead, or before the next read. Default:
   * a process warning.
   */
  readonly onError?: ((error: unknown) => void) | undefined
}

const optionsSchema = z.strictObject({
  ...adapterOptionFields,
  format: z.enum(['model', 'ui']).optional(),
  summarize: z
    .strictObject({
      model: defined('a LanguageModel'),
      systemPrompt: z.string().min(1).optional(),
      maxOutputTokens: z.number().int().min(1).optional(),
    })
    .optional(),
  tools: z.record(z.string(), defined('a tool')).optional(),
  onError: aFunction<(error: unknown) => void>().optional(),
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
  return checkAdapterOptions(options, optionsSchema, 'ledgerSession')
}
