/**
 * Pins cross between Strands and the ledger both ways: a pin flag set on a live message the Strands way
 * is recorded in the store (actor `'strands'`), and a pin the store already holds is shown as the flag.
 */
import type { Message } from '@strands-agents/sdk'
import type { MessageRef, PinAttribution } from '../../../store/context-store.js'
import { setStrandsPin } from '../convert.js'
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
  if (pinned) sync.ledger.pin(ref, STRANDS_PIN)
  else sync.ledger.unpin(ref, STRANDS_PIN)
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
