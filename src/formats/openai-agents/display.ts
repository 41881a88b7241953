/**
 * How a person or a model reads an `openai-agents` item in the CLI and the recall tools: a Strands-shaped
 * form (text blocks, reasoning, tool calls with their input, tool results with their output as text, a
 * marker as what it withdrew). Made for reading only, never stored.
 */
import type { ContentBlockData, StoredMessageData } from '../../messages/types.js'
import { isJsonObject } from '../ai-sdk-common.js'
import { markerText, withdrawalOf } from './control.js'
import {
  agentFacts,
  agentText,
  callName,
  isCall,
  isResult,
  outputText,
  repairResults,
  resultStatus,
} from './derive.js'
import type { AgentItemData, CallItemData, ResultItemData } from './types.js'

const text = (t: string): ContentBlockData[] => (t.trim() === '' ? [] : [{ text: t }])

/** A function's arguments as JSON when they parse, else as the string they are. */
function parsedArguments(args: unknown): unknown {
  if (typeof args !== 'string') return {}
  try {
    return JSON.parse(args) as unknown
  } catch {
    return args
  }
}

function callInput(item: CallItemData): unknown {
  switch (item.type) {
    case 'function_call':
      return parsedArguments(item.arguments)
    case 'shell_call':
      return item.action
    case 'apply_patch_call':
      return item.operation
    case 'program':
      return { code: item.code }
    case 'computer_call':
      return item.actions ?? item.action
  }
}

function resultBlock(item: ResultItemData): ContentBlockData {
  const output = outputText(item)
  return {
    toolResult: {
      toolUseId: item.callId,
      status: resultStatus(item),
      content: [{ text: output === '' ? `[${item.type}]` : output }],
    },
  }
}

function blocks(item: AgentItemData): ContentBlockData[] {
  const note = withdrawalOf(item)
  if (note !== undefined) return [{ text: markerText(note) }]
  const results = repairResults(item)
  if (results !== undefined) return results.map(resultBlock)
  // The call's input is what toolUse shows; `unknown` here is a JSON value of the item.
  if (isCall(item))
    return [{ toolUse: { toolUseId: item.callId, name: callName(item), input: callInput(item) as never } }]
  if (isResult(item)) return [resultBlock(item)]
  if ('role' in item) return text(agentText(item))
  switch (item.type) {
    case 'reasoning': {
      const t = agentText(item)
      return t.trim() === '' ? [{ text: '[reasoning]' }] : [{ reasoning: { text: t } }]
    }
    case 'hosted_tool_call':
      return text(
        `[hosted tool ${String(item.name)}] ${agentText(item).split('\n').slice(1).join('\n')}`.trim(),
      )
    case 'compaction':
      return [{ text: '[compaction]' }]
    case 'unknown':
      return [
        {
          text: isJsonObject(item.providerData)
            ? `[unknown item] ${JSON.stringify(item.providerData)}`
            : '[unknown item]',
        },
      ]
    default:
      return text(`[${item.type}] ${agentText(item)}`)
  }
}

/**
 * The reading form of an `openai-agents` item.
 *
 * @param item - a stored item
 * @returns a Strands-shaped message of the item's side (a result reads as the user side)
 */
export function agentDisplay(item: AgentItemData): StoredMessageData {
  const content = blocks(item)
  return {
    role: agentFacts(item).role,
    content: content.length > 0 ? content : [{ text: '[no text]' }],
    trackingId: '',
  }
}
