/**
 * Validation of incoming messages. One walk first copies the caller's value into plain JSON, refusing
 * what zod would either accept or choke on (prototype keys, lone surrogates, non-JSON values, absurd depth
 * or size; see `json-snapshot.ts`); then strict zod schemas check the Strands `MessageData` shape of that
 * copy, and a last pass the rules providers add (no empty message, no empty text block, one id per tool
 * call and per result). Every refusal is an `INVALID_MESSAGE` error naming the path of the first bad
 * field, e.g. `content[2].toolUse.toolUseId`.
 */
import { z } from 'zod'
import { ContextLedgerError } from '../errors.js'
import { snapshotJson, invalidMessage, describeType, type Path } from './json-snapshot.js'
import { resolveMessageLimits, type MessageLimits } from './limits.js'
import type { JsonValue, MessageData } from './types.js'

export { DEFAULT_MESSAGE_LIMITS, MESSAGE_LIMIT_BOUNDS, type MessageLimits } from './limits.js'
export { formatPath } from './json-snapshot.js'

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

function parseWith(schema: z.ZodType, value: unknown, path: Path): void {
  const result = schema.safeParse(value)
  if (result.success) return
  const issue = result.error.issues[0]
  const issuePath = issue?.path ?? []
  const keys = issue?.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : ''
  throw invalidMessage(
    [...path, ...(issuePath as Path)],
    `${issue?.message ?? 'invalid'}${keys}`,
    result.error,
  )
}

function checkBlock(block: unknown, path: Path, allowed: (kind: string) => z.ZodType | undefined): string {
  if (typeof block !== 'object' || block === null || Array.isArray(block))
    throw invalidMessage(path, `expected a content block object, got ${describeType(block)}`)
  const keys = Object.keys(block)
  if (keys.length !== 1)
    throw invalidMessage(path, `a content block has exactly one key, got ${keys.length} (${keys.join(', ')})`)
  const kind = keys[0] as string
  const schema = allowed(kind)
  if (schema === undefined) throw invalidMessage([...path, kind], `unknown content block kind "${kind}"`)
  parseWith(schema, (block as Record<string, unknown>)[kind], [...path, kind])
  return kind
}

/** Shortens a caller's id for an error message (ids may be megabytes long). */
function quoteId(id: string): string {
  return JSON.stringify(id.length > 64 ? `${id.slice(0, 64)}…` : id)
}

/**
 * Validates a message and returns a plain copy of it: the caller's value is read once (see
 * `json-snapshot.ts`), and the copy is what gets checked, counted and stored. For plain-JSON input,
 * `JSON.stringify` of the copy equals `JSON.stringify(input)`.
 *
 * Beyond the Strands shape, a message must have at least one content block, its text blocks must not be
 * empty (providers refuse both), and no two of its toolUse blocks, nor two of its toolResult blocks, may
 * share a `toolUseId` (one of them could never be told apart from the other, leaving a call open forever).
 *
 * @param input - anything a caller passed as a message
 * @param limits - depth and string-length limits (defaults for the fields left out)
 * @returns the plain copy, typed as {@link MessageData}
 * @throws ContextLedgerError `INVALID_MESSAGE` naming the path of the first bad field; `INVALID_OPTIONS`
 *   for limits out of bounds
 *
 * @example
 * ```ts
 * try {
 *   const message = validateMessage(JSON.parse(body))
 * } catch (e) {
 *   if (isContextLedgerError(e, 'INVALID_MESSAGE')) console.log(e.path) // e.g. 'content[0].text'
 * }
 * ```
 */
export function validateMessage(input: unknown, limits?: Partial<MessageLimits>): MessageData {
  return snapshotMessage(input, resolveMessageLimits(limits))
}

/** Empty, or white space only: what providers refuse as a text block. */
function isBlank(text: string): boolean {
  return text.trim() === ''
}

/**
 * {@link validateMessage} with limits already checked: what the store runs on every append.
 *
 * @param input - anything a caller passed as a message
 * @param limits - resolved limits
 * @returns the plain copy
 * @throws ContextLedgerError `INVALID_MESSAGE` naming the path of the first bad field
 */
export function snapshotMessage(input: unknown, limits: MessageLimits): MessageData {
  const message = snapshotJson(input, limits)
  parseWith(envelope, message, [])
  const content = (message as { content: unknown[] }).content
  if (content.length === 0)
    throw invalidMessage(
      ['content'],
      'a message needs at least one content block (providers refuse empty messages)',
    )
  // Tool ids seen so far in this message, with the block that carried each.
  let uses: Map<string, number> | undefined
  let results: Map<string, number> | undefined
  for (let i = 0; i < content.length; i++) {
    const path: Path = ['content', i]
    const block = content[i]
    const kind = checkBlock(block, path, blockSchema)
    if (kind === 'text') {
      if (isBlank((block as { text: string }).text))
        throw invalidMessage(
          [...path, 'text'],
          'blank text (providers refuse empty or whitespace-only text blocks)',
        )
    } else if (kind === 'toolUse') {
      const id = (block as { toolUse: { toolUseId: string } }).toolUse.toolUseId
      const first = (uses ??= new Map<string, number>()).get(id)
      if (first !== undefined)
        throw invalidMessage(
          [...path, 'toolUse', 'toolUseId'],
          `duplicate toolUseId ${quoteId(id)}, already used by content[${first}]; every call needs its own id`,
        )
      uses.set(id, i)
    } else if (kind === 'toolResult') {
      const result = (block as { toolResult: { toolUseId: string; content: unknown[] } }).toolResult
      const first = (results ??= new Map<string, number>()).get(result.toolUseId)
      if (first !== undefined)
        throw invalidMessage(
          [...path, 'toolResult', 'toolUseId'],
          `duplicate toolResult for ${quoteId(result.toolUseId)}, already answered by content[${first}]; a call has one result`,
        )
      results.set(result.toolUseId, i)
      const items = result.content
      for (let j = 0; j < items.length; j++) {
        const itemPath: Path = [...path, 'toolResult', 'content', j]
        if (
          checkBlock(items[j], itemPath, toolResultItem) === 'text' &&
          isBlank((items[j] as { text: string }).text)
        )
          throw invalidMessage(
            [...itemPath, 'text'],
            'blank text in a tool result (providers refuse empty or whitespace-only text blocks)',
          )
      }
    }
  }
  return message as unknown as MessageData
}

/**
 * {@link snapshotMessage} for the message at `index` of a list (a batch to append, a window to convert):
 * an error names the list and the index, and its path starts `[index]` (`[3].content[0].text`, or `[3]`
 * when the message itself is wrong).
 *
 * @param input - the list's element
 * @param index - its position
 * @param list - what the list is, for the message: `'batch'`, `'window'`
 * @param limits - resolved limits
 * @returns the plain copy
 * @throws ContextLedgerError `INVALID_MESSAGE` with the prefixed path
 */
export function snapshotMessageAt(
  input: unknown,
  index: number,
  list: string,
  limits: MessageLimits,
): MessageData {
  try {
    return snapshotMessage(input, limits)
  } catch (error) {
    if (!(error instanceof ContextLedgerError)) throw error
    const inner = error.path === undefined || error.path === '(message)' ? '' : `.${error.path}`
    throw new ContextLedgerError(error.code, `Message ${index} of the ${list}: ${error.message}`, {
      path: `[${index}]${inner}`,
      cause: error.cause,
    })
  }
}
