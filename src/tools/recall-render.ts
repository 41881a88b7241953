/**
 * `read_history`'s text (src/tools/recall-tools.ts): each message as the model reads it — role label,
 * text, tool names with inputs and results, documents, guarded text and citations (what the view
 * `search_text` indexes), each field cut to a limit saying how much was left out.
 */
import { formatNamed, type BodyFormat } from '../formats/index.js'
import { LANGCHAIN_TYPES } from '../formats/langchain/types.js'
import { AGENT_ITEM_TYPES } from '../formats/openai-agents/schema.js'
import type { ContentBlockData, MessageData, StoredMessageData } from '../messages/types.js'
import type { LedgerEntry } from '../store/store-types.js'

function json(value: unknown): string {
  try {
    // JSON.stringify gives undefined for undefined input, though typed string.
    const text = JSON.stringify(value) as string | undefined
    return text ?? ''
  } catch {
    return '[unserializable]'
  }
}

/** The strings under `text` keys of a document's source, as the view `search_text` reads them. */
function sourceTexts(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) sourceTexts(v, out)
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value as Record<string, unknown>))
      if (k === 'text' && typeof v === 'string') out.push(v)
      else sourceTexts(v, out)
  return out
}

/** A document's name and text (the view `search_text` indexes the same). */
function documentText(doc: unknown): string {
  const d = (doc ?? {}) as { name?: unknown; source?: unknown }
  const name = typeof d.name === 'string' ? d.name : 'unnamed'
  return `[document ${name}] ${sourceTexts(d.source).join(' ')}`
}

/** Cuts one field to `limit` characters, saying how many were left out. */
function field(text: string, limit: number): string {
  if (text.length <= limit) return text
  return `${text.slice(0, limit)}[… ${text.length - limit} characters left out]`
}

/**
 * The text of one block, each field cut to `limit` characters: the text the view `search_text` indexes
 * (text, reasoning, a tool call's name and input, a tool result's text, JSON and documents, a document's
 * name and text, a guard block's text, a citation block's text), labelled.
 */
function blockText(b: ContentBlockData, limit: number): string[] {
  const x = b as Record<string, unknown>
  if (typeof x.text === 'string') return [field(x.text, limit)]
  const use = x.toolUse as { name?: string; input?: unknown } | undefined
  if (use !== undefined) return [`[calls tool ${use.name ?? '?'} with ${field(json(use.input), limit)}]`]
  const result = x.toolResult as { status?: string; content?: unknown[] } | undefined
  if (result !== undefined) {
    const parts = (result.content ?? []).map((c) => {
      const r = c as Record<string, unknown>
      if (typeof r.text === 'string') return field(r.text, limit)
      if (r.json !== undefined) return field(json(r.json), limit)
      if (r.document !== undefined) return field(documentText(r.document), limit)
      return '[non-text content]'
    })
    return [`[tool result (${result.status ?? 'success'})] ${parts.join('\n')}`]
  }
  const reasoning = x.reasoning as { text?: string } | undefined
  if (reasoning?.text !== undefined) return [`[reasoning] ${field(reasoning.text, limit)}`]
  if (x.document !== undefined) return [field(documentText(x.document), limit)]
  const guard = x.guardContent as { text?: { text?: unknown } } | undefined
  if (typeof guard?.text?.text === 'string') return [`[guarded] ${field(guard.text.text, limit)}`]
  const citations = x.citations as { content?: unknown } | undefined
  if (citations !== undefined) {
    const texts = (Array.isArray(citations.content) ? citations.content : [])
      .map((c) => (c as { text?: unknown }).text)
      .filter((t): t is string => typeof t === 'string')
    return [`[cited] ${field(texts.join('\n'), limit)}`]
  }
  return ['[non-text content]']
}

/**
 * The format of a stored body that is not a Strands message: a LangChain `StoredMessage` (a `type` of
 * LangChain's and a `data` object), an OpenAI Agents item (an Agents item `type`, or Responses-API
 * parts), a Claude Agent SDK transcript entry (any other `type`: `user`, `assistant`, `attachment`, …), an AI SDK `UIMessage` (`parts`) or
 * `ModelMessage` (string content, a `tool`/`system` role, or typed parts). Bodies were validated by their
 * format at append, so the shapes cannot be confused; a Strands block never has a `type` key.
 *
 * @param m - a stored message
 * @returns its format, or undefined for a Strands message
 */
