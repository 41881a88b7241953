/**
 * The messages the ledger writes or rewrites in the `langchain` format: the repair of interrupted calls,
 * the window form of late results, the redacted and pruned forms, a summary and a prompt. The ledger's
 * notes go in `data.additional_kwargs.context_ledger` (providers ignore a key that is not theirs; the
 * adapters strip it before a model sees the message).
 *
 * The repair: the format interface returns one message for all the calls a new message leaves open, but
 * a `ToolMessage` answers exactly one call. One open call (the common case) gets its own `ToolMessage`,
 * marked, which the model reads as it is. Several get one container, as in the `openai-agents` format:
 * a `ToolMessage` answering the first call whose note holds every call's `ToolMessage`
 * (`{ repair, results }`). Its facts answer every call, so the store's repair stays one row in the same
 * transaction as the message that caused it, and the adapter turns it into the `ToolMessage`s with
 * {@link expandRepair}. The container is itself a valid `ToolMessage`, so it revives through LangChain.
 */
import { keptNotes, readNotes, type JsonObject } from '../ai-sdk-common.js'
import type { LateToolResult } from '../types.js'
import { LC_NOTES_KEY, REPAIR, langchainText, repairResults, toolStatus } from './derive.js'
import type {
  AIMessageFieldsData,
  LangChainMessageData,
  MessageContentData,
  MessageFieldsData,
  ToolMessageData,
} from './types.js'

/** The fields every message the ledger writes has: the content, notes when given, empty metadata. */
function fieldsOf(content: MessageContentData, notes?: JsonObject): MessageFieldsData {
  return {
    content,
    additional_kwargs: notes === undefined ? {} : { [LC_NOTES_KEY]: notes },
    response_metadata: {},
  }
}

/** A `ToolMessage` answering a call with a failure. */
function failedResult(call: { id: string; name: string }, text: string, notes?: JsonObject): ToolMessageData {
  return {
    type: 'tool',
    data: { ...fieldsOf(text, notes), tool_call_id: call.id, name: call.name, status: 'error' },
  }
}

/**
 * The message answering the open calls (see the module comment): one marked `ToolMessage`, or a
 * container.
 *
 * @param calls - the open calls, in call order
 * @param text - the failure text of each result
 * @returns the repair message
 */
export function langchainRepair(
  calls: readonly { id: string; name: string }[],
  text: string,
): LangChainMessageData {
  const [first] = calls
  // The store asks for a repair only for open calls: there is at least one.
  if (first === undefined) return failedResult({ id: '', name: '' }, text, { repair: REPAIR })
  if (calls.length === 1) return failedResult(first, text, { repair: REPAIR })
  const results = calls.map((c) => failedResult(c, text))
  return failedResult(first, text, { repair: REPAIR, results: results as unknown as JsonObject[] })
}

/** A container holding `results`, answering as the first of them (the repair note kept). */
function container(results: readonly ToolMessageData[], notes: JsonObject): ToolMessageData {
  const [first] = results
  const data = first?.data ?? failedResult({ id: '', name: '' }, '').data
  return {
    type: 'tool',
    data: {
      ...data,
      additional_kwargs: { [LC_NOTES_KEY]: { ...notes, results: results as unknown as JsonObject[] } },
    },
  }
}

/**
 * The message without the ledger's notes (`additional_kwargs` stays, empty when they were all it held).
 *
 * @param message - a stored message
 * @returns the message, or a copy without the notes
 */
export function withoutLedgerNotes(message: LangChainMessageData): LangChainMessageData {
  const kwargs = message.data.additional_kwargs
  if (kwargs === undefined || !Object.hasOwn(kwargs, LC_NOTES_KEY)) return message
  const { [LC_NOTES_KEY]: _notes, ...rest } = kwargs
  return { ...message, data: { ...message.data, additional_kwargs: rest } } as LangChainMessageData
}

/**
 * The messages to show the model for a message of the window: a repair container's `ToolMessage`s; any
 * other message without the library's notes (a repair's, a summary's).
 *
 * @param message - a message the window holds
 * @returns the messages that stand for it (stored `{ type, data }` bodies)
 */
export function expandRepair(message: LangChainMessageData): LangChainMessageData[] {
  const results = repairResults(message)
  if (results !== undefined) return results.map(withoutLedgerNotes)
  return [withoutLedgerNotes(message)]
}

