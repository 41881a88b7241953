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
 * - Anything else (audio, video, S3 locations, media in an assistant message, unknown kinds) follows
 *   {@link ConvertOptions.unsupported}. Empty text blocks are dropped, and so is an item left empty.
 */
import type { ContentBlockData, MessageData, ToolResultData } from '../messages/types.js'
import {
  blockKind,
  dataUrl,
  documentText,
  EMPTY_TOOL_RESULT_TEXT,
  imageUrl,
  mediaType,
  TOOL_ERROR_PREFIX,
  unsupported,
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

const PROVIDER = 'OpenAI Responses'

type Part = ContentBlockData | ToolResultData['content'][number]

/** The input parts of one block; an empty array for a block that is dropped. */
function inputParts(block: Part, path: BlockPath, options: ConvertOptions): OpenAIResponsesContent[] {
  const text = (t: string): OpenAIResponsesContent[] => (t === '' ? [] : [{ type: 'input_text', text: t }])
  const fail = (kind: string, why: string) => text(unsupported(options, PROVIDER, path, kind, why))
  if ('text' in block) return text(block.text)
  if ('json' in block) return text(JSON.stringify(block.json))
  if ('image' in block) {
    const url = imageUrl(block.image)
    return 'url' in url
      ? [{ type: 'input_image', image_url: url.url, detail: 'auto' }]
      : fail('image', url.why)
  }
  if ('document' in block) {
    const doc = block.document
    const body = documentText(doc)
    if (body !== undefined) return text(body)
    if ('bytes' in doc.source && doc.format.toLowerCase() === 'pdf')
      return [
        { type: 'input_file', filename: doc.name, file_data: dataUrl(mediaType('pdf'), doc.source.bytes) },
      ]
    return fail('document', `only PDF files and text documents are sent (format "${doc.format}")`)
  }
  if ('guardContent' in block) {
    const { text: guarded, image } = block.guardContent
    return [
      ...(guarded === undefined ? [] : text(guarded.text)),
      ...(image === undefined ? [] : inputParts({ image }, path, options)),
    ]
  }
  if ('citations' in block) return text(block.citations.content.map((c) => c.text).join(''))
  if ('reasoning' in block || 'cachePoint' in block) return []
  if ('audio' in block || 'video' in block)
    return fail(blockKind(block), 'the Responses API takes no audio or video')
  const kind = blockKind(block)
  return fail(kind, kind === 'toolUse' ? 'a tool call belongs in an assistant message' : 'unknown block kind')
}

function functionCallOutput(
  result: ToolResultData,
  path: BlockPath,
  options: ConvertOptions,
): OpenAIResponsesFunctionCallOutput {
  const parts = result.content.flatMap((item, k) =>
    inputParts(item, [...path, 'toolResult', 'content', k, blockKind(item)], options),
  )
  const prefix = result.status === 'error' ? TOOL_ERROR_PREFIX : ''
  let output: string | OpenAIResponsesContent[]
  if (parts.every((p) => p.type === 'input_text')) {
    const body = parts.map((p) => p.text).join('\n')
    output = prefix + (body === '' ? EMPTY_TOOL_RESULT_TEXT : body)
  } else output = prefix === '' ? parts : [{ type: 'input_text', text: prefix.trimEnd() }, ...parts]
  return { type: 'function_call_output', call_id: result.toolUseId, output }
}

function assistantItems(
  message: MessageData,
  index: number,
  options: ConvertOptions,
): OpenAIResponsesInputItem[] {
  const items: OpenAIResponsesInputItem[] = []
  let texts: string[] = []
  const flush = (): void => {
    const content = texts.filter((t) => t !== '').join('\n')
    if (content !== '') items.push({ type: 'message', role: 'assistant', content })
    texts = []
  }
  message.content.forEach((block, j) => {
    const kind = blockKind(block)
    const fail = (what: string, why: string) =>
      texts.push(unsupported(options, PROVIDER, [index, 'content', j, kind], what, why))
    if ('toolUse' in block) {
      flush()
      const { toolUseId, name, input } = block.toolUse
      items.push({ type: 'function_call', call_id: toolUseId, name, arguments: JSON.stringify(input) })
    } else if ('text' in block) texts.push(block.text)
    else if ('citations' in block) texts.push(block.citations.content.map((c) => c.text).join(''))
    else if ('guardContent' in block) {
      if (block.guardContent.text !== undefined) texts.push(block.guardContent.text.text)
      if (block.guardContent.image !== undefined) fail('image', 'assistant input is text only')
    } else if ('reasoning' in block || 'cachePoint' in block) return
    else if ('image' in block || 'document' in block || 'audio' in block || 'video' in block)
      fail(kind, 'assistant input is text only')
    else fail(kind, 'unknown block kind, or a tool result in an assistant message')
  })
  flush()
  return items
}

function userItems(message: MessageData, index: number, options: ConvertOptions): OpenAIResponsesInputItem[] {
  const outputs: OpenAIResponsesInputItem[] = []
  const content: OpenAIResponsesContent[] = []
  message.content.forEach((block, j) => {
    const path = [index, 'content', j]
    if ('toolResult' in block) outputs.push(functionCallOutput(block.toolResult, path, options))
    else content.push(...inputParts(block, [...path, blockKind(block)], options))
  })
  return content.length === 0 ? outputs : [...outputs, { type: 'message', role: 'user', content }]
}

/**
 * Converts a window to the `input` items of an OpenAI Responses request (the rules are in the module
 * comment and in docs/converters.md).
 *
 * @param messages - the window, e.g. `store.window(sessionId)`, in the stored `MessageData` form
 * @param options - what to do with blocks the API cannot take
 * @returns the input items; the system prompt goes in the request's `instructions`
 * @throws ContextLedgerError `INVALID_MESSAGE` for a block the API cannot take, unless
 *   `options.unsupported` is `'placeholder'`
 * @example
 * ```ts
 * const request = { model, instructions: 'You are terse.', input: toOpenAIResponsesInput(store.window(id)) }
 * ```
 */
export function toOpenAIResponsesInput(
  messages: readonly MessageData[],
  options: ConvertOptions = {},
): OpenAIResponsesInputItem[] {
  return messages.flatMap((message, index) =>
    message.role === 'assistant'
      ? assistantItems(message, index, options)
      : userItems(message, index, options),
  )
}
