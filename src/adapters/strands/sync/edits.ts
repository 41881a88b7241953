/**
 * Changes made to stored messages through `agent.messages` (a replaced or edited message, Strands merging
 * continuation input into the newest message) become edits in the ledger: the window shows the new form,
 * the archive keeps the original, and the edit log records it.
 */
import { isContextLedgerError } from '../../../errors.js'
import type { MessageData, StoredMessageData } from '../../../messages/types.js'
import type { LedgerEntry } from '../../../store/context-store.js'
import { logLine } from '../log.js'
import type { SyncContext } from './sync-context.js'

const STRANDS_EDIT = { actor: 'strands', reason: 'changed in agent.messages' }

/**
 * Appends; a trackingId the session holds as its newest message with other content is that message
 * changed (Strands merges continuation input into it): an edit.
 *
 * @param sync - the agent's sync
 * @param data - the message in the ledger's form
 * @returns the stored entry, or undefined when it was recorded as an edit
 * @throws ContextLedgerError `INVALID_MESSAGE` when the store refuses it
 */
export function appendOrOverlay(sync: SyncContext, data: MessageData): LedgerEntry | undefined {
  try {
    return sync.ledger.append(data)
  } catch (error) {
    // Only a message with a trackingId can be a duplicate.
    if (!isContextLedgerError(error, 'DUPLICATE_MESSAGE') || data.trackingId === undefined) throw error
    recordEdit(sync, { ...data, trackingId: data.trackingId })
    return undefined
  }
}

/**
 * Records a change made in `agent.messages` as an edit: the window shows `data` in place of the archived
 * message with its trackingId. A change of role or tool ids cannot stand in for the original without
 * breaking tool pairs: it is logged, and the window (hence `agent.messages`, at the next `show`) keeps
 * the stored form.
 *
 * @param sync - the agent's sync
 * @param data - the new form, in the ledger's form (its trackingId names the stored message)
 */
export function recordEdit(sync: SyncContext, data: StoredMessageData): void {
  try {
    sync.ledger.edit({ trackingId: data.trackingId }, data, STRANDS_EDIT)
  } catch (error) {
    if (!isContextLedgerError(error, 'INVALID_MESSAGE') && !isContextLedgerError(error, 'MESSAGE_NOT_FOUND'))
      throw error
    sync.logger.warn(
      logLine(
        { session_id: sync.ledger.sessionId, tracking_id: data.trackingId, code: error.code },
        `change to a stored message not recorded, agent.messages shows the stored form again: ${error.message}`,
      ),
    )
  }
}

/**
 * An edit of a merged message cannot be split back into its stored messages: logged, not recorded.
 *
 * @param sync - the agent's sync
 * @param data - the changed merged message
 */
export function refuseMergedEdit(sync: SyncContext, data: MessageData): void {
  sync.logger.warn(
    logLine(
      { session_id: sync.ledger.sessionId, tracking_id: data.trackingId },
      'change to a merged message (alternate: true) not recorded, agent.messages shows the stored form again: edit the stored messages with manager.ledger.edit',
    ),
  )
}
