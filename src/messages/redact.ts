/**
 * The default form a redacted message takes in the archive: every piece of content replaced by a marker,
 * while the role, the trackingId and the toolUse / toolResult ids (with tool names and statuses) stay, so
 * tool pairs and the window around the message remain valid. Metadata keeps only the pin flag and the
 * store's own repair marker: usage figures are harmless, but custom keys may hold anything.
 */
import type { ContentBlockData, JsonValue, StoredMessageData } from './types.js'

/** The text that replaces redacted content. */
export const REDACTED_TEXT = '[redacted]'

function redactBlock(block: ContentBlockData): ContentBlockData {
  if ('toolUse' in block)
    return { toolUse: { toolUseId: block.toolUse.toolUseId, name: block.toolUse.name, input: {} } }
  if ('toolResult' in block)
    return {
      toolResult: {
        toolUseId: block.toolResult.toolUseId,
        status: block.toolResult.status,
        content: [{ text: REDACTED_TEXT }],
      },
    }
  return { text: REDACTED_TEXT }
}

/**
 * The redacted form of a message (see the module comment).
 *
 * @param message - the archived message
 * @returns a new message with the same role, trackingId and tool ids, and no other content
 */
export function redactedForm(message: StoredMessageData): StoredMessageData {
  const custom: Record<string, JsonValue> = {}
  if (message.metadata?.custom?.pinned === true) custom.pinned = true
  const repair = (message.metadata?.custom?.contextLedger as { repair?: JsonValue } | undefined)?.repair
  if (repair !== undefined) custom.contextLedger = { repair }
  return {
    role: message.role,
    content: message.content.map(redactBlock),
    trackingId: message.trackingId,
    ...(Object.keys(custom).length > 0 ? { metadata: { custom } } : {}),
  }
}
