/**
 * `context-ledger/strands`: the Strands Agents integration. Drop {@link PersistentConversationManager}
 * into an `Agent` to keep every message in SQLite and show the model the window SQL computes; add
 * {@link pinMessageTool} so the model can pin what it must not lose. Loads `@strands-agents/sdk` (an
 * optional peer dependency); the root entry `context-ledger` never does.
 *
 * @example
 * ```ts
 * import { Agent } from '@strands-agents/sdk'
 * import { openContextStore } from 'context-ledger'
 * import { PersistentConversationManager, pinMessageTool } from 'context-ledger/strands'
 *
 * const store = openContextStore('agent.db')
 * const agent = new Agent({
 *   tools: [pinMessageTool],
 *   conversationManager: new PersistentConversationManager({ store, sessionId: 'support-42' }),
 * })
 * ```
 */
export {
  PersistentConversationManager,
  type PersistentConversationManagerOptions,
  type StrandsSummarizeOptions,
  type AsyncContextStore,
  type AsyncLedgerManager,
  type LedgerManagerOf,
  type BranchManagerOptions,
  type OnStore,
} from './persistent-conversation-manager.js'
// The shapes of the manager's fork, rewind and branches (the store's own, also exported by `context-ledger`).
export type {
  BranchInfo,
  BranchKind,
  ForkOptions,
  RewindOptions,
  RewindResult,
} from '../../store/context-store.js'
export { DEFAULT_SUMMARIZATION_PROMPT, generateSummary, modelSummarizer } from './generate-summary.js'
export { PinMessageTool, pinMessageTool } from './pin-message-tool.js'
export { RecallTool, readHistoryTool, searchHistoryTool } from './recall-tools.js'
