/**
 * Validation of incoming messages. A cheap structural walk first refuses what zod would either accept or
 * choke on (prototype keys, lone surrogates, non-JSON values, absurd depth or size); then strict zod
 * schemas check the Strands `MessageData` shape. Every refusal is an `INVALID_MESSAGE` error naming the
 * path of the first bad field, e.g. `content[2].toolUse.toolUseId`.
 */
import { z } from 'zod'
import { ContextLedgerError } from '../errors.js'
import type { JsonValue, MessageData } from './types.js'

/** Limits applied to every incoming message. */
export interface MessageLimits {
  /** Deepest nesting of objects and arrays accepted (default 64). */
  maxDepth: number
  /** Longest string accepted, in UTF-16 code units (default 16 Mi). */
  maxStringLength: number
}

/** The limits used when a store is opened without its own. */
export const DEFAULT_MESSAGE_LIMITS: Readonly<MessageLimits> = Object.freeze({
  maxDepth: 64,
  maxStringLength: 16 * 1024 * 1024,
})

const str = z.string()
const nonEmpty = z.string().min(1)
const s3 = z.strictObject({ type: z.literal('s3'), uri: nonEmpty, bucketOwner: str.optional() })
const bytes = z.strictObject({ bytes: z.base64() })
const location = z.strictObject({ location: s3 })
const media = (withUrl: boolean) =>
  z.strictObject({
    format: nonEmpty,
    source: withUrl
      ? z.union([bytes, location, z.strictObject({ url: nonEmpty })])
      : z.union([bytes, location]),
  })
const textItem = z.strictObject({ text: str })
const document = z.strictObject({
  name: str,
  format: nonEmpty,
  source: z.union([bytes, textItem, z.strictObject({ content: z.array(textItem) }), location]),
  citations: z.strictObject({ enabled: z.boolean() }).optional(),
  context: str.optional(),
})

// The JSON values inside toolUse.input, json blocks and metadata.custom were already checked by the
// structural walk (finite numbers, well-formed strings, plain objects), so zod only needs to see "JSON".
const json = z.custom<JsonValue>(() => true)

/** Looks a block kind up by own key only: `toString` or `constructor` are unknown kinds, not methods. */
const lookup =
  (table: Readonly<Record<string, z.ZodType>>) =>
  (kind: string): z.ZodType | undefined =>
    Object.hasOwn(table, kind) ? table[kind] : undefined

// Built once: zod schemas are costly to construct and cheap to reuse.
const toolResultItem = lookup({
  text: str,
  json,
  image: media(true),
  video: media(false),
  document,
})

const citationsBlock = z.strictObject({
  citations: z.array(
    z.strictObject({
      location: z.record(z.string(), json),
      source: str,
      sourceContent: z.array(textItem),
      title: str,
    }),
  ),
  content: z.array(textItem),
})

const blockSchema = lookup({
  text: str,
  toolUse: z.strictObject({
    name: nonEmpty,
    toolUseId: nonEmpty,
    input: json,
    reasoningSignature: str.optional(),
  }),
  toolResult: z.strictObject({
    toolUseId: nonEmpty,
    status: z.enum(['success', 'error']),
    content: z.array(z.unknown()),
  }),
  reasoning: z.strictObject({
    text: str.optional(),
    signature: str.optional(),
    redactedContent: z.base64().optional(),
  }),
  cachePoint: z.strictObject({ cacheType: z.literal('default'), ttl: str.optional() }),
  guardContent: z
    .strictObject({
      text: z.strictObject({ text: str, qualifiers: z.array(str) }).optional(),
      image: z.strictObject({ format: nonEmpty, source: bytes }).optional(),
    })
    .refine((g) => (g.text === undefined) !== (g.image === undefined), 'exactly one of text or image'),
  image: media(true),
  video: media(false),
  audio: media(false),
  document,
  citations: citationsBlock,
})

const metadataSchema = z.strictObject({
  usage: z
    .strictObject({
      inputTokens: z.number(),
      outputTokens: z.number(),
      totalTokens: z.number(),
      cacheReadInputTokens: z.number().optional(),
      cacheWriteInputTokens: z.number().optional(),
    })
    .optional(),
  metrics: z.strictObject({ latencyMs: z.number(), timeToFirstByteMs: z.number().optional() }).optional(),
  custom: z.record(z.string(), json).optional(),
})

