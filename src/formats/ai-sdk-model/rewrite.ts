/**
 * The messages the ledger writes or rewrites in the `ai-sdk/model` format: the repair of interrupted
 * calls, the window form of late tool results, the redacted and pruned forms, and a summary. The
 * ledger's notes go in the message's `providerOptions.contextLedger` (providers ignore a namespace that
 * is not theirs).
 */
import { NOTES_KEY, keptNotes, readNotes, type JsonObject } from '../ai-sdk-common.js'
import type { LateToolResult } from '../types.js'
import { outputStatus, outputText } from './derive.js'
import type {
  AssistantPartData,
  ModelMessageData,
  ProviderOptionsData,
  TextPartData,
  ToolApprovalResponseData,
  ToolModelMessageData,
  ToolResultOutputData,
  ToolResultPartData,
} from './types.js'

function withNotes(notes: JsonObject | undefined): { providerOptions?: ProviderOptionsData } {
  return notes === undefined ? {} : { providerOptions: { [NOTES_KEY]: notes } }
}

/**
 * A tool message answering each open call with an `error-text` result, marked as a repair.
 *
 * @param calls - the open calls, in call order
 * @param text - the error text of each result
 * @returns the repair message
 */
export function modelRepair(calls: readonly { id: string; name: string }[], text: string): ModelMessageData {
  return {
    role: 'tool',
    content: calls.map((c) => ({
      type: 'tool-result',
      toolCallId: c.id,
      toolName: c.name,
      output: { type: 'error-text', value: text },
    })),
    ...withNotes({ repair: 'missing-tool-result' }),
  }
}

/**
 * The text a late result becomes in the window.
 *
 * @param part - the late result
 * @param name - the tool's name, from the call the session recorded
 * @returns the text
 */
export function lateText(part: ToolResultPartData, name: string): string {
  return (
    `[Late tool result] The call "${part.toolCallId}" to ${name} returned after the conversation had ` +
    `moved on (status ${outputStatus(part.output)}):\n${outputText(part.output)}`
  )
}

/** `output` with `notes` appended, keeping whether it reports an error. */
function appendToOutput(output: ToolResultOutputData, notes: readonly string[]): ToolResultOutputData {
  const extra = notes.join('\n\n')
  switch (output.type) {
    case 'text':
    case 'error-text':
      return { ...output, value: `${output.value}\n\n${extra}` }
    case 'error-json':
      return { type: 'error-text', value: `${JSON.stringify(output.value)}\n\n${extra}` }
    case 'execution-denied':
      return { ...output, reason: output.reason === undefined ? extra : `${output.reason}\n\n${extra}` }
    case 'json':
      return {
        type: 'content',
        value: [
          { type: 'text', text: JSON.stringify(output.value) },
          ...notes.map((text) => ({ type: 'text' as const, text })),
        ],
      }
    case 'content':
      return {
        ...output,
        value: [...output.value, ...notes.map((text) => ({ type: 'text' as const, text }))],
      }
  }
}

/**
 * The window form of a tool message some of whose results answer calls that no longer wait (a
 * provider refuses a result whose call is not right before it, and a tool message cannot hold text):
 * - all its results late: a `user` message with one text part per late result (approval responses, if
 *   any, stay in a tool message instead and the late texts are left out: an approval response belongs
 *   to a tool message, which cannot hold text);
 * - some late: a tool message with the on-time results, the late texts appended to the last on-time
 *   result's output (the text names the late call, so nothing is attributed to the wrong tool).
 * Any other message comes back unchanged.
 *
 * @param message - a stored message
 * @param late - the late results it holds
 * @returns the window form
 */
export function modelLateForm(message: ModelMessageData, late: readonly LateToolResult[]): ModelMessageData {
  if (message.role !== 'tool' || late.length === 0) return message
  const names = new Map(late.map((l) => [l.id, l.name]))
  const lateTexts: string[] = []
  const kept: (ToolResultPartData | ToolApprovalResponseData)[] = []
  for (const part of message.content) {
    const name = part.type === 'tool-result' ? names.get(part.toolCallId) : undefined
    if (part.type === 'tool-result' && name !== undefined) lateTexts.push(lateText(part, name))
    else kept.push(part)
  }
  if (lateTexts.length === 0) return message
  const options = message.providerOptions === undefined ? {} : { providerOptions: message.providerOptions }
  const lastResult = kept.findLastIndex((part) => part.type === 'tool-result')
  if (lastResult >= 0) {
    const part = kept[lastResult] as ToolResultPartData
    kept[lastResult] = { ...part, output: appendToOutput(part.output, lateTexts) }
    return { role: 'tool', content: kept, ...options }
  }
  if (kept.length > 0) return { role: 'tool', content: kept, ...options }
  return { role: 'user', content: lateTexts.map((text) => ({ type: 'text', text })), ...options }
}

function redactPart(
  part: ModelMessageData['content'][number] & object,
  redacted: string,
): AssistantPartData | ToolApprovalResponseData {
  switch (part.type) {
    case 'tool-call':
      return {
        type: 'tool-call',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: {},
        ...(part.providerExecuted === undefined ? {} : { providerExecuted: part.providerExecuted }),
      }
    case 'tool-result':
      return {
        type: 'tool-result',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        output: { type: outputStatus(part.output) === 'error' ? 'error-text' : 'text', value: redacted },
      }
    case 'tool-approval-request':
      return { type: 'tool-approval-request', approvalId: part.approvalId, toolCallId: part.toolCallId }
    case 'tool-approval-response':
      return {
        type: 'tool-approval-response',
        approvalId: part.approvalId,
        approved: part.approved,
        ...(part.providerExecuted === undefined ? {} : { providerExecuted: part.providerExecuted }),
      }
    case 'reasoning':
      return { type: 'reasoning', text: redacted }
    default:
      return { type: 'text', text: redacted }
  }
}

/**
 * The redacted form: every text, reasoning, input and output replaced by `redacted` (files, images and
 * custom parts become a text part), the role, tool ids and names, approval ids, whether a call was
 * provider-executed and whether a result failed kept; of the provider options only the repair note.
 *
 * @param message - a stored message
 * @param redacted - the replacement text
 * @param pruned - whether to mark it as retention's
 * @returns the new message
 */
export function modelRedact(message: ModelMessageData, redacted: string, pruned = false): ModelMessageData {
  const notes = withNotes(keptNotes(readNotes(message.providerOptions), pruned))
  if (typeof message.content === 'string')
    return { role: message.role, content: redacted, ...notes } as ModelMessageData
  const content = message.content.map((part) => redactPart(part, redacted))
  if (message.role === 'tool')
    return { role: 'tool', content: content as ToolModelMessageData['content'], ...notes }
  if (message.role === 'user') return { role: 'user', content: content as TextPartData[], ...notes }
  return { role: 'assistant', content: content as AssistantPartData[], ...notes }
}

/**
 * The summary message a window shows for folded messages: a user message, one text part per text.
 *
 * @param texts - the summary's texts
 * @returns the message, marked as a summary
 */
export function modelSummary(texts: readonly string[]): ModelMessageData {
  return {
    role: 'user',
    content: texts.map((text) => ({ type: 'text', text })),
    ...withNotes({ summary: true }),
  }
}
