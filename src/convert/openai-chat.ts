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
 * - The window is checked first (see `check-window.ts`): an array of messages `validateMessage` accepts,
 *   whose tool calls pair up as the API requires (results right after their calls, before other user
 *   content); a window ending with calls still waiting for their results follows
 *   {@link ConvertOptions.pendingToolUse}.
 * - Anything else (video, S3 locations, media in an assistant message, a tool block in a message of the
 *   other role) follows {@link ConvertOptions.unsupported}. Text left empty (a citations block without
 *   content, a text document without text) is dropped, and so is a message left empty.
 */
import type { MessageData, ToolResultData } from '../messages/types.js'
import { checkWindow, type PairingRules } from './check-window.js'
import { assistantPieces, userPieces, type Piece, type PieceContext } from './pieces.js'
import {
  blockKind,
  dataUrl,
  EMPTY_TOOL_RESULT_TEXT,
  TOOL_ERROR_PREFIX,
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

const RULES: PairingRules = { provider: 'OpenAI Chat Completions', mergesRuns: false, uniqueIds: 'turn' }

const CONTEXT = (options: ConvertOptions): PieceContext => ({
  options,
  provider: RULES.provider,
  audio: new Set(['wav', 'mp3']),
})

function part(piece: Piece): OpenAIChatContentPart {
  switch (piece.type) {
    case 'text':
      return { type: 'text', text: piece.text }
    case 'image': {
      const { source } = piece
      const url = 'url' in source ? source.url : dataUrl(source.mediaType, source.data)
      return { type: 'image_url', image_url: { url } }
    }
    case 'document':
      return 'text' in piece.content
        ? { type: 'text', text: piece.content.text }
        : {
            type: 'file',
            file: { filename: piece.document.name, file_data: dataUrl('application/pdf', piece.content.pdf) },
          }
    case 'audio':
      return {
        type: 'input_audio',
        input_audio: { data: piece.data, format: piece.format === 'wav' ? 'wav' : 'mp3' },
      }
  }
}

function toolMessage(
  result: ToolResultData,
  path: BlockPath,
  ctx: PieceContext,
): { message: OpenAIChatToolMessage; attachments: OpenAIChatContentPart[] } {
  const texts: string[] = []
  const attachments: OpenAIChatContentPart[] = []
  result.content.forEach((item, k) => {
    for (const p of userPieces(item, [...path, 'toolResult', 'content', k, blockKind(item)], ctx).map(part))
      if (p.type === 'text') texts.push(p.text)
      else attachments.push(p)
  })
  let content = texts.join('\n')
  if (content === '')
    content = attachments.length > 0 ? '(attached in the next user message)' : EMPTY_TOOL_RESULT_TEXT
  if (result.status === 'error') content = TOOL_ERROR_PREFIX + content
  if (attachments.length > 0)
    attachments.unshift({ type: 'text', text: `Attachments of the result of tool call ${result.toolUseId}:` })
  return { message: { role: 'tool', tool_call_id: result.toolUseId, content }, attachments }
}

function assistantMessage(message: MessageData, index: number, ctx: PieceContext): OpenAIChatMessage[] {
  const pieces = message.content.flatMap((block, j) =>
    assistantPieces(block, [index, 'content', j, blockKind(block)], ctx),
  )
  const text = pieces.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n')
  const calls = pieces.flatMap((p): OpenAIChatToolCall[] =>
    p.type === 'call'
      ? [
          {
            id: p.toolUse.toolUseId,
            type: 'function',
            function: { name: p.toolUse.name, arguments: JSON.stringify(p.toolUse.input) },
          },
        ]
      : [],
  )
  if (calls.length === 0) return text === '' ? [] : [{ role: 'assistant', content: text }]
  return [{ role: 'assistant', content: text === '' ? null : text, tool_calls: calls }]
}

function userMessages(message: MessageData, index: number, ctx: PieceContext): OpenAIChatMessage[] {
  const tools: OpenAIChatMessage[] = []
  const attached: OpenAIChatContentPart[] = []
  const parts: OpenAIChatContentPart[] = []
  message.content.forEach((block, j) => {
    const path = [index, 'content', j]
    if ('toolResult' in block) {
      const { message: tool, attachments } = toolMessage(block.toolResult, path, ctx)
      tools.push(tool)
      attached.push(...attachments)
    } else parts.push(...userPieces(block, [...path, blockKind(block)], ctx).map(part))
  })
  const content = [...attached, ...parts]
  return content.length === 0 ? tools : [...tools, { role: 'user', content }]
}

/**
 * Converts a window to the `messages` of an OpenAI Chat Completions request (the rules are in the module
 * comment and in docs/converters.md).
 *
 * @param messages - the window, e.g. `store.window(sessionId)`, in the stored `MessageData` form
 * @param options - what to do with blocks OpenAI cannot take, and with calls still waiting at the end
 * @returns the messages, without a system message (the caller puts its own first)
 * @throws ContextLedgerError `INVALID_MESSAGE` (path from the window index, e.g. `[3].content[0].text`) for
 *   a window that is not an array of valid messages, for tool calls and results that do not pair up, for
 *   calls still waiting at its end unless `options.pendingToolUse` is `'drop'`, and for a block OpenAI
 *   cannot take unless `options.unsupported` is `'placeholder'`; `INVALID_OPTIONS` for bad options
 * @example
 * ```ts
 * const messages = [{ role: 'system', content: 'You are terse.' }, ...toOpenAIChatMessages(store.window(id))]
 * ```
 */
export function toOpenAIChatMessages(
  messages: readonly MessageData[],
  options: ConvertOptions = {},
): OpenAIChatMessage[] {
  const { window, options: checked } = checkWindow(messages, options, RULES)
  const ctx = CONTEXT(checked)
  return window.flatMap((message, index) =>
    message.role === 'assistant' ? assistantMessage(message, index, ctx) : userMessages(message, index, ctx),
  )
}
