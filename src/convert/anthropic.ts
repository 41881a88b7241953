/**
 * A window for the Anthropic Messages API (`messages`). The caller passes its system prompt as `system`.
 *
 * - toolUse becomes `tool_use`; toolResult becomes `tool_result` (`is_error: true` for an error status,
 *   JSON items as text, images and documents kept), first in its user message, as the API requires.
 * - Images become `image` blocks (base64 source for bytes, url source for a URL); documents become
 *   `document` blocks: PDF bytes as a base64 source, text (inline, text blocks, or bytes of a text format)
 *   as a text or content source; the name is the title, `context` and `citations` are kept.
 * - Reasoning becomes a `thinking` block when it has a signature, a `redacted_thinking` block when it has
 *   redacted content (stored as base64 of the provider's data, which is decoded back); reasoning without
 *   either is dropped: the API refuses unsigned thinking, and sending it as text would show the model its
 *   own hidden reasoning as something it said.
 * - A cache point becomes `cache_control` on the block before it in the same message (`ttl` kept when it
 *   is `5m` or `1h`); with no such block it is dropped. The API allows at most four.
 * - guardContent and citations blocks are sent as their text (and image).
 * - Runs of same-role messages are merged (tool results first in a user run), because the API requires
 *   roles to alternate; `store.window(id, { alternate: true })` does the same on the stored form.
 * - Anything else (audio, video, S3 locations, media in an assistant message, unknown kinds) follows
 *   {@link ConvertOptions.unsupported}. Empty text blocks are dropped, and so is a message left empty.
 */
import type { ContentBlockData, MessageData, Role, ToolResultData } from '../messages/types.js'
import {
  blockKind,
  decodeText,
  documentText,
  imageMediaType,
  unsupported,
  type BlockPath,
  type ConvertOptions,
  type ImageMediaType,
} from './shared.js'

/** Where a cache point was: the block it ends the cached prefix at. */
export interface AnthropicCacheControl {
  /** Always `ephemeral`. */
  type: 'ephemeral'
  /** How long the entry lives, when the cache point said so. */
  ttl?: '5m' | '1h'
}

/** A text block. */
export interface AnthropicTextBlock {
  /** Always `text`. */
  type: 'text'
  /** The text, never empty. */
  text: string
  /** Set when a cache point followed the block. */
  cache_control?: AnthropicCacheControl
}

/** An image block. */
export interface AnthropicImageBlock {
  /** Always `image`. */
  type: 'image'
  /** Base64 bytes or a URL. */
  source: { type: 'base64'; media_type: ImageMediaType; data: string } | { type: 'url'; url: string }
  /** Set when a cache point followed the block. */
  cache_control?: AnthropicCacheControl
}

/** A document block. */
export interface AnthropicDocumentBlock {
  /** Always `document`. */
  type: 'document'
  /** PDF bytes, plain text, or text blocks. */
  source:
    | { type: 'base64'; media_type: 'application/pdf'; data: string }
    | { type: 'text'; media_type: 'text/plain'; data: string }
    | { type: 'content'; content: AnthropicTextBlock[] }
  /** The document's name. */
  title?: string
  /** Extra context about the document. */
  context?: string
  /** Whether the model may cite it. */
  citations?: { enabled: boolean }
  /** Set when a cache point followed the block. */
  cache_control?: AnthropicCacheControl
}

/** A tool call. */
export interface AnthropicToolUseBlock {
  /** Always `tool_use`. */
  type: 'tool_use'
  /** The call id. */
  id: string
  /** The tool name. */
  name: string
  /** The arguments. */
  input: unknown
  /** Set when a cache point followed the block. */
  cache_control?: AnthropicCacheControl
}

/** The answer to a tool call. */
export interface AnthropicToolResultBlock {
  /** Always `tool_result`. */
  type: 'tool_result'
  /** The id of the call it answers. */
  tool_use_id: string
  /** What the tool returned; absent when it returned nothing. */
  content?: (AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock)[]
  /** True when the tool failed. */
  is_error?: true
  /** Set when a cache point followed the block. */
  cache_control?: AnthropicCacheControl
}

