/**
 * The items the ledger writes or rewrites in the `openai-agents` format: the repair of interrupted calls,
 * the window form of late results, the redacted and pruned forms, a summary. The ledger's notes go in the
 * item's `providerData.contextLedger`.
 *
 * The repair: the format interface returns one message for all the calls a new item leaves open, but an
 * Agents result item answers exactly one call. One open call (the common case: one step's one call)
 * gets its own result item, marked, which the model reads as it is. Several get one container, an
 * `unknown` item whose note holds the result items (`{ repair, results }`): its facts answer every call,
 * so the store's repair stays one row in the same transaction as the item that caused it (as in the
 * other formats), and the adapter turns it into the result items with {@link expandRepair}. The
 * alternative, one row per call, would need the store to write several rows for one repair.
 */
import { NOTES_KEY, isJsonObject, keptNotes, readNotes, type JsonObject } from '../ai-sdk-common.js'
import type { LateToolResult } from '../types.js'
import { withdrawalOf } from './control.js'
import { isCall, isResult, outputText, repairResults, resultStatus } from './derive.js'
import type { AgentItemData, CallItemData, ResultItemData } from './types.js'

const REPAIR = 'missing-tool-result'

function withNotes(notes: JsonObject | undefined): { providerData?: { [NOTES_KEY]: JsonObject } } {
  return notes === undefined ? {} : { providerData: { [NOTES_KEY]: notes } }
}

/**
 * The result item answering a call with a failure: a call named after its item type (`shell_call`,
 * `computer_call`, `apply_patch_call`, `program`) gets its own output type, any other a
 * `function_call_result` with status `incomplete`.
 */
function failedResult(call: { id: string; name: string }, text: string): ResultItemData {
  const callId = call.id
  switch (call.name) {
    case 'shell_call':
      return {
        type: 'shell_call_output',
        callId,
        status: 'incomplete',
        output: [{ stdout: '', stderr: text, outcome: { type: 'exit', exitCode: null } }],
      }
    case 'computer_call':
      // A computer call's answer is a screenshot; there is none, and the item has no status or text.
      return { type: 'computer_call_result', callId, output: { type: 'computer_screenshot', data: '' } }
    case 'apply_patch_call':
      return { type: 'apply_patch_call_output', callId, status: 'failed', output: text }
    case 'program':
      return { type: 'program_output', callId, status: 'incomplete', output: text }
    default:
      return { type: 'function_call_result', callId, name: call.name, status: 'incomplete', output: text }
  }
}

/**
 * The item answering the open calls (see the module comment): one marked result item, or a container.
 *
 * @param calls - the open calls, in call order
 * @param text - the failure text of each result
 * @returns the repair item
 */
export function agentRepair(calls: readonly { id: string; name: string }[], text: string): AgentItemData {
  const results = calls.map((c) => failedResult(c, text))
  const [only] = results
  if (results.length === 1 && only !== undefined) return { ...only, ...withNotes({ repair: REPAIR }) }
  return { type: 'unknown', ...withNotes({ repair: REPAIR, results: results as unknown as JsonObject[] }) }
}

function withoutLedgerNotes(item: AgentItemData): AgentItemData {
  if (!isJsonObject(item.providerData) || !Object.hasOwn(item.providerData, NOTES_KEY)) return item
  const { [NOTES_KEY]: _notes, ...data } = item.providerData
  const { providerData: _data, ...rest } = item
  return Object.keys(data).length === 0 ? rest : { ...rest, providerData: data }
}

/**
 * The items to show the model for an item of the window: a repair container's result items; any other
 * item without the library's notes (a repair result's, a summary's).
 *
 * @param item - an item the window holds
 * @returns the items that stand for it
 */
export function expandRepair(item: AgentItemData): AgentItemData[] {
  const results = repairResults(item)
  if (results !== undefined) return results
  return [withoutLedgerNotes(item)]
}

function lateText(item: ResultItemData, name: string): string {
  return (
    `[Late tool result] The call "${item.callId}" to ${name} returned after the conversation had moved on ` +
    `(status ${resultStatus(item)}):\n${outputText(item)}`
  )
}

function lateMessage(texts: readonly string[]): AgentItemData {
  return { type: 'message', role: 'user', content: texts.map((text) => ({ type: 'input_text', text })) }
}

/**
 * The window form of an item whose results answer calls that no longer wait: a user message naming the
 * call and holding its output (a provider refuses a result whose call is not before it). A repair
 * container keeps its on-time results. Any other item comes back unchanged.
 *
 * @param item - a stored item
 * @param late - the late results it holds
 * @returns the window form
 */
