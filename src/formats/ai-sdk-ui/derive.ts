/**
 * What the ledger derives from an `ai-sdk/ui` message. A UI message carries a tool call and its output
 * in the same part of the same assistant message (`tool-<name>` / `dynamic-tool` parts move through
 * their states in place), so no message answers another's call: the facts hold no tool uses and no
 * tool results, and the window rules never have a pair to keep together. The searchable text and the
 * token estimate read every part.
 */
import { PER_MESSAGE_TOKENS, TOOL_PART_TOKENS, jsonText, mediaTokens, textTokens } from '../ai-sdk-common.js'
import type { MessageFacts } from '../types.js'
import type { DynamicToolUIPartData, ToolUIPartData, UIMessageData, UIPartData } from './types.js'

/**
 * Whether a part is a tool call (`tool-<name>` or `dynamic-tool`).
 *
 * @param part - a UI part
 * @returns true for a tool part
 */
export function isToolPart(part: UIPartData): part is ToolUIPartData | DynamicToolUIPartData {
  return part.type === 'dynamic-tool' || part.type.startsWith('tool-')
}

/**
 * The tool's name of a tool part.
 *
 * @param part - a tool part
 * @returns the name
 */
export function toolNameOf(part: ToolUIPartData | DynamicToolUIPartData): string {
  return part.type === 'dynamic-tool' ? part.toolName : part.type.slice(5)
}

/**
 * The facts the window rules use (see the module comment).
 *
 * @param message - a stored message
 * @returns its facts: no tool uses or results; `pinned` is always false (the format has no pin flag)
 */
export function uiFacts(message: UIMessageData): MessageFacts {
  return {
    role: message.role,
    speaker: message.role,
    toolUses: [],
    toolResults: [],
    plainUser: message.role === 'user',
    defersCalls: false,
    pinned: false,
  }
}

function partLines(part: UIPartData): string[] {
  if (isToolPart(part))
    return [
      part.input === undefined ? toolNameOf(part) : `${toolNameOf(part)} ${JSON.stringify(part.input)}`,
      jsonText(part.output),
      part.errorText ?? '',
    ]
  if (part.type.startsWith('data-')) return [jsonText((part as { data?: unknown }).data)]
  const p = part as Exclude<UIPartData, ToolUIPartData>
  switch (p.type) {
    case 'text':
    case 'reasoning':
      return [p.text]
    case 'file':
      return [p.filename ?? '']
    case 'source-url':
      return [p.title ?? '', p.url]
    case 'source-document':
      return [p.title, p.filename ?? '']
    case 'steering-message':
      return p.parts.map((s) => (s.type === 'text' ? s.text : (s.filename ?? '')))
    default:
      return []
  }
}

/**
 * The searchable text: texts, reasoning, tool calls (name and JSON input) with their outputs and error
 * texts, data parts as JSON, file names and source titles, one per line.
 *
 * @param message - a stored message
 * @returns the text
 */
export function uiText(message: UIMessageData): string {
  return message.parts
    .flatMap(partLines)
    .filter((line) => line !== '')
    .join('\n')
}

function partTokens(part: UIPartData): number {
  if (isToolPart(part)) return textTokens(partLines(part).join('\n').length) + TOOL_PART_TOKENS
  if (part.type === 'file' || part.type === 'reasoning-file')
    return mediaTokens((part as { mediaType: string }).mediaType)
  if (part.type === 'step-start' || part.type === 'custom') return 0
  return textTokens(partLines(part).join('\n').length)
}

/**
 * The built-in estimate: about four characters a token for texts, tool inputs and outputs and data
 * parts, the Strands estimate's fixed costs for files, and a few tokens a message and a tool part.
 *
 * @param message - a stored message
 * @returns a non-negative integer
 */
export function uiTokens(message: UIMessageData): number {
  return message.parts.reduce((n, part) => n + partTokens(part), PER_MESSAGE_TOKENS)
}
