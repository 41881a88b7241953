/**
 * Validation of an `ai-sdk/ui` message. The zod schemas mirror the AI SDK's own UI message schema (the
 * one `validateUIMessages` runs, `ai` 7) on JSON data: what it accepts is accepted (unknown keys, an
 * assistant message with no parts yet, any `data-*` payload) and what it refuses is refused. Stricter,
 * on purpose: plain JSON only (`snapshotJson`; a key whose value is `undefined` is dropped, as
 * `JSON.stringify` drops it); `role: 'system'` is refused (the system prompt belongs
 * in `system` / `instructions`); the `id` must be a non-empty string (the ledger keys the message by it).
 */
import { z } from 'zod'
import { describeType, invalidMessage, snapshotJson } from '../../messages/json-snapshot.js'
import type { MessageLimits } from '../../messages/limits.js'
import { SYSTEM_REFUSED, checkWith, shown, isJsonObject, withoutNotes } from '../ai-sdk-common.js'
import type { UIMessageData } from './types.js'

const metadata = z.record(z.string(), z.record(z.string(), z.unknown())).optional()
const never = z.never().optional()
const streaming = z.enum(['streaming', 'done']).optional()
const providerReference = z.record(z.string(), z.string())

const requested = z.object({
  id: z.string(),
  approved: never,
  descriptor: z.unknown().optional(),
  requestReason: z.string().optional(),
  reason: never,
  isAutomatic: z.boolean().optional(),
  signature: z.string().optional(),
  inputSchemaInput: z.unknown().optional(),
})
const responded = requested.extend({ approved: z.boolean(), reason: z.string().optional() })
const granted = responded.extend({ approved: z.literal(true) })
const denied = responded.extend({ approved: z.literal(false) })

/** The tool part schemas, one per state, with `head` (its type and, for dynamic tools, the name). */
function toolPart(head: z.ZodRawShape) {
  const base = {
    ...head,
    toolCallId: z.string(),
    title: z.string().optional(),
    toolMetadata: z.record(z.string(), z.unknown()).optional(),
    providerExecuted: z.boolean().optional(),
    callProviderMetadata: metadata,
  }
  const waiting = { input: z.unknown(), output: never, errorText: never }
  return z.discriminatedUnion('state', [
    z.object({
      ...base,
      state: z.literal('input-streaming'),
      input: z.unknown().optional(),
      rawInput: z.string().optional(),
      inputEncoding: z.enum(['json', 'text']).optional(),
      output: never,
      errorText: never,
      approval: never,
    }),
    z.object({ ...base, ...waiting, state: z.literal('input-available'), approval: never }),
    z.object({ ...base, ...waiting, state: z.literal('approval-requested'), approval: requested }),
    z.object({ ...base, ...waiting, state: z.literal('approval-responded'), approval: responded }),
    z.object({
      ...base,
      state: z.literal('output-available'),
      input: z.unknown(),
      output: z.unknown(),
      errorText: never,
      resultProviderMetadata: metadata,
      preliminary: z.boolean().optional(),
      approval: granted.optional(),
    }),
    z.object({
      ...base,
      state: z.literal('output-error'),
      input: z.unknown().optional(),
      rawInput: z.unknown().optional(),
      output: never,
      errorText: z.string(),
      resultProviderMetadata: metadata,
      approval: granted.optional(),
    }),
    z.object({ ...base, ...waiting, state: z.literal('output-denied'), approval: denied }),
  ])
}

const staticTool = toolPart({ type: z.string() })
const dynamicTool = toolPart({
  type: z.literal('dynamic-tool'),
  dynamic: z.literal(false).optional(),
  toolName: z.string(),
})
const dataPart = z.object({ type: z.string(), id: z.string().optional(), data: z.unknown() })

const text = z.object({
  type: z.literal('text'),
  text: z.string(),
  citations: z.array(z.unknown()).optional(),
  state: streaming,
  providerMetadata: metadata,
})
const file = z.object({
  type: z.literal('file'),
  mediaType: z.string(),
  filename: z.string().optional(),
  url: z.string(),
  providerReference: providerReference.optional(),
  providerMetadata: metadata,
})

