/**
 * `context-ledger/openai-agents`: the OpenAI Agents SDK (`@openai/agents` 0.20) integration.
 * {@link LedgerSession} is a `Session` for `run(agent, input, { session })` that keeps every item in the
 * ledger exactly as the SDK made it and gives the model the session's window, on a SQLite store or a
 * PostgreSQL one (`context-ledger/postgres`, never loaded by this entry); `popItem` and a replaced suffix
 * leave as abandoned branches, and `fork` starts a branch. Loads `@openai/agents` (an
 * optional peer dependency); the root entry `context-ledger` never does. See docs/openai-agents.md.
 */
export { LedgerSession, OPENAI_AGENTS_FORMAT, type LedgerManagerOf } from './session.js'
export type { LedgerSessionOptions, LedgerSessionStore, LedgerSummarizeConfig } from './options.js'
export type { LedgerTools } from './tools.js'
export type { LedgerForkOptions } from './fork.js'
export type { BranchInfo } from '../../store/branches/types.js'
export { COMPACTION_MODEL } from './compaction.js'
export type { WindowErrorHandler } from '../window-keeper.js'
export { DEFAULT_SUMMARIZATION_PROMPT } from '../../summaries/prompt.js'
