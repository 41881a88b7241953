/**
 * A window for the OpenAI Chat Completions API (`messages`). The caller adds its system message.
 *
 * - An assistant message becomes one `assistant` message: its text blocks joined by a newline (`null`
 *   when there is none) and its toolUse blocks as `tool_calls` with JSON-string `arguments`.
 * - A user message's toolResult blocks become `tool` messages first, one per result, so they follow the
 *   assistant `tool_calls` they answer; its other blocks become one `user` message after them.
 * - A tool message is text only: text items and JSON items (serialized) joined by a newline, prefixed
 *   with `[ERROR] ` when the status is `error`, `(no output)` when empty. Images and documents of a tool
 *   result go to the `user` message that follows, under a line naming the call.
 * - Images become `image_url` parts (a data URL for bytes); PDF bytes become `file` parts; text documents
 *   become text parts; wav and mp3 bytes become `input_audio` parts. OpenAI takes media in user messages only.
 * - Reasoning and cache points are dropped: Chat Completions takes no reasoning as input and caches
 *   prompts by itself. guardContent and citations blocks are sent as their text (and image).
 * - Anything else (video, S3 locations, media in an assistant message, unknown kinds) follows
 *   {@link ConvertOptions.unsupported}. Empty text blocks are dropped, and so is a message left empty.
 */
import type { ContentBlockData, MessageData, ToolResultData } from '../messages/types.js'
import {
  dataUrl,
  documentText,
  EMPTY_TOOL_RESULT_TEXT,
  imageUrl,
  mediaType,
  TOOL_ERROR_PREFIX,
  toolResultItemText,
  unsupported,
  blockKind,
  type BlockPath,
  type ConvertOptions,
} from './shared.js'

/** A part of a Chat Completions user message. */
export type OpenAIChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }
  | { type: 'input_audio'; input_audio: { data: string; format: 'wav' | 'mp3' } }
  | { type: 'file'; file: { filename: string; file_data: string } }

/** A tool call of a Chat Completions assistant message. */
export interface OpenAIChatToolCall {
  /** The call id; the `tool` message answering it carries it as `tool_call_id`. */
  id: string
  /** Always `function`. */
  type: 'function'
  /** The tool name and its arguments as a JSON string. */
  function: { name: string; arguments: string }
}

/** A Chat Completions user message. */
export interface OpenAIChatUserMessage {
  /** Always `user`. */
  role: 'user'
  /** The parts, never empty. */
  content: OpenAIChatContentPart[]
}

/** A Chat Completions assistant message. */
export interface OpenAIChatAssistantMessage {
  /** Always `assistant`. */
  role: 'assistant'
  /** The text, or null when the message holds tool calls only. */
  content: string | null
  /** The tool calls, when there are any. */
  tool_calls?: OpenAIChatToolCall[]
}

/** A Chat Completions tool message: the answer to one tool call. */
export interface OpenAIChatToolMessage {
  /** Always `tool`. */
  role: 'tool'
  /** The id of the call it answers. */
  tool_call_id: string
  /** The result as text, never empty. */
  content: string
}

/** A message of the Chat Completions `messages` array, as the converter produces them. */
export type OpenAIChatMessage = OpenAIChatUserMessage | OpenAIChatAssistantMessage | OpenAIChatToolMessage

const PROVIDER = 'OpenAI Chat Completions'
const AUDIO_FORMATS = new Set(['wav', 'mp3'])

type Part = ContentBlockData | ToolResultData['content'][number]

/** The user-message parts of one block; an empty array for a block that is dropped. */
function userParts(block: Part, path: BlockPath, options: ConvertOptions): OpenAIChatContentPart[] {
  const text = (t: string): OpenAIChatContentPart[] => (t === '' ? [] : [{ type: 'text', text: t }])
  const fail = (kind: string, why: string) => text(unsupported(options, PROVIDER, path, kind, why))
  if ('text' in block) return text(block.text)
  if ('json' in block) return text(JSON.stringify(block.json))
  if ('image' in block) {
    const url = imageUrl(block.image)
    return 'url' in url ? [{ type: 'image_url', image_url: { url: url.url } }] : fail('image', url.why)
  }
  if ('document' in block) {
    const doc = block.document
    const body = documentText(doc)
    if (body !== undefined) return text(body)
    if ('bytes' in doc.source && doc.format.toLowerCase() === 'pdf')
      return [
        {
          type: 'file',
          file: { filename: doc.name, file_data: dataUrl(mediaType('pdf'), doc.source.bytes) },
        },
      ]
    return fail('document', `only PDF files and text documents are sent (format "${doc.format}")`)
  }
  if ('audio' in block) {
    const { format, source } = block.audio
    const key = format.toLowerCase()
    if ('bytes' in source && AUDIO_FORMATS.has(key))
      return [{ type: 'input_audio', input_audio: { data: source.bytes, format: key as 'wav' | 'mp3' } }]
    return fail('audio', 'only wav and mp3 bytes are sent')
  }
  if ('guardContent' in block) {
    const { text: guarded, image } = block.guardContent
    return [
      ...(guarded === undefined ? [] : text(guarded.text)),
      ...(image === undefined ? [] : userParts({ image }, path, options)),
    ]
  }
  if ('citations' in block) return text(block.citations.content.map((c) => c.text).join(''))
  if ('reasoning' in block || 'cachePoint' in block) return []
  if ('video' in block) return fail('video', 'OpenAI takes no video')
  const kind = blockKind(block)
  return fail(kind, kind === 'toolUse' ? 'a tool call belongs in an assistant message' : 'unknown block kind')
}

