/**
 * What the ledger derives from an `openai-agents` item: the window facts, the searchable text and the
 * token estimate. One item is one step of the model's output or one answer, so the model's items of one
 * step (reasoning, messages, calls) and the results of parallel calls come as separate items: every
 * assistant-side item and every result defers the calls still waiting (they are answered by later items),
 * and only a user, system or compaction item leaves them unanswered (the store then writes a repair row).
 */
import {
  PER_MESSAGE_TOKENS,
  TOOL_PART_TOKENS,
  isJsonObject,
  jsonText,
  mediaTokens,
  textTokens,
} from '../ai-sdk-common.js'
import type { MessageFacts } from '../types.js'
import { withdrawalOf } from './control.js'
import {
  CALL_RESULT_TYPES,
  type AgentItemData,
  type CallItemData,
  type PartData,
  type ResultItemData,
} from './types.js'

const REPAIR_PATH = 'providerData.contextLedger.results'

/**
 * The result items a repair container holds (see `rewrite.ts`), or undefined for any other item.
 *
 * @param item - a stored item
 * @returns the results it answers with
 */
export function repairResults(item: AgentItemData): ResultItemData[] | undefined {
  if (item.type !== 'unknown' || !isJsonObject(item.providerData)) return undefined
  const notes = item.providerData.contextLedger
  if (!isJsonObject(notes) || notes.repair !== 'missing-tool-result' || !Array.isArray(notes.results))
    return undefined
  return notes.results as unknown as ResultItemData[]
}

/**
 * Whether an item makes a call another item answers.
 *
 * @param item - a stored item
 * @returns true for a function, computer, shell, apply-patch or program call
 */
export function isCall(item: AgentItemData): item is CallItemData {
  return typeof item.type === 'string' && Object.hasOwn(CALL_RESULT_TYPES, item.type)
}

const RESULT_TYPES = new Set<string>(Object.values(CALL_RESULT_TYPES))

/**
 * Whether an item answers a call.
 *
 * @param item - a stored item
 * @returns true for a result or output item of a call type
 */
export function isResult(item: AgentItemData): item is ResultItemData {
  return typeof item.type === 'string' && RESULT_TYPES.has(item.type)
}

/**
 * The name a call goes by: a function's `name`, else the item type (`shell_call`, …).
 *
 * @param item - a call item
 * @returns the name
 */
export function callName(item: CallItemData): string {
  return item.type === 'function_call' && typeof item.name === 'string' ? item.name : item.type
}

/**
 * Whether a result reports a failure.
 *
 * @param item - a result item
 * @returns `'error'` for an `incomplete` or `failed` status, else `'success'`
 */
export function resultStatus(item: ResultItemData): 'success' | 'error' {
  return item.status === 'incomplete' || item.status === 'failed' ? 'error' : 'success'
}

const ASSISTANT_SIDE: Omit<MessageFacts, 'speaker' | 'pinned'> = {
  role: 'assistant',
  toolUses: [],
  toolResults: [],
  plainUser: false,
  defersCalls: true,
}

/**
 * The facts the window rules use (see the module comment).
 *
 * @param item - a stored item
 * @returns its facts; `pinned` only for a marker whose note says so
 */
export function agentFacts(item: AgentItemData): MessageFacts {
  const results = repairResults(item)
  if (results !== undefined)
    return {
      role: 'user',
      speaker: 'tool',
      toolUses: [],
      toolResults: results.map((r, i) => ({
        id: r.callId,
        status: resultStatus(r),
        path: `${REPAIR_PATH}[${i}].callId`,
      })),
      plainUser: false,
      defersCalls: true,
      pinned: false,
    }
  if (isCall(item))
    return {
      ...ASSISTANT_SIDE,
      speaker: 'assistant',
      toolUses: [{ id: item.callId, name: callName(item), path: 'callId' }],
      pinned: false,
    }
  if (isResult(item))
    return {
      role: 'user',
      speaker: 'tool',
      toolUses: [],
      toolResults: [{ id: item.callId, status: resultStatus(item), path: 'callId' }],
      plainUser: false,
      defersCalls: true,
      pinned: false,
    }
  if ('role' in item && (item.role === 'user' || item.role === 'system'))
    return {
      role: 'user',
      speaker: item.role,
      toolUses: [],
      toolResults: [],
      plainUser: true,
      defersCalls: false,
      pinned: false,
    }
  if (item.type === 'compaction')
    return {
      role: 'user',
      speaker: 'system',
      toolUses: [],
      toolResults: [],
      plainUser: true,
      defersCalls: false,
      pinned: false,
    }
  const marker = withdrawalOf(item)
  return {
    ...ASSISTANT_SIDE,
    speaker: marker === undefined ? 'assistant' : 'system',
    pinned: marker?.pinned === true,
  }
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '')