const envelope = z.strictObject({
  role: z.enum(['user', 'assistant']),
  content: z.array(z.unknown()),
  trackingId: nonEmpty.optional(),
  metadata: metadataSchema.optional(),
})

type Path = (string | number)[]

/** Formats a path as `content[1].toolUse.toolUseId`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`
    else out += out === '' ? String(part) : `.${String(part)}`
  }
  return out === '' ? '(message)' : out
}

function invalid(path: Path, problem: string, cause?: unknown): ContextLedgerError<'INVALID_MESSAGE'> {
  const where = formatPath(path)
  return new ContextLedgerError('INVALID_MESSAGE', `Invalid message at ${where}: ${problem}`, {
    path: where,
    cause,
  })
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value)
  return typeof value
}

/**
 * Walks the raw value once: plain JSON only, bounded depth and string length, no prototype keys. `path`
 * is one shared stack (pushed and popped, copied only when throwing): this runs on every append.
 */
function checkStructure(value: unknown, path: Path, limits: MessageLimits): void {
  if (path.length > limits.maxDepth) throw invalid([...path], `nested deeper than ${limits.maxDepth} levels`)
  switch (typeof value) {
    case 'string':
      if (value.length > limits.maxStringLength)
        throw invalid(
          [...path],
          `string of ${value.length} chars exceeds the limit of ${limits.maxStringLength}`,
        )
      if (!value.isWellFormed()) throw invalid([...path], 'string contains a lone UTF-16 surrogate')
      return
    case 'number':
      if (!Number.isFinite(value)) throw invalid([...path], `expected a finite number, got ${value}`)
      return
    case 'boolean':
      return
    case 'object': {
      if (value === null) return
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          path.push(i)
          checkStructure(value[i], path, limits)
          path.pop()
        }
        return
      }
      const proto: unknown = Object.getPrototypeOf(value)
      if (proto !== Object.prototype && proto !== null)
        throw invalid(
          [...path],
          `expected a plain JSON object, got ${value.constructor?.name ?? 'an exotic object'}`,
        )
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue
        path.push(key)
        if (key === '__proto__') throw invalid([...path], 'the key "__proto__" is not accepted')
        checkStructure((value as Record<string, unknown>)[key], path, limits)
        path.pop()
      }
      return
    }
    default:
      throw invalid([...path], `expected a JSON value, got ${describe(value)}`)
  }
}

function parseWith(schema: z.ZodType, value: unknown, path: Path): void {
  const result = schema.safeParse(value)
  if (result.success) return
  const issue = result.error.issues[0]
  const issuePath = issue?.path ?? []
  const keys = issue?.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : ''
  throw invalid([...path, ...(issuePath as Path)], `${issue?.message ?? 'invalid'}${keys}`, result.error)
}

function checkBlock(block: unknown, path: Path, allowed: (kind: string) => z.ZodType | undefined): string {
  if (typeof block !== 'object' || block === null || Array.isArray(block))
    throw invalid(path, `expected a content block object, got ${describe(block)}`)
  const keys = Object.keys(block)
  if (keys.length !== 1)
    throw invalid(path, `a content block has exactly one key, got ${keys.length} (${keys.join(', ')})`)
  const kind = keys[0] as string
  const schema = allowed(kind)
  if (schema === undefined) throw invalid([...path, kind], `unknown content block kind "${kind}"`)
  parseWith(schema, (block as Record<string, unknown>)[kind], [...path, kind])
  return kind
}

/**
 * Validates a message and returns it typed. The value is not copied or reordered, so
 * `JSON.stringify(input)` is exactly what gets stored.
 *
 * @param input - anything a caller passed as a message
 * @param limits - depth and string-length limits
 * @returns the same object, typed as {@link MessageData}
 * @throws ContextLedgerError `INVALID_MESSAGE` naming the path of the first bad field
 */
export function validateMessage(input: unknown, limits: MessageLimits = DEFAULT_MESSAGE_LIMITS): MessageData {
  checkStructure(input, [], limits)
  parseWith(envelope, input, [])
  const content = (input as { content: unknown[] }).content
  for (let i = 0; i < content.length; i++) {
    const path: Path = ['content', i]
    const kind = checkBlock(content[i], path, blockSchema)
    if (kind === 'toolResult') {
      const items = (content[i] as { toolResult: { content: unknown[] } }).toolResult.content
      for (let j = 0; j < items.length; j++)
        checkBlock(items[j], [...path, 'toolResult', 'content', j], toolResultItem)
    }
  }
  return input as MessageData
}
