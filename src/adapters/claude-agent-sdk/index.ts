/**
 * `context-ledger/claude-agent-sdk`: the Claude Agent SDK (`@anthropic-ai/claude-agent-sdk` 0.3)
 * integration. {@link LedgerSessionStore} is a `SessionStore` for `query({ prompt, options: {
 * sessionStore } })` that keeps every transcript entry the CLI mirrors in the ledger, exactly, one ledger
 * session per transcript — on a SQLite store or a PostgreSQL one (`context-ledger/postgres`, never loaded
 * by this entry): searchable, inspectable with the CLI, compactions linked to what they replaced.
 * {@link forkSession} is the SDK's `forkSession` on the ledger: the fork shares its parent's rows.
 * Loads `@anthropic-ai/claude-agent-sdk` (an optional peer dependency) for its `foldSessionSummary`; the
 * root entry `context-ledger` never does. See docs/claude-agent-sdk.md.
 */
export { LedgerSessionStore } from './session-store.js'
export { forkSession } from './fork-session.js'
export { forkedUuid } from './fork-ids.js'
export { projectKeyOf } from './project-key.js'
export type { ClaudePruneOptions, LedgerSessionStoreOptions } from './options.js'
export type { ClaudeAgentSidecar } from './sidecar.js'
export { CLAUDE_AGENT_FORMAT } from './transcripts.js'
export { COMPACTION_MODEL } from './compaction.js'
