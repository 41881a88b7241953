/**
 * Mirroring a message the agent adds (`MessageAddedEvent`) into the ledger as it arrives, and keeping
 * what the agent shows valid: a repair row the store wrote for it, rows another writer stored meanwhile,
 * and (with `alternate`) a merge with the previous message of the same role.
 */
import type { Message } from '@strands-agents/sdk'
import type { MessageData } from '../../../messages/types.js'
import { storeNew } from './append.js'
import { assignStoredForm, fromLedgerMessage, toLedgerMessage } from '../convert.js'
import { showUpTo, type ViewEnd } from './shared-view.js'
import { drop, type SyncContext } from './sync-context.js'

/** Whether `call` holds a toolUse for every toolResult of `answer`. */
function answersCallsOf(answer: MessageData, call: Message | undefined): boolean {
  if (call === undefined) return false
  const uses = new Set(
    toLedgerMessage(call).content.flatMap((b) => ('toolUse' in b ? [b.toolUse.toolUseId] : [])),
  )
  return answer.content.every((b) => !('toolResult' in b) || uses.has(b.toolResult.toolUseId))
}

/**
 * Appends the message the agent just added (repaired if need be).
 *
 * @param sync - the agent's sync
 * @param end - the end of the agent's view, to notice rows another writer stored
 * @param message - the message, already in `agent.messages`
 * @param refresh - bring a view that missed another writer's rows up to the stored window now; false when
 *   the caller stores more messages after this one and refreshes once, after the last
 * @param form - the form the message was added in, when it was held since: what is stored; a change made
 *   to the live message meanwhile is recorded by the next adoption, as an edit or a pin made in place
 * @returns whether the view missed another writer's rows (already refreshed when `refresh`)
 * @throws ContextLedgerError `INVALID_MESSAGE` when the store refuses it even repaired; it is then logged
 *   and gone from `agent.messages`
 */
export function mirrorAdded(
  sync: SyncContext,
  end: ViewEnd,
  message: Message,
  refresh = true,
  form?: MessageData,
): boolean {
  // Usually a plain append. Strands re-announces a message under the same trackingId when it merges
  // continuation input into it; then the window shows the merged form.
  const stored = storeNew(sync, message, false, undefined, form)
  if (stored.refused !== undefined) {
    drop(sync.agent, [message])
    throw stored.refused
  }
  const messages = sync.agent.messages
  const at = messages.indexOf(message)
  // The store answered calls the previous message left open before this one: the model must see that
  // answer too, right before this message, or the next request is invalid. A repair row answering a call
  // this agent does not show (another writer's, on a shared session) stays out of this turn's view; the
  // window shows it from the next invocation on.
  const repairRow = stored.repairRow
  const repairShown =
    repairRow !== undefined && at >= 0 && answersCallsOf(repairRow.message, messages[at - 1])
  if (repairShown) {
    const shown = fromLedgerMessage(repairRow.message)
    messages.splice(at, 0, shown)
    sync.tracked.track(shown)
  }
  sync.tracked.track(message, form)
  const entry = stored.entry
  if (entry === undefined) return false
  const stale = end.isStale(sync, entry, repairRow, repairShown)
  end.stored(entry.seq)
  if (stale) {
    if (refresh) showUpTo(sync, message)
  } else if (sync.alternate) mergeWithPrevious(sync, message)
  return stale
}

/**
 * With `alternate`, a message that follows one of the same role within an invocation joins it, as
 * `window({ alternate: true })` would show them: the roles the model sees keep alternating.
 */
function mergeWithPrevious(sync: SyncContext, message: Message): void {
  const messages = sync.agent.messages
  const at = messages.indexOf(message)
  const previous = messages[at - 1]
  if (at < 1 || previous === undefined || previous.role !== message.role) return
  const [merged] = sync.ledger.window({ alternate: true }).filter((m) => m.trackingId === previous.trackingId)
  if (merged === undefined) return
  assignStoredForm(previous, merged)
  messages.splice(at, 1)
  sync.tracked.track(previous)
}
