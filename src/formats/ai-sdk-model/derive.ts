/**
 * What the ledger derives from an `ai-sdk/model` message: the window facts, the searchable text and the
 * token estimate. A `tool-call` of an assistant message is a call another message must answer unless
 * the provider executed it (its `tool-result` then sits in the same assistant message); a `tool`
 * message's `tool-result` parts answer calls; a tool message holding only approval responses defers the
 * calls it is about (their results come in a later tool message).
 */
import { PER_MESSAGE_TOKENS, TOOL_PART_TOKENS, jsonText, mediaTokens, textTokens } from '../ai-sdk-common.js'
import type { MessageFacts, ToolResultFact, ToolUseFact } from '../types.js'
import type { FilePartData, ModelMessageData, ModelPartData, ToolResultOutputData } from './types.js'

/**
 * Whether a tool output reports a failure.
 *
 * @param output - a tool result's output
 * @returns `'error'` for `error-text`, `error-json` and `execution-denied`, else `'success'`
 */
export function outputStatus(output: ToolResultOutputData): 'success' | 'error' {
  return output.type === 'error-text' || output.type === 'error-json' || output.type === 'execution-denied'
    ? 'error'
    : 'success'
}

/**
 * The facts the window rules use (see the module comment).
 *
 * @param message - a stored message
 * @returns its facts; `pinned` is always false (the format has no pin flag)
 */
export function modelFacts(message: ModelMessageData): MessageFacts {
  const parts: readonly ModelPartData[] = typeof message.content === 'string' ? [] : message.content
  const toolUses: ToolUseFact[] = []
  const toolResults: ToolResultFact[] = []
  parts.forEach((part, i) => {
    const path = `content[${i}].toolCallId`
    if (message.role === 'assistant' && part.type === 'tool-call' && part.providerExecuted !== true)
      toolUses.push({ id: part.toolCallId, name: part.toolName, path })
    if (message.role === 'tool' && part.type === 'tool-result')
      toolResults.push({ id: part.toolCallId, status: outputStatus(part.output), path })
  })
  return {
    role: message.role === 'assistant' ? 'assistant' : 'user',
    speaker: message.role,
    toolUses,
    toolResults,
    plainUser: message.role === 'user',
    // One step's results may come in several tool messages, approval responses between a call and its
    // result: the calls a tool message leaves unanswered wait for the next one.
    defersCalls: message.role === 'tool',
    pinned: false,
  }
}

/**
 * A tool output as text: its text, its JSON, its denial reason, or its content items' texts and file
 * names, one per line.
 *
 * @param output - a tool result's output
 * @returns the text (empty when there is none)
 */
export function outputText(output: ToolResultOutputData): string {
  switch (output.type) {
    case 'execution-denied':
      return output.reason ?? ''
    case 'content':
      return output.value
        .map((item) => (item.type === 'text' ? item.text : 'filename' in item ? (item.filename ?? '') : ''))
        .filter((line) => line !== '')
        .join('\n')
    default:
      return jsonText(output.value)
  }
}

function partText(part: ModelPartData): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text
    case 'tool-call':
      return `${part.toolName} ${JSON.stringify(part.input)}`
    case 'tool-result':
      return outputText(part.output)
    case 'file':
      return part.filename ?? ''
    case 'tool-approval-request':
    case 'tool-approval-response':
      return part.reason ?? ''
    default:
      return ''
  }
}

/**
 * The searchable text: texts, reasoning, tool calls (name and JSON input), tool outputs, file names and
 * approval reasons, one per line; string content as it is.
 *
 * @param message - a stored message
 * @returns the text
 */
export function modelText(message: ModelMessageData): string {
  if (typeof message.content === 'string') return message.content
  return message.content
    .map(partText)
    .filter((line) => line !== '')
    .join('\n')
}

function fileTokens(part: Pick<FilePartData, 'data' | 'mediaType'>): number {
  const data = part.data
  if (typeof data === 'object' && data.type === 'text' && typeof data.text === 'string')
    return textTokens(data.text.length)
  if (part.mediaType.startsWith('text') || part.mediaType === 'application/json') {
    const base64 = typeof data === 'string' ? data : data.type === 'data' ? data.data : undefined
    if (typeof base64 === 'string') return textTokens((base64.length * 3) / 4)
  }
  return mediaTokens(part.mediaType)
}

function outputTokens(output: ToolResultOutputData): number {
  if (output.type !== 'content') return textTokens(outputText(output).length)
  return output.value.reduce(
    (n, item) =>
      n +
      (item.type === 'text'
        ? textTokens(item.text.length)
        : mediaTokens('mediaType' in item ? item.mediaType : undefined)),
    0,
  )
}

function partTokens(part: ModelPartData): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return textTokens(part.text.length)
    case 'tool-call':
      return textTokens(partText(part).length) + TOOL_PART_TOKENS
    case 'tool-result':
      return outputTokens(part.output) + TOOL_PART_TOKENS
    case 'image':
      return mediaTokens(part.mediaType ?? 'image')
    case 'file':
      return fileTokens(part)
    case 'reasoning-file':
      return mediaTokens(part.mediaType)
    case 'custom':
      return 0
    default:
      return textTokens(JSON.stringify(part).length)
  }
}

/**
 * The built-in estimate: about four characters a token for texts, tool inputs and outputs (text files
 * by their decoded length), the Strands estimate's fixed costs for images, video and audio, and a few
 * tokens a message and a tool part.
 *
 * @param message - a stored message
 * @returns a non-negative integer
 */
export function modelTokens(message: ModelMessageData): number {
  if (typeof message.content === 'string') return PER_MESSAGE_TOKENS + textTokens(message.content.length)
  return message.content.reduce((n, part) => n + partTokens(part), PER_MESSAGE_TOKENS)
}