export function agentLateForm(item: AgentItemData, late: readonly LateToolResult[]): AgentItemData {
  const names = new Map(late.map((l) => [l.id, l.name]))
  const results = repairResults(item)
  if (results !== undefined) {
    const kept = results.filter((r) => !names.has(r.callId))
    if (kept.length === results.length) return item
    if (kept.length > 0)
      return { type: 'unknown', ...withNotes({ repair: REPAIR, results: kept as unknown as JsonObject[] }) }
    return lateMessage(results.map((r) => lateText(r, names.get(r.callId) ?? r.type)))
  }
  const name = isResult(item) ? names.get(item.callId) : undefined
  return isResult(item) && name !== undefined ? lateMessage([lateText(item, name)]) : item
}

function redactCall(item: CallItemData, redacted: string): JsonObject {
  switch (item.type) {
    case 'function_call':
      return { name: String(item.name), arguments: '{}' }
    case 'shell_call':
      return { action: { commands: [] } }
    case 'apply_patch_call': {
      const op = isJsonObject(item.operation) ? item.operation : {}
      const type = op.type === 'create_file' || op.type === 'update_file' ? op.type : 'delete_file'
      return {
        status: String(item.status),
        operation:
          type === 'delete_file' ? { type, path: redacted } : { type, path: redacted, diff: redacted },
      }
    }
    case 'program':
      return { code: redacted, fingerprint: '' }
    default:
      return { status: String(item.status), action: { type: 'screenshot' } }
  }
}

function redactResult(item: ResultItemData, redacted: string): JsonObject {
  switch (item.type) {
    case 'function_call_result':
      return { name: String(item.name), status: String(item.status), output: redacted }
    case 'shell_call_output':
      return {
        ...(typeof item.status === 'string' ? { status: item.status } : {}),
        output: [{ stdout: redacted, stderr: '', outcome: { type: 'exit', exitCode: null } }],
      }
    case 'computer_call_result':
      return { output: { type: 'computer_screenshot', data: '' } }
    default:
      return { status: String(item.status), output: redacted }
  }
}

/** The item's own fields, redacted: text gone, type, role, ids, names and statuses kept. */
function redactedFields(item: AgentItemData, redacted: string): JsonObject {
  const id = typeof item.id === 'string' ? { id: item.id } : {}
  if ('role' in item) {
    const type = item.type === undefined ? {} : { type: item.type }
    if (item.role === 'assistant')
      return {
        ...type,
        ...id,
        role: 'assistant',
        status: String(item.status),
        content: [{ type: 'output_text', text: redacted }],
      }
    return { ...type, ...id, role: String(item.role), content: redacted }
  }
  if (isCall(item)) return { type: item.type, ...id, callId: item.callId, ...redactCall(item, redacted) }
  if (isResult(item)) return { type: item.type, ...id, callId: item.callId, ...redactResult(item, redacted) }
  switch (item.type) {
    case 'reasoning':
      return { type: 'reasoning', ...id, content: [{ type: 'input_text', text: redacted }] }
    case 'hosted_tool_call':
      return {
        type: item.type,
        ...id,
        name: String(item.name),
        ...(item.output === undefined ? {} : { output: redacted }),
      }
    case 'tool_search_call':
      return { type: item.type, ...id, arguments: {} }
    case 'tool_search_output':
      return { type: item.type, ...id, tools: [] }
    case 'compaction':
      return { type: item.type, ...id, encrypted_content: '' }
    default:
      return { type: 'unknown', ...id }
  }
}

/**
 * The redacted form: text, arguments, outputs and provider data gone; type, role, ids, call ids, names
 * and statuses kept, and the repair note. A withdrawal marker holds no text and stays as it is (its note
 * is what it does). A repair container keeps its results, each redacted.
 *
 * @param item - a stored item
 * @param redacted - the text that replaces the content
 * @param pruned - whether this is retention's pruned form (marked `pruned`)
 * @returns the new item
 */
export function agentRedact(item: AgentItemData, redacted: string, pruned = false): AgentItemData {
  if (withdrawalOf(item) !== undefined) return item
  const results = repairResults(item)
  const notes = keptNotes(readNotes(item.providerData), pruned)
  if (results !== undefined)
    return {
      type: 'unknown',
      ...withNotes({ ...notes, results: results.map((r) => redactedFields(r, redacted)) }),
    }
  return { ...redactedFields(item, redacted), ...withNotes(notes) } as unknown as AgentItemData
}

/**
 * The summary item a window shows for folded items: a user message, one `input_text` part per text.
 *
 * @param texts - the summary's texts
 * @returns the item, marked as a summary
 */
export function agentSummary(texts: readonly string[]): AgentItemData {
  return {
    role: 'user',
    content: texts.map((text) => ({ type: 'input_text', text })),
    ...withNotes({ summary: true }),
  }
}