function lateText(result: ToolMessageData, name: string): string {
  return (
    `[Late tool result] The call "${result.data.tool_call_id}" to ${name} returned after the conversation ` +
    `had moved on (status ${toolStatus(result)}):\n${langchainText(result)}`
  )
}

function lateMessage(texts: readonly string[]): LangChainMessageData {
  return { type: 'human', data: fieldsOf(texts.map((text) => ({ type: 'text', text }))) }
}

/**
 * The window form of a message whose results answer calls that no longer wait: a `HumanMessage` naming
 * the call and holding its output (a provider refuses a tool result whose call is not before it). A
 * repair container keeps its on-time results. Any other message comes back unchanged.
 *
 * @param message - a stored message
 * @param late - the late results it holds
 * @returns the window form
 */
export function langchainLateForm(
  message: LangChainMessageData,
  late: readonly LateToolResult[],
): LangChainMessageData {
  const names = new Map(late.map((l) => [l.id, l.name]))
  const results = repairResults(message)
  if (results !== undefined) {
    const kept = results.filter((r) => !names.has(r.data.tool_call_id))
    if (kept.length === results.length) return message
    if (kept.length > 0) return container(kept, { repair: REPAIR })
    return lateMessage(results.map((r) => lateText(r, names.get(r.data.tool_call_id) ?? 'a tool')))
  }
  const name = message.type === 'tool' ? names.get(message.data.tool_call_id) : undefined
  return message.type === 'tool' && name !== undefined ? lateMessage([lateText(message, name)]) : message
}

/** The message's own fields, redacted: text gone; type, id, name, role, call ids and names kept. */
function redactedOf(
  message: LangChainMessageData,
  redacted: string,
  notes?: JsonObject,
): LangChainMessageData {
  const { id, name } = message.data
  const base: MessageFieldsData = {
    ...fieldsOf(redacted, notes),
    ...(typeof id === 'string' ? { id } : {}),
    ...(typeof name === 'string' ? { name } : {}),
  }
  switch (message.type) {
    case 'ai': {
      const calls = message.data.tool_calls
      const data: AIMessageFieldsData = {
        ...base,
        ...(calls === undefined
          ? {}
          : { tool_calls: calls.map((c) => ({ id: c.id, name: c.name, args: {} })) }),
      }
      return { type: 'ai', data }
    }
    case 'tool':
      return {
        type: 'tool',
        data: { ...base, tool_call_id: message.data.tool_call_id, status: toolStatus(message) },
      }
    case 'generic':
      return { type: 'generic', data: { ...base, role: message.data.role } }
    default:
      return { type: message.type, data: base }
  }
}

/**
 * The redacted form: text, tool args and outputs, metadata and artifacts gone; type, id, name, role,
 * call ids and tool names, whether a result failed and the repair note kept. A repair container keeps
 * its results, each redacted.
 *
 * @param message - a stored message
 * @param redacted - the text that replaces the content
 * @param pruned - whether this is retention's pruned form (marked `pruned`)
 * @returns the new message
 */
export function langchainRedact(
  message: LangChainMessageData,
  redacted: string,
  pruned = false,
): LangChainMessageData {
  const notes = keptNotes(readNotes(message.data.additional_kwargs, LC_NOTES_KEY), pruned)
  const results = repairResults(message)
  if (results !== undefined)
    return container(
      results.map((r) => redactedOf(r, redacted) as ToolMessageData),
      notes ?? { repair: REPAIR },
    )
  return redactedOf(message, redacted, notes)
}

/**
 * The summary message a window shows for folded messages: a `HumanMessage`, one text block per text.
 *
 * @param texts - the summary's texts
 * @returns the message, marked as a summary
 */
export function langchainSummary(texts: readonly string[]): LangChainMessageData {
  return {
    type: 'human',
    data: fieldsOf(
      texts.map((text) => ({ type: 'text', text })),
      { summary: true },
    ),
  }
}

/**
 * A plain `HumanMessage` with this text (the request that closes a summarizer's input).
 *
 * @param text - the text
 * @returns the message
 */
export function langchainPrompt(text: string): LangChainMessageData {
  return { type: 'human', data: fieldsOf(text) }
}
