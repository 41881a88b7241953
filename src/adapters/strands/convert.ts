/**
 * Crossing between Strands' `Message` objects and the ledger's JSON form. The ledger stores exactly
 * `message.toJSON()` and gives it back through `Message.fromJSON`, which round-trips byte-identically for
 * every block kind (the one lossy field, `ToolResultBlock.error`, is not serialized by Strands either).
 * Pins cross as Strands' flag, `metadata.custom.pinned === true`, set in place as Strands' helpers do.
 */
import { Message } from '@strands-agents/sdk'
import type { MessageData as StrandsMessageData } from '@strands-agents/sdk'
import type { MessageData, StoredMessageData } from '../../index.js'

/**
 * The JSON form of a Strands message, as the ledger stores it.
 *
 * @param message - a live Strands message
 * @returns its `toJSON()`, typed as the ledger's structurally equal `MessageData`
 */
export function toLedgerMessage(message: Message): StoredMessageData {
  // The ledger's types are structural copies of the SDK's; the store validates with zod on the way in.
  return message.toJSON() as unknown as StoredMessageData
}

/**
 * A live Strands message from the ledger's JSON form.
 *
 * @param data - a message from `window()` or `history()`
 * @returns a new `Message` (bytes decoded, trackingId kept)
 */
export function fromLedgerMessage(data: MessageData): Message {
  return Message.fromJSON(data as unknown as StrandsMessageData)
}

/**
 * Whether a live message carries Strands' pin flag.
 *
 * @param message - a Strands message
 * @returns true when `metadata.custom.pinned === true`
 */
export function hasStrandsPin(message: Message): boolean {
  return message.metadata?.custom?.pinned === true
}

/**
 * Sets or clears Strands' pin flag in place, as the SDK's `pinMessage` / `unpinMessage` do: other metadata
 * is kept, and an emptied `custom` (then `metadata`) is removed.
 *
 * @param message - the message to change
 * @param pinned - the flag to set
 */
export function setStrandsPin(message: Message, pinned: boolean): void {
  if (hasStrandsPin(message) === pinned) return
  if (pinned) {
    message.metadata = { ...message.metadata, custom: { ...message.metadata?.custom, pinned: true } }
    return
  }
  const { pinned: _dropped, ...custom } = message.metadata?.custom ?? {}
  const { custom: _old, ...rest } = message.metadata ?? {}
  const next = Object.keys(custom).length > 0 ? { ...rest, custom } : rest
  if (Object.keys(next).length > 0) message.metadata = next
  else delete message.metadata
}