function otherFormat(m: MessageData | undefined): BodyFormat | undefined {
  const x = (m ?? {}) as { parts?: unknown; content?: unknown; role?: unknown; type?: unknown }
  if (Array.isArray(x.parts)) return formatNamed('ai-sdk/ui')
  // No Agents item type is a LangChain message type, and no Agents item holds `data`.
  const data = (m as { data?: unknown } | undefined)?.data
  if ((LANGCHAIN_TYPES as readonly unknown[]).includes(x.type) && typeof data === 'object' && data !== null)
    return formatNamed('langchain')
  // A transcript entry of the Claude Agent SDK: a `type` no Agents item has.
  if (typeof x.type === 'string' && !AGENT_ITEM_TYPES.includes(x.type)) return formatNamed('claude-agent')
  // An Agents item: a typed item, or a message whose parts are Responses-API parts (`input_text`, …).
  const responsesPart = (b: unknown) =>
    /^(input_|output_text$|refusal$|audio$)/.test(String((b as { type?: unknown } | null)?.type))
  if (typeof x.type === 'string' || (Array.isArray(x.content) && x.content.some(responsesPart)))
    return formatNamed('openai-agents')
  const typed =
    Array.isArray(x.content) &&
    x.content.some((b) => typeof (b as { type?: unknown } | null)?.type === 'string')
  if (typeof x.content === 'string' || x.role === 'tool' || x.role === 'system' || typed)
    return formatNamed('ai-sdk/model')
  return undefined
}

/**
 * How many fields a message's text has (blocks, or lines of another format's text), to share a cut.
 *
 * @param m - the message
 * @returns at least 1
 */
export function fieldCount(m: MessageData): number {
  const format = otherFormat(m)
  const n = format === undefined ? m.content.length : format.text(m as StoredMessageData).split('\n').length
  return Math.max(1, n)
}

/**
 * Whether a message holds a block of a kind.
 *
 * @param m - the message
 * @param key - `toolUse` or `toolResult`
 * @returns true when one of its blocks is of that kind
 */
export function hasBlock(m: MessageData | undefined, key: 'toolUse' | 'toolResult'): boolean {
  const format = otherFormat(m)
  if (format !== undefined && m !== undefined) {
    const facts = format.facts(m as StoredMessageData)
    return (key === 'toolUse' ? facts.toolUses : facts.toolResults).length > 0
  }
  return (m?.content ?? []).some((b) => (b as Record<string, unknown>)[key] !== undefined)
}

/**
 * The text of one entry; records the names of the tools it calls (for the result that follows).
 *
 * @param e - the entry
 * @param note - what to say of a message out of the window (the summary that folded it)
 * @param toolNames - tool names by call id, filled as calls are rendered
 * @param limit - the most characters of one field
 * @returns the text
 */
export function render(
  e: LedgerEntry,
  note: string | undefined,
  toolNames: Map<string, string>,
  limit: number,
): string {
  const where = e.inWindow ? '' : ` (no longer in your context${note === undefined ? '' : `; ${note}`})`
  const format = otherFormat(e.message)
  if (format !== undefined) {
    const lines = format.text(e.message).split('\n')
    return `[seq ${e.seq}] ${format.facts(e.message).speaker}${where}:\n${lines.map((l) => field(l, limit)).join('\n')}`
  }
  const content = e.message.content.map((b) => {
    const use = (b as { toolUse?: { toolUseId?: string; name?: string } }).toolUse
    if (use?.toolUseId !== undefined && use.name !== undefined) toolNames.set(use.toolUseId, use.name)
    const result = (b as { toolResult?: { toolUseId?: string } }).toolResult
    const lines = blockText(b, limit)
    if (result?.toolUseId !== undefined) {
      const name = toolNames.get(result.toolUseId)
      if (name !== undefined) return lines.map((l) => l.replace('[tool result', `[result of ${name}`))
    }
    return lines
  })
  return `[seq ${e.seq}] ${e.message.role}${where}:\n${content.flat().join('\n')}`
}
