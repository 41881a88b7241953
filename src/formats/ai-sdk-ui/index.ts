/**
 * The `ai-sdk/ui` format: AI SDK 7 `UIMessage`s (`user`, `assistant`), stored exactly as given and keyed
 * by their own `id`. Tool calls and their outputs share one part of one assistant message, so nothing
 * links across messages (the facts hold no tool uses or results, a late result cannot happen, a repair
 * is never asked for). The format has no pin flag: `facts().pinned` is always false. Imports no
 * framework.
 */
import { readNotes } from '../ai-sdk-common.js'
import { uiDisplay } from '../ai-sdk-display.js'
import { truncateUI } from '../ai-sdk-truncate.js'
import type { MessageFormat } from '../types.js'
import { uiFacts, uiText, uiTokens } from './derive.js'
import { uiRedact, uiRepair, uiSummary } from './rewrite.js'
import { snapshotUIMessage } from './schema.js'
import type { UIMessageData } from './types.js'

export type * from './types.js'

/** The `ai-sdk/ui` message format (see the module comment and the functions it calls). */
export const aiSdkUiFormat: MessageFormat<UIMessageData> = Object.freeze({
  name: 'ai-sdk/ui',
  snapshot: snapshotUIMessage,
  idOf: (message: UIMessageData) => message.id,
  uniqueIds: true,
  callIdsOnce: false,
  withId: (message: UIMessageData) => message,
  facts: uiFacts,
  contentKey: (message: UIMessageData) => JSON.stringify([message.role, message.parts]),
  text: uiText,
  estimateTokens: uiTokens,
  notesOf: (message: UIMessageData) => readNotes(message.metadata),
  repair: uiRepair,
  lateForm: (message: UIMessageData) => message,
  redact: (message: UIMessageData, redactedText: string) => uiRedact(message, redactedText),
  prune: (message: UIMessageData, redactedText: string) => uiRedact(message, redactedText, true),
  summary: uiSummary,
  display: uiDisplay,
  truncate: truncateUI,
  // Never stored: the request that closes a summarizer's input.
  prompt: (text: string): UIMessageData => ({
    id: 'summary-request',
    role: 'user',
    parts: [{ type: 'text', text }],
  }),
  show: (message: UIMessageData) => message,
})
