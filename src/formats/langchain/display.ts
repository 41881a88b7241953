/**
 * How a person or a model reads a `langchain` message in the CLI and the recall tools: a Strands-shaped
 * form (text blocks, reasoning, tool calls with their args, a tool's output as a tool result, media as a
 * note of its type). Made for reading only, never stored.
 */
import type { ContentBlockData, StoredMessageData } from '../../messages/types.js'
import { isJsonObject } from '../ai-sdk-common.js'
import { contentText, langchainFacts, repairResults, toolStatus } from './derive.js'
import type { LangChainMessageData, ToolMessageData } from './types.js'

const text = (t: string): ContentBlockData[] => (t.trim() === '' ? [] : [{ text: t }])

const REASONING = new Set(['reasoning', 'thinking'])
const CALLS = new Set(['tool_use', 'tool_call', 'tool_call_chunk'])

/** A content block as reading blocks: text, reasoning, or a note of its type (calls come from tool_calls). */
function blocks(b: unknown): ContentBlockData[] {
  if (!isJsonObject(b)) return []
  const type = typeof b.type === 'string' ? b.type : 'block'
  const t = contentText([b as { type: string }])
  if (REASONING.has(type)) return t.trim() === '' ? [] : [{ reasoning: { text: t } }]
  if (CALLS.has(type)) return []
  return t.trim() === '' ? [{ text: `[${type}]` }] : text(t)
}

function resultBlock(m: ToolMessageData): ContentBlockData {
  const output = contentText(m.data.content)
  return {
    toolResult: {
      toolUseId: m.data.tool_call_id,
      status: toolStatus(m),
      content: [{ text: output === '' ? '[no output]' : output }],
    },
  }
}

function readable(m: LangChainMessageData): ContentBlockData[] {
  const results = repairResults(m)
  if (results !== undefined) return results.map(resultBlock)
  if (m.type === 'tool') return [resultBlock(m)]
  const content = m.data.content
  const own = typeof content === 'string' ? text(content) : content.flatMap(blocks)
  if (m.type !== 'ai') return own
  const calls: ContentBlockData[] = (m.data.tool_calls ?? []).map((c) => ({
    toolUse: { toolUseId: c.id, name: c.name, input: c.args },
  }))
  return [...own, ...calls]
}

/**
 * The reading form of a `langchain` message.
 *
 * @param message - a stored message
 * @returns a Strands-shaped message of the message's side (a `ToolMessage` reads as the user side)
 */
export function langchainDisplay(message: LangChainMessageData): StoredMessageData {
  const content = readable(message)
  return {
    role: langchainFacts(message).role,
    content: content.length > 0 ? content : [{ text: '[no text]' }],
    trackingId: typeof message.data.id === 'string' ? message.data.id : '',
  }
}
