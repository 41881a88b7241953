/**
 * The window form of a `langchain` message with its long tool output cut (the Strands rule the other
 * formats use: a text over the threshold keeps its first and last 200 characters around a
 * `<truncated chars="n"/>` mark; a media block in a tool's output becomes a text note). Only a
 * `ToolMessage`'s content is cut (and each result of a repair container); the artifact, which the model
 * never reads, stays. Only the window shows this form; the archive keeps the message as it was.
 */
import { truncateLongText } from '../../messages/truncate-tool-results.js'
import type { JsonObject } from '../ai-sdk-common.js'
import { LC_NOTES_KEY, rawNotes, repairResults } from './derive.js'
import type { ContentBlockData, LangChainMessageData, MessageContentData, ToolMessageData } from './types.js'

/** A text block with its text cut, any other block as a note; undefined when it stays. */
function cutBlock(b: ContentBlockData): ContentBlockData | undefined {
  if (b.type === 'text') {
    const text = typeof b.text === 'string' ? truncateLongText(b.text) : undefined
    return text === undefined ? undefined : { ...b, text }
  }
  return { type: 'text', text: `[${b.type}]` }
}

/** The cut content, or undefined when nothing is long. */
function cutContent(content: MessageContentData): MessageContentData | undefined {
  if (typeof content === 'string') return truncateLongText(content)
  const out = content.map((b) => cutBlock(b) ?? b)
  return out.some((b, i) => b !== content[i]) ? out : undefined
}

function cutResult(message: ToolMessageData): ToolMessageData | undefined {
  const content = cutContent(message.data.content)
  return content === undefined ? undefined : { ...message, data: { ...message.data, content } }
}

/**
 * A message with its long tool output cut.
 *
 * @param message - a stored message
 * @returns the cut form, or undefined when nothing is long
 */
export function truncateLangChainMessage(message: LangChainMessageData): LangChainMessageData | undefined {
  const results = repairResults(message)
  if (results !== undefined && message.type === 'tool') {
    const cut = results.map((r) => cutResult(r) ?? r)
    if (cut.every((r, i) => r === results[i])) return undefined
    const notes = { ...rawNotes(message), results: cut as unknown as JsonObject[] }
    const data = message.data
    return {
      ...message,
      data: { ...data, additional_kwargs: { ...data.additional_kwargs, [LC_NOTES_KEY]: notes } },
    }
  }
  return message.type === 'tool' ? cutResult(message) : undefined
}
