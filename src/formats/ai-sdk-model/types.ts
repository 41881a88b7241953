/**
 * The stored form of the `ai-sdk/model` format: structural copies of the AI SDK's `ModelMessage` types
 * (`ai` 7, `@ai-sdk/provider-utils`), so the core never imports the SDK. Only the JSON a message can
 * hold is modelled: the ledger stores plain JSON, so `Uint8Array`, `ArrayBuffer` and `URL` values are
 * refused on the way in (pass bytes as base64 strings). A `ModelMessage` made of JSON is assignable to
 * {@link ModelMessageData}; `system` messages are not stored (see the format's `snapshot`).
 */
import type { JsonValue } from '../../messages/types.js'

/** Provider-specific options: provider name → options. */
export type ProviderOptionsData = Record<string, Record<string, JsonValue>>

interface WithOptions {
  /** Provider-specific options, passed through to the provider. */
  providerOptions?: ProviderOptionsData
}

/** File data, tagged (`url` holds a `URL` object in the SDK, so it cannot be stored) or bare. */
export type FileDataData =
  | { type: 'data'; data: string }
  | { type: 'reference'; reference: Record<string, string> }
  | { type: 'text'; text: string }
  | string
  | Record<string, string>

/** A text part. */
export interface TextPartData extends WithOptions {
  type: 'text'
  text: string
}

/** An image part (deprecated in v7 in favour of `file`). */
export interface ImagePartData extends WithOptions {
  type: 'image'
  image: string | Record<string, string>
  mediaType?: string
}

/** A file part. */
export interface FilePartData extends WithOptions {
  type: 'file'
  data: FileDataData
  filename?: string
  mediaType: string
}

/** A reasoning part. */
export interface ReasoningPartData extends WithOptions {
  type: 'reasoning'
  text: string
}

/** A file produced while reasoning. */
export interface ReasoningFilePartData extends WithOptions {
  type: 'reasoning-file'
  data: { type: 'data'; data: string } | string
  mediaType: string
}

/** A provider-specific part with no standard payload. */
export interface CustomPartData extends WithOptions {
  type: 'custom'
  /** `{provider}.{provider-type}` (typed as the SDK types it; its schema takes any string). */
  kind: `${string}.${string}`
}

/** A tool call the model made. */
export interface ToolCallPartData extends WithOptions {
  type: 'tool-call'
  toolCallId: string
  toolName: string
  input: JsonValue
  /** Executed by the provider: its result is in the same assistant message. */
  providerExecuted?: boolean
}

type FileId = string | Record<string, string>

/** One item of a `content` tool output (the `file-*` and `image-*` kinds are deprecated in v7). */
export type ToolResultContentItemData = WithOptions &
  (
    | { type: 'text'; text: string }
    | {
        type: 'file'
        data: Exclude<FileDataData, string | Record<string, string>>
        mediaType: string
        filename?: string
      }
    | { type: 'file-data'; data: string; mediaType: string; filename?: string }
    | { type: 'file-url'; url: string; mediaType?: string }
    | { type: 'file-id' | 'image-file-id'; fileId: FileId }
    | { type: 'file-reference' | 'image-file-reference'; providerReference: Record<string, string> }
    | { type: 'image-data'; data: string; mediaType: string }
    | { type: 'image-url'; url: string }
    | { type: 'custom' }
  )

/** A tool's output. */
export type ToolResultOutputData =
  | ({ type: 'text' | 'error-text'; value: string } & WithOptions)
  | ({ type: 'json' | 'error-json'; value: JsonValue } & WithOptions)
  | ({ type: 'execution-denied'; reason?: string } & WithOptions)
  | ({ type: 'content'; value: ToolResultContentItemData[] } & WithOptions)

/** A tool's result. */
export interface ToolResultPartData extends WithOptions {
  type: 'tool-result'
  toolCallId: string
  toolName: string
  output: ToolResultOutputData
}

/** The model asks the user to approve a tool call. */
export interface ToolApprovalRequestData {
  type: 'tool-approval-request'
  approvalId: string
  toolCallId: string
  reason?: string
  isAutomatic?: boolean
  signature?: string
  inputSchemaInput?: JsonValue
}

/** The user's answer to an approval request. */
export interface ToolApprovalResponseData {
  type: 'tool-approval-response'
  approvalId: string
  approved: boolean
  reason?: string
  providerExecuted?: boolean
}

/** A user message. */
export interface UserModelMessageData extends WithOptions {
  role: 'user'
  content: string | (TextPartData | ImagePartData | FilePartData)[]
}

/** A part of an assistant message. */
export type AssistantPartData =
  | TextPartData
  | CustomPartData
  | FilePartData
  | ReasoningPartData
  | ReasoningFilePartData
  | ToolCallPartData
  | ToolResultPartData
  | ToolApprovalRequestData

/** An assistant message. */
export interface AssistantModelMessageData extends WithOptions {
  role: 'assistant'
  content: string | AssistantPartData[]
}

/** A tool message: results of the previous assistant message's calls, or approval responses. */
export interface ToolModelMessageData extends WithOptions {
  role: 'tool'
  content: (ToolResultPartData | ToolApprovalResponseData)[]
}

/** A stored AI SDK `ModelMessage` (never `system`). */
export type ModelMessageData = UserModelMessageData | AssistantModelMessageData | ToolModelMessageData

/** Any part of any stored message. */
export type ModelPartData = Exclude<ModelMessageData['content'], string>[number]
