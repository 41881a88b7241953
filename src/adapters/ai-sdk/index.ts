/**
 * `context-ledger/ai-sdk`: the Vercel AI SDK (`ai` 7) integration. {@link ledgerSession} keeps a
 * session's `ModelMessage`s (agent loops: `generateText`, `streamText`, `ToolLoopAgent`) or `UIMessage`s
 * (chat UIs: `useChat` and `toUIMessageStreamResponse`) in the ledger exactly as the SDK made them, and
 * gives each model call the window, on a SQLite store or a PostgreSQL one (`context-ledger/postgres`,
 * never loaded by this entry). A regeneration or an edit (`useChat`'s `regenerate()` and
 * `sendMessage({ messageId })`) rewinds the session and keeps what it replaced as an abandoned branch.
 * Loads `ai` (an optional peer dependency); the root entry
 * `context-ledger` never does. See docs/ai-sdk.md.
 */
export {
  ledgerSession,
  type LedgerManagerOf,
  type LedgerSession,
  type LedgerSessionOptions,
  type LedgerSessionStore,
} from './session.js'
export type { PrepareStepInput, StepEndInput } from './loop.js'
export type { LedgerSummarizeConfig } from './summarize.js'
export type { LedgerTools } from './tools.js'
export type { LoadUIMessagesOptions } from './ui-messages.js'
export type { BranchChange } from './branch-calls.js'
export type { MessageAlternative } from './alternatives.js'
export type { ChatRequest, MessageTarget } from './rewind-points.js'
export { DEFAULT_SUMMARIZATION_PROMPT } from '../../summaries/prompt.js'
