/**
 * The `ai-sdk/model` format: AI SDK 7 `ModelMessage`s (`user`, `assistant`, `tool`), stored exactly as
 * given. The message shape has no id, so the id lives only in the ledger's column; it has no pin flag,
 * so `facts().pinned` is always false. Imports no framework.
 */
import { readNotes } from '../ai-sdk-common.js'
import { modelDisplay } from '../ai-sdk-display.js'
import { truncateModel } from '../ai-sdk-truncate.js'
import type { MessageFormat } from '../types.js'
import { modelFacts, modelText, modelTokens } from './derive.js'
import { modelLateForm, modelRedact, modelRepair, modelSummary } from './rewrite.js'
import { snapshotModelMessage } from './schema.js'
import type { ModelMessageData } from './types.js'

export type * from './types.js'

/** The `ai-sdk/model` message format (see the module comment and the functions it calls). */
export const aiSdkModelFormat: MessageFormat<ModelMessageData> = Object.freeze({
  name: 'ai-sdk/model',
  snapshot: snapshotModelMessage,
  idOf: () => undefined,
  uniqueIds: false,
  callIdsOnce: false,
  withId: (message: ModelMessageData) => message,
  facts: modelFacts,
  contentKey: (message: ModelMessageData) => JSON.stringify([message.role, message.content]),
  text: modelText,
  estimateTokens: modelTokens,
  notesOf: (message: ModelMessageData) => readNotes(message.providerOptions),
  repair: modelRepair,
  lateForm: modelLateForm,
  redact: (message: ModelMessageData, redactedText: string) => modelRedact(message, redactedText),
  prune: (message: ModelMessageData, redactedText: string) => modelRedact(message, redactedText, true),
  summary: modelSummary,
  display: modelDisplay,
  truncate: truncateModel,
  prompt: (text: string): ModelMessageData => ({ role: 'user', content: [{ type: 'text', text }] }),
  show: (message: ModelMessageData) => message,
})
