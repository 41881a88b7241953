/**
 * A session with two writers: another agent (or process) may store rows between two messages this agent
 * adds. The view's end — the newest stored row this agent's `agent.messages` holds — tells whether the
 * view went stale, and a stale view is brought up to the stored window before the model is called again.
 */
import type { Message } from '@strands-agents/sdk'
import type { StoredMessageData } from '../../../messages/types.js'
import type { LedgerEntry } from '../../../store/context-store.js'
import { present } from './present.js'
import { mergedFrom, storedEntry, type SyncContext } from './sync-context.js'

/** The newest stored row an agent's view holds. */
export class ViewEnd {
  /**
   * The seq of the newest stored row this agent's view holds: set by each message it stores, and looked
   * up from `lastShown` (the window's last trackingId) only when an added message needs it.
   */
  private lastSeq: number | undefined = undefined
  private lastShown: string | undefined = undefined

  /**
   * The agent now shows `window`: its last message is the view's end (its seq looked up when needed).
   *
   * @param window - the window just shown
   */
  shown(window: readonly StoredMessageData[]): void {
    const last = window.at(-1)
    this.lastShown = last === undefined ? undefined : String(mergedFrom(last).at(-1))
    this.lastSeq = undefined
  }

  /**
   * The agent stored a message: it is the view's end now.
   *
   * @param seq - the message's seq
   */
  stored(seq: number): void {
    this.lastSeq = seq
  }

  /**
   * Whether this agent's view before a message it just stored misses rows another writer stored in
   * between: the row stored right before it (or before the repair row written for it) is not the last
   * row this view holds, or the store answered a call this view does not show.
   *
   * @param sync - the agent's sync
   * @param entry - the message just stored
   * @param repairRow - the repair row the store wrote before it, if any
   * @param repairShown - whether the agent shows that repair row
   * @returns true when the view must be brought up to the stored window
   */
  isStale(
    sync: SyncContext,
    entry: LedgerEntry,
    repairRow: LedgerEntry | undefined,
    repairShown: boolean,
  ): boolean {
    if (repairRow !== undefined && !repairShown) return true
    const before = (repairRow ?? entry).seq - 1
    if (this.lastSeq === undefined && this.lastShown !== undefined)
      this.lastSeq = storedEntry(sync.ledger, this.lastShown)?.seq ?? lastBeforeSummary(sync)
    return before >= 0 && this.lastSeq !== before
  }
}

/**
 * The newest row a view ending with the summary holds: the summary stands for every row before the
 * boundary, and nothing follows it, so that is the row right before the boundary (which an append does
 * not move: rows another writer stored after it are missed rows).
 */
function lastBeforeSummary(sync: SyncContext): number | undefined {
  const boundary = sync.ledger.store.session(sync.ledger.sessionId)?.boundary
  return boundary === undefined ? undefined : boundary - 1
}

/**
 * Makes `agent.messages` the stored window up to `message`, which stays its last message: the rows other
 * writers stored before it join this agent's view, so the conversation the model gets next is the valid
 * one the ledger holds. Rows stored after it stay out until the next invocation.
 *
 * @param sync - the agent's sync
 * @param message - the message just added, which stays last
 */
export function showUpTo(sync: SyncContext, message: Message): void {
  const window = sync.ledger.window({ alternate: sync.alternate })
  const end = window.findIndex((data) => mergedFrom(data).includes(message.trackingId))
  if (end >= 0) present(sync, window.slice(0, end + 1), false)
}
