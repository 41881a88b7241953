/**
 * How a person or a model reads an AI SDK message in the CLI and the recall tools: a Strands-shaped form
 * (text blocks, tool calls with their input, tool results with their output as text). It is made for
 * reading only and never stored; the archive keeps the message as it was given.
 */
import type { ContentBlockData, StoredMessageData } from '../messages/types.js'
import { outputStatus, outputText } from './ai-sdk-model/derive.js'
import type { ModelMessageData, ModelPartData } from './ai-sdk-model/types.js'
import { isToolPart, toolNameOf } from './ai-sdk-ui/derive.js'
import type { UIMessageData, UIPartData } from './ai-sdk-ui/types.js'
import { jsonText } from './ai-sdk-common.js'

const text = (t: string): ContentBlockData[] => (t.trim() === '' ? [] : [{ text: t }])

function modelBlocks(part: ModelPartData): ContentBlockData[] {
  switch (part.type) {
    case 'text':
      return text(part.text)
    case 'reasoning':
      return part.text.trim() === '' ? [] : [{ reasoning: { text: part.text } }]
    case 'tool-call':
      return [{ toolUse: { toolUseId: part.toolCallId, name: part.toolName, input: part.input } }]
    case 'tool-result': {
      const output = outputText(part.output)
      return [
        {
          toolResult: {
            toolUseId: part.toolCallId,
            status: outputStatus(part.output),
            content: [{ text: output === '' ? `[${part.output.type}]` : output }],
          },
        },
      ]
    }
    case 'file':
      return [{ text: `[file ${part.mediaType}${part.filename === undefined ? '' : ` ${part.filename}`}]` }]
    default:
      return text(`[${part.type}]`)
  }
}

/**
 * The reading form of an `ai-sdk/model` message.
 *
 * @param message - a stored message
 * @returns a Strands-shaped message of the same side (a tool message reads as the user side)
 */
export function modelDisplay(message: ModelMessageData): StoredMessageData {
  const content =
    typeof message.content === 'string' ? text(message.content) : message.content.flatMap(modelBlocks)
  return {
    role: message.role === 'assistant' ? 'assistant' : 'user',
    content: content.length > 0 ? content : [{ text: '[no text]' }],
    trackingId: '',
  }
}

function uiBlocks(part: UIPartData): ContentBlockData[] {
  if (isToolPart(part)) {
    const id = part.toolCallId
    const use: ContentBlockData = {
      toolUse: { toolUseId: id, name: toolNameOf(part), input: part.input ?? {} },
    }
    if (part.state === 'output-available')
      return [
        use,
        { toolResult: { toolUseId: id, status: 'success', content: [{ text: jsonText(part.output) }] } },
      ]
    if (part.state === 'output-error' || part.state === 'output-denied')
      return [
        use,
        { toolResult: { toolUseId: id, status: 'error', content: [{ text: part.errorText ?? part.state }] } },
      ]
    return [use]
  }
  if (part.type === 'text') return text(part.text)
  if (part.type === 'reasoning') return part.text.trim() === '' ? [] : [{ reasoning: { text: part.text } }]
  if (part.type === 'step-start') return []
  if (part.type.startsWith('data-'))
    return text(`[${part.type}] ${jsonText((part as { data?: unknown }).data)}`)
  return text(`[${part.type}]`)
}

/**
 * The reading form of an `ai-sdk/ui` message: a tool part reads as its call followed by its result.
 *
 * @param message - a stored message
 * @returns a Strands-shaped message of the same role
 */
export function uiDisplay(message: UIMessageData): StoredMessageData {
  const content = message.parts.flatMap(uiBlocks)
  return {
    role: message.role,
    content: content.length > 0 ? content : [{ text: '[no text]' }],
    trackingId: message.id,
  }
}
