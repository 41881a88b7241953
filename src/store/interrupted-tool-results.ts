/**
 * The repair row for tool calls that never got a result. When a process dies between a model's toolUse
 * and the tool's result, the next message appended to the session would leave that call open forever,
 * and no provider accepts a toolUse that is never answered. So the store answers it itself, in the same
 * transaction as that next message: a user message of `error` toolResults, one per missing id, marked
 * `metadata.custom.contextLedger.repair = 'missing-tool-result'`. It is an ordinary ledger row (it gets a
 * seq, appears in history and in the window, can be pinned), so the repair is recorded, never silent.
 * This is what Strands does for an interrupted tool call, with the repair kept in the archive.
 */
import type { BodyFormat } from '../formats/index.js'
import type { MessageLimits } from '../messages/schema.js'
import { estimateTokens } from '../messages/tokens.js'
import { prepareMessage, type PreparedMessage } from './prepare-message.js'

/** The text of every synthetic toolResult the store writes for an interrupted call. */
export const INTERRUPTED_TOOL_RESULT_TEXT =
  'Tool call interrupted: no result was recorded before the conversation continued.'

export { MISSING_TOOL_RESULT_REPAIR } from '../messages/ledger-notes.js'

/**
 * Builds the repair row answering `calls` with error results, in the session's format. Its tokens are
 * counted by the format's estimate: it is decided inside the write transaction, where no caller code runs.
 *
 * @param calls - the open calls the next message does not answer, in call order
 * @param limits - validation limits of the store
 * @param format - the session's message format
 * @returns the prepared repair message
 */
export function interruptedToolResults(
  calls: readonly { id: string; name: string }[],
  limits: MessageLimits,
  format: BodyFormat,
): PreparedMessage {
  return prepareMessage(
    format.repair(calls, INTERRUPTED_TOOL_RESULT_TEXT),
    -1,
    estimateTokens,
    limits,
    'own',
    format,
  )
}
