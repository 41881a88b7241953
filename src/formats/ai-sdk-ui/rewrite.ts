/**
 * The messages the ledger writes or rewrites in the `ai-sdk/ui` format. The ledger's notes go in the
 * message's `metadata.contextLedger`. A summary is a user message with a fresh id (`summary-<uuid>`).
 * A repair is never needed — no UI message answers another's call (see `derive.ts`), so the store never
 * asks for one — but the method returns a valid user message marked as a repair all the same.
 */
import { mintTrackingId } from '../../messages/tracking-id.js'
import { NOTES_KEY, keptNotes, readNotes, type JsonObject } from '../ai-sdk-common.js'
import { isToolPart, toolNameOf } from './derive.js'
import type {
  ToolApprovalData,
  ToolUIPartData,
  DynamicToolUIPartData,
  UIMessageData,
  UIPartData,
} from './types.js'

function withNotes(notes: JsonObject | undefined): { metadata?: JsonObject } {
  return notes === undefined ? {} : { metadata: { [NOTES_KEY]: notes } }
}

/**
 * A user message holding `text`, marked as a repair (never asked for: see the module comment).
 *
 * @param _calls - the open calls (a UI message has none another message must answer)
 * @param text - the text
 * @returns the message
 */
export function uiRepair(_calls: readonly { id: string; name: string }[], text: string): UIMessageData {
  return {
    id: `repair-${mintTrackingId()}`,
    role: 'user',
    parts: [{ type: 'text', text }],
    ...withNotes({ repair: 'missing-tool-result' }),
  }
}

/** An approval without its reasons: the id, and the answer when there is one. */
function redactApproval(approval: ToolApprovalData | undefined): { approval?: ToolApprovalData } {
  if (approval === undefined) return {}
  return {
    approval: {
      id: approval.id,
      ...(approval.approved === undefined ? {} : { approved: approval.approved }),
    },
  }
}

function redactToolPart(
  part: ToolUIPartData | DynamicToolUIPartData,
  redacted: string,
): ToolUIPartData | DynamicToolUIPartData {
  const head =
    part.type === 'dynamic-tool'
      ? { type: 'dynamic-tool' as const, toolName: toolNameOf(part) }
      : { type: part.type }
  return {
    ...head,
    toolCallId: part.toolCallId,
    state: part.state,
    ...(part.state === 'input-streaming' ? {} : { input: {} }),
    ...(part.state === 'output-available' ? { output: redacted } : {}),
    ...(part.state === 'output-error' ? { errorText: redacted } : {}),
    ...(part.providerExecuted === undefined ? {} : { providerExecuted: part.providerExecuted }),
    ...redactApproval(part.approval),
  }
}

function redactPart(part: UIPartData, redacted: string): UIPartData {
  if (isToolPart(part)) return redactToolPart(part, redacted)
  if (part.type === 'step-start') return { type: 'step-start' }
  if (part.type === 'reasoning') return { type: 'reasoning', text: redacted }
  return { type: 'text', text: redacted }
}

/**
 * The redacted form: every text, reasoning, tool input, output and error text replaced (tool inputs by
 * `{}`, the rest by `redacted`); files, sources, data and custom parts become a text part; the id, the
 * role, step starts, tool parts' types, call ids, states and approval answers kept; of the metadata only
 * the repair note. (An app that validates loaded messages against its tools' output schemas will find
 * a redacted output does not match them.)
 *
 * @param message - a stored message
 * @param redacted - the replacement text
 * @param pruned - whether to mark it as retention's
 * @returns the new message
 */
export function uiRedact(message: UIMessageData, redacted: string, pruned = false): UIMessageData {
  return {
    id: message.id,
    role: message.role,
    parts: message.parts.map((part) => redactPart(part, redacted)),
    ...withNotes(keptNotes(readNotes(message.metadata), pruned)),
  }
}

/**
 * The summary message a window shows for folded messages: a user message, one text part per text,
 * with a fresh id.
 *
 * @param texts - the summary's texts
 * @returns the message, marked as a summary
 */
export function uiSummary(texts: readonly string[]): UIMessageData {
  return {
    id: `summary-${mintTrackingId()}`,
    role: 'user',
    parts: texts.map((text) => ({ type: 'text', text })),
    ...withNotes({ summary: true }),
  }
}
