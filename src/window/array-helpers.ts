/**
 * Pure helpers over message arrays, for callers who hold messages in memory (and for the tests). They
 * follow Strands 1.19's semantics (`pin-message.ts`, `findValidTrimPoint`, `adjustSplitPointForToolPairs`)
 * but never mutate their input: pinning returns a new message.
 */
import { ContextLedgerError } from '../errors.js'
import { classifyMessage, isTrimPoint } from '../messages/classify.js'
import { hasPinFlag, withPinFlag } from '../messages/pin-flag.js'
import type { MessageData } from '../messages/types.js'

function toolUseIds(message: MessageData | undefined): string[] {
  return message === undefined ? [] : classifyMessage(message).toolUseIds
}
function toolResultIds(message: MessageData | undefined): string[] {
  return message === undefined ? [] : classifyMessage(message).toolResultIds
}

/**
 * Whether a message is pinned. With one argument: whether it carries the flag
 * (`metadata.custom.pinned === true`). With an array and an index: also true for the adjacent tool-pair
 * partner of a flagged message, matched by toolUseId (Strands' `isPinned(messages, index)`).
 *
 * @param messageOrMessages - one message, or the array holding it
 * @param index - the position in the array, when an array is given
 * @returns whether it is pinned (or protected as a pinned message's partner)
 *
 * @example
 * ```ts
 * isPinned(pinMessage({ role: 'user', content: [{ text: 'The task' }] })) // true
 * isPinned(messages, 2) // true when messages[1] is pinned and holds the toolUse this result answers
 * ```
 */
export function isPinned(message: MessageData): boolean
export function isPinned(messages: readonly MessageData[], index: number): boolean
export function isPinned(messageOrMessages: MessageData | readonly MessageData[], index?: number): boolean {
  if (!Array.isArray(messageOrMessages)) return hasPinFlag(messageOrMessages as MessageData)
  const messages = messageOrMessages as readonly MessageData[]
  const message = messages[index ?? -1]
  if (message === undefined) return false
  if (hasPinFlag(message)) return true
  const prev = messages[(index as number) - 1]
  if (prev !== undefined && hasPinFlag(prev)) {
    const uses = new Set(toolUseIds(prev))
    if (toolResultIds(message).some((id) => uses.has(id))) return true
  }
  const next = messages[(index as number) + 1]
  if (next !== undefined && hasPinFlag(next)) {
    const results = new Set(toolResultIds(next))
    if (toolUseIds(message).some((id) => results.has(id))) return true
  }
  return false
}

/**
 * Returns a pinned copy of a message (trackingId and other metadata kept).
 *
 * @param message - the message to pin
 * @returns a new message with `metadata.custom.pinned = true`
 *
 * @example
 * ```ts
 * const pinned = pinMessage({ role: 'user', content: [{ text: 'The task' }] })
 * pinned.metadata // { custom: { pinned: true } }; the argument is unchanged
 * ```
 */
export function pinMessage<M extends MessageData>(message: M): M {
  return withPinFlag(message, true)
}

/**
 * Returns an unpinned copy of a message; empty `custom` and `metadata` objects are dropped.
 *
 * @param message - the message to unpin
 * @returns a new message without the pin flag
 */
export function unpinMessage<M extends MessageData>(message: M): M {
  return withPinFlag(message, false)
}

/**
 * The first index at or after `start` where a window may begin: a user message without toolResult
 * whose toolUse, if any, is answered by the next message (Strands' `findValidTrimPoint`).
 *
 * @param messages - the conversation
 * @param start - where to start looking
 * @returns that index, or `messages.length` when there is none
 *
 * @example
 * ```ts
 * const messages: MessageData[] = [
 *   { role: 'user', content: [{ text: 'Find the invoice' }] },
 *   { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'search', input: {} } }] },
 *   { role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'found' }] } }] },
 *   { role: 'assistant', content: [{ text: 'Here it is' }] },
 *   { role: 'user', content: [{ text: 'Thanks' }] },
 * ]
 * findValidTrimPoint(messages, 1) // 4: index 2 is a toolResult, index 3 an assistant message
 * ```
 */
export function findValidTrimPoint(messages: readonly MessageData[], start: number): number {
  for (let i = Math.max(0, start); i < messages.length; i++) {
    const next = messages[i + 1]
    if (isTrimPoint(classifyMessage(messages[i] as MessageData), next && classifyMessage(next))) return i
  }
  return messages.length
}

/**
 * Moves a split point forward until it neither lands on a toolResult nor separates a toolUse from its
 * result (Strands' summarizer rule; roles are not checked).
 *
 * @param messages - the conversation
 * @param split - the proposed split index
 * @returns the adjusted index (`split` itself when it is at or past the end)
 * @throws ContextLedgerError `NO_VALID_SPLIT` when the walk reaches the end
 *
 * @example
 * ```ts
 * // with `messages` as in the findValidTrimPoint example
 * adjustSplitPointForToolPairs(messages, 2) // 3: index 2 is a toolResult
 * adjustSplitPointForToolPairs(messages, 1) // 1: the toolUse at 1 keeps its answer at 2
 * ```
 */
export function adjustSplitPointForToolPairs(messages: readonly MessageData[], split: number): number {
  if (split >= messages.length) return split
  let i = Math.max(0, split)
  while (i < messages.length) {
    const here = classifyMessage(messages[i] as MessageData)
    const next = messages[i + 1]
    const answered = next !== undefined && classifyMessage(next).toolResultIds.length > 0
    if (here.toolResultIds.length === 0 && (here.toolUseIds.length === 0 || answered)) return i
    i++
  }
  throw new ContextLedgerError(
    'NO_VALID_SPLIT',
    `Unable to find a valid split point at or after index ${split} of ${messages.length} messages`,
  )
}

/** Message filters for queries and tools. */
export type MessageType = 'tools' | 'messages' | 'all'

/**
 * Whether a message belongs to a filter: `'tools'` holds a toolUse or toolResult, `'messages'` holds
 * neither, `'all'` is everything.
 *
 * @param message - the message to test
 * @param type - the filter
 * @returns true when the message matches
 *
 * @example
 * ```ts
 * const toolRounds = history.filter((m) => matchesMessageType(m, 'tools'))
 * ```
 */
export function matchesMessageType(message: MessageData, type: MessageType): boolean {
  if (type === 'all') return true
  const c = classifyMessage(message)
  const tools = c.toolUseIds.length > 0 || c.toolResultIds.length > 0
  return type === 'tools' ? tools : !tools
}
