/**
 * The `langchain` format: LangChain's own `StoredMessage`s (`{ type, data }`, what
 * `mapChatMessagesToStoredMessages` writes and `mapStoredMessagesToChatMessages` revives): `human`,
 * `ai` with `tool_calls`, `tool` by `tool_call_id`, `system` and `generic` (`ChatMessage`), stored
 * exactly as given. A message's `data.id` names it for good (LangGraph's reducer replaces a message by
 * its id), so the same message sent again writes nothing and other content under its id is refused; an
 * id-less message gets an id the ledger mints, kept in its column only. The ledger's notes live in
 * `data.additional_kwargs.context_ledger`. The format has no pin flag. Imports no framework.
 */
import { readNotes } from '../ai-sdk-common.js'
import type { MessageFormat } from '../types.js'
import { LC_NOTES_KEY, langchainFacts, langchainText, langchainTokens, toolStatus } from './derive.js'
import { langchainDisplay } from './display.js'
import {
  langchainLateForm,
  langchainPrompt,
  langchainRedact,
  langchainRepair,
  langchainSummary,
} from './rewrite.js'
import { snapshotLangChainMessage } from './schema.js'
import { truncateLangChainMessage } from './truncate.js'
import type { LangChainMessageData, MessageContentData } from './types.js'

export type * from './types.js'
export { LANGCHAIN_TYPES } from './types.js'
export { expandRepair, withoutLedgerNotes } from './rewrite.js'
export { LC_NOTES_KEY } from './derive.js'

/**
 * A message's content as the key reads it: a string as one text block (none when empty), as LangChain
 * reads it (`contentBlocks`) and as it revives a v1 `AIMessage`'s string content; without `tool_call`
 * blocks, which a v1 `AIMessage` gains on revival for its `tool_calls` (the calls are keyed by those).
 */
function contentBlocks(content: MessageContentData): MessageContentData {
  if (typeof content !== 'string') return content.filter((b) => b.type !== 'tool_call')
  return content === '' ? [] : [{ type: 'text', text: content }]
}

/**
 * What must match for a message sent again under its id to be the same message: its type, role, name,
 * content (as {@link contentBlocks} reads it), calls (id, name, args) and the call it answers
 * with its outcome. Metadata (`additional_kwargs`, `response_metadata`, `usage_metadata`) may differ
 * between attempts, and LangChain adds empty ones when it revives a message.
 *
 * @param message - a stored message
 * @returns the key
 */
function contentKey(message: LangChainMessageData): string {
  const d = message.data
  return JSON.stringify([
    message.type,
    message.type === 'generic' ? message.data.role : null,
    d.name ?? null,
    contentBlocks(d.content),
    message.type === 'ai' ? (message.data.tool_calls ?? []).map((c) => [c.id, c.name, c.args]) : null,
    message.type === 'tool' ? [message.data.tool_call_id, toolStatus(message)] : null,
  ])
}

/** The `langchain` message format (see the module comment and the functions it calls). */
export const langchainFormat: MessageFormat<LangChainMessageData> = Object.freeze({
  name: 'langchain',
  snapshot: snapshotLangChainMessage,
  idOf: (message: LangChainMessageData) =>
    typeof message.data.id === 'string' ? message.data.id : undefined,
  uniqueIds: true,
  callIdsOnce: false,
  withId: (message: LangChainMessageData) => message,
  facts: langchainFacts,
  contentKey,
  text: langchainText,
  estimateTokens: langchainTokens,
  notesOf: (message: LangChainMessageData) => readNotes(message.data.additional_kwargs, LC_NOTES_KEY),
  repair: langchainRepair,
  lateForm: langchainLateForm,
  redact: (message: LangChainMessageData, redactedText: string) => langchainRedact(message, redactedText),
  prune: (message: LangChainMessageData, redactedText: string) =>
    langchainRedact(message, redactedText, true),
  summary: langchainSummary,
  display: langchainDisplay,
  truncate: truncateLangChainMessage,
  prompt: langchainPrompt,
  show: (message: LangChainMessageData) => message,
})