function toolMessage(
  result: ToolResultData,
  path: BlockPath,
  options: ConvertOptions,
): { message: OpenAIChatToolMessage; attachments: OpenAIChatContentPart[] } {
  const texts: string[] = []
  const attachments: OpenAIChatContentPart[] = []
  result.content.forEach((item, k) => {
    const itemText = toolResultItemText(item)
    if (itemText !== undefined) {
      texts.push(itemText)
      return
    }
    for (const part of userParts(item, [...path, 'toolResult', 'content', k, blockKind(item)], options))
      if (part.type === 'text') texts.push(part.text)
      else attachments.push(part)
  })
  let content = texts.join('\n')
  if (content === '')
    content = attachments.length > 0 ? '(attached in the next user message)' : EMPTY_TOOL_RESULT_TEXT
  if (result.status === 'error') content = TOOL_ERROR_PREFIX + content
  if (attachments.length > 0)
    attachments.unshift({ type: 'text', text: `Attachments of the result of tool call ${result.toolUseId}:` })
  return { message: { role: 'tool', tool_call_id: result.toolUseId, content }, attachments }
}

function assistantMessage(message: MessageData, index: number, options: ConvertOptions): OpenAIChatMessage[] {
  const texts: string[] = []
  const calls: OpenAIChatToolCall[] = []
  message.content.forEach((block, j) => {
    const path = [index, 'content', j, blockKind(block)]
    const fail = (kind: string, why: string) => texts.push(unsupported(options, PROVIDER, path, kind, why))
    if ('toolUse' in block) {
      const { toolUseId, name, input } = block.toolUse
      calls.push({ id: toolUseId, type: 'function', function: { name, arguments: JSON.stringify(input) } })
    } else if ('text' in block) texts.push(block.text)
    else if ('citations' in block) texts.push(block.citations.content.map((c) => c.text).join(''))
    else if ('guardContent' in block) {
      if (block.guardContent.text !== undefined) texts.push(block.guardContent.text.text)
      if (block.guardContent.image !== undefined) fail('image', 'OpenAI takes images in user messages only')
    } else if ('reasoning' in block || 'cachePoint' in block) return
    else if ('image' in block || 'document' in block || 'audio' in block || 'video' in block)
      fail(path[3] as string, 'OpenAI takes media in user messages only')
    else fail(path[3] as string, 'unknown block kind, or a tool result in an assistant message')
  })
  const text = texts.filter((t) => t !== '').join('\n')
  if (calls.length === 0) return text === '' ? [] : [{ role: 'assistant', content: text }]
  return [{ role: 'assistant', content: text === '' ? null : text, tool_calls: calls }]
}

function userMessages(message: MessageData, index: number, options: ConvertOptions): OpenAIChatMessage[] {
  const tools: OpenAIChatMessage[] = []
  const attached: OpenAIChatContentPart[] = []
  const parts: OpenAIChatContentPart[] = []
  message.content.forEach((block, j) => {
    const path = [index, 'content', j]
    if ('toolResult' in block) {
      const { message: tool, attachments } = toolMessage(block.toolResult, path, options)
      tools.push(tool)
      attached.push(...attachments)
    } else parts.push(...userParts(block, [...path, blockKind(block)], options))
  })
  const content = [...attached, ...parts]
  return content.length === 0 ? tools : [...tools, { role: 'user', content }]
}

/**
 * Converts a window to the `messages` of an OpenAI Chat Completions request (the rules are in the module
 * comment and in docs/converters.md).
 *
 * @param messages - the window, e.g. `store.window(sessionId)`, in the stored `MessageData` form
 * @param options - what to do with blocks OpenAI cannot take
 * @returns the messages, without a system message (the caller puts its own first)
 * @throws ContextLedgerError `INVALID_MESSAGE` for a block OpenAI cannot take, unless
 *   `options.unsupported` is `'placeholder'`
 * @example
 * ```ts
 * const messages = [{ role: 'system', content: 'You are terse.' }, ...toOpenAIChatMessages(store.window(id))]
 * ```
 */
export function toOpenAIChatMessages(
  messages: readonly MessageData[],
  options: ConvertOptions = {},
): OpenAIChatMessage[] {
  return messages.flatMap((message, index) =>
    message.role === 'assistant'
      ? assistantMessage(message, index, options)
      : userMessages(message, index, options),
  )
}
