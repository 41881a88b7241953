/**
 * The entries the ledger writes or rewrites in the `claude-agent` format: the window form of late
 * results, the redacted and pruned forms, a summary, a prompt and (never written in practice: every entry
 * defers, see `derive.ts`) the repair the interface asks for. The ledger's notes go in the entry's
 * top-level `contextLedger`, a key no caller's entry may carry.
 *
 * The redacted form is still an entry the CLI can resume from: the chain (`uuid`, `parentUuid`,
 * `logicalParentUuid`, `leafUuid`), the entry's kind (`type`, `subtype`, `isMeta`, `isSidechain`,
 * `isCompactSummary`, …), a compaction's `compactMetadata`, the message's role, id, model and usage, and
 * its block structure (each block's type, tool ids and names, whether a result failed) stay; every text,
 * thinking, tool input and output, attachment body, `toolUseResult`, path and other field is dropped or
 * replaced by the redacted text.
 */
import { isJsonObject, keptNotes, readNotes, type JsonObject } from '../ai-sdk-common.js'
import type { LateToolResult } from '../types.js'
import { isToolResult, resultText } from './derive.js'
import { CLAUDE_NOTES_KEY, type BlockData, type ClaudeEntryData, type JsonRecord } from './types.js'

/** The keys every redacted entry keeps as they were: its identity, its place in the chain, its kind. */
const KEPT_KEYS = [
  'type',
  'subtype',
  'uuid',
  'parentUuid',
  'logicalParentUuid',
  'leafUuid',
  'timestamp',
  'sessionId',
  'isSidechain',
  'agentId',
  'userType',
  'isMeta',
  'isCompactSummary',
  'isVisibleInTranscriptOnly',
  'level',
  'compactMetadata',
  'operation',
  'mode',
] as const

/** The keys holding text a redacted entry keeps as the redacted text (so its shape stays). */
const TEXT_KEYS = ['content', 'summary', 'customTitle', 'aiTitle', 'lastPrompt'] as const

/** The keys of an entry's `message` a redacted entry keeps. */
const MESSAGE_KEYS = ['role', 'id', 'type', 'model', 'stop_reason', 'usage'] as const

function pick(from: JsonRecord, keys: readonly string[]): JsonRecord {
  const out: JsonRecord = {}
  for (const key of keys) {
    const value = from[key]
    if (value !== undefined) out[key] = value
  }
  return out
}

/** A block with its content gone: calls and results keep their ids and names, anything else is text. */
function redactBlock(b: unknown, redacted: string): JsonObject {
  if (!isJsonObject(b) || typeof b.type !== 'string') return { type: 'text', text: redacted }
  switch (b.type) {
    case 'tool_use':
    case 'server_tool_use':
    case 'mcp_tool_use':
      return { ...pick(b, ['type', 'id', 'name', 'server_name']), input: {} }
    case 'tool_result':
      return {
        ...pick(b, ['type', 'tool_use_id']),
        content: redacted,
        ...(typeof b.is_error === 'boolean' ? { is_error: b.is_error } : {}),
      }
    case 'thinking':
      return { type: 'thinking', thinking: redacted, signature: '' }
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: '' }
    default:
      // A server tool's result (`web_search_tool_result`, …) answers by id in the same message.
      return typeof b.tool_use_id === 'string'
        ? { type: b.type, tool_use_id: b.tool_use_id, content: [] }
        : { type: 'text', text: redacted }
  }
}

function redactMessage(message: unknown, redacted: string): JsonObject | undefined {
  if (!isJsonObject(message)) return undefined
  const content = message.content
  return {
    ...pick(message, MESSAGE_KEYS),
    ...(Array.isArray(content)
      ? { content: content.map((b) => redactBlock(b, redacted)) }
      : content === undefined
        ? {}
        : { content: redacted }),
  }
}

