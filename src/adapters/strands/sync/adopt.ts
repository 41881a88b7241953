/**
 * Adoption: changes made to `agent.messages` outside the agent loop are brought into the store. Messages
 * the ledger does not know are appended; replaced messages (redacted, merged) are recorded as edits;
 * Strands-style pins and unpins are recorded. Messages the store refuses are logged and removed from
 * `agent.messages`. The summary the window shows is no message of the archive: it is never appended, and
 * an edit or a pin made to it is logged and reverted at the next showing of the window.
 *
 * The ledger is append-only, so a new message can only join at the end: one inserted in `agent.messages`
 * before messages the ledger already has is refused the same way (`MESSAGE_OUT_OF_ORDER`, naming its
 * index), never moved to the end behind the caller's back.
 */
import type { Message } from '@strands-agents/sdk'
import { ContextLedgerError } from '../../../errors.js'
import type { LedgerEntry } from '../../../store/context-store.js'
import { storeNew } from './append.js'
import { hasStrandsPin, toLedgerMessage } from '../convert.js'
import { logLine } from '../log.js'
import { recordEdit, refuseMergedEdit } from './edits.js'
import { recordPin } from './pin-sync.js'
import {
  contentKey,
  currentSummaryId,
  drop,
  isSummary,
  keyOf,
  logRefusal,
  mergedFrom,
  storedEntry,
  type SyncContext,
} from './sync-context.js'

/**
 * Brings changes made to `agent.messages` into the store (see the module comment).
 *
 * @param sync - the agent's sync
 * @param seed - at start, the session's first messages, to recognize a seed the session already has
 * @returns the refusals, in order (already logged)
 */
export function adoptMessages(sync: SyncContext, seed?: readonly LedgerEntry[]): ContextLedgerError[] {
  const messages = sync.agent.messages
  const refusals: ContextLedgerError[] = []
  const refused: Message[] = []
  const lastKnown = lastKnownIndex(sync, seed)
  const seen = new Set<string>()
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as Message
    if (isSummary(sync, message)) {
      if (!adoptSummary(sync, message)) refused.push(message)
      continue
    }
    const pinned = hasStrandsPin(message)
    // A second message under a trackingId already met here is a copy (e.g. `clone()` of an earlier
    // message) sent again: new to the ledger, which stores it as a new occurrence.
    const duplicate = seen.has(message.trackingId)
    const tracked = duplicate ? undefined : sync.tracked.get(message.trackingId)
    seen.add(message.trackingId)
    if (tracked === undefined) {
      if (i < lastKnown && !isSeed(seed, i, message) && !inLedger(sync, message.trackingId)) {
        refusals.push(outOfOrder(sync, message, i))
        refused.push(message)
        continue
      }
      // A message the ledger holds (loaded by another plugin, or the agent was built with it) is that
      // message, not a new one: adopted, with any change recorded as an edit.
      const known = duplicate ? undefined : storedEntry(sync.ledger, message.trackingId)
      if (known !== undefined) {
        const key = keyOf(message)
        if (key !== contentKey(known.windowMessage ?? known.message))
          recordEdit(sync, toLedgerMessage(message))
        if (pinned && !known.pinned) recordPin(sync, { trackingId: message.trackingId }, true)
        sync.tracked.track(message)
        continue
      }
      const stored = storeNew(sync, message, pinned, seed?.[i])
      if (stored.refused !== undefined) {
        refusals.push(stored.refused)
        refused.push(message)
        continue
      }
      seen.add(message.trackingId)
      sync.tracked.track(message)
      continue
    }
    // Replaced or edited in place (a redaction, a correction): the window shows the new form, and the
    // ledger's edit log records it; the archive keeps the original.
    const key = keyOf(message)
    if (key !== tracked.key) {
      const data = toLedgerMessage(message)
      if (mergedFrom(data).length > 1) refuseMergedEdit(sync, data)
      else recordEdit(sync, data)
    }
    tracked.message = message
    tracked.key = key
    if (pinned !== tracked.pinned) {
      recordPin(sync, { trackingId: message.trackingId }, pinned)
      tracked.pinned = pinned
    }
  }
  drop(sync.agent, refused)
  return refusals
}

/**
 * A summary in `agent.messages`: never stored. The one the agent was shown stays (an edit or a pin made
 * to it is logged, and the next showing of the window reverts it: edit the summary with
 * `manager.ledger.resummarize`); the session's current one stays too (an agent built with a restored
 * view); any other (an old summary from a snapshot, a copy) is logged and removed.
 *
 * @returns whether the message stays in `agent.messages`
 */
function adoptSummary(sync: SyncContext, message: Message): boolean {
  const tracked = sync.tracked.get(message.trackingId)
  const where = { session_id: sync.ledger.sessionId, tracking_id: message.trackingId }
  if (message.trackingId === sync.tracked.summaryId && tracked !== undefined) {
    const key = keyOf(message)
    const pinned = hasStrandsPin(message)
    if (key !== tracked.key)
      sync.logger.warn(
        logLine(
          where,
          'change to the summary not recorded, agent.messages shows the stored summary again: a summary stands for the messages it folded; write a new one with manager.ledger.resummarize',
        ),
      )
    if (pinned && !tracked.pinned)
      sync.logger.warn(
        logLine(
          where,
          'pin flag on the summary not recorded, agent.messages shows it unpinned again: a summary cannot be pinned',
        ),
      )
    // Noted as seen in this form, so the next showing of the window puts the stored one back.
    tracked.message = message
    tracked.key = key
    tracked.pinned = pinned
    return true
  }
  if (message.trackingId === currentSummaryId(sync.ledger)) {
    sync.tracked.track(message)
    return true
  }
  sync.logger.warn(
    logLine(
      where,
      'summary message the session does not show (an old summary, or a copy) not stored, removed from agent.messages',
    ),
  )
  return false
}

/**
 * The index of the last message of `agent.messages` the ledger already has: one the sync tracks, or at
 * start (with a seed) one the session holds. New messages may only come after it.
 */
function lastKnownIndex(sync: SyncContext, seed: readonly LedgerEntry[] | undefined): number {
  const messages = sync.agent.messages
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Message
    if (sync.tracked.has(message.trackingId)) return i
    if (seed !== undefined && (isSeed(seed, i, message) || inLedger(sync, message.trackingId))) return i
  }
  return -1
}

/** Whether the message at `i` is the session's own seed message at that position. */
function isSeed(seed: readonly LedgerEntry[] | undefined, i: number, message: Message): boolean {
  const entry = seed?.[i]
  return entry !== undefined && contentKey(entry.message) === contentKey(toLedgerMessage(message))
}

/** Whether the session holds a message with this trackingId. */
function inLedger(sync: SyncContext, trackingId: string): boolean {
  return storedEntry(sync.ledger, trackingId) !== undefined
}

/** The refusal of a new message inserted before messages the ledger has (logged). */
function outOfOrder(sync: SyncContext, message: Message, index: number): ContextLedgerError {
  const sessionId = sync.ledger.sessionId
  const refusal = new ContextLedgerError(
    'MESSAGE_OUT_OF_ORDER',
    `Session "${sessionId}": agent.messages[${index}] (${message.role}, trackingId ${message.trackingId}) is new but sits before messages the ledger already has; the ledger is append-only, so it was not stored and was removed from agent.messages. Add new messages at the end.`,
    { sessionId, path: `agent.messages[${index}]` },
  )
  logRefusal(
    sync,
    message,
    refusal,
    { index },
    'new message inserted before stored ones refused: not stored, removed from agent.messages',
  )
  return refusal
}
