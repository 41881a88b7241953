/**
 * What the ledger derives from a `claude-agent` transcript entry: the window facts, the searchable text
 * and the token estimate. The CLI writes each content block of the model's answer as its own `assistant`
 * entry (its text, each `tool_use`, sharing `message.id`) and each tool's answer as a `user` entry of
 * `tool_result` blocks, with attachments, system notes and bookkeeping entries between them. The CLI owns
 * the conversation and answers an interrupted call itself, so every entry defers the calls still waiting:
 * the ledger never writes a repair row into these sessions. Only `tool_use` blocks are calls: a server
 * tool's (`server_tool_use`, `mcp_tool_use`) result sits in the same message.
 */
import {
  PER_MESSAGE_TOKENS,
  TOOL_PART_TOKENS,
  isJsonObject,
  mediaTokens,
  textTokens,
} from '../ai-sdk-common.js'
import type { MessageFacts, ToolResultFact, ToolUseFact } from '../types.js'
import type { BlockData, ClaudeEntryData, ToolResultBlockData, ToolUseBlockData } from './types.js'

const str = (value: unknown): string => (typeof value === 'string' ? value : '')

const lines = (texts: readonly string[]): string => texts.filter((t) => t !== '').join('\n')

/** Whether an entry is a turn of the conversation (`user` or `assistant`, holding `message`). */
export function isTurn(entry: ClaudeEntryData): boolean {
  return entry.type === 'user' || entry.type === 'assistant'
}

/**
 * The content blocks of a `user` or `assistant` entry (none for string content or any other entry).
 *
 * @param entry - a stored entry
 * @returns its blocks with a string `type`, each with its index in `message.content`
 */
export function blocksOf(entry: ClaudeEntryData): [number, BlockData][] {
  const content = isTurn(entry) && isJsonObject(entry.message) ? entry.message.content : undefined
  if (!Array.isArray(content)) return []
  const out: [number, BlockData][] = []
  content.forEach((b, i) => {
    if (isJsonObject(b) && typeof b.type === 'string') out.push([i, b as BlockData])
  })
  return out
}

/**
 * Whether a block is a call the ledger pairs: a `tool_use` with a non-empty string id and a string name.
 *
 * @param b - a content block
 * @returns true for such a call
 */
export function isToolUse(b: BlockData): b is ToolUseBlockData {
  return b.type === 'tool_use' && typeof b.id === 'string' && b.id !== '' && typeof b.name === 'string'
}

/**
 * Whether a block answers a call: a `tool_result` with a non-empty string `tool_use_id`.
 *
 * @param b - a content block
 * @returns true for such a result
 */
export function isToolResult(b: BlockData): b is ToolResultBlockData {
  return b.type === 'tool_result' && typeof b.tool_use_id === 'string' && b.tool_use_id !== ''
}

/**
 * The calls an `assistant` entry makes.
 *
 * @param entry - a stored entry
 * @returns its `tool_use` blocks' ids and names, with their paths
 */
export function toolUsesOf(entry: ClaudeEntryData): ToolUseFact[] {
  if (entry.type !== 'assistant') return []
  return blocksOf(entry)
    .filter((ib): ib is [number, ToolUseBlockData] => isToolUse(ib[1]))
    .map(([i, b]) => ({ id: b.id, name: b.name, path: `message.content[${i}].id` }))
}

/**
 * The calls a `user` entry answers.
 *
 * @param entry - a stored entry
 * @returns its `tool_result` blocks' ids and outcomes (`is_error: true` → error), with their paths
 */
export function toolResultsOf(entry: ClaudeEntryData): ToolResultFact[] {
  if (entry.type !== 'user') return []
  return blocksOf(entry)
    .filter((ib): ib is [number, ToolResultBlockData] => isToolResult(ib[1]))
    .map(([i, b]) => ({
      id: b.tool_use_id,
      status: b.is_error === true ? 'error' : 'success',
      path: `message.content[${i}].tool_use_id`,
    }))
}

/**
 * The facts the window rules use (see the module comment).
 *
 * @param entry - a stored entry
 * @returns its facts; `pinned` is always false (the format has no pin flag)
 */
