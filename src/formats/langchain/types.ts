/**
 * The stored form of the `langchain` format: LangChain's own `StoredMessage` (`@langchain/core` 1.x,
 * `messages/base.d.ts`): what `mapChatMessagesToStoredMessages([message])[0]` (`message.toDict()`)
 * returns and `mapStoredMessagesToChatMessages` revives, `{ type, data }`. Structural copies of its types,
 * so the core never imports LangChain. Only the JSON a message can hold is modelled (a `Uint8Array` in a
 * content block is refused on the way in: pass bytes as base64). LangChain keeps any key a message was
 * made with in `data`; such keys are stored and given back as they came.
 */
import type { JsonValue } from '../../messages/types.js'

/** A JSON object (`additional_kwargs`, `response_metadata`, a tool call's `args`). */
export type JsonRecord = { [key: string]: JsonValue }

/** The message types the format stores (`generic` is a `ChatMessage`, with its own `role`). */
export const LANGCHAIN_TYPES = Object.freeze(['human', 'ai', 'tool', 'system', 'generic'] as const)

/** A stored message's `type`. */
export type LangChainType = (typeof LANGCHAIN_TYPES)[number]

/**
 * A content block: `text`, `image_url`, `image` / `audio` / `video` / `file` / `text-plain`,
 * `reasoning`, Anthropic's `thinking` / `redacted_thinking` / `tool_use`, v1 `tool_call`, or any other
 * block with a string `type` (kept as it is).
 */
export interface ContentBlockData {
  type: string
  [key: string]: unknown
}

/** A message's `content`: a string or content blocks. */
export type MessageContentData = string | ContentBlockData[]

/** A tool call an `AIMessage` makes (`tool_calls[i]`). The ledger needs its `id` to pair its answer. */
export interface ToolCallData {
  type?: 'tool_call'
  /** The call's id; a `ToolMessage` answers it by `tool_call_id`. */
  id: string
  name: string
  args: JsonRecord
  [key: string]: unknown
}

/** Token counts of an `AIMessage` (`usage_metadata`). */
export interface UsageMetadataData {
  input_tokens: number
  output_tokens: number
  total_tokens: number
  input_token_details?: JsonRecord
  output_token_details?: JsonRecord
  [key: string]: unknown
}

/** The fields every message has (`BaseMessageFields`, as `toDict` writes them). */
export interface MessageFieldsData {
  content: MessageContentData
  /** The message's id (LangGraph's `messages` reducer replaces a message by it; Python writes null). */
  id?: string | null
  name?: string | null
  /** Provider data; the ledger's own notes live in `additional_kwargs.context_ledger`. */
  additional_kwargs?: JsonRecord
  response_metadata?: JsonRecord
  [key: string]: unknown
}

/** A `HumanMessage`. */
export interface HumanMessageData {
  type: 'human'
  data: MessageFieldsData
}

/** A `SystemMessage`. */
export interface SystemMessageData {
  type: 'system'
  data: MessageFieldsData
}

/** The fields of an `AIMessage`. */
export interface AIMessageFieldsData extends MessageFieldsData {
  /** The calls it makes, each with an id. */
  tool_calls?: ToolCallData[]
  /** Calls the model made that could not be parsed (not calls the ledger pairs). */
  invalid_tool_calls?: JsonRecord[]
  /** Streaming fragments of calls (an `AIMessageChunk`'s). */
  tool_call_chunks?: JsonRecord[]
  usage_metadata?: UsageMetadataData | null
}

/** An `AIMessage`. */
export interface AIMessageData {
  type: 'ai'
  data: AIMessageFieldsData
}

/** The fields of a `ToolMessage`. */
export interface ToolMessageFieldsData extends MessageFieldsData {
  /** The id of the call it answers. */
  tool_call_id: string
  status?: 'success' | 'error'
  /** The tool's full output, not sent to the model. */
  artifact?: JsonValue
}

/** A `ToolMessage`. */
export interface ToolMessageData {
  type: 'tool'
  data: ToolMessageFieldsData
}

/** A `ChatMessage` (stored as `generic`), with the role it speaks as. */
export interface ChatMessageData {
  type: 'generic'
  data: MessageFieldsData & { role: string }
}

/** A stored LangChain message. */
export type LangChainMessageData =
  HumanMessageData | SystemMessageData | AIMessageData | ToolMessageData | ChatMessageData
