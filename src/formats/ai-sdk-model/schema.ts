/**
 * Validation of an `ai-sdk/model` message. The zod schemas mirror the AI SDK's own `modelMessageSchema`
 * (`ai` 7) on JSON data: what it accepts is accepted (unknown keys, blank texts, empty content, a tool
 * call without `input`), and what it refuses is refused. Stricter, on purpose:
 * - plain JSON only (`snapshotJson`; a key whose value is `undefined` is dropped, as `JSON.stringify`
 *   drops it): `Uint8Array`, `ArrayBuffer` and `URL` values are refused (pass bytes as base64);
 * - `role: 'system'` is refused: the system prompt belongs in `system` / `instructions`;
 * - a `toolCallId` must be non-empty, and unique among one message's tool calls and among its results;
 * - a tool message must hold a tool result or an approval response.
 */
import { z } from 'zod'
import { invalidMessage, snapshotJson, describeType } from '../../messages/json-snapshot.js'
import type { MessageLimits } from '../../messages/limits.js'
import {
  SYSTEM_REFUSED,
  checkWith,
  shown,
  firstDuplicate,
  isJsonObject,
  withoutNotes,
} from '../ai-sdk-common.js'
import type { ModelMessageData } from './types.js'

const options = z.record(z.string(), z.record(z.string(), z.unknown())).optional()
const json = z.custom((value) => value !== undefined, { message: 'expected a JSON value' })
const providerReference = z.record(z.string(), z.string())
const taggedFileData = z.discriminatedUnion('type', [
  z.object({ type: z.literal('data'), data: z.string() }),
  z.object({ type: z.literal('url'), url: z.custom(() => false, { message: 'expected a URL object' }) }),
  z.object({ type: z.literal('reference'), reference: providerReference }),
  z.object({ type: z.literal('text'), text: z.string() }),
])
const taggedReasoningFileData = z.discriminatedUnion('type', [
  z.object({ type: z.literal('data'), data: z.string() }),
  z.object({ type: z.literal('url'), url: z.custom(() => false, { message: 'expected a URL object' }) }),
])

const text = z.object({ type: z.literal('text'), text: z.string(), providerOptions: options })
const file = z.object({
  type: z.literal('file'),
  data: z.union([taggedFileData, z.string(), providerReference]),
  filename: z.string().optional(),
  mediaType: z.string(),
  providerOptions: options,
})

const contentItem = (type: string, shape: z.ZodRawShape) =>
  z.object({ type: z.literal(type), ...shape, providerOptions: options })
const fileId = z.union([z.string(), z.record(z.string(), z.string())])
const outputContent = z.union([
  contentItem('text', { text: z.string() }),
  contentItem('file', { data: taggedFileData, mediaType: z.string(), filename: z.string().optional() }),
  contentItem('file-data', { data: z.string(), mediaType: z.string(), filename: z.string().optional() }),
  contentItem('file-url', { url: z.string(), mediaType: z.string().optional() }),
  contentItem('file-id', { fileId }),
  contentItem('file-reference', { providerReference }),
  contentItem('image-data', { data: z.string(), mediaType: z.string() }),
  contentItem('image-url', { url: z.string() }),
  contentItem('image-file-id', { fileId }),
  contentItem('image-file-reference', { providerReference }),
  contentItem('custom', {}),
])
const output = z.discriminatedUnion('type', [
  contentItem('text', { value: z.string() }),
  contentItem('json', { value: json }),
  contentItem('execution-denied', { reason: z.string().optional() }),
  contentItem('error-text', { value: z.string() }),
  contentItem('error-json', { value: json }),
  z.object({ type: z.literal('content'), value: z.array(outputContent) }),
])
const toolResult = z.object({
  type: z.literal('tool-result'),
  toolCallId: z.string().min(1),
  toolName: z.string(),
  output,
  providerOptions: options,
})

