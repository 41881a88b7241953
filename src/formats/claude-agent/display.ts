/**
 * How a person or a model reads a `claude-agent` entry in the CLI and the recall tools: a Strands-shaped
 * form (text, thinking as reasoning, calls with their input, results with their output as text, media as a
 * note of its type); an attachment, a system note or a bookkeeping entry as a line naming its kind with
 * its text. Made for reading only, never stored.
 */
import type { ContentBlockData, StoredMessageData } from '../../messages/types.js'
import { isJsonObject } from '../ai-sdk-common.js'
import { blocksOf, claudeFacts, claudeText, isTurn, renderedText, resultText } from './derive.js'
import type { BlockData, ClaudeEntryData } from './types.js'

const text = (t: string): ContentBlockData[] => (t.trim() === '' ? [] : [{ text: t }])

const str = (value: unknown): string => (typeof value === 'string' ? value : '')

function result(id: string, failed: boolean, output: string): ContentBlockData {
  return {
    toolResult: {
      toolUseId: id,
      status: failed ? 'error' : 'success',
      content: [{ text: output === '' ? '[no output]' : output }],
    },
  }
}

/** A content block as reading blocks. */
function readBlock(b: BlockData): ContentBlockData[] {
  switch (b.type) {
    case 'text':
      return text(str(b.text))
    case 'thinking':
      return str(b.thinking).trim() === '' ? [] : [{ reasoning: { text: str(b.thinking) } }]
    case 'tool_use':
    case 'server_tool_use':
    case 'mcp_tool_use':
      return [{ toolUse: { toolUseId: str(b.id), name: str(b.name), input: b.input ?? {} } }]
    case 'tool_result':
      return [result(str(b.tool_use_id), b.is_error === true, resultText(b.content))]
    default: {
      if (typeof b.tool_use_id === 'string')
        return [result(b.tool_use_id, false, resultText(b.content) || `[${b.type}]`)]
      const title = str(b.title)
      return [{ text: `[${b.type}${title === '' ? '' : ` ${title}`}]` }]
    }
  }
}

function readable(entry: ClaudeEntryData): ContentBlockData[] {
  if (isTurn(entry)) {
    const content = isJsonObject(entry.message) ? entry.message.content : undefined
    return typeof content === 'string' ? text(content) : blocksOf(entry).flatMap(([, b]) => readBlock(b))
  }
  if (entry.type === 'attachment') {
    const kind = isJsonObject(entry.attachment) ? str(entry.attachment.type) : ''
    return [{ text: `[attachment${kind === '' ? '' : ` ${kind}`}]` }, ...text(renderedText(entry))]
  }
  const subtype = str(entry.subtype)
  return [{ text: `[${entry.type}${subtype === '' ? '' : ` ${subtype}`}]` }, ...text(claudeText(entry))]
}

/**
 * The reading form of a `claude-agent` entry.
 *
 * @param entry - a stored entry
 * @returns a Strands-shaped message of the entry's side (a tool's answer and every non-turn entry read as
 *   the user side), its trackingId the entry's `uuid` when it has one
 */
export function claudeDisplay(entry: ClaudeEntryData): StoredMessageData {
  const content = readable(entry)
  return {
    role: claudeFacts(entry).role,
    content: content.length > 0 ? content : [{ text: '[no text]' }],
    trackingId: typeof entry.uuid === 'string' ? entry.uuid : '',
  }
}
