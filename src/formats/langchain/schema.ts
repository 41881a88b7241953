/**
 * Validation of a `langchain` message: a `StoredMessage` `{ type, data }` as `toDict()` writes it. The
 * zod schemas mirror `@langchain/core` 1.x's message field types on JSON data (unknown `data` keys are
 * kept: LangChain keeps them too), and what `mapStoredMessagesToChatMessages` refuses is refused. The
 * type is read first, then `data`'s fields, then the content blocks one by one, so an error names the
 * first bad field (`data.tool_calls[1].id`, `data.content[2].text`). Stricter, on purpose:
 * - plain JSON only (`snapshotJson`; a key whose value is `undefined` is dropped, as `JSON.stringify`
 *   drops it): a `Uint8Array` in a block is refused (pass bytes as base64);
 * - only what revives to a message the ledger can pair: `human`, `ai`, `tool`, `system`, `generic` (a
 *   `ChatMessage`, but not with role `tool` or `function`: no call id to pair it by). A legacy
 *   `FunctionMessage`, a `RemoveMessage` and the V1 form `{ type, role, text }` are refused;
 * - `data.content` is required (LangChain revives a message without it as empty);
 * - every tool call has a non-empty id, unique in its message, and every call LangChain would read
 *   into `tool_calls` on revival (from `additional_kwargs.tool_calls`, or a v1 `tool_call` block) is
 *   listed in `tool_calls`, so the calls the ledger pairs are the calls the revived message makes;
 * - a `ToolMessage` names a non-empty `tool_call_id`.
 */
import { z } from 'zod'
import { describeType, invalidMessage, snapshotJson, type Path } from '../../messages/json-snapshot.js'
import type { MessageLimits } from '../../messages/limits.js'
import { checkWith, firstDuplicate, isJsonObject, shown, withoutNotes } from '../ai-sdk-common.js'
import { LC_NOTES_KEY } from './derive.js'
import { LANGCHAIN_TYPES, type LangChainMessageData } from './types.js'

const record = z.record(z.string(), z.unknown())
const optionalText = z.string().nullable().optional()
const media = {
  url: z.string().optional(),
  data: z.string().optional(),
  fileId: z.string().optional(),
  mimeType: z.string().optional(),
  mime_type: z.string().optional(),
  source_type: z.string().optional(),
}
const block = (type: string, shape: z.ZodRawShape) => z.object({ type: z.literal(type), ...shape })

/** The schemas of the content blocks whose fields LangChain types; any other typed block is kept. */
const BLOCKS: Readonly<Record<string, z.ZodType>> = {
  text: block('text', { text: z.string() }),
  image_url: block('image_url', {
    image_url: z.union([z.string(), z.object({ url: z.string(), detail: z.string().optional() })]),
  }),
  reasoning: block('reasoning', { reasoning: z.string().optional() }),
  thinking: block('thinking', { thinking: z.string(), signature: z.string().optional() }),
  redacted_thinking: block('redacted_thinking', { data: z.string() }),
  refusal: block('refusal', { refusal: z.string() }),
  tool_use: block('tool_use', { id: z.string(), name: z.string() }),
  tool_call: block('tool_call', { id: z.string().optional(), name: z.string(), args: z.unknown() }),
  image: block('image', media),
  audio: block('audio', media),
  video: block('video', media),
  file: block('file', media),
  'text-plain': block('text-plain', { ...media, text: z.string().optional() }),
}

const fields = {
  id: optionalText,
  name: optionalText,
  additional_kwargs: record.optional(),
  response_metadata: record.optional(),
}
const toolCall = z.object({
  type: z.literal('tool_call').optional(),
  id: z.string(),
  name: z.string(),
  args: record,
})
const fragment = z.object({
  id: optionalText,
  name: optionalText,
  args: optionalText,
  error: optionalText,
  index: z.union([z.string(), z.number()]).nullable().optional(),
})
const usage = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number(),
  input_token_details: record.optional(),
  output_token_details: record.optional(),
})

/** The schema of `data` by message type. */
const DATA: Readonly<Record<LangChainMessageData['type'], z.ZodType>> = {
  human: z.object(fields),
  system: z.object(fields),
  ai: z.object({
    ...fields,
    tool_calls: z.array(toolCall).optional(),
    invalid_tool_calls: z.array(fragment).optional(),
    tool_call_chunks: z.array(fragment).optional(),
    usage_metadata: usage.nullable().optional(),
  }),
  tool: z.object({
    ...fields,
    tool_call_id: z.string(),
    status: z.enum(['success', 'error']).optional(),
    artifact: z.unknown().optional(),
  }),
  generic: z.object({ ...fields, role: z.string() }),
}

/** Why a `type` LangChain has but the format does not store is refused. */
const REFUSED_TYPES: Readonly<Record<string, string>> = {
  function:
    'a legacy FunctionMessage answers a call by name, with no id to pair it by: use a ToolMessage with tool_call_id',
  remove: 'a RemoveMessage is an instruction to the messages reducer, not a message',
}

function checkType(type: unknown): asserts type is LangChainMessageData['type'] {
  if (typeof type === 'string' && (LANGCHAIN_TYPES as readonly string[]).includes(type)) return
  const why = typeof type === 'string' && Object.hasOwn(REFUSED_TYPES, type) ? REFUSED_TYPES[type] : undefined
  throw invalidMessage(
    ['type'],
    why ??
      `${shown(type)} is not a type mapStoredMessagesToChatMessages revives (known: ${LANGCHAIN_TYPES.join(', ')})`,
  )
}

/** LangChain serializes a message made with `contentBlocks` under `content_blocks`, and revives it empty. */
const CONTENT_BLOCKS_HINT =
  ' (this message holds content_blocks: LangChain revives a message without content as empty, so pass its content)'

