/** Appending a conversation in chunks, as a property test's random chunk sizes say. */
import type { MessageData } from '../../src/index.js'

/**
 * Appends `messages` in chunks of the given sizes, the rest in one last append: a call and its results
 * may then arrive in different appends.
 *
 * @param m - what appends (a manager of either backend)
 * @param messages - the conversation, in order
 * @param sizes - the chunk sizes (each at least 1)
 */
export async function appendInChunks(
  m: { append(messages: MessageData[]): Promise<unknown> },
  messages: readonly MessageData[],
  sizes: readonly number[],
): Promise<void> {
  let at = 0
  for (const size of sizes) {
    if (at >= messages.length) return
    await m.append(messages.slice(at, at + size))
    at += size
  }
  if (at < messages.length) await m.append(messages.slice(at))
}
