/**
 * Strands' pin flag (`metadata.custom.pinned === true`) read and written without mutating the input,
 * keeping every other metadata key and the tracking id.
 */
import type { MessageData } from './types.js'

/**
 * Whether a message carries Strands' pin flag. Strict: only the boolean `true` counts.
 *
 * @param message - any message
 * @returns true when `metadata.custom.pinned === true`
 */
export function hasPinFlag(message: MessageData): boolean {
  return message.metadata?.custom?.pinned === true
}

/**
 * Returns a copy of `message` with the pin flag set or removed. Removing drops `custom` when it becomes
 * empty, and `metadata` when nothing is left, as Strands' `unpinMessage` does.
 *
 * @param message - the message to copy
 * @param pinned - the flag to set
 * @returns a new message object (the input is not changed); the same object when nothing changes
 */
export function withPinFlag<M extends MessageData>(message: M, pinned: boolean): M {
  if (hasPinFlag(message) === pinned) return message
  const { metadata, ...rest } = message
  if (pinned)
    return {
      ...rest,
      metadata: { ...metadata, custom: { ...metadata?.custom, pinned: true } },
    } as unknown as M
  const { pinned: _dropped, ...custom } = metadata?.custom ?? {}
  const { custom: _old, ...otherMeta } = metadata ?? {}
  const nextMeta = Object.keys(custom).length > 0 ? { ...otherMeta, custom } : otherMeta
  return (Object.keys(nextMeta).length > 0 ? { ...rest, metadata: nextMeta } : rest) as unknown as M
}
