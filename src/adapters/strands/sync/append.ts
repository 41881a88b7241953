/**
 * Storing a message the sync has not seen: recognized as the session's seed, appended (repaired if the
 * store refuses it as it is), or refused (logged).
 */
import type { Message } from '@strands-agents/sdk'
import { isContextLedgerError, type ContextLedgerError } from '../../../errors.js'
import type { MessageData } from '../../../messages/types.js'
import type { LedgerEntry } from '../../../store/context-store.js'
import { toLedgerMessage } from '../convert.js'
import { appendOrOverlay } from './edits.js'
import { appendPinned, recordPin } from './pin-sync.js'
import { appendRepaired } from './repair.js'
import { contentKey, logRefusal, type SyncContext } from './sync-context.js'

/** What storing a new message came to. */
export type Stored =
  | {
      readonly refused?: undefined
      /** The repair row the store wrote before the message, answering calls left open. */
      readonly repairRow: LedgerEntry | undefined
      /** The stored entry, when the message was appended (not a seed, not an edit of the newest). */
      readonly entry?: LedgerEntry | undefined
    }
  | { readonly refused: ContextLedgerError }

/**
 * Stores a message the sync has not seen (see the module comment).
 *
 * @param sync - the agent's sync
 * @param message - the live message
 * @param pinned - whether it carries Strands' pin flag (recorded as a pin)
 * @param seedEntry - at start, the session's message at the same position, to recognize a seed
 * @param form - what to store instead of the live message's current form: the form it was added in
 * @returns the stored entry and the repair row written before it, or the refusal (already logged)
 */
export function storeNew(
  sync: SyncContext,
  message: Message,
  pinned: boolean,
  seedEntry: LedgerEntry | undefined,
  form?: MessageData,
): Stored {
  const data = form ?? toLedgerMessage(message)
  if (seedEntry !== undefined && contentKey(seedEntry.message) === contentKey(data)) {
    if (pinned) recordPin(sync, { seq: seedEntry.seq }, true)
    return { repairRow: undefined }
  }
  let entry: LedgerEntry | undefined
  let pinKept = pinned
  try {
    if (pinned) ({ entry, pinKept } = appendPinned(sync, data, (d) => appendOrOverlay(sync, d)))
    else entry = appendOrOverlay(sync, data)
    // A copy of an earlier message is stored as a new occurrence under a new trackingId: the live
    // message takes it, so agent.messages and the window name the same message.
    if (entry !== undefined && entry.trackingId !== data.trackingId)
      Object.assign(message, { trackingId: entry.trackingId })
  } catch (error) {
    if (isUnstorable(error)) {
      // Nothing about the message can be repaired: the token counter cannot count it, or its trackingId
      // names another message. Refused once, like a message repair cannot fix, so no later write retries it.
      logRefusal(
        sync,
        message,
        error,
        {},
        `message refused by the store (${error.message}): not stored, removed from agent.messages`,
      )
      return { refused: error }
    }
    if (!isContextLedgerError(error, 'INVALID_MESSAGE')) throw error
    const repaired = appendRepaired(sync, message, data, error)
    if (repaired.refused !== undefined) return repaired
    entry = repaired.entry
  }
  if (pinKept) recordPin(sync, { trackingId: message.trackingId }, true)
  return { repairRow: entry?.repair, entry }
}

/**
 * Whether the store refused a message for a reason no repair and no retry can change: the token
 * counter throws on it or answers no count (`INVALID_TOKEN_COUNT`), or its trackingId is the session's
 * newest message's with other content (`DUPLICATE_MESSAGE`).
 *
 * @param error - what the append threw
 * @returns true for such a refusal
 */
export function isUnstorable(error: unknown): error is ContextLedgerError {
  return (
    isContextLedgerError(error, 'INVALID_TOKEN_COUNT') || isContextLedgerError(error, 'DUPLICATE_MESSAGE')
  )
}

/**
 * Whether an error of storing a message is its refusal (the message is dropped from `agent.messages`,
 * the others are still stored), rather than a failure of the write itself (a busy or full disk).
 *
 * @param error - what storing the message threw
 * @returns true for a refusal
 */
export function isRefusal(error: unknown): error is ContextLedgerError {
  return isContextLedgerError(error, 'INVALID_MESSAGE') || isUnstorable(error)
}
