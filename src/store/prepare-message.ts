/**
 * Everything about an incoming message that can be computed before taking the write lock: validation,
 * the tracking id, the exact JSON to store, its classification and its token count. User code (the
 * token counter) therefore never runs inside a transaction. The caller's value is read once, into a
 * plain copy (`snapshotMessage`); the body, the classification and the token count all come from that
 * copy, and the body is serialized before the token counter (caller code) sees the copy. The notes only
 * the library writes are stripped from a caller's message (`messages/reserved-notes.ts`).
 */
import { mintTrackingId } from '../messages/tracking-id.js'
import { classifyMessage, type MessageClass } from '../messages/classify.js'
import { hasPinFlag } from '../messages/pin-flag.js'
import { withoutReservedNotes } from '../messages/reserved-notes.js'
import { snapshotMessage, snapshotMessageAt, type MessageLimits } from '../messages/schema.js'
import { countTokens, type TokenCounter } from '../messages/tokens.js'
import type { MessageData, StoredMessageData } from '../messages/types.js'
import { ContextLedgerError } from '../errors.js'

/** A validated message ready to be written. */
export interface PreparedMessage {
  /** The message as it will be stored and returned (with its tracking id). */
  readonly message: StoredMessageData
  /** `JSON.stringify(message)`: the stored body. */
  readonly body: string
  /** Role, tool ids and plain-user flag. */
  readonly cls: MessageClass
  /** Token count from the configured counter. */
  readonly tokens: number
  /** Whether it arrived with Strands' pin flag. */
  readonly pinned: boolean
  /** Whether its trackingId was minted here (a fresh UUID cannot already be in the session). */
  readonly minted: boolean
  /** Tool name and status per toolUse / toolResult id, for the link rows. */
  readonly toolUses: readonly { id: string; name: string; block: number }[]
  readonly toolResults: readonly { id: string; status: 'success' | 'error'; block: number }[]
}

/**
 * The part of a message that must match for a retried append to be a no-op: role and content.
 * Metadata (usage, custom flags) may legitimately differ between a first attempt and its retry.
 *
 * @param message - a message
 * @returns a string equal for equal role and content
 */
export function contentKey(message: MessageData): string {
  return JSON.stringify([message.role, message.content])
}

/**
 * Validates and prepares one message.
 *
 * @param input - what the caller passed
 * @param index - its position in the batch (errors name it), or -1 for a single message
 * @param counter - the token counter
 * @param limits - validation limits
 * @param notes - `'caller'` (default): the body is a caller's, and the notes only the library writes
 *   (`messages/reserved-notes.ts`) are stripped from it; `'own'`: the store wrote it (a repair row)
 * @returns the prepared message
 * @throws ContextLedgerError `INVALID_MESSAGE` (path prefixed with `[index].` in a batch) or `INVALID_TOKEN_COUNT`
 */
export function prepareMessage(
  input: unknown,
  index: number,
  counter: TokenCounter,
  limits: MessageLimits,
  notes: 'caller' | 'own' = 'caller',
): PreparedMessage {
  const snapshot: MessageData =
    index >= 0 ? snapshotMessageAt(input, index, 'batch', limits) : snapshotMessage(input, limits)
  const valid = notes === 'own' ? snapshot : withoutReservedNotes(snapshot)
  const minted = valid.trackingId === undefined
  // The copy is ours: the minted id goes last, where spreading would put it too.
  if (minted) valid.trackingId = mintTrackingId()
  const message = valid as StoredMessageData
  const body = serialize(message)
  const cls = classifyMessage(message)
  const toolUses: { id: string; name: string; block: number }[] = []
  const toolResults: { id: string; status: 'success' | 'error'; block: number }[] = []
  message.content.forEach((block, i) => {
    if ('toolUse' in block) toolUses.push({ id: block.toolUse.toolUseId, name: block.toolUse.name, block: i })
    else if ('toolResult' in block)
      toolResults.push({ id: block.toolResult.toolUseId, status: block.toolResult.status, block: i })
  })
  const pinned = hasPinFlag(message)
  return { message, body, cls, tokens: countTokens(counter, message), pinned, minted, toolUses, toolResults }
}

/** `JSON.stringify` of a validated copy; only a body too long for a JS string can fail. */
function serialize(message: StoredMessageData): string {
  try {
    return JSON.stringify(message)
  } catch (error) {
    throw new ContextLedgerError('INVALID_MESSAGE', 'Invalid message at (message): too large to serialize', {
      path: '(message)',
      cause: error,
    })
  }
}
