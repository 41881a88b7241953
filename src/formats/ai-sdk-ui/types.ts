/**
 * The stored form of the `ai-sdk/ui` format: structural copies of the AI SDK's `UIMessage` types
 * (`ai` 7), so the core never imports the SDK. A `UIMessage` of JSON data with role `user` or
 * `assistant` is assignable to {@link UIMessageData}.
 */
import type { JsonValue } from '../../messages/types.js'

/** Provider metadata: provider name → values. */
export type ProviderMetadataData = Record<string, Record<string, JsonValue>>

interface WithMetadata {
  providerMetadata?: ProviderMetadataData
}

/** A text part. */
export interface TextUIPartData extends WithMetadata {
  type: 'text'
  text: string
  state?: 'streaming' | 'done'
  citations?: JsonValue[]
}

/** A reasoning part. */
export interface ReasoningUIPartData extends WithMetadata {
  type: 'reasoning'
  id?: string
  text: string
  state?: 'streaming' | 'done'
}

/** A provider-specific part. */
export interface CustomUIPartData extends WithMetadata {
  type: 'custom'
  kind: string
}

/** A URL the model cited. */
export interface SourceUrlUIPartData extends WithMetadata {
  type: 'source-url'
  sourceId: string
  url: string
  title?: string
}

/** A document the model cited. */
export interface SourceDocumentUIPartData extends WithMetadata {
  type: 'source-document'
  sourceId: string
  mediaType: string
  title: string
  filename?: string
}

/** A file (by URL, often a data URL). */
export interface FileUIPartData extends WithMetadata {
  type: 'file'
  mediaType: string
  filename?: string
  url: string
  providerReference?: Record<string, string>
}

/** A file produced while reasoning. */
export interface ReasoningFileUIPartData extends WithMetadata {
  type: 'reasoning-file'
  mediaType: string
  url: string
}

/** A message the user sent while the model was working. */
export interface SteeringMessageUIPartData {
  type: 'steering-message'
  id: string
  parts: (Omit<TextUIPartData, 'state' | 'citations'> | Omit<FileUIPartData, never>)[]
}

/** The start of a step. */
export interface StepStartUIPartData {
  type: 'step-start'
}

/** An app's own data part (`data-<name>`). */
export interface DataUIPartData {
  type: `data-${string}`
  id?: string
  data?: JsonValue
}

/** The states of a tool part. */
export type ToolUIPartState =
  | 'input-streaming'
  | 'input-available'
  | 'approval-requested'
  | 'approval-responded'
  | 'output-available'
  | 'output-error'
  | 'output-denied'

/** A tool approval, requested or answered. */
export interface ToolApprovalData {
  id: string
  approved?: boolean
  reason?: string
  requestReason?: string
  descriptor?: JsonValue
  isAutomatic?: boolean
  signature?: string
  inputSchemaInput?: JsonValue
}

interface ToolPartFields {
  toolCallId: string
  state: ToolUIPartState
  title?: string
  toolMetadata?: Record<string, JsonValue>
  input?: JsonValue
  rawInput?: JsonValue
  inputEncoding?: 'json' | 'text'
  output?: JsonValue
  errorText?: string
  providerExecuted?: boolean
  callProviderMetadata?: ProviderMetadataData
  resultProviderMetadata?: ProviderMetadataData
  preliminary?: boolean
  approval?: ToolApprovalData
}

/** A call of a tool the app declared (`tool-<name>`), with its output once there is one. */
export interface ToolUIPartData extends ToolPartFields {
  type: `tool-${string}`
}

/** A call of a tool the app did not declare statically. */
export interface DynamicToolUIPartData extends ToolPartFields {
  type: 'dynamic-tool'
  toolName: string
  dynamic?: false
}

/** Any part of a UI message. */
export type UIPartData =
  | TextUIPartData
  | ReasoningUIPartData
  | CustomUIPartData
  | SourceUrlUIPartData
  | SourceDocumentUIPartData
  | FileUIPartData
  | ReasoningFileUIPartData
  | SteeringMessageUIPartData
  | StepStartUIPartData
  | DataUIPartData
  | ToolUIPartData
  | DynamicToolUIPartData

/** A stored AI SDK `UIMessage` (never `system`). */
export interface UIMessageData {
  id: string
  role: 'user' | 'assistant'
  metadata?: JsonValue
  parts: UIPartData[]
}
