/**
 * `context-ledger/ai-sdk`: the Vercel AI SDK (`ai` 7) integration. {@link ledgerSession} keeps a
 * session's `ModelMessage`s (agent loops: `generateText`, `streamText`, `ToolLoopAgent`) or `UIMessage`s
 * (chat UIs: `useChat` and `toUIMessageStreamResponse`) in the ledger exactly as the SDK made them, and
 * gives each model call the window. Loads `ai` (an optional peer dependency); the root entry
 * `context-ledger` never does. See docs/ai-sdk.md.
 */
export { ledgerSession, type LedgerSession, type LedgerSessionOptions } from './session.js'
export type { PrepareStepInput, StepEndInput } from './loop.js'
export type { LedgerSummarizeConfig } from './summarize.js'
export type { LedgerTools } from './tools.js'
export type { LoadUIMessagesOptions } from './ui-messages.js'
export { DEFAULT_SUMMARIZATION_PROMPT } from '../../summaries/prompt.js'
