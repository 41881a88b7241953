/**
 * `context-ledger/langchain`: the LangChain / LangGraph (`langchain` 1.x, `@langchain/core` 1.x)
 * integration. {@link ledgerMiddleware} is `createAgent` middleware that keeps every message of a thread
 * in the ledger, exactly as LangChain serializes it, and gives each model call the session's window (and,
 * with `keepStateToWindow`, keeps the graph state to it); {@link LedgerChatMessageHistory} is LangChain's
 * chat-history interface on the ledger; {@link ledgerTools} are the recall and pin tools — on a SQLite
 * store or a PostgreSQL one (`context-ledger/postgres`, never loaded by this entry). Loads `langchain` and
 * `@langchain/core` (optional peer dependencies); the root entry `context-ledger` never does. See
 * docs/langchain.md.
 */
export { ledgerMiddleware, REMOVE_ALL_MESSAGES, type LedgerMiddleware } from './middleware.js'
export { LedgerChatMessageHistory } from './history.js'
export { ledgerTools } from './tools.js'
export {
  LANGCHAIN_FORMAT,
  type LedgerHistoryOptions,
  type LedgerManagerOf,
  type LedgerThread,
} from './thread.js'
export type {
  LedgerChatMessageHistoryOptions,
  LedgerLangChainStore,
  LedgerMiddlewareOptions,
  LedgerSummarizeConfig,
  LedgerToolsOptions,
} from './options.js'
export { LEDGER_ID_PREFIX } from './messages.js'
export type { WindowErrorHandler } from '../window-keeper.js'
export { DEFAULT_SUMMARIZATION_PROMPT } from '../../summaries/prompt.js'