/** The text of a content part (any role), or '' when it has none. */
function partText(p: PartData): string {
  switch (p.type) {
    case 'input_text':
    case 'output_text':
    case 'reasoning_text':
    case 'text':
      return str(p.text)
    case 'refusal':
      return str(p.refusal)
    case 'audio':
      return str(p.transcript)
    case 'input_file':
      return str(p.filename)
    case 'file':
      return isJsonObject(p.file) ? str(p.file.filename) : ''
    default:
      return ''
  }
}

const lines = (texts: readonly string[]): string => texts.filter((t) => t !== '').join('\n')

/**
 * A result's output as text: its text, its parts' texts and file names, stdout and stderr.
 *
 * @param item - a result item
 * @returns the text (empty when there is none)
 */
export function outputText(item: ResultItemData): string {
  const output = item.output
  if (typeof output === 'string') return output
  if (item.type === 'shell_call_output' && Array.isArray(output))
    return lines(output.flatMap((o) => (isJsonObject(o) ? [str(o.stdout), str(o.stderr)] : [])))
  if (Array.isArray(output)) return lines(output.map((p) => (isJsonObject(p) ? partText(p as PartData) : '')))
  return isJsonObject(output) ? partText(output as PartData) : ''
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  return Array.isArray(content)
    ? lines(content.map((p) => (isJsonObject(p) ? partText(p as PartData) : '')))
    : ''
}

/** The text of a call: what it asks for. */
function callText(item: CallItemData): string {
  switch (item.type) {
    case 'function_call':
      return `${callName(item)} ${str(item.arguments)}`
    case 'shell_call':
      return isJsonObject(item.action) && Array.isArray(item.action.commands)
        ? lines(item.action.commands.map(str))
        : ''
    case 'apply_patch_call': {
      const op = isJsonObject(item.operation) ? item.operation : {}
      return lines([`${str(op.type)} ${str(op.path)}`, str(op.diff)])
    }
    case 'program':
      return str(item.code)
    case 'computer_call':
      return `computer_call ${jsonText(item.actions ?? item.action)}`
  }
}

/**
 * The searchable text: every text, reasoning text, a function's name and arguments, tool outputs, shell
 * commands and output, patch diffs, hosted tool calls; '' for compaction items and markers.
 *
 * @param item - a stored item
 * @returns the text, one piece a line
 */
export function agentText(item: AgentItemData): string {
  const results = repairResults(item)
  if (results !== undefined) return lines(results.map(outputText))
  if (isCall(item)) return callText(item)
  if (isResult(item)) return outputText(item)
  if ('role' in item) return contentText(item.content)
  switch (item.type) {
    case 'reasoning':
      return lines([contentText(item.content), contentText(item.rawContent)])
    case 'hosted_tool_call':
      return lines([str(item.name), str(item.arguments), str(item.output)])
    case 'tool_search_call':
      return `tool_search ${jsonText(item.arguments)}`
    case 'tool_search_output':
      return Array.isArray(item.tools)
        ? lines(item.tools.map((t) => (isJsonObject(t) ? str(t.name) || str(t.functionName) : '')))
        : ''
    default:
      return ''
  }
}

/** The media a content part holds, as tokens (images, files, audio; 0 for text). */
function mediaOf(p: unknown): number {
  if (!isJsonObject(p)) return 0
  switch (p.type) {
    case 'input_image':
    case 'image':
    case 'input_file':
    case 'file':
      return mediaTokens('image')
    case 'audio':
      return mediaTokens('audio')
    default:
      return 0
  }
}

function mediaTotal(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, p) => n + mediaOf(p), 0)
  return mediaOf(value)
}

/**
 * The built-in estimate: about four characters a token for the item's text (the compaction payload by
 * its length), the Strands estimate's fixed costs for images, files and audio (a screenshot is an image),
 * a few tokens an item and a tool item; a withdrawal marker costs nothing (the model never reads it).
 *
 * @param item - a stored item
 * @returns a non-negative integer
 */
export function agentTokens(item: AgentItemData): number {
  if (withdrawalOf(item) !== undefined) return 0
  const results = repairResults(item)
  if (results !== undefined) return results.reduce((n, r) => n + agentTokens(r), 0)
  let n = PER_MESSAGE_TOKENS + textTokens(agentText(item).length)
  if (isCall(item) || isResult(item) || item.type === 'hosted_tool_call') n += TOOL_PART_TOKENS
  if (item.type === 'computer_call_result') n += mediaTokens('image')
  if (item.type === 'compaction') n += textTokens(str(item.encrypted_content).length)
  if ('content' in item) n += mediaTotal(item.content)
  if (item.type === 'function_call_result') n += mediaTotal(item.output)
  return n
}
