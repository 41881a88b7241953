/**
 * A window for the OpenAI Responses API (`input` items). The caller passes its system prompt as
 * `instructions` (or a `developer` message first).
 *
 * - An assistant message becomes, in block order, `message` items with its text (string content, the only
 *   assistant input form that needs no output-item id; consecutive text blocks joined by a newline) and a
 *   `function_call` item per toolUse, with JSON-string `arguments`.
 * - A user message's toolResult blocks become `function_call_output` items first, then its other blocks
 *   one `message` item of `input_text`, `input_image` and `input_file` parts.
 * - A tool output is a string (text and serialized JSON items joined by a newline) when the result holds
 *   text only, else a list of input parts (images and files included); `[ERROR] ` leads it when the status
 *   is `error`; `(no output)` stands for an empty result.
 * - Images become data URLs (or the URL); PDF bytes become `input_file`; text documents become text.
 * - Reasoning and cache points are dropped: a reasoning input item needs an id and encrypted content that
 *   only an OpenAI response carries, and OpenAI caches prompts by itself. guardContent and citations
 *   blocks are sent as their text (and image).
 * - The window is checked first (see `check-window.ts`): an array of messages `validateMessage` accepts,
 *   whose tool calls pair up as the API requires (outputs right after their calls, before other user
 *   content; call ids unique in the request); a window ending with calls still waiting for their
 *   results follows {@link ConvertOptions.pendingToolUse}.
 * - Anything else (audio, video, S3 locations, media in an assistant message, a tool block in a message
 *   of the other role) follows {@link ConvertOptions.unsupported}. Text left empty (a citations block
 *   without content, a text document without text) is dropped, and so is an item left empty.
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

/** A part of a Responses user message or tool output. */
export type OpenAIResponsesContent =
  | { type: 'input_text'; text: string }
  | { type: 'input_image'; image_url: string; detail: 'auto' }
  | { type: 'input_file'; filename: string; file_data: string }

/** A user message item. */
export interface OpenAIResponsesUserMessage {
  /** Always `message`. */
  type: 'message'
  /** Always `user`. */
  role: 'user'
  /** The parts, never empty. */
  content: OpenAIResponsesContent[]
}

/** An assistant message item: earlier model output, as text. */
export interface OpenAIResponsesAssistantMessage {
  /** Always `message`. */
  type: 'message'
  /** Always `assistant`. */
  role: 'assistant'
  /** The text, never empty. */
  content: string
}

/** A tool call the model made. */
export interface OpenAIResponsesFunctionCall {
  /** Always `function_call`. */
  type: 'function_call'
  /** The call id; its output carries the same. */
  call_id: string
  /** The tool name. */
  name: string
  /** The arguments as a JSON string. */
  arguments: string
}

/** The output of a tool call. */
export interface OpenAIResponsesFunctionCallOutput {
  /** Always `function_call_output`. */
  type: 'function_call_output'
  /** The id of the call it answers. */
  call_id: string
  /** The result: text, or parts when it holds images or files. */
  output: string | OpenAIResponsesContent[]
}

/** An item of the Responses `input` array, as the converter produces them. */
export type OpenAIResponsesInputItem =
  | OpenAIResponsesUserMessage
  | OpenAIResponsesAssistantMessage
  | OpenAIResponsesFunctionCall
  | OpenAIResponsesFunctionCallOutput

const RULES: PairingRules = { provider: 'OpenAI Responses', mergesRuns: false, uniqueIds: 'request' }

const CONTEXT = (options: ConvertOptions): PieceContext => ({
  options,
  provider: RULES.provider,
  audio: new Set(),
})

function part(piece: Piece): OpenAIResponsesContent {
  switch (piece.type) {
    case 'text':
      return { type: 'input_text', text: piece.text }
    case 'image': {
      const { source } = piece
      const url = 'url' in source ? source.url : dataUrl(source.mediaType, source.data)
      return { type: 'input_image', image_url: url, detail: 'auto' }
    }
    case 'document':
      return 'text' in piece.content
        ? { type: 'input_text', text: piece.content.text }
        : {
            type: 'input_file',
            filename: piece.document.name,
            file_data: dataUrl('application/pdf', piece.content.pdf),
          }
    case 'audio':
      // The context lists no audio format, so userPieces never gives audio here.
      throw new Error('unreachable: the Responses API takes no audio')
  }
}

