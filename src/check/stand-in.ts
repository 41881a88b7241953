/**
 * What the checker reads of a body `append` would refuse (reported as such by `message-rules.ts`): its
 * role, its trackingId, its metadata and the tool blocks it can still tell apart — so the rules that follow (the window
 * rules, the tool links, the flags) read a message they can walk instead of throwing on a block that is
 * `null`, content that is no list, or a body that is no object.
 */
import type { ContentBlockData, StoredMessageData } from '../messages/types.js'

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A toolUse or toolResult block whose id can be read, or any other block that is an object. */
function readable(block: unknown): block is ContentBlockData {
  if (!isObject(block)) return false
  for (const kind of ['toolUse', 'toolResult'])
    if (Object.hasOwn(block, kind)) {
      const inner = block[kind]
      return isObject(inner) && typeof inner.toolUseId === 'string'
    }
  return true
}

/**
 * The message a body stands for, as far as it can be read.
 *
 * @param body - a stored body the validator refused
 * @param trackingId - its row's trackingId, for a body that names none
 * @returns a message of its role (a user message when it has none) with the blocks that can be read
 */
export function standIn(body: unknown, trackingId: string): StoredMessageData {
  const o = isObject(body) ? body : {}
  const content = Array.isArray(o.content) ? (o.content as unknown[]).filter(readable) : []
  return {
    role: o.role === 'assistant' ? 'assistant' : 'user',
    content,
    trackingId: typeof o.trackingId === 'string' ? o.trackingId : trackingId,
    // Kept for the pin flag: the window rules read only `metadata.custom.pinned`, with optional chaining.
    ...(isObject(o.metadata) ? { metadata: o.metadata } : {}),
  }
}
