/**
 * The repair row for tool calls that never got a result. When a process dies between a model's toolUse
 * and the tool's result, the next message appended to the session would leave that call open forever,
 * and no provider accepts a toolUse that is never answered. So the store answers it itself, in the same
 * transaction as that next message: a user message of `error` toolResults, one per missing id, marked
 * `metadata.custom.contextLedger.repair = 'missing-tool-result'`. It is an ordinary ledger row (it gets a
 * seq, appears in history and in the window, can be pinned), so the repair is recorded, never silent.
 * This is what Strands does for an interrupted tool call, with the repair kept in the archive.
 */
import { mintTrackingId } from '../messages/tracking-id.js'
import type { MessageLimits } from '../messages/schema.js'
import { estimateTokens } from '../messages/tokens.js'
import type { StoredMessageData } from '../messages/types.js'
import { prepareMessage, type PreparedMessage } from './prepare-message.js'

/** The text of every synthetic toolResult the store writes for an interrupted call. */
export const INTERRUPTED_TOOL_RESULT_TEXT =
  'Tool call interrupted: no result was recorded before the conversation continued.'

/** The value of `metadata.custom.contextLedger.repair` on a repair row. */
export const MISSING_TOOL_RESULT_REPAIR = 'missing-tool-result'

/**
 * Builds the repair row answering `toolUseIds` with error results. Its tokens are counted by the
 * built-in estimator: it is decided inside the write transaction, where no caller code runs.
 *
 * @param toolUseIds - the open calls the next message does not answer, in call order
 * @param limits - validation limits of the store
 * @returns the prepared repair message
 */
export function interruptedToolResults(
  toolUseIds: readonly string[],
  limits: MessageLimits,
): PreparedMessage {
  const message: StoredMessageData = {
    role: 'user',
    content: toolUseIds.map((toolUseId) => ({
      toolResult: { toolUseId, status: 'error', content: [{ text: INTERRUPTED_TOOL_RESULT_TEXT }] },
    })),
    trackingId: mintTrackingId(),
    metadata: { custom: { contextLedger: { repair: MISSING_TOOL_RESULT_REPAIR } } },
  }
  return prepareMessage(message, -1, estimateTokens, limits, 'own')
}
