/**
 * Pins cross between Strands and the ledger both ways: a pin flag set on a live message the Strands way
 * is recorded in the store (actor `'strands'`), and a pin the store already holds is shown as the flag.
 */
import type { Message } from '@strands-agents/sdk'
import { isContextLedgerError, type ContextLedgerError } from '../../../errors.js'
import { withPinFlag } from '../../../messages/pin-flag.js'
import type { MessageData } from '../../../messages/types.js'
import type { LedgerEntry, MessageRef, PinAttribution } from '../../../store/context-store.js'
import { setStrandsPin } from '../convert.js'
import { logLine } from '../log.js'
import type { SyncContext } from './sync-context.js'

const STRANDS_PIN: PinAttribution = { actor: 'strands', reason: 'metadata.custom.pinned' }

/**
 * Records a pin or unpin made the Strands way (the flag on a live message) in the store.
 *
 * @param sync - the agent's sync
 * @param ref - the stored message
 * @param pinned - pin (true) or unpin (false)
 */
export function recordPin(sync: SyncContext, ref: MessageRef, pinned: boolean): void {
  if (!pinned) {
    sync.ledger.unpin(ref, STRANDS_PIN)
    return
  }
  try {
    sync.ledger.pin(ref, STRANDS_PIN)
  } catch (error) {
    // The adapter's refs are well formed, so INVALID_OPTIONS at `ref` is the store's refusal of a pin no
    // window can keep (a message before the session's first plain user message): the agent goes on.
    if (!isContextLedgerError(error, 'INVALID_OPTIONS') || error.path !== 'ref') throw error
    warnPinNotKept(sync, 'trackingId' in ref ? ref.trackingId : undefined, error)
  }
}

/**
 * Appends a live message that carries Strands' pin flag. When the store refuses only the flag — no window
 * can show a message before the session's first plain user message (docs/design.md, "Window rules") — the
 * message is appended without it and a warning logged: the archive keeps the message and the agent goes
 * on, where a refusal would have removed the message from `agent.messages`.
 *
 * @param sync - the agent's sync
 * @param data - the message as it is to be stored, pin flag included
 * @param append - the append to make (and to make again without the flag)
 * @returns the stored entry, and whether the pin was kept
 */
export function appendPinned(
  sync: SyncContext,
  data: MessageData,
  append: (data: MessageData) => LedgerEntry | undefined,
): { entry: LedgerEntry | undefined; pinKept: boolean } {
  try {
    return { entry: append(data), pinKept: true }
  } catch (error) {
    if (!isContextLedgerError(error, 'INVALID_MESSAGE') || error.path !== 'metadata.custom.pinned')
      throw error
    warnPinNotKept(sync, data.trackingId, error)
    return { entry: append(withPinFlag(data, false)), pinKept: false }
  }
}

/** Logs, as a warning, a pin the store would not keep. */
function warnPinNotKept(sync: SyncContext, trackingId: string | undefined, error: ContextLedgerError): void {
  const fields = { session_id: sync.ledger.sessionId, tracking_id: trackingId, code: error.code }
  sync.logger.warn(logLine(fields, `pin flag not kept, the message is stored unpinned: ${error.message}`))
}

/**
 * Sets Strands' pin flag on a live message to the state the store already holds, and records it as
 * seen, so the next adoption records no change.
 *
 * @param sync - the agent's sync
 * @param message - a message of `agent.messages`
 * @param pinned - the state the store holds
 */
export function showPin(sync: SyncContext, message: Message, pinned: boolean): void {
  setStrandsPin(message, pinned)
  sync.tracked.track(message)
}