/** Signed reasoning. */
export interface AnthropicThinkingBlock {
  /** Always `thinking`. */
  type: 'thinking'
  /** The reasoning text. */
  thinking: string
  /** The provider's signature. */
  signature: string
}

/** Reasoning the provider encrypted. */
export interface AnthropicRedactedThinkingBlock {
  /** Always `redacted_thinking`. */
  type: 'redacted_thinking'
  /** The provider's opaque data. */
  data: string
}

/** A content block of an Anthropic message, as the converter produces them. */
export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock

/** An Anthropic message. */
export interface AnthropicMessage {
  /** Who said it; roles alternate in the converted array. */
  role: Role
  /** The blocks, never empty. */
  content: AnthropicContentBlock[]
}

const PROVIDER = 'Anthropic Messages'

type Media = AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock
type Part = ContentBlockData | ToolResultData['content'][number]

/** The blocks of a text, image or document; an empty array for empty text. */
function mediaBlocks(block: Part, path: BlockPath, options: ConvertOptions): Media[] {
  const text = (t: string): Media[] => (t === '' ? [] : [{ type: 'text', text: t }])
  const fail = (kind: string, why: string) => text(unsupported(options, PROVIDER, path, kind, why))
  if ('text' in block) return text(block.text)
  if ('json' in block) return text(JSON.stringify(block.json))
  if ('image' in block) {
    const { format, source } = block.image
    if ('url' in source) return [{ type: 'image', source: { type: 'url', url: source.url } }]
    if ('location' in source) return fail('image', 'an S3 location is readable by Bedrock only')
    const type = imageMediaType(format)
    if (type === undefined) return fail('image', `image format "${format}" is not png, jpeg, gif or webp`)
    return [{ type: 'image', source: { type: 'base64', media_type: type, data: source.bytes } }]
  }
  if ('document' in block) {
    const doc = block.document
    const extra = {
      title: doc.name,
      ...(doc.context === undefined ? {} : { context: doc.context }),
      ...(doc.citations === undefined ? {} : { citations: doc.citations }),
    }
    if ('content' in doc.source) {
      const content = doc.source.content.flatMap((c) =>
        c.text === '' ? [] : [{ type: 'text' as const, text: c.text }],
      )
      return [{ type: 'document', source: { type: 'content', content }, ...extra }]
    }
    const body = documentText(doc)
    if (body !== undefined)
      return [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: body }, ...extra }]
    if ('bytes' in doc.source && doc.format.toLowerCase() === 'pdf')
      return [
        {
          type: 'document',
          source: { type: 'base64', media_type: 'application/pdf', data: doc.source.bytes },
          ...extra,
        },
      ]
    return fail('document', `only PDF files and text documents are sent (format "${doc.format}")`)
  }
  if ('guardContent' in block) {
    const { text: guarded, image } = block.guardContent
    return [
      ...(guarded === undefined ? [] : text(guarded.text)),
      ...(image === undefined ? [] : mediaBlocks({ image }, path, options)),
    ]
  }
  if ('citations' in block) return text(block.citations.content.map((c) => c.text).join(''))
  if ('audio' in block || 'video' in block) return fail(blockKind(block), 'Anthropic takes no audio or video')
  const kind = blockKind(block)
  return fail(kind, 'not a content block of this kind of message, or an unknown kind')
}

function toolResult(
  result: ToolResultData,
  path: BlockPath,
  options: ConvertOptions,
): AnthropicToolResultBlock {
  const content = result.content.flatMap((item, k) =>
    mediaBlocks(item, [...path, 'toolResult', 'content', k, blockKind(item)], options),
  )
  return {
    type: 'tool_result',
    tool_use_id: result.toolUseId,
    ...(content.length === 0 ? {} : { content }),
    ...(result.status === 'error' ? { is_error: true as const } : {}),
  }
}

