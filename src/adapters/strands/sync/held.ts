/**
 * Messages held until the end of an invocation (`durability: 'invocation'`). Every commit writes each
 * page it changes in full, and one message changes a leaf in each of several B-trees (the messages, their
 * seq and trackingId indexes, cut points, tool links): written one commit per message, a 4-message turn
 * wrote those leaves four times over. Held and written with the window in one transaction, it writes
 * them once.
 *
 * A message is held only when storing it later cannot change what the model is shown before then: it
 * continues the conversation exactly as the agent shows it (it follows the newest stored row, or the
 * last held message — or it holds tool calls, whose result always comes next and is written with it),
 * answers every call of the message before it and nothing else, is valid as it is
 * (so no repair rewrites it), carries no pin, is new to the session, and (with `alternate`) does not join
 * the message before it. Anything else is stored at once,
 * after the held messages, by the same path as with `durability: 'message'`.
 */
import type { Message } from '@strands-agents/sdk'
import { snapshotMessage } from '../../../messages/schema.js'
import type { MessageData } from '../../../messages/types.js'
import { isRandomUuid, mintTrackingId } from '../../../messages/tracking-id.js'
import { hasStrandsPin, toLedgerMessage } from '../convert.js'
import { storedEntry, type SyncContext } from './sync-context.js'

/**
 * At most this many messages are held: past it they are written, so a long invocation (an agent calling
 * tools for an hour) is written in steps and a crash loses at most this many of its messages.
 */
export const MAX_HELD_MESSAGES = 32

/** A message held, with the form it was added in (what is stored, whatever happens to it meanwhile). */
export interface Held {
  /** The live message. */
  readonly message: Message
  /** Its ledger form when it was added. */
  readonly form: MessageData
}

/** The messages an agent added that are not stored yet, oldest first. */
export class HeldMessages {
  private list: Held[] = []
  /** The session's message count when the first held message arrived: another writer changes it. */
  private countAtStart = 0

  /** How many messages are held. */
  get size(): number {
    return this.list.length
  }

  /** The newest held message. */
  last(): Message | undefined {
    return this.list.at(-1)?.message
  }

  /**
   * @param trackingId - a trackingId
   * @returns whether a held message has it
   */
  has(trackingId: string): boolean {
    return this.list.some((h) => h.message.trackingId === trackingId)
  }

  /**
   * Holds a message.
   *
   * @param held - the live message and the form it was added in
   * @param sessionCount - the session's message count now
   */
  hold(held: Held, sessionCount: number): void {
    if (this.list.length === 0) this.countAtStart = sessionCount
    this.list.push(held)
  }

  /**
   * @param sessionCount - the session's message count now
   * @returns whether no other writer stored a message since the first held one arrived
   */
  unchangedSince(sessionCount: number): boolean {
    return this.list.length === 0 || this.countAtStart === sessionCount
  }

  /** @returns the held messages, no longer held */
  take(): Held[] {
    const taken = this.list
    this.list = []
    return taken
  }

  /**
   * Holds messages again (a write of them failed); the next message is then written, not held, which
   * tries them again.
   *
   * @param messages - what {@link take} returned
   */
  restore(messages: readonly Held[]): void {
    this.list = [...messages, ...this.list]
    this.countAtStart = -1
  }
}

function toolIds(message: Message, kind: 'toolUse' | 'toolResult'): string[] {
  return toLedgerMessage(message).content.flatMap((b) => {
    if (kind === 'toolUse' && 'toolUse' in b) return [b.toolUse.toolUseId]
    if (kind === 'toolResult' && 'toolResult' in b) return [b.toolResult.toolUseId]
    return []
  })
}

/** Whether `message` is an assistant message holding tool calls. */
function isCall(message: Message): boolean {
  return message.role === 'assistant' && toolIds(message, 'toolUse').length > 0
}

/** Whether `message` answers every call of `previous`, each once, and nothing else. */
function pairsWith(previous: Message, message: Message): boolean {
  const calls = toolIds(previous, 'toolUse')
  const answers = toolIds(message, 'toolResult')
  if (calls.length === 0) return answers.length === 0
  if (message.role !== 'user' || answers.length !== calls.length) return false
  const open = new Set(calls)
  return open.size === calls.length && answers.every((id) => open.delete(id))
}

/** The message's ledger form (a copy), when the store takes it as it is (no repair, no refusal). */
function validForm(sync: SyncContext, message: Message): MessageData | undefined {
  try {
    return snapshotMessage(toLedgerMessage(message), sync.ledger.store.limits)
  } catch {
    return undefined
  }
}

/**
 * Whether a message the agent just added may be held (see the module comment).
 *
 * @param sync - the agent's sync
 * @param held - the messages held so far
 * @param message - the message, the last of `agent.messages`
 * @param sessionCount - the session's message count now
 * @param minted - its trackingId was just minted (so the session cannot know it)
 * @returns what to hold — the message with a copy of the form it is added in — or undefined when it must
 *   be stored now
 */
export function holdable(
  sync: SyncContext,
  held: HeldMessages,
  message: Message,
  sessionCount: number,
  minted: boolean,
): Held | undefined {
  if (held.size >= MAX_HELD_MESSAGES || hasStrandsPin(message)) return undefined
  const messages = sync.agent.messages
  if (messages.at(-1) !== message) return undefined
  const previous = messages.at(-2)
  if (previous === undefined || !pairsWith(previous, message)) return undefined
  // With `alternate`, a message of the previous one's role joins it in the view at once.
  if (sync.alternate && previous.role === message.role) return undefined
  const id = message.trackingId
  if (sync.tracked.has(id) || held.has(id)) return undefined
  if (isCall(message)) {
    // Strands adds a call together with its result, once the tool has run: held until the result comes,
    // the two are written in one transaction, so another writer's message never lands between them (it
    // would answer the call with a repair row). Written after whatever another writer stored meanwhile.
    if (!sync.tracked.has(previous.trackingId) && previous !== held.last()) return undefined
  } else if (held.size > 0) {
    if (previous !== held.last() || !held.unchangedSince(sessionCount)) return undefined
  } else if (
    !sync.tracked.has(previous.trackingId) ||
    storedEntry(sync.ledger, previous.trackingId)?.seq !== sessionCount - 1 ||
    // Calls already stored are answered at once: held, their answer would leave them open on disk, and
    // another writer's next message would answer them with a repair row.
    toolIds(previous, 'toolUse').length > 0
  )
    return undefined
  const form = validForm(sync, message)
  if (form === undefined || (!minted && storedEntry(sync.ledger, id) !== undefined)) return undefined
  return { message, form }
}

/**
 * Gives a message Strands added under a random trackingId (`crypto.randomUUID()`, what Strands mints) a
 * time-ordered one instead, when the session does not know it: its row then lands at the end of the
 * trackingId index rather than on a random leaf (see `messages/tracking-id.ts`). A random id carries
 * nothing but its uniqueness; the live message takes the new one, so `agent.messages`, the window and
 * Strands' own later references (a merge, a redaction) name the same message. Any other id is kept.
 *
 * @param sync - the agent's sync
 * @param held - the messages held so far
 * @param message - the message the agent just added
 * @returns true when it took a new trackingId
 */
export function orderTrackingId(sync: SyncContext, held: HeldMessages, message: Message): boolean {
  const id = message.trackingId
  if (!isRandomUuid(id) || sync.tracked.has(id) || held.has(id)) return false
  if (storedEntry(sync.ledger, id) !== undefined) return false
  Object.assign(message, { trackingId: mintTrackingId() })
  return true
}
