/**
 * Validation of an `openai-agents` item. The zod schemas mirror the Agents SDK's own (`@openai/agents-core`
 * 0.20, `types/protocol.mjs`, `ModelItem`) on JSON data, written here so the core imports no SDK: what it
 * accepts is accepted, unknown keys included (its schemas are not strict, and the copy keeps them). The
 * item's kind is read first (`type`, or `role` for a message), then its content parts one by one, so an
 * error names the first bad field (`callId`, `content[1].type`). Stricter, on purpose:
 * - plain JSON only (`snapshotJson`): `Uint8Array` values are refused (pass bytes as base64);
 * - a `callId` must be non-empty (the session links a call and its result by it);
 * - a control note (`providerData.contextLedger.withdraw` / `operation`) only on an exact withdrawal
 *   marker (`control.ts`).
 */
import { z } from 'zod'
import { describeType, invalidMessage, snapshotJson } from '../../messages/json-snapshot.js'
import type { MessageLimits } from '../../messages/limits.js'
import { NOTES_KEY, checkWith, isJsonObject, shown, withoutNotes } from '../ai-sdk-common.js'
import { checkMarker, isControlAttempt } from './control.js'
import type { AgentItemData } from './types.js'

const providerData = z.record(z.string(), z.unknown()).optional()
const item = { providerData, id: z.string().optional() }
const part = (type: string, shape: z.ZodRawShape) =>
  z.object({ type: z.literal(type), providerData, ...shape })
const breakpoint = { promptCacheBreakpoint: z.object({ mode: z.literal('explicit') }).optional() }
const fileId = z.object({ id: z.string() })
const callId = z.string().min(1)
const callStatus = z.enum(['in_progress', 'completed', 'incomplete'])
const caller = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('direct') }),
    z.object({ type: z.literal('program'), callerId: z.string() }),
  ])
  .optional()

const inputText = part('input_text', { text: z.string(), ...breakpoint })
const inputImage = part('input_image', {
  image: z.union([z.string(), fileId]).optional(),
  detail: z.string().optional(),
  ...breakpoint,
})
const inputFile = part('input_file', {
  file: z.union([z.string(), fileId, z.object({ url: z.string() })]).optional(),
  filename: z.string().optional(),
  ...breakpoint,
})
const audio = part('audio', {
  audio: z.union([z.string(), fileId]),
  format: z.string().nullable().optional(),
  transcript: z.string().nullable().optional(),
  ...breakpoint,
})

/** The part types of each message role's `content` array. */
const PARTS: Readonly<Record<'user' | 'assistant', Readonly<Record<string, z.ZodType>>>> = {
  user: { input_text: inputText, input_image: inputImage, input_file: inputFile, audio },
  assistant: {
    output_text: part('output_text', { text: z.string() }),
    refusal: part('refusal', { refusal: z.string() }),
    audio: part('audio', {
      audio: z.union([z.string(), fileId]),
      format: z.string().nullable().optional(),
      transcript: z.string().nullable().optional(),
    }),
    image: part('image', { image: z.string() }),
  },
}

const imageObject = z.union([
  z.object({ data: z.string(), mediaType: z.string().optional() }),
  z.object({ url: z.string() }),
  z.object({ fileId: z.string() }),
])
const fileReference = z.union([
  z.string(),
  z.object({ data: z.string(), mediaType: z.string(), filename: z.string() }),
  z.object({ url: z.string(), filename: z.string().optional() }),
  z.object({ id: z.string(), filename: z.string().optional() }),
])
const functionOutput = z.union([
  z.string(),
  z.discriminatedUnion('type', [
    part('text', { text: z.string() }),
    part('image', { image: z.union([z.string(), imageObject]).optional(), detail: z.string().optional() }),
    part('file', { file: fileReference }),
  ]),
  z.array(z.discriminatedUnion('type', [inputText, inputImage, inputFile])),
])