const STATIC_PARTS: Readonly<Record<string, z.ZodType>> = {
  text,
  reasoning: z.object({
    type: z.literal('reasoning'),
    id: z.string().optional(),
    text: z.string(),
    state: streaming,
    providerMetadata: metadata,
  }),
  custom: z.object({ type: z.literal('custom'), kind: z.string(), providerMetadata: metadata }),
  'source-url': z.object({
    type: z.literal('source-url'),
    sourceId: z.string(),
    url: z.string(),
    title: z.string().optional(),
    providerMetadata: metadata,
  }),
  'source-document': z.object({
    type: z.literal('source-document'),
    sourceId: z.string(),
    mediaType: z.string(),
    title: z.string(),
    filename: z.string().optional(),
    providerMetadata: metadata,
  }),
  file,
  'reasoning-file': z.object({
    type: z.literal('reasoning-file'),
    mediaType: z.string(),
    url: z.string(),
    providerMetadata: metadata,
  }),
  'steering-message': z.object({
    type: z.literal('steering-message'),
    id: z.string(),
    parts: z.array(z.discriminatedUnion('type', [text.omit({ citations: true, state: true }), file])),
  }),
  'step-start': z.object({ type: z.literal('step-start') }),
}

function partSchema(type: unknown): z.ZodType | undefined {
  if (typeof type !== 'string') return undefined
  if (type.startsWith('data-')) return dataPart
  if (type.startsWith('tool-')) return staticTool
  if (type === 'dynamic-tool') return dynamicTool
  return Object.hasOwn(STATIC_PARTS, type) ? STATIC_PARTS[type] : undefined
}

function checkMessage(value: unknown): asserts value is UIMessageData {
  if (!isJsonObject(value)) throw invalidMessage([], `expected a message object, got ${describeType(value)}`)
  if (typeof value.id !== 'string' || value.id === '')
    throw invalidMessage(['id'], `expected a non-empty string, got ${shown(value.id)}`)
  const role = value.role
  if (role === 'system') throw invalidMessage(['role'], SYSTEM_REFUSED)
  if (role !== 'user' && role !== 'assistant')
    throw invalidMessage(['role'], `expected "user" or "assistant", got ${shown(role)}`)
  const parts = value.parts
  if (!Array.isArray(parts)) throw invalidMessage(['parts'], `expected an array, got ${describeType(parts)}`)
  parts.forEach((part, i) => {
    const type: unknown = isJsonObject(part) ? part.type : undefined
    if (!isJsonObject(part))
      throw invalidMessage(['parts', i], `expected a part object, got ${describeType(part)}`)
    const schema = partSchema(type)
    if (schema === undefined)
      throw invalidMessage(
        ['parts', i, 'type'],
        `${shown(type)} is not a UI part type (known: ${Object.keys(STATIC_PARTS).join(', ')}, dynamic-tool, tool-<name>, data-<name>)`,
      )
    checkWith(schema, part, ['parts', i])
  })
  if (role === 'user' && parts.length === 0)
    throw invalidMessage(['parts'], 'a user message must hold at least one part')
}

/**
 * Validates a caller's `UIMessage` and returns the plain copy to store, without a caller's
 * `metadata.contextLedger` (the ledger's notes; `metadata` goes when it empties).
 *
 * @param input - the caller's message
 * @param limits - the structural limits of the copy
 * @returns the copy
 * @throws ContextLedgerError `INVALID_MESSAGE` naming the path of the first bad field
 */
export function snapshotUIMessage(input: unknown, limits: MessageLimits): UIMessageData {
  const copy: unknown = snapshotJson(input, limits, true)
  checkMessage(copy)
  const message: UIMessageData = copy
  if (!isJsonObject(message.metadata)) return message
  const kept = withoutNotes(message.metadata)
  if (kept === message.metadata) return message
  const { metadata: _dropped, ...rest } = message
  return kept === undefined ? rest : { ...rest, metadata: kept }
}
