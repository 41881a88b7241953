/**
 * The window form of a `claude-agent` entry with its long tool output cut (the Strands rule the other
 * formats use: a text over the threshold keeps its first and last 200 characters around a
 * `<truncated chars="n"/>` mark; an image or document in a tool's output becomes a text note). Only the
 * `tool_result` blocks of a `user` entry are cut; `toolUseResult` (the CLI's own copy, never sent to the
 * model) stays. Only the window shows this form; the archive keeps the entry as it was.
 */
import { truncateLongText } from '../../messages/truncate-tool-results.js'
import type { JsonValue } from '../../messages/types.js'
import { isJsonObject } from '../ai-sdk-common.js'
import type { ClaudeEntryData } from './types.js'

/** A text block with its text cut, any other block as a note; undefined when it stays. */
function cutItem(c: JsonValue): JsonValue | undefined {
  if (!isJsonObject(c)) return undefined
  if (c.type === 'text') {
    const text = typeof c.text === 'string' ? truncateLongText(c.text) : undefined
    return text === undefined ? undefined : { ...c, text }
  }
  return { type: 'text', text: `[${typeof c.type === 'string' ? c.type : 'block'}]` }
}

function changed(
  values: readonly JsonValue[],
  cut: (v: JsonValue) => JsonValue | undefined,
): JsonValue[] | undefined {
  const out = values.map((v) => cut(v) ?? v)
  return out.some((v, i) => v !== values[i]) ? out : undefined
}

/** A `tool_result` block with its content cut, or undefined when nothing is long. */
function cutResult(b: JsonValue): JsonValue | undefined {
  if (!isJsonObject(b) || b.type !== 'tool_result') return undefined
  const content = b.content
  const cut =
    typeof content === 'string'
      ? truncateLongText(content)
      : Array.isArray(content)
        ? changed(content, cutItem)
        : undefined
  return cut === undefined ? undefined : { ...b, content: cut }
}

/**
 * An entry with its long tool output cut.
 *
 * @param entry - a stored entry
 * @returns the cut form, or undefined when nothing is long
 */
export function truncateClaudeEntry(entry: ClaudeEntryData): ClaudeEntryData | undefined {
  const message = entry.message
  if (entry.type !== 'user' || !isJsonObject(message) || !Array.isArray(message.content)) return undefined
  const content = changed(message.content, cutResult)
  return content === undefined ? undefined : { ...entry, message: { ...message, content } }
}
