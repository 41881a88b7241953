/**
 * The window form of an AI SDK message with its long tool outputs cut (Strands' rule: a text over the
 * threshold keeps its first and last 200 characters around a `<truncated chars="n"/>` mark; a large JSON
 * value, which cannot be cut mid-structure, is replaced by a note of its size; a file becomes a note). Only
 * the window shows this form; the archive keeps the message as it was.
 */
import { TRUNCATION_THRESHOLD, truncateLongText } from '../messages/truncate-tool-results.js'
import type { ModelMessageData, ModelPartData, ToolResultOutputData } from './ai-sdk-model/types.js'
import { isToolPart } from './ai-sdk-ui/derive.js'
import type { UIMessageData, UIPartData } from './ai-sdk-ui/types.js'

/** Whether a mapped list holds an item other than the original's at the same place. */
function changedAny(next: readonly unknown[], original: readonly unknown[]): boolean {
  return next.some((item, i) => item !== original[i])
}

/** A large JSON value as a note, or undefined when it stays. */
function jsonNote(value: unknown): string | undefined {
  const length = JSON.stringify(value ?? null).length
  return length > TRUNCATION_THRESHOLD ? `[json: ${length} chars]` : undefined
}

function cutOutput(output: ToolResultOutputData): ToolResultOutputData | undefined {
  switch (output.type) {
    case 'text':
    case 'error-text': {
      const value = truncateLongText(output.value)
      return value === undefined ? undefined : { ...output, value }
    }
    case 'json':
    case 'error-json': {
      const note = jsonNote(output.value)
      if (note === undefined) return undefined
      return { type: output.type === 'json' ? 'text' : 'error-text', value: note }
    }
    case 'content': {
      const value = output.value.map((item) => {
        if (item.type !== 'text') return { type: 'text' as const, text: `[${item.type}]` }
        const text = truncateLongText(item.text)
        return text === undefined ? item : { ...item, text }
      })
      return changedAny(value, output.value) ? { ...output, value } : undefined
    }
    default:
      return undefined
  }
}

/**
 * An `ai-sdk/model` message with its long tool outputs cut.
 *
 * @param message - a stored message
 * @returns the cut form, or undefined when nothing is long
 */
export function truncateModel(message: ModelMessageData): ModelMessageData | undefined {
  if (message.role !== 'tool' || typeof message.content === 'string') return undefined
  const content = message.content.map((part: ModelPartData) => {
    if (part.type !== 'tool-result') return part
    const output = cutOutput(part.output)
    return output === undefined ? part : { ...part, output }
  })
  return changedAny(content, message.content) ? ({ ...message, content } as ModelMessageData) : undefined
}

/**
 * An `ai-sdk/ui` message with its tool parts' long outputs cut (a long output becomes a note or a cut
 * text; a long error text is cut).
 *
 * @param message - a stored message
 * @returns the cut form, or undefined when nothing is long
 */
export function truncateUI(message: UIMessageData): UIMessageData | undefined {
  const parts = message.parts.map((part: UIPartData) => {
    if (!isToolPart(part)) return part
    let next = part
    if (part.output !== undefined) {
      const cut = typeof part.output === 'string' ? truncateLongText(part.output) : jsonNote(part.output)
      if (cut !== undefined) next = { ...next, output: cut }
    }
    if (part.errorText !== undefined) {
      const cut = truncateLongText(part.errorText)
      if (cut !== undefined) next = { ...next, errorText: cut }
    }
    return next
  })
  return changedAny(parts, message.parts) ? { ...message, parts } : undefined
}
