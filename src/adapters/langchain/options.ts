/**
 * The options of `ledgerMiddleware`, `LedgerChatMessageHistory` and `ledgerTools`, checked when each is
 * made: an unknown or bad option is its `INVALID_OPTIONS`, naming the option, whichever backend the
 * store is.
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
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

/** A store the LangChain adapter takes: SQLite's (`openContextStore`) or PostgreSQL's (`openPostgresContextStore`). */
export type LedgerLangChainStore = AdapterStore

/**
 * How summaries are written: by a LangChain chat model (any `BaseChatModel`: `ChatOpenAI`,
 * `ChatAnthropic`…) and a system prompt, or by any summarizer function.
 */
export type LedgerSummarizeConfig = ModelSummarizeConfig<BaseChatModel>

/** What every LangChain adapter object takes besides the store and the session. */
interface LedgerBehaviour {
  /**
   * Write summaries: what the limits would evict is folded into a summary instead (the core's
   * `summarizeExcess`), and `summarize()` works.
   */
  readonly summarize?: LedgerSummarizeConfig | undefined
  /**
   * Told when the window could not be brought within its limits after messages were stored (a summary
   * model failing, a database gone during the fold): the call that stored them still succeeds, the
   * window is cut by eviction instead, or before the next read. Default: a process warning.
   */
  readonly onError?: ((error: unknown) => void) | undefined
}

/** Options of `LedgerChatMessageHistory`. */
export interface LedgerChatMessageHistoryOptions<S extends LedgerLangChainStore = ContextStore>
  extends AdapterSessionOptions<S>, LedgerBehaviour {}

/** Options of `ledgerMiddleware`. */
export interface LedgerMiddlewareOptions<S extends LedgerLangChainStore = ContextStore>
  extends Omit<AdapterSessionOptions<S>, 'sessionId'>, LedgerBehaviour {
  /**
   * The session every run uses. Default: the run's thread id (`configurable.thread_id`), so each
   * LangGraph thread is its own session.
   */
  readonly sessionId?: string | undefined
  /**
   * Keep the graph state's `messages` down to the window: before each model call the state is replaced
   * by the window (`RemoveMessage(REMOVE_ALL_MESSAGES)`, then the window's messages under their stored
   * ids), followed by the messages not stored yet (the prompt, the tool results), which the model call
   * stores once the other middlewares' `beforeModel` hooks have run; so a checkpointer stores the window,
   * not the whole history (the ledger holds that). Default false: the state grows as LangGraph grows
   * it, and only the model's input is the window.
   */
  readonly keepStateToWindow?: boolean | undefined
  /**
   * Give the agent the recall and pin tools (`search_history`, `read_history`, `pin_message`) as the
   * middleware's own tools; each call reads the session of its run. Default false.
   */
  readonly tools?: boolean | undefined
  /**
   * The middleware's name in the agent (LangChain refuses two middlewares of one name). Default
   * `"ContextLedger"`.
   */
  readonly name?: string | undefined
}

/** Options of `ledgerTools`. */
export type LedgerToolsOptions<S extends LedgerLangChainStore = ContextStore> = AdapterSessionOptions<S>

const behaviourFields = {
  summarize: summarizeOption('a LangChain chat model', 'invoke'),
  onError: aFunction<(error: unknown) => void>().optional(),
}

const historySchema = z.strictObject({ ...adapterOptionFields, ...behaviourFields })

const middlewareSchema = z.strictObject({
  ...adapterOptionFields,
  ...behaviourFields,
  sessionId: z.string().min(1).optional(),
  keepStateToWindow: z.boolean().optional(),
  tools: z.boolean().optional(),
  name: z.string().min(1).optional(),
})

const toolsSchema = z.strictObject(adapterOptionFields)

/**
 * Checks `ledgerMiddleware`'s options.
 *
 * @param options - what the caller passed
 * @returns them, typed
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the bad or unknown option
 */
export function checkMiddlewareOptions<S extends LedgerLangChainStore>(
  options: LedgerMiddlewareOptions<S>,
): LedgerMiddlewareOptions<S> {
  return checkAdapterOptions(options, middlewareSchema, 'ledgerMiddleware')
}

/**
 * Checks `LedgerChatMessageHistory`'s options.
 *
 * @param options - what the caller passed
 * @returns them, typed
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the bad or unknown option
 */
export function checkHistoryOptions<S extends LedgerLangChainStore>(
  options: LedgerChatMessageHistoryOptions<S>,
): LedgerChatMessageHistoryOptions<S> {
  return checkAdapterOptions(options, historySchema, 'LedgerChatMessageHistory')
}

/**
 * Checks `ledgerTools`' options.
 *
 * @param options - what the caller passed
 * @returns them, typed
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the bad or unknown option
 */
export function checkToolsOptions<S extends LedgerLangChainStore>(
  options: LedgerToolsOptions<S>,
): LedgerToolsOptions<S> {
  return checkAdapterOptions(options, toolsSchema, 'ledgerTools')
}