const action = z.discriminatedUnion('type', [
  z.object({ type: z.literal('screenshot') }),
  z.object({
    type: z.literal('click'),
    x: z.number(),
    y: z.number(),
    button: z.enum(['left', 'right', 'wheel', 'back', 'forward']),
  }),
  z.object({ type: z.literal('double_click'), x: z.number(), y: z.number() }),
  z.object({
    type: z.literal('scroll'),
    x: z.number(),
    y: z.number(),
    scroll_x: z.number(),
    scroll_y: z.number(),
  }),
  z.object({ type: z.literal('type'), text: z.string() }),
  z.object({ type: z.literal('wait') }),
  z.object({ type: z.literal('move'), x: z.number(), y: z.number() }),
  z.object({ type: z.literal('keypress'), keys: z.array(z.string()) }),
  z.object({ type: z.literal('drag'), path: z.array(z.object({ x: z.number(), y: z.number() })) }),
])
const count = z.number().int().min(0).optional()
const patchOperation = z.discriminatedUnion('type', [
  z.object({ type: z.literal('create_file'), path: z.string(), diff: z.string() }),
  z.object({
    type: z.literal('update_file'),
    path: z.string(),
    diff: z.string(),
    moveTo: z.string().min(1).optional(),
  }),
  z.object({ type: z.literal('delete_file'), path: z.string() }),
])
const searchIds = {
  call_id: z.string().nullable().optional(),
  callId: z.string().nullable().optional(),
  execution: z.enum(['client', 'server']).optional(),
  status: z.string().optional(),
}

/** The schema of each non-message item type (the message roles are checked by `checkMessage`). */
const ITEMS: Readonly<Record<string, z.ZodType>> = {
  function_call: z.object({
    ...item,
    callId,
    name: z.string(),
    namespace: z.string().optional(),
    status: callStatus.optional(),
    arguments: z.string(),
    caller,
  }),
  function_call_result: z.object({
    ...item,
    name: z.string(),
    namespace: z.string().optional(),
    callId,
    status: callStatus,
    caller,
    output: functionOutput,
  }),
  computer_call: z
    .object({
      ...item,
      callId,
      status: callStatus,
      action: action.optional(),
      actions: z.array(action).min(1).optional(),
    })
    .refine((v) => v.action !== undefined || v.actions !== undefined, {
      message: 'computer_call items must include action or actions.',
      path: ['action'],
    }),
  computer_call_result: z.object({
    ...item,
    callId,
    output: part('computer_screenshot', { data: z.string() }),
  }),
  shell_call: z.object({
    ...item,
    callId,
    status: callStatus.optional(),
    action: z.object({ commands: z.array(z.string()), timeoutMs: count, maxOutputLength: count }),
    caller,
  }),
  shell_call_output: z.object({
    ...item,
    callId,
    status: callStatus.optional(),
    maxOutputLength: z.number().optional(),
    output: z.array(
      z.object({
        stdout: z.string(),
        stderr: z.string(),
        outcome: z.discriminatedUnion('type', [
          z.object({ type: z.literal('timeout') }),
          z.object({ type: z.literal('exit'), exitCode: z.number().int().nullable() }),
        ]),
      }),
    ),
    caller,
  }),
  apply_patch_call: z.object({
    ...item,
    callId,
    status: z.enum(['in_progress', 'completed']),
    operation: patchOperation,
    caller,
  }),
  apply_patch_call_output: z.object({
    ...item,
    callId,
    status: z.enum(['completed', 'failed']),
    output: z.string().optional(),
    caller,
  }),
  program: z.object({ ...item, callId, code: z.string(), fingerprint: z.string() }),
  program_output: z.object({
    ...item,
    callId,
    output: z.string(),
    status: z.enum(['completed', 'incomplete']),
  }),
  hosted_tool_call: z.object({
    ...item,
    name: z.string(),
    arguments: z.string().optional(),
    status: z.string().optional(),
    output: z.string().optional(),
    caller,
  }),
  tool_search_call: z.object({ ...item, ...searchIds, arguments: z.unknown() }),
  tool_search_output: z.object({
    ...item,
    ...searchIds,
    toolSearchAgentName: z.string().optional(),
    toolSearchMcpToolNames: z.array(z.string()).optional(),
    tools: z.array(z.record(z.string(), z.unknown())),
  }),
  reasoning: z.object({
    ...item,
    content: z.array(inputText),
    rawContent: z.array(part('reasoning_text', { text: z.string() })).optional(),
  }),
  compaction: z.object({ ...item, encrypted_content: z.string(), created_by: z.string().optional() }),
  unknown: z.object(item),
}

