/**
 * `context-ledger/strands`: the Strands Agents integration. Drop {@link PersistentConversationManager}
 * into an `Agent` to keep every message in SQLite and show the model the window SQL computes; add
 * {@link pinMessageTool} so the model can pin what it must not lose. Loads `@strands-agents/sdk` (an
 * optional peer dependency); the root entry `context-ledger` never does.
 */
export {
  PersistentConversationManager,
  type PersistentConversationManagerOptions,
  type ReductionReport,
} from './persistent-conversation-manager.js'
export { PinMessageTool, pinMessageTool, runPinMessage } from './pin-message-tool.js'
