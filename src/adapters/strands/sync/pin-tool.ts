/**
 * The `pin_message` tool against an agent with the ledger's manager: `index` is a position in the
 * messages the model saw (`agent.messages`); the pin goes to the store (actor `'agent'`, the model's
 * reason) and is shown as Strands' flag on the live message. The summary the window shows stands for
 * messages that left it, and cannot be pinned: the model is told so.
 */
import type { Message } from '@strands-agents/sdk'
import {
  checkPinMessageInput,
  handlePinMessage,
  pinMessageInputSchema,
  type PinMessageToolResult,
} from '../../../tools/pin-message-tool.js'
import { adoptMessages } from './adopt.js'
import { showPin } from './pin-sync.js'
import { isSummary, type SyncContext } from './sync-context.js'

/**
 * Runs `pin_message` for the sync's agent.
 *
 * @param sync - the agent's sync
 * @param input - the tool input as the model sent it
 * @returns the text for the model, with `status: 'error'` for a bad index, a summary, or an unpin of an
 *   unpinned message
 */
export function runPinTool(sync: SyncContext, input: unknown): PinMessageToolResult {
  const { agent, ledger } = sync
  // Indices refer to the messages the model saw, before adoption drops any the store refuses.
  const messages = [...agent.messages]
  const checked = checkPinMessageInput(input, messages.length)
  const target = checked.ok ? messages[checked.input.index] : undefined
  if (checked.ok && target !== undefined && isSummary(sync, target))
    return {
      status: 'error',
      text: `Message ${checked.input.index} is a summary of earlier messages and cannot be pinned (or unpinned): it stands for messages that left your context window. Pin a message after it instead.`,
    }
  adoptMessages(sync)
  const result = handlePinMessage(ledger, input, {
    target: {
      count: messages.length,
      resolve: (index) => ({ trackingId: (messages[index] as Message).trackingId }),
    },
  })
  if (result.pin !== undefined) {
    // Keep Strands' flag in step with the store, so the next adoption sees no change to record.
    // A call that reached the store leaves the message pinned exactly when it asked to pin.
    const pinned = pinMessageInputSchema.parse(input).action === 'pin'
    const message = agent.messages.find((m) => m.trackingId === result.pin?.trackingId)
    if (message !== undefined) showPin(sync, message, pinned)
  }
  return result
}