function functionCallOutput(
  result: ToolResultData,
  path: BlockPath,
  ctx: PieceContext,
): OpenAIResponsesFunctionCallOutput {
  const parts = result.content.flatMap((item, k) =>
    userPieces(item, [...path, 'toolResult', 'content', k, blockKind(item)], ctx).map(part),
  )
  const prefix = result.status === 'error' ? TOOL_ERROR_PREFIX : ''
  let output: string | OpenAIResponsesContent[]
  if (parts.every((p) => p.type === 'input_text')) {
    const body = parts.map((p) => p.text).join('\n')
    output = prefix + (body === '' ? EMPTY_TOOL_RESULT_TEXT : body)
  } else output = prefix === '' ? parts : [{ type: 'input_text', text: prefix.trimEnd() }, ...parts]
  return { type: 'function_call_output', call_id: result.toolUseId, output }
}

function assistantItems(message: MessageData, index: number, ctx: PieceContext): OpenAIResponsesInputItem[] {
  const items: OpenAIResponsesInputItem[] = []
  let texts: string[] = []
  const flush = (): void => {
    if (texts.length > 0) items.push({ type: 'message', role: 'assistant', content: texts.join('\n') })
    texts = []
  }
  message.content.forEach((block, j) => {
    for (const piece of assistantPieces(block, [index, 'content', j, blockKind(block)], ctx)) {
      if (piece.type === 'text') {
        texts.push(piece.text)
        continue
      }
      flush()
      const { toolUseId, name, input } = piece.toolUse
      items.push({ type: 'function_call', call_id: toolUseId, name, arguments: JSON.stringify(input) })
    }
  })
  flush()
  return items
}

function userItems(message: MessageData, index: number, ctx: PieceContext): OpenAIResponsesInputItem[] {
  const outputs: OpenAIResponsesInputItem[] = []
  const content: OpenAIResponsesContent[] = []
  message.content.forEach((block, j) => {
    const path = [index, 'content', j]
    if ('toolResult' in block) outputs.push(functionCallOutput(block.toolResult, path, ctx))
    else content.push(...userPieces(block, [...path, blockKind(block)], ctx).map(part))
  })
  return content.length === 0 ? outputs : [...outputs, { type: 'message', role: 'user', content }]
}

/**
 * Converts a window to the `input` items of an OpenAI Responses request (the rules are in the module
 * comment and in docs/converters.md).
 *
 * @param messages - the window, e.g. `store.window(sessionId)`, in the stored `MessageData` form
 * @param options - what to do with blocks the API cannot take, and with calls still waiting at the end
 * @returns the input items; the system prompt goes in the request's `instructions`
 * @throws ContextLedgerError `INVALID_MESSAGE` (path from the window index, e.g. `[3].content[0].text`) for
 *   a window that is not an array of valid messages, for tool calls and results that do not pair up, for
 *   calls still waiting at its end unless `options.pendingToolUse` is `'drop'`, and for a block the API
 *   cannot take unless `options.unsupported` is `'placeholder'`; `INVALID_OPTIONS` for bad options
 * @example
 * ```ts
 * const request = { model, instructions: 'You are terse.', input: toOpenAIResponsesInput(store.window(id)) }
 * ```
 */
export function toOpenAIResponsesInput(
  messages: readonly MessageData[],
  options: ConvertOptions = {},
): OpenAIResponsesInputItem[] {
  const { window, options: checked } = checkWindow(messages, options, RULES)
  const ctx = CONTEXT(checked)
  return window.flatMap((message, index) =>
    message.role === 'assistant' ? assistantItems(message, index, ctx) : userItems(message, index, ctx),
  )
}