function checkContent(data: Record<string, unknown>): void {
  const content = data.content
  if (typeof content === 'string') return
  if (!Array.isArray(content))
    throw invalidMessage(
      ['data', 'content'],
      `expected a string or an array of content blocks, got ${content === undefined ? 'nothing' : describeType(content)}${content === undefined && Object.hasOwn(data, 'content_blocks') ? CONTENT_BLOCKS_HINT : ''}`,
    )
  content.forEach((b, i) => {
    const at: Path = ['data', 'content', i]
    if (!isJsonObject(b)) throw invalidMessage(at, `expected a content block object, got ${describeType(b)}`)
    if (typeof b.type !== 'string')
      throw invalidMessage([...at, 'type'], `expected the block's type as a string, got ${shown(b.type)}`)
    const schema = Object.hasOwn(BLOCKS, b.type) ? BLOCKS[b.type] : undefined
    if (schema !== undefined) checkWith(schema, b, at)
  })
}

/** The ids of an `AIMessage`'s tool calls: present, non-empty, unique. */
function checkCallIds(calls: unknown): void {
  if (!Array.isArray(calls)) return
  calls.forEach((c, i) => {
    if (!isJsonObject(c))
      throw invalidMessage(['data', 'tool_calls', i], `expected a tool call object, got ${describeType(c)}`)
    const id = c.id
    if (typeof id !== 'string' || id === '')
      throw invalidMessage(
        ['data', 'tool_calls', i, 'id'],
        `a tool call needs a non-empty id (a ToolMessage answers it by tool_call_id), got ${shown(id)}`,
      )
  })
  const second = firstDuplicate(calls.map((c, i) => [i, (c as { id: string }).id] as const))
  if (second !== undefined)
    throw invalidMessage(['data', 'tool_calls', second, 'id'], 'a second tool call with the same id')
}

/**
 * The calls LangChain adds to `tool_calls` when it revives an `AIMessage` must already be there: from
 * `additional_kwargs.tool_calls` (parsed when `tool_calls` is absent) and from the `tool_call` blocks of
 * v1 content (`response_metadata.output_version: 'v1'`, or `contentBlocks`).
 */
function checkRevivedCalls(data: Record<string, unknown>): void {
  const raw = isJsonObject(data.additional_kwargs) ? data.additional_kwargs.tool_calls : undefined
  if (data.tool_calls === undefined && Array.isArray(raw) && raw.length > 0)
    throw invalidMessage(
      ['data', 'tool_calls'],
      'LangChain revives the calls of additional_kwargs.tool_calls as tool_calls: pass them as tool_calls (as toDict() does)',
    )
  const v1 = isJsonObject(data.response_metadata) && data.response_metadata.output_version === 'v1'
  const [key, blocks] = v1 ? ['content', data.content] : ['contentBlocks', data.contentBlocks]
  if (!Array.isArray(blocks)) return
  const calls = Array.isArray(data.tool_calls) ? (data.tool_calls as { id: string; name: string }[]) : []
  blocks.forEach((b, i) => {
    if (!isJsonObject(b) || b.type !== 'tool_call') return
    if (!calls.some((c) => c.id === b.id && c.name === b.name))
      throw invalidMessage(
        ['data', key, i],
        'LangChain revives this tool_call block as a call: list it in tool_calls (same id and name)',
      )
  })
}

function checkMessage(value: unknown): asserts value is LangChainMessageData {
  if (!isJsonObject(value))
    throw invalidMessage([], `expected a StoredMessage { type, data }, got ${describeType(value)}`)
  checkType(value.type)
  const extra = Object.keys(value).find((key) => key !== 'type' && key !== 'data')
  if (extra !== undefined)
    throw invalidMessage([extra], 'not a field of a StoredMessage ({ type, data }): put it in data')
  const data = value.data
  if (!isJsonObject(data))
    throw invalidMessage(
      ['data'],
      `expected the message's fields as mapChatMessagesToStoredMessages writes them, got ${data === undefined ? 'nothing' : describeType(data)}`,
    )
  if (value.type === 'ai') checkCallIds(data.tool_calls)
  if (value.type === 'tool' && (typeof data.tool_call_id !== 'string' || data.tool_call_id === ''))
    throw invalidMessage(
      ['data', 'tool_call_id'],
      `a ToolMessage needs the non-empty id of the call it answers, got ${shown(data.tool_call_id)}`,
    )
  if (value.type === 'generic' && (data.role === 'tool' || data.role === 'function'))
    throw invalidMessage(
      ['data', 'role'],
      `a ChatMessage with role ${shown(data.role)} answers a call it cannot name: use a ToolMessage`,
    )
  checkWith(DATA[value.type], data, ['data'])
  checkContent(data)
  if (value.type === 'ai') checkRevivedCalls(data)
}

/**
 * Validates a caller's `StoredMessage` and returns the plain copy to store, without a caller's
 * `data.additional_kwargs.context_ledger` (the ledger's notes; `additional_kwargs` stays, empty).
 *
 * @param input - the caller's message (`message.toDict()`)
 * @param limits - the structural limits of the copy
 * @returns the copy
 * @throws ContextLedgerError `INVALID_MESSAGE` naming the path of the first bad field
 */
export function snapshotLangChainMessage(input: unknown, limits: MessageLimits): LangChainMessageData {
  const copy: unknown = snapshotJson(input, limits, true)
  checkMessage(copy)
  const kwargs = copy.data.additional_kwargs
  if (kwargs === undefined || !Object.hasOwn(kwargs, LC_NOTES_KEY)) return copy
  return {
    ...copy,
    data: { ...copy.data, additional_kwargs: withoutNotes(kwargs, LC_NOTES_KEY) ?? {} },
  } as LangChainMessageData
}
