/**
 * What the window rules need to know about a message, derived once on append: its tool ids and whether
 * it can start a window. Kept pure so the SQL path and the array reference classify identically.
 */
import type { MessageData } from './types.js'

/** The facts about one message that the window rules use. */
export interface MessageClass {
  /** `'user'` or `'assistant'`. */
  role: MessageData['role']
  /** toolUseIds of the message's toolUse blocks, in order. */
  toolUseIds: string[]
  /** toolUseIds answered by the message's toolResult blocks, in order. */
  toolResultIds: string[]
  /** A user message with neither toolUse nor toolResult: always a valid window start. */
  plainUser: boolean
}

/**
 * Classifies a message for the window rules.
 *
 * @param message - a validated message
 * @returns its role, tool ids and plain-user flag
 */
export function classifyMessage(message: MessageData): MessageClass {
  const toolUseIds: string[] = []
  const toolResultIds: string[] = []
  for (const block of message.content) {
    if ('toolUse' in block) toolUseIds.push(block.toolUse.toolUseId)
    else if ('toolResult' in block) toolResultIds.push(block.toolResult.toolUseId)
  }
  return {
    role: message.role,
    toolUseIds,
    toolResultIds,
    plainUser: message.role === 'user' && toolUseIds.length === 0 && toolResultIds.length === 0,
  }
}

/**
 * Whether a message can start a window given the message after it (Strands' `findValidTrimPoint` rule):
 * a user message without toolResult, whose toolUse (if any) is answered by the next message.
 *
 * @param current - the candidate message's class
 * @param next - the following message's class, or undefined when there is none yet
 * @returns true when a window may begin at `current`
 */
export function isTrimPoint(current: MessageClass, next: MessageClass | undefined): boolean {
  if (current.role !== 'user' || current.toolResultIds.length > 0) return false
  // A user-side message that neither prompts nor answers (an AI SDK tool message of approval responses)
  // opens nothing: it belongs to the calls before it. A Strands user message without tool blocks is plain.
  if (current.toolUseIds.length === 0) return current.plainUser
  return next !== undefined && next.toolResultIds.length > 0
}

/**
 * Whether `current` is an assistant toolUse immediately answered by a user toolResult: the place where
 * Strands' fallback may cut when a turn has no other trim point. Ids are not compared, as in Strands.
 *
 * @param current - the candidate message's class
 * @param next - the following message's class, or undefined when there is none yet
 * @returns true when `current` starts such a tool pair
 */
export function isToolPairStart(current: MessageClass, next: MessageClass | undefined): boolean {
  return (
    current.role === 'assistant' &&
    current.toolUseIds.length > 0 &&
    next !== undefined &&
    next.role === 'user' &&
    next.toolResultIds.length > 0
  )
}
