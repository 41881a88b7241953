/**
 * Crossing between Strands' `Message` objects and the ledger's JSON form. The ledger stores exactly
 * `message.toJSON()` and gives it back through `Message.fromJSON`, which round-trips byte-identically for
 * every block kind (the one lossy field, `ToolResultBlock.error`, is not serialized by Strands either).
 * Pins cross as Strands' flag, `metadata.custom.pinned === true`, set in place as Strands' helpers do.
 */
import { Message } from '@strands-agents/sdk'
import type { MessageData as StrandsMessageData } from '@strands-agents/sdk'
import type { MessageData, StoredMessageData } from '../../messages/types.js'
import { isPinned, pinMessage, unpinMessage } from '../../window/array-helpers.js'

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

/** The metadata-only view of a live message that the ledger's pin helpers read and write. */
function metadataOf(message: Message): MessageData {
  const metadata = message.metadata as MessageData['metadata']
  return metadata === undefined
    ? { role: message.role, content: [] }
    : { role: message.role, content: [], metadata }
}

/**
 * Whether a live message carries Strands' pin flag.
 *
 * @param message - a Strands message
 * @returns true when `metadata.custom.pinned === true`
 */
export function hasStrandsPin(message: Message): boolean {
  return isPinned(metadataOf(message))
}

/**
 * Sets or clears Strands' pin flag in place, as the SDK's `pinMessage` / `unpinMessage` do: other metadata
 * is kept, and an emptied `custom` (then `metadata`) is removed — the ledger's `pinMessage` /
 * `unpinMessage` decide the new metadata, applied to the live object.
 *
 * @param message - the message to change
 * @param pinned - the flag to set
 */
export function setStrandsPin(message: Message, pinned: boolean): void {
  if (hasStrandsPin(message) === pinned) return
  const next = (pinned ? pinMessage : unpinMessage)(metadataOf(message)).metadata
  if (next === undefined) delete message.metadata
  else message.metadata = next
}

/**
 * Makes a live message equal to its stored form, in place — content, metadata and trackingId — so every
 * holder of the object (`agent.messages`, the agent's result) sees what the ledger archived.
 *
 * @param message - the live message
 * @param stored - the form the ledger holds (same role)
 */
export function assignStoredForm(message: Message, stored: MessageData): void {
  const fresh = fromLedgerMessage(stored)
  // `content` is a readonly reference to a mutable array: replace its blocks, not the array.
  message.content.splice(0, message.content.length, ...fresh.content)
  if (fresh.metadata === undefined) delete message.metadata
  else message.metadata = fresh.metadata
  // trackingId is readonly in the SDK's typings but a plain field; a repaired id must be the one shown.
  if (message.trackingId !== fresh.trackingId) Object.assign(message, { trackingId: fresh.trackingId })
}
