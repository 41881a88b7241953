/**
 * Showing the window: `agent.messages` is replaced in place by the messages the store computes, keeping
 * the live objects that already show them.
 */
import type { StoredMessageData } from '../../../messages/types.js'
import { isSummaryMessage } from '../../../summaries/summary-message.js'
import { assignStoredForm, fromLedgerMessage, setStrandsPin } from '../convert.js'
import { contentKey, keyOf, type SyncContext } from './sync-context.js'

/**
 * Makes `agent.messages` exactly `shown` (window messages, in order). A live message already showing
 * one of them stays the same object — its pin flag set, and metadata changed by hand reverted (only
 * content edits and pin flags are recorded); any other gets a new message. `force` rebuilds them all.
 * Every message shown is then tracked as seen, and the summary among them (a window message that is no
 * message of the archive) remembered as such.
 *
 * @param sync - the agent's sync
 * @param shown - the window (or its start), in order
 * @param force - rebuild every message object
 */
export function present(
  sync: Pick<SyncContext, 'agent' | 'tracked'>,
  shown: readonly StoredMessageData[],
  force: boolean,
): void {
  const messages = sync.agent.messages
  const live = new Map(force ? [] : messages.map((m) => [m.trackingId, m]))
  const next = shown.map((data) => {
    const known = live.get(data.trackingId)
    if (known === undefined) return fromLedgerMessage(data)
    // The content key adopt() recorded for this very object, or computed now.
    const seen = sync.tracked.get(known.trackingId)
    if ((seen?.message === known ? seen.key : keyOf(known)) !== contentKey(data))
      return fromLedgerMessage(data)
    setStrandsPin(known, data.metadata?.custom?.pinned === true)
    if (JSON.stringify(known.metadata ?? null) !== JSON.stringify(data.metadata ?? null))
      assignStoredForm(known, data)
    return known
  })
  if (next.length !== messages.length || next.some((m, i) => m !== messages[i]))
    messages.splice(0, messages.length, ...next)
  sync.tracked.clear()
  for (const message of next) sync.tracked.track(message)
  // With `alternate`, a summary merged with the messages after it still carries its marker and trackingId.
  sync.tracked.summaryId = shown.find((data) => isSummaryMessage(data))?.trackingId
}