function cacheControl(ttl: string | undefined): AnthropicCacheControl {
  return ttl === '5m' || ttl === '1h' ? { type: 'ephemeral', ttl } : { type: 'ephemeral' }
}

function reasoning(block: {
  text?: string
  signature?: string
  redactedContent?: string
}): AnthropicContentBlock[] {
  const out: AnthropicContentBlock[] = []
  if (block.signature !== undefined)
    out.push({ type: 'thinking', thinking: block.text ?? '', signature: block.signature })
  if (block.redactedContent !== undefined)
    out.push({ type: 'redacted_thinking', data: decodeText(block.redactedContent) })
  return out
}

function notInAssistant(options: ConvertOptions, path: BlockPath, kind: string): AnthropicTextBlock {
  const why = 'assistant content is text, tool calls and thinking'
  return { type: 'text', text: unsupported(options, PROVIDER, path, kind, why) }
}

function convert(message: MessageData, index: number, options: ConvertOptions): AnthropicContentBlock[] {
  const out: AnthropicContentBlock[] = []
  const assistant = message.role === 'assistant'
  message.content.forEach((block, j) => {
    const path = [index, 'content', j, blockKind(block)]
    if ('cachePoint' in block) {
      const last = out.at(-1)
      if (last !== undefined && last.type !== 'thinking' && last.type !== 'redacted_thinking')
        last.cache_control = cacheControl(block.cachePoint.ttl)
    } else if ('reasoning' in block) {
      if (assistant) out.push(...reasoning(block.reasoning))
    } else if ('toolUse' in block && assistant)
      out.push({
        type: 'tool_use',
        id: block.toolUse.toolUseId,
        name: block.toolUse.name,
        input: block.toolUse.input,
      })
    else if ('toolResult' in block && !assistant)
      out.push(toolResult(block.toolResult, path.slice(0, 3), options))
    else if (assistant && 'guardContent' in block) {
      const { text, image } = block.guardContent
      if (text !== undefined && text.text !== '') out.push({ type: 'text', text: text.text })
      if (image !== undefined) out.push(notInAssistant(options, path, 'image'))
    } else if (assistant && !('text' in block || 'citations' in block))
      out.push(notInAssistant(options, path, blockKind(block)))
    else out.push(...mediaBlocks(block, path, options))
  })
  return out
}

/** Tool results first in a user message, as the API requires; other blocks keep their order. */
function toolResultsFirst(content: AnthropicContentBlock[]): AnthropicContentBlock[] {
  return [
    ...content.filter((b) => b.type === 'tool_result'),
    ...content.filter((b) => b.type !== 'tool_result'),
  ]
}

/**
 * Converts a window to the `messages` of an Anthropic Messages request (the rules are in the module
 * comment and in docs/converters.md).
 *
 * @param messages - the window, e.g. `store.window(sessionId)`, in the stored `MessageData` form
 * @param options - what to do with blocks the API cannot take
 * @returns messages whose roles alternate, none empty; the system prompt goes in the request's `system`
 * @throws ContextLedgerError `INVALID_MESSAGE` for a block the API cannot take, unless
 *   `options.unsupported` is `'placeholder'`
 * @example
 * ```ts
 * const request = { model, max_tokens: 1024, system: 'You are terse.', messages: toAnthropicMessages(store.window(id)) }
 * ```
 */
export function toAnthropicMessages(
  messages: readonly MessageData[],
  options: ConvertOptions = {},
): AnthropicMessage[] {
  const out: AnthropicMessage[] = []
  messages.forEach((message, index) => {
    const content = convert(message, index, options)
    if (content.length === 0) return
    const last = out.at(-1)
    if (last?.role === message.role) last.content.push(...content)
    else out.push({ role: message.role, content })
  })
  for (const message of out) if (message.role === 'user') message.content = toolResultsFirst(message.content)
  return out
}