/** Every item `type` the format stores (a message may also omit it). */
export const AGENT_ITEM_TYPES: readonly string[] = Object.freeze(['message', ...Object.keys(ITEMS)])

const MESSAGE = z.object({ ...item, type: z.literal('message').optional() })
const ASSISTANT = MESSAGE.extend({
  status: callStatus,
  phase: z.enum(['commentary', 'final_answer']).optional(),
})

function checkMessage(value: Record<string, unknown>): void {
  const role = value.role
  if (role !== 'user' && role !== 'assistant' && role !== 'system')
    throw invalidMessage(['role'], `expected "user", "assistant" or "system", got ${shown(role)}`)
  checkWith(role === 'assistant' ? ASSISTANT : MESSAGE, value, [])
  const content = value.content
  if (typeof content === 'string' && role !== 'assistant') return
  if (role === 'system') throw invalidMessage(['content'], `expected a string, got ${describeType(content)}`)
  if (!Array.isArray(content))
    throw invalidMessage(
      ['content'],
      `expected ${role === 'user' ? 'a string or an array of parts' : 'an array of parts'}, got ${describeType(content)}`,
    )
  const table = PARTS[role]
  content.forEach((p, i) => {
    if (!isJsonObject(p))
      throw invalidMessage(['content', i], `expected a part object, got ${describeType(p)}`)
    const schema = typeof p.type === 'string' && Object.hasOwn(table, p.type) ? table[p.type] : undefined
    if (schema === undefined)
      throw invalidMessage(
        ['content', i, 'type'],
        `${shown(p.type)} is not a part type of a ${role} message (known: ${Object.keys(table).join(', ')})`,
      )
    checkWith(schema, p, ['content', i])
  })
}

function checkItem(value: unknown): asserts value is AgentItemData {
  if (!isJsonObject(value)) throw invalidMessage([], `expected an item object, got ${describeType(value)}`)
  const type = value.type
  if (type === undefined || type === 'message') {
    checkMessage(value)
    return
  }
  const schema = typeof type === 'string' && Object.hasOwn(ITEMS, type) ? ITEMS[type] : undefined
  if (schema === undefined)
    throw invalidMessage(
      ['type'],
      `${shown(type)} is not an item type (known: message, ${Object.keys(ITEMS).join(', ')})`,
    )
  checkWith(schema, value, [])
}

/**
 * Validates a caller's `AgentInputItem` and returns the plain copy to store. A caller's
 * `providerData.contextLedger` is stripped (`providerData` goes when it empties), except a control note,
 * which must be an exact withdrawal marker and is kept.
 *
 * @param input - the caller's item
 * @param limits - the structural limits of the copy
 * @returns the copy
 * @throws ContextLedgerError `INVALID_MESSAGE` naming the path of the first bad field
 */
export function snapshotAgentItem(input: unknown, limits: MessageLimits): AgentItemData {
  const copy: unknown = snapshotJson(input, limits, true)
  checkItem(copy)
  const data = copy.providerData
  if (data === undefined || !Object.hasOwn(data, NOTES_KEY)) return copy
  const notes = data[NOTES_KEY]
  if (isJsonObject(notes) && isControlAttempt(notes)) {
    checkMarker(copy as Record<string, unknown>)
    return copy
  }
  const kept = withoutNotes(data)
  const { providerData: _dropped, ...rest } = copy
  return kept === undefined ? rest : { ...rest, providerData: kept }
}
