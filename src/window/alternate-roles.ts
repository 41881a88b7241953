/**
 * A window whose roles strictly alternate, for providers that require it (Bedrock Converse refuses two
 * user messages in a row; Anthropic merges them itself). A ledger window can hold consecutive messages of
 * one role: a pinned message kept before the boundary, a repair row before the next prompt, a late tool
 * result. Merging each run of same-role messages into one keeps every block and keeps the window valid:
 * in a user run, the toolResult blocks (which answer the assistant message just before the run) come
 * first, then the other blocks in order; an assistant run is concatenated in order. This is a
 * materialization only: the archive and `window()` are unchanged.
 */
import { ContextLedgerError } from '../errors.js'
import { withPinFlag } from '../messages/pin-flag.js'
import type { ContentBlockData, JsonValue, StoredMessageData } from '../messages/types.js'

function merge(run: readonly StoredMessageData[]): StoredMessageData {
  const first = run[0] as StoredMessageData
  if (run.length === 1) return first
  const blocks = run.flatMap((m) => m.content)
  const content: ContentBlockData[] =
    first.role === 'user'
      ? [...blocks.filter((b) => 'toolResult' in b), ...blocks.filter((b) => !('toolResult' in b))]
      : blocks
  const custom = first.metadata?.custom ?? {}
  const own = custom.contextLedger
  const ledgerKeys = typeof own === 'object' && own !== null && !Array.isArray(own) ? own : {}
  const mergedFrom: JsonValue = run.map((m) => m.trackingId)
  const merged: StoredMessageData = {
    role: first.role,
    content,
    trackingId: first.trackingId,
    metadata: {
      ...first.metadata,
      custom: { ...custom, contextLedger: { ...ledgerKeys, mergedFrom } },
    },
  }
  return withPinFlag(
    merged,
    run.some((m) => m.metadata?.custom?.pinned === true),
  )
}

/**
 * Merges every run of consecutive same-role messages (see the module comment).
 *
 * @param window - a window, as `window()` returns it
 * @returns messages whose roles alternate; a message that needed no merging is returned as is, a merged
 *   one carries the first message's trackingId and metadata, the pin flag when any part was pinned, and
 *   `metadata.custom.contextLedger.mergedFrom` listing the trackingIds it holds
 *
 * @example
 * ```ts
 * // For a provider that requires strictly alternating roles (what `window({ alternate: true })` does):
 * const request = alternateRoles(manager.window())
 * ```
 */
export function alternateRoles(window: readonly StoredMessageData[]): StoredMessageData[] {
  const out: StoredMessageData[] = []
  let run: StoredMessageData[] = []
  for (const message of window) {
    if (run.length > 0 && (run[0] as StoredMessageData).role !== message.role) {
      out.push(merge(run))
      run = []
    }
    run.push(message)
  }
  if (run.length > 0) out.push(merge(run))
  return out
}

/**
 * The error for `window({ alternate: true })` on a session of another format than Strands: merging
 * same-role messages is Strands' provider-strict form; an AI SDK window goes to the model through the SDK,
 * which converts it itself.
 *
 * @param sessionId - the session
 * @param format - its format
 * @returns the error to throw
 */
export function alternateRefused(sessionId: string, format: string): ContextLedgerError<'INVALID_OPTIONS'> {
  return new ContextLedgerError(
    'INVALID_OPTIONS',
    `Invalid option alternate: session "${sessionId}" holds '${format}' messages; the alternating form is for Strands sessions (pass the window as it is)`,
    { path: 'alternate', sessionId },
  )
}