/**
 * The redacted form (see the module comment); the pruned form when `pruned`, marked in `contextLedger`.
 *
 * @param entry - a stored entry
 * @param redacted - the text that replaces every text
 * @param pruned - whether this is retention's pruned form
 * @returns the new entry
 */
export function claudeRedact(entry: ClaudeEntryData, redacted: string, pruned = false): ClaudeEntryData {
  const kept = pick(entry as JsonRecord, KEPT_KEYS)
  for (const key of TEXT_KEYS) if (typeof entry[key] === 'string') kept[key] = redacted
  const message = redactMessage(entry.message, redacted)
  if (message !== undefined) kept.message = message
  if (isJsonObject(entry.attachment) && typeof entry.attachment.type === 'string')
    kept.attachment = { type: entry.attachment.type }
  const notes = keptNotes(readNotes(entry, CLAUDE_NOTES_KEY), pruned)
  if (notes !== undefined) kept[CLAUDE_NOTES_KEY] = notes
  return kept as ClaudeEntryData
}

function lateText(b: BlockData & { tool_use_id: string }, name: string): string {
  const status = b.is_error === true ? 'error' : 'success'
  const head =
    name === ''
      ? `[Late tool result] A result for the call "${b.tool_use_id}", which this session never made (status ${status}):`
      : `[Late tool result] The call "${b.tool_use_id}" to ${name} returned after the conversation had moved on (status ${status}):`
  return `${head}\n${resultText(b.content)}`
}

/**
 * The window form of an entry whose results answer calls that no longer wait (or that the session never
 * made): each such `tool_result` block becomes a text block naming the call and holding its output (a
 * provider refuses a result whose call is not before it). The rest of the entry stays, without the
 * ledger's notes (the window form is read, never stored as an entry).
 *
 * @param entry - a stored entry
 * @param late - the late results it holds (`name` '' for a call the session never made)
 * @returns the window form
 */
export function claudeLateForm(entry: ClaudeEntryData, late: readonly LateToolResult[]): ClaudeEntryData {
  const names = new Map(late.map((l) => [l.id, l.name]))
  const message = entry.message
  if (!isJsonObject(message) || !Array.isArray(message.content)) return entry
  const content = message.content.map((b) => {
    if (!isJsonObject(b) || !isToolResult(b as BlockData)) return b
    const r = b as BlockData & { tool_use_id: string }
    const name = names.get(r.tool_use_id)
    return name === undefined ? b : { type: 'text', text: lateText(r, name) }
  })
  const { [CLAUDE_NOTES_KEY]: _notes, ...rest } = entry
  return { ...rest, message: { ...message, content } }
}

/**
 * The entry answering open calls with failed results, marked as a repair. The store never asks for one
 * in this format (every entry defers the calls waiting); it is here because the interface needs it.
 *
 * @param calls - the open calls, in call order
 * @param text - the failure text of each result
 * @returns a `user` entry of `tool_result` blocks with `is_error: true`
 */
export function claudeRepair(calls: readonly { id: string; name: string }[], text: string): ClaudeEntryData {
  return {
    type: 'user',
    message: {
      role: 'user',
      content: calls.map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: text, is_error: true })),
    },
    [CLAUDE_NOTES_KEY]: { repair: 'missing-tool-result' },
  }
}

/**
 * The summary entry a window shows for folded entries: a `user` entry whose string content is the texts,
 * a blank line between them.
 *
 * @param texts - the summary's texts
 * @returns the entry, marked as a summary
 */
export function claudeSummary(texts: readonly string[]): ClaudeEntryData {
  return {
    type: 'user',
    message: { role: 'user', content: texts.join('\n\n') },
    [CLAUDE_NOTES_KEY]: { summary: true },
  }
}

/**
 * A plain `user` entry with this text (the request that closes a summarizer's input).
 *
 * @param text - the text
 * @returns the entry
 */
export function claudePrompt(text: string): ClaudeEntryData {
  return { type: 'user', message: { role: 'user', content: text } }
}
