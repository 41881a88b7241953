/**
 * The stored form of the `openai-agents` format: structural copies of the OpenAI Agents SDK's
 * `AgentInputItem` types (`@openai/agents-core` 0.20, `types/protocol.mjs`, the `ModelItem` union), so
 * the core never imports the SDK. Only the JSON an item can hold is modelled (a `Uint8Array` is refused
 * on the way in: pass bytes as base64). The SDK's schemas are not strict, so an item may carry keys not
 * listed here; they are stored and given back as they came.
 */
import type { JsonValue } from '../../messages/types.js'

/** Provider-specific data every item and part may carry. */
export type ProviderData = { [key: string]: JsonValue }

interface Shared {
  /** Provider-specific data (the ledger's own notes live in `providerData.contextLedger`). */
  providerData?: ProviderData
}

interface Item extends Shared {
  /** The item's id (a Responses-API item id), when it has one. */
  id?: string
}

/** A typed content part: its `type` and whatever fields that type holds. */
export interface PartData extends Shared {
  type: string
  [key: string]: unknown
}

/** An `input_text` part (also the parts of a reasoning item's `content`). */
export interface InputTextData extends PartData {
  type: 'input_text'
  text: string
}

/** A user message. */
export interface UserMessageItemData extends Item {
  type?: 'message'
  role: 'user'
  /** A string, or `input_text` / `input_image` / `input_file` / `audio` parts. */
  content: string | PartData[]
}

/** An assistant message. */
export interface AssistantMessageItemData extends Item {
  type?: 'message'
  role: 'assistant'
  status: 'in_progress' | 'completed' | 'incomplete'
  phase?: 'commentary' | 'final_answer'
  /** `output_text` / `refusal` / `audio` / `image` parts. */
  content: PartData[]
}

/** A system message. */
export interface SystemMessageItemData extends Item {
  type?: 'message'
  role: 'system'
  content: string
}

/** A message item of any role. */
export type MessageItemData = UserMessageItemData | AssistantMessageItemData | SystemMessageItemData

/** The item types that make a call another item answers, by the result type that answers it. */
export const CALL_RESULT_TYPES = Object.freeze({
  function_call: 'function_call_result',
  computer_call: 'computer_call_result',
  shell_call: 'shell_call_output',
  apply_patch_call: 'apply_patch_call_output',
  program: 'program_output',
} as const)

/** An item type that makes a call. */
export type CallType = keyof typeof CALL_RESULT_TYPES

/** An item type that answers a call. */
export type ResultType = (typeof CALL_RESULT_TYPES)[CallType]

/** A call another item answers by its `callId`. */
export interface CallItemData extends Item {
  type: CallType
  callId: string
  [key: string]: unknown
}

/** A function call: `name` and the JSON `arguments` as a string. */
export interface FunctionCallItemData extends CallItemData {
  type: 'function_call'
  name: string
  arguments: string
}

/** A result answering a call by its `callId`. */
export interface ResultItemData extends Item {
  type: ResultType
  callId: string
  [key: string]: unknown
}

/** A function call's result. */
export interface FunctionCallResultItemData extends ResultItemData {
  type: 'function_call_result'
  name: string
  status: 'in_progress' | 'completed' | 'incomplete'
  /** A string, one `text` / `image` / `file` object, or `input_*` parts. */
  output: string | PartData | PartData[]
}

/** An item that neither makes nor answers a call the session tracks. */
export interface OtherItemData extends Item {
  type:
    'hosted_tool_call' | 'tool_search_call' | 'tool_search_output' | 'reasoning' | 'compaction' | 'unknown'
  [key: string]: unknown
}

/** A reasoning item. */
export interface ReasoningItemData extends OtherItemData {
  type: 'reasoning'
  content: InputTextData[]
  rawContent?: { type: 'reasoning_text'; text: string }[]
}

/** A stored `AgentInputItem`. */
export type AgentItemData = MessageItemData | CallItemData | ResultItemData | OtherItemData

/** Hide items from the conversation: every item shown before this one, or half-open seq ranges. */
export type WithdrawData = { before: number } | { seqs: [number, number][] }

/** The operation (a history transaction) a withdrawal marker records. */
export type MarkerOperationData = {
  /** The operation's id (1 to 256 characters). */
  id: string
  /** The digest of the operation's content (64 hex characters). */
  digest: string
}

/** The control note of a withdrawal marker (`providerData.contextLedger` of an `unknown` item). */
export type WithdrawalNote = {
  withdraw: WithdrawData
  operation?: MarkerOperationData
  pinned?: true
}

/** A withdrawal marker: an `unknown` item holding only its control note. */
export type WithdrawalMarkerData = {
  type: 'unknown'
  providerData: { contextLedger: WithdrawalNote }
}
