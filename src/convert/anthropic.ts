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
 * - The window is checked first (see `check-window.ts`): an array of messages `validateMessage` accepts,
 *   whose tool calls pair up as the API requires (call ids unique in the request and made of letters,
 *   digits, `_` and `-`); a window ending with calls still waiting for their results follows
 *   {@link ConvertOptions.pendingToolUse}.
 * - Anything else (audio, video, S3 locations, media in an assistant message, a tool block in a message
 *   of the other role) follows {@link ConvertOptions.unsupported}. Text left empty (a citations block
 *   without content, a text document without text) is dropped, and so is a message left empty.
 */
import type { ContentBlockData, MessageData, Role, ToolResultData } from '../messages/types.js'
import { checkWindow, type PairingRules } from './check-window.js'
import { assistantPieces, userPieces, type Piece, type PieceContext } from './pieces.js'
import { blockKind, decodeText, type BlockPath, type ConvertOptions, type ImageMediaType } from './shared.js'

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

const RULES: PairingRules = {
  provider: 'Anthropic Messages',
  mergesRuns: true,
  uniqueIds: 'request',
  idPattern: /^[a-zA-Z0-9_-]+$/,
}

const CONTEXT = (options: ConvertOptions): PieceContext => ({
  options,
  provider: RULES.provider,
  audio: new Set(),
})

type Media = AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock

function media(piece: Piece): Media {
  switch (piece.type) {
    case 'text':
      return { type: 'text', text: piece.text }
    case 'image': {
      const { source } = piece
      return 'url' in source
        ? { type: 'image', source: { type: 'url', url: source.url } }
        : { type: 'image', source: { type: 'base64', media_type: source.mediaType, data: source.data } }
    }
    case 'document': {
      const doc = piece.document
      const extra = {
        title: doc.name,
        ...(doc.context === undefined ? {} : { context: doc.context }),
        ...(doc.citations === undefined ? {} : { citations: doc.citations }),
      }
      if ('content' in doc.source) {
        const content = doc.source.content.flatMap((c) =>
          c.text === '' ? [] : [{ type: 'text' as const, text: c.text }],
        )
        return { type: 'document', source: { type: 'content', content }, ...extra }
      }
      return 'text' in piece.content
        ? {
            type: 'document',
            source: { type: 'text', media_type: 'text/plain', data: piece.content.text },
            ...extra,
          }
        : {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: piece.content.pdf },
            ...extra,
          }
    }
    case 'audio':
      // The context lists no audio format, so userPieces never gives audio here.
      throw new Error('unreachable: Anthropic takes no audio')
  }
}

function toolResult(result: ToolResultData, path: BlockPath, ctx: PieceContext): AnthropicToolResultBlock {
  const content = result.content.flatMap((item, k) =>
    userPieces(item, [...path, 'toolResult', 'content', k, blockKind(item)], ctx).map(media),
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

function assistantBlocks(
  block: ContentBlockData,
  path: BlockPath,
  ctx: PieceContext,
): AnthropicContentBlock[] {
  if ('reasoning' in block) return reasoning(block.reasoning)
  return assistantPieces(block, path, ctx).map((p): AnthropicContentBlock => {
    if (p.type === 'text') return { type: 'text', text: p.text }
    const { toolUseId, name, input } = p.toolUse
    return { type: 'tool_use', id: toolUseId, name, input }
  })
}

function convert(message: MessageData, index: number, ctx: PieceContext): AnthropicContentBlock[] {
  const out: AnthropicContentBlock[] = []
  message.content.forEach((block, j) => {
    const path = [index, 'content', j]
    if ('cachePoint' in block) {
      const last = out.at(-1)
      if (last !== undefined && last.type !== 'thinking' && last.type !== 'redacted_thinking')
        last.cache_control = cacheControl(block.cachePoint.ttl)
    } else if (message.role === 'assistant')
      out.push(...assistantBlocks(block, [...path, blockKind(block)], ctx))
    else if ('toolResult' in block) out.push(toolResult(block.toolResult, path, ctx))
    else out.push(...userPieces(block, [...path, blockKind(block)], ctx).map(media))
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
 * @param options - what to do with blocks the API cannot take, and with calls still waiting at the end
 * @returns messages whose roles alternate, none empty; the system prompt goes in the request's `system`
 * @throws ContextLedgerError `INVALID_MESSAGE` (path from the window index, e.g. `[3].content[0].text`) for
 *   a window that is not an array of valid messages, for tool calls and results that do not pair up, for
 *   calls still waiting at its end unless `options.pendingToolUse` is `'drop'`, and for a block the API
 *   cannot take unless `options.unsupported` is `'placeholder'`; `INVALID_OPTIONS` for bad options
 * @example
 * ```ts
 * const request = { model, max_tokens: 1024, system: 'You are terse.', messages: toAnthropicMessages(store.window(id)) }
 * ```
 */
export function toAnthropicMessages(
  messages: readonly MessageData[],
  options: ConvertOptions = {},
): AnthropicMessage[] {
  const { window, options: checked } = checkWindow(messages, options, RULES)
  const ctx = CONTEXT(checked)
  const out: AnthropicMessage[] = []
  window.forEach((message, index) => {
    const content = convert(message, index, ctx)
    if (content.length === 0) return
    const last = out.at(-1)
    if (last?.role === message.role) last.content.push(...content)
    else out.push({ role: message.role, content })
  })
  for (const message of out) if (message.role === 'user') message.content = toolResultsFirst(message.content)
  return out
}
