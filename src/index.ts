/**
 * context-ledger: a persistent, queryable memory of an agent's conversation. Every message lives in
 * SQLite; the context window is computed from the ledger by SQL; nothing is deleted.
 *
 * This entry never loads `@strands-agents/sdk`; the Strands adapter is `context-ledger/strands`.
 *
 * Only what is exported here (and from `context-ledger/strands`) is the package's API; the modules
 * behind it are not.
 *
 * @example
 * ```ts
 * // openContextStore and PersistentConversationManager from this entry
 * const store = openContextStore('agent.db')
 * const manager = new PersistentConversationManager({ store, sessionId: 'support-42', windowSize: 40 })
 * manager.append({ role: 'user', content: [{ text: 'Plan the migration' }] })
 * manager.applyWindow()
 * const messages = manager.window() // what the model sees
 * ```
 */
export {
  ContextLedgerError,
  ERROR_CODES,
  isContextLedgerError,
  type ContextLedgerErrorDetails,
  type ErrorCode,
} from './errors.js'
export type {
  ContentBlockData,
  DocumentBlockData,
  JsonValue,
  MediaBlockData,
  MessageData,
  MessageMetadata,
  Role,
  StoredMessageData,
  ToolResultContentData,
  ToolResultData,
  ToolUseData,
} from './messages/types.js'
export { validateMessage, DEFAULT_MESSAGE_LIMITS, type MessageLimits } from './messages/schema.js'
export {
  repairMessage,
  type MessageRepair,
  type RepairProblem,
  type RepairResult,
} from './messages/repair-message.js'
export { estimateTokens, type TokenCounter } from './messages/tokens.js'
export {
  ContextStore,
  openContextStore,
  type ContextStoreOptions,
  type HistoryOptions,
  type PinnedMessagesOptions,
  type LedgerEntry,
  type WindowEntry,
  type AppendOptions,
  type SessionMetadataFold,
  type MessageRef,
  type PinAttribution,
  type PinEvent,
  type PinnedMessage,
  type PinResult,
  type SessionSummary,
  type WindowResult,
  type WindowReadOptions,
  type EditAttribution,
  type MessageEdit,
  type RedactOptions,
  type RedactResult,
  type BackupOptions,
  type BackupResult,
  type DeleteSessionResult,
  type DeleteSessionOptions,
  type BranchInfo,
  type BranchKind,
  type ForkOptions,
  type ForkPoint,
  type RewindOptions,
  type RewindResult,
  type PruneOptions,
  type PruneResult,
  type SummariesOptions,
  type SummaryEndReason,
  type SummaryRecord,
  type ExplainedWindowMessage,
  type WindowExplanation,
  type WindowReason,
} from './store/context-store.js'
export { alternateRoles } from './window/alternate-roles.js'
export { REDACTED_TEXT } from './messages/redact.js'
export {
  PersistentConversationManager,
  type PersistentConversationManagerOptions,
  type ManagerAppendOptions,
  type ReduceOptions,
  type ResummarizeOptions,
  type SummarizeExcessOptions,
  type SummarizeOptions,
} from './manager/persistent-conversation-manager.js'
export { DEFAULT_SUMMARIZATION_PROMPT, SUMMARY_REQUEST, promptHash } from './summaries/prompt.js'
export { isSummaryMessage, type SummarizerOutput } from './summaries/summary-message.js'
export type { SummarizeResult, Summarizer, SummaryRequest } from './summaries/summarize.js'
export {
  isPinned,
  pinMessage,
  unpinMessage,
  findValidTrimPoint,
  adjustSplitPointForToolPairs,
  matchesMessageType,
  type MessageType,
} from './window/array-helpers.js'
export { planWindow, type PlanWindowOptions, type PlannedWindow } from './window/plan-window.js'
export type { WindowState } from './window/array-view.js'
export type {
  EvictionCut,
  EvictionReason,
  EvictionRecord,
  EvictionsOptions,
  SearchHit,
  SearchOptions,
} from './store/search-types.js'
export type { CutKind, FoldRequest, NothingEvictedReason, ReduceMode, WindowPlan } from './window/plan-cut.js'
export {
  DEFAULT_WINDOW_SIZE,
  type ProtectedMessages,
  type WindowLimitOptions,
  type WindowLimits,
} from './window/window-options.js'
export {
  PIN_MESSAGE_TOOL_NAME,
  PIN_MESSAGE_TOOL_DESCRIPTION,
  pinMessageInputSchema,
  pinMessageToolDefinition,
  handlePinMessage,
  type PinMessageInput,
  type PinMessageToolResult,
  type PinMessageTarget,
  type HandlePinMessageOptions,
} from './tools/pin-message-tool.js'
export {
  SEARCH_HISTORY_TOOL_NAME,
  SEARCH_HISTORY_TOOL_DESCRIPTION,
  READ_HISTORY_TOOL_NAME,
  READ_HISTORY_TOOL_DESCRIPTION,
  READ_HISTORY_MAX_TOKENS,
  READ_HISTORY_MAX_TOKENS_LIMIT,
  READ_PAGE_ROWS,
  searchHistoryInputSchema,
  readHistoryInputSchema,
  searchHistoryToolDefinition,
  readHistoryToolDefinition,
  handleSearchHistory,
  handleReadHistory,
  type RecallToolResult,
  type RecallToolOptions,
} from './tools/recall-tools.js'
export { RECALL_TOOL_NAMES, MAX_SEARCH_LIMIT } from './store/search.js'
export {
  MAX_QUERY_LENGTH,
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the old name stays public API, as an alias
  MAX_QUERY_PHRASES,
  MAX_QUERY_TERMS,
  MIN_PREFIX_LENGTH,
} from './store/search-query.js'
export { truncateToolResults } from './messages/truncate-tool-results.js'
export {
  toOpenAIChatMessages,
  type OpenAIChatMessage,
  type OpenAIChatUserMessage,
  type OpenAIChatAssistantMessage,
  type OpenAIChatToolMessage,
  type OpenAIChatToolCall,
  type OpenAIChatContentPart,
} from './convert/openai-chat.js'
export {
  toOpenAIResponsesInput,
  type OpenAIResponsesInputItem,
  type OpenAIResponsesUserMessage,
  type OpenAIResponsesAssistantMessage,
  type OpenAIResponsesFunctionCall,
  type OpenAIResponsesFunctionCallOutput,
  type OpenAIResponsesContent,
} from './convert/openai-responses.js'
export {
  toAnthropicMessages,
  type AnthropicMessage,
  type AnthropicContentBlock,
  type AnthropicTextBlock,
  type AnthropicImageBlock,
  type AnthropicDocumentBlock,
  type AnthropicToolUseBlock,
  type AnthropicToolResultBlock,
  type AnthropicThinkingBlock,
  type AnthropicRedactedThinkingBlock,
  type AnthropicCacheControl,
} from './convert/anthropic.js'
export {
  EMPTY_TOOL_RESULT_TEXT,
  TOOL_ERROR_PREFIX,
  unsupportedPlaceholder,
  type ConvertOptions,
  type ImageMediaType,
} from './convert/shared.js'