const PARTS: Readonly<Record<ModelMessageData['role'], Readonly<Record<string, z.ZodType>>>> = {
  user: {
    text,
    file,
    image: z.object({
      type: z.literal('image'),
      image: z.union([z.string(), providerReference]),
      mediaType: z.string().optional(),
      providerOptions: options,
    }),
  },
  assistant: {
    text,
    file,
    custom: z.object({ type: z.literal('custom'), kind: z.string(), providerOptions: options }),
    reasoning: z.object({ type: z.literal('reasoning'), text: z.string(), providerOptions: options }),
    'reasoning-file': z.object({
      type: z.literal('reasoning-file'),
      data: z.union([taggedReasoningFileData, z.string()]),
      mediaType: z.string(),
      providerOptions: options,
    }),
    'tool-call': z.object({
      type: z.literal('tool-call'),
      toolCallId: z.string().min(1),
      toolName: z.string(),
      input: z.unknown(),
      providerOptions: options,
      providerExecuted: z.boolean().optional(),
    }),
    'tool-result': toolResult,
    'tool-approval-request': z.object({
      type: z.literal('tool-approval-request'),
      approvalId: z.string(),
      toolCallId: z.string(),
      reason: z.string().optional(),
      isAutomatic: z.boolean().optional(),
      signature: z.string().optional(),
      inputSchemaInput: z.unknown().optional(),
    }),
  },
  tool: {
    'tool-result': toolResult,
    'tool-approval-response': z.object({
      type: z.literal('tool-approval-response'),
      approvalId: z.string(),
      approved: z.boolean(),
      reason: z.string().optional(),
    }),
  },
}

function checkParts(role: ModelMessageData['role'], content: unknown[]): void {
  const table = PARTS[role]
  content.forEach((part, i) => {
    if (!isJsonObject(part))
      throw invalidMessage(['content', i], `expected a part object, got ${describeType(part)}`)
    const type = part.type
    const schema = typeof type === 'string' && Object.hasOwn(table, type) ? table[type] : undefined
    if (schema === undefined)
      throw invalidMessage(
        ['content', i, 'type'],
        `${typeof type === 'string' ? `"${type}"` : describeType(type)} is not a part type of a ${role} message (known: ${Object.keys(table).join(', ')})`,
      )
    checkWith(schema, part, ['content', i])
  })
  for (const kind of ['tool-call', 'tool-result']) {
    const ids = content.flatMap((part, i) => {
      const p = part as { type: string; toolCallId: string }
      return p.type === kind ? [[i, p.toolCallId] as const] : []
    })
    const second = firstDuplicate(ids)
    if (second !== undefined)
      throw invalidMessage(['content', second, 'toolCallId'], `a second ${kind} part for the same toolCallId`)
  }
}

function checkMessage(value: unknown): asserts value is ModelMessageData {
  if (!isJsonObject(value)) throw invalidMessage([], `expected a message object, got ${describeType(value)}`)
  const role = value.role
  if (role === 'system') throw invalidMessage(['role'], SYSTEM_REFUSED)
  if (role !== 'user' && role !== 'assistant' && role !== 'tool')
    throw invalidMessage(['role'], `expected "user", "assistant" or "tool", got ${shown(role)}`)
  checkWith(options, value.providerOptions, ['providerOptions'])
  const content = value.content
  if (typeof content === 'string' && role !== 'tool') return
  if (!Array.isArray(content))
    throw invalidMessage(
      ['content'],
      `expected ${role === 'tool' ? 'an array of parts' : 'a string or an array of parts'}, got ${describeType(content)}`,
    )
  checkParts(role, content)
  if (role === 'tool' && content.length === 0)
    throw invalidMessage(
      ['content'],
      'a tool message must hold a tool-result or a tool-approval-response part',
    )
}

/**
 * Validates a caller's `ModelMessage` and returns the plain copy to store, without a caller's
 * `providerOptions.contextLedger` (the ledger's notes; `providerOptions` goes when it empties).
 *
 * @param input - the caller's message
 * @param limits - the structural limits of the copy
 * @returns the copy
 * @throws ContextLedgerError `INVALID_MESSAGE` naming the path of the first bad field
 */
export function snapshotModelMessage(input: unknown, limits: MessageLimits): ModelMessageData {
  const copy: unknown = snapshotJson(input, limits, true)
  checkMessage(copy)
  const message: ModelMessageData = copy
  if (message.providerOptions === undefined) return message
  const kept = withoutNotes(message.providerOptions)
  if (kept === message.providerOptions) return message
  const { providerOptions: _dropped, ...rest } = message
  return (kept === undefined ? rest : { ...rest, providerOptions: kept }) as ModelMessageData
}
