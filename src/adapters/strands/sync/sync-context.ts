/**
 * What the parts of an agent's sync share: the agent, the session's core manager, where reports go, and
 * the messages of `agent.messages` as the sync last saw them. Plus the small lookups every part uses.
 */
import type { Logger, LocalAgent, Message } from '@strands-agents/sdk'
import { isContextLedgerError, type ContextLedgerError } from '../../../errors.js'
import type { PersistentConversationManager as LedgerManager } from '../../../manager/persistent-conversation-manager.js'
import { hasPinFlag } from '../../../messages/pin-flag.js'
import { isSummaryMessage } from '../../../summaries/summary-message.js'
import type { MessageData } from '../../../messages/types.js'
import type { LedgerEntry } from '../../../store/context-store.js'
import { hasStrandsPin, toLedgerMessage } from '../convert.js'
import { logLine, type LogFields } from '../log.js'

/** A message of `agent.messages` as the sync last saw it. */
export interface Tracked {
  /** The object, to notice when Strands (or the user) replaced it. */
  message: Message
  /** Its role and content at that time (JSON), to notice an edit made in place. */
  key: string
  /** Its pin flag at that time, to notice a pin or unpin made the Strands way. */
  pinned: boolean
}

/** The messages of `agent.messages` the sync has seen, by trackingId. */
export class TrackedMessages {
  private byId = new Map<string, Tracked>()
  /**
   * The trackingId of the summary the window showed the agent, if any: a message of `agent.messages`
   * that is no message of the archive (see docs/design.md, "Summaries").
   */
  summaryId: string | undefined = undefined

  /**
   * @param trackingId - a live message's trackingId
   * @returns what the sync last saw under it, if anything
   */
  get(trackingId: string): Tracked | undefined {
    return this.byId.get(trackingId)
  }

  /**
   * @param trackingId - a live message's trackingId
   * @returns whether the sync has seen a message under it
   */
  has(trackingId: string): boolean {
    return this.byId.has(trackingId)
  }

  /**
   * Records a live message as seen in its current form, or as `seen` (the form it was stored in, when it
   * has changed since: the next adoption then records the change).
   *
   * @param message - a message of `agent.messages`
   * @param seen - the form to record instead of the live one
   */
  track(message: Message, seen?: MessageData): void {
    this.byId.set(
      message.trackingId,
      seen === undefined
        ? { message, key: keyOf(message), pinned: hasStrandsPin(message) }
        : { message, key: contentKey(seen), pinned: hasPinFlag(seen) },
    )
  }

  /** Forgets every message (`agent.messages` is about to be replaced). */
  clear(): void {
    this.byId = new Map()
    this.summaryId = undefined
  }
}

/** One agent's view of one session: what every part of the sync works on. */
export interface SyncContext {
  /** The agent whose `messages` the sync keeps. */
  readonly agent: LocalAgent
  /** The core manager of the session. */
  readonly ledger: LedgerManager
  /** Where repairs and refusals are reported. */
  readonly logger: Logger
  /** Show the window with runs of same-role messages merged (roles strictly alternate). */
  readonly alternate: boolean
  /** The messages of `agent.messages` as the sync last saw them. */
  readonly tracked: TrackedMessages
}

/**
 * The key that tells whether two messages show the same thing: role and content, as JSON.
 *
 * @param message - a message in the ledger's form
 * @returns the key
 */
export function contentKey(message: { role: string; content: unknown }): string {
  return JSON.stringify([message.role, message.content])
}

/**
 * The content key of a live message.
 *
 * @param message - a Strands message
 * @returns its {@link contentKey}
 */
export function keyOf(message: Message): string {
  return contentKey(toLedgerMessage(message))
}

/**
 * Whether a live message is a summary the ledger made: the one the agent was shown (whatever was done to
 * it since), or a message the sync has not seen that carries the ledger's summary marker.
 *
 * @param sync - the agent's sync
 * @param message - a message of `agent.messages`
 * @returns true for a summary
 */
export function isSummary(sync: SyncContext, message: Message): boolean {
  const id = message.trackingId
  return id === sync.tracked.summaryId || (!sync.tracked.has(id) && isSummaryMessage(message))
}

/**
 * The trackingId of the summary the session's window shows now, if any (two reads; only asked about a
 * summary message the agent was not shown).
 *
 * @param ledger - the core manager of the session
 * @returns the trackingId, or undefined
 */
export function currentSummaryId(ledger: LedgerManager): string | undefined {
  const id = ledger.store.session(ledger.sessionId)?.summaryId
  return id === undefined ? undefined : ledger.summary(id).trackingId
}

/**
 * The trackingIds a message merged for `alternate` holds (`mergedFrom`), or just its own.
 *
 * @param data - a window message
 * @returns the trackingIds it stands for, oldest first
 */
export function mergedFrom(data: MessageData): unknown[] {
  const from = (data.metadata?.custom?.contextLedger as { mergedFrom?: unknown } | undefined)?.mergedFrom
  return Array.isArray(from) ? from : [data.trackingId]
}

/**
 * The session's message with this trackingId, if it holds one.
 *
 * @param ledger - the core manager of the session
 * @param trackingId - the message's trackingId
 * @returns its entry, or undefined
 */
export function storedEntry(ledger: LedgerManager, trackingId: string): LedgerEntry | undefined {
  try {
    return ledger.message({ trackingId })
  } catch (error) {
    if (isContextLedgerError(error, 'MESSAGE_NOT_FOUND')) return undefined
    throw error
  }
}

/**
 * Logs the refusal of a live message, one error line in the adapter's log style.
 *
 * @param sync - the agent's sync
 * @param message - the refused message
 * @param refusal - the error the caller gets
 * @param fields - what else locates the problem (an index, a path)
 * @param text - what happened to the message
 */
export function logRefusal(
  sync: SyncContext,
  message: Message,
  refusal: ContextLedgerError,
  fields: LogFields,
  text: string,
): void {
  const where = {
    session_id: sync.ledger.sessionId,
    tracking_id: message.trackingId,
    role: message.role,
    code: refusal.code,
    ...fields,
  }
  sync.logger.error(logLine(where, text), refusal)
}

/**
 * Removes messages (by identity) from `agent.messages`.
 *
 * @param agent - the agent
 * @param messages - the objects to remove
 */
export function drop(agent: LocalAgent, messages: readonly Message[]): void {
  if (messages.length === 0) return
  const gone = new Set(messages)
  const kept = agent.messages.filter((m) => !gone.has(m))
  agent.messages.splice(0, agent.messages.length, ...kept)
}