export function claudeFacts(entry: ClaudeEntryData): MessageFacts {
  const base = { toolUses: [], toolResults: [], defersCalls: true, pinned: false } as const
  if (entry.type === 'assistant')
    return { ...base, role: 'assistant', speaker: 'assistant', toolUses: toolUsesOf(entry), plainUser: false }
  if (entry.type === 'user') {
    const toolResults = toolResultsOf(entry)
    return toolResults.length > 0
      ? { ...base, role: 'user', speaker: 'tool', toolResults, plainUser: false }
      : { ...base, role: 'user', speaker: 'user', plainUser: true }
  }
  return { ...base, role: 'user', speaker: 'system', plainUser: false }
}

/**
 * A tool result's content as text: a string as it is, its blocks' texts one a line.
 *
 * @param content - a `tool_result` block's `content`
 * @returns the text (empty when there is none)
 */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return lines(content.map((c) => (isJsonObject(c) && c.type === 'text' ? str(c.text) : '')))
}

/**
 * A call's name and input as text.
 *
 * @param b - a `tool_use`, `server_tool_use` or `mcp_tool_use` block
 * @returns `name {json input}`
 */
export function callText(b: BlockData): string {
  return `${str(b.name)} ${b.input === undefined ? '{}' : JSON.stringify(b.input)}`
}

/** The searchable text of a block: text, thinking, a call's name and input, a result's text. */
function blockText(b: BlockData): string {
  switch (b.type) {
    case 'text':
      return str(b.text)
    case 'thinking':
      return str(b.thinking)
    case 'tool_use':
    case 'server_tool_use':
    case 'mcp_tool_use':
      return callText(b)
    case 'tool_result':
    case 'mcp_tool_result':
      return resultText(b.content)
    default:
      return ''
  }
}

/**
 * The text of a `user` or `assistant` entry's message: string content, or its blocks' texts.
 *
 * @param entry - a stored entry
 * @returns the text, one piece a line
 */
export function messageText(entry: ClaudeEntryData): string {
  if (!isTurn(entry) || !isJsonObject(entry.message)) return ''
  const content = entry.message.content
  if (typeof content === 'string') return content
  return lines(blocksOf(entry).map(([, b]) => blockText(b)))
}

/**
 * The searchable text: a turn's texts, thinking, calls (name and input) and results; a `system` entry's
 * `content`; a `summary` entry's `summary`; a title (`customTitle`, `aiTitle`). Attachments (tool
 * schemas, environment notes) and bookkeeping entries (costs, queue operations) have none.
 *
 * @param entry - a stored entry
 * @returns the text, one piece a line
 */
export function claudeText(entry: ClaudeEntryData): string {
  return lines([
    messageText(entry),
    entry.type === 'system' ? str(entry.content) : '',
    entry.type === 'summary' ? str(entry.summary) : '',
    str(entry.customTitle),
    str(entry.aiTitle),
  ])
}

/**
 * The text an attachment puts before the model: its `rendered` items' `content` strings.
 *
 * @param entry - a stored entry
 * @returns the text ('' for any other entry, or an attachment without `rendered`)
 */
export function renderedText(entry: ClaudeEntryData): string {
  if (entry.type !== 'attachment' || !Array.isArray(entry.rendered)) return ''
  return lines(entry.rendered.map((r) => (isJsonObject(r) ? str(r.content) : '')))
}

/** The fixed cost of a media block (an image, a document; 0 for anything else). */
function blockMedia(b: BlockData): number {
  if (b.type === 'image') return mediaTokens('image')
  if (b.type === 'document') return mediaTokens(isJsonObject(b.source) ? b.source.media_type : undefined)
  if (b.type === 'tool_result' && Array.isArray(b.content))
    return b.content.reduce<number>((n, c) => n + (isJsonObject(c) ? blockMedia(c as BlockData) : 0), 0)
  return 0
}

/**
 * The built-in estimate: a turn costs a few tokens, about four characters a token of its text (calls'
 * input as JSON), a few tokens a call or result and the Strands estimate's fixed cost for images and
 * documents; an attachment costs its rendered text; every other entry costs nothing (it never reaches
 * the model).
 *
 * @param entry - a stored entry
 * @returns a non-negative integer
 */
export function claudeTokens(entry: ClaudeEntryData): number {
  if (entry.type === 'attachment') return textTokens(renderedText(entry).length)
  if (!isTurn(entry)) return 0
  const blocks = blocksOf(entry).map(([, b]) => b)
  const tools = blocks.filter((b) => b.type.endsWith('tool_use') || b.type.endsWith('tool_result')).length
  return (
    PER_MESSAGE_TOKENS +
    textTokens(messageText(entry).length) +
    TOOL_PART_TOKENS * tools +
    blocks.reduce((n, b) => n + blockMedia(b), 0)
  )
}
