/**
 * A message the store refuses never wedges the agent. It is repaired when it can be ({@link
 * repairMessage}: lone surrogates, over-long values, too-deep JSON…), and the live message is then
 * rewritten to the stored form, so the model sees exactly what was archived. Otherwise it is refused
 * once: logged, and left out of the archive (the caller removes it from `agent.messages`).
 */
import type { Message } from '@strands-agents/sdk'
import { ContextLedgerError, isContextLedgerError } from '../../../errors.js'
import { repairMessage, type MessageRepair } from '../../../messages/repair-message.js'
import type { MessageData } from '../../../messages/types.js'
import type { LedgerEntry } from '../../../store/context-store.js'
import { assignStoredForm } from '../convert.js'
import { appendOrOverlay } from './edits.js'
import { logLine } from '../log.js'
import { logRefusal, type SyncContext } from './sync-context.js'

const SHOWN_REPAIRS = 3

/** What appending a repaired message came to. */
export type RepairOutcome =
  | { readonly refused?: undefined; readonly entry: LedgerEntry | undefined }
  | { readonly refused: ContextLedgerError }

function describeRepairs(repairs: readonly MessageRepair[]): string {
  const shown = repairs.slice(0, SHOWN_REPAIRS).map((r) => `${r.problem} at ${r.path}`)
  if (repairs.length > SHOWN_REPAIRS) shown.push(`${repairs.length - SHOWN_REPAIRS} more`)
  return shown.join('; ')
}

/**
 * The store refused `data`: store its repaired form and show that form in the live message, or refuse
 * the message once (logged) when repair cannot make it acceptable.
 *
 * @param sync - the agent's sync
 * @param message - the live message
 * @param data - its ledger form, as the store refused it
 * @param error - the store's refusal
 * @returns the stored entry (undefined when recorded as an edit), or the refusal
 */
export function appendRepaired(
  sync: SyncContext,
  message: Message,
  data: MessageData,
  error: ContextLedgerError,
): RepairOutcome {
  const sessionId = sync.ledger.sessionId
  const { message: repaired, repairs } = repairMessage(data, sync.ledger.store.limits)
  let final = error
  if (repairs.length > 0) {
    try {
      const entry = appendOrOverlay(sync, repaired)
      assignStoredForm(message, entry?.message ?? repaired)
      sync.logger.warn(
        logLine(
          {
            session_id: sessionId,
            tracking_id: message.trackingId,
            role: message.role,
            repairs: repairs.length,
          },
          `message repaired before it was stored (${describeRepairs(repairs)}); agent.messages shows the stored form`,
        ),
      )
      return { entry }
    } catch (second) {
      if (!isContextLedgerError(second, 'INVALID_MESSAGE')) throw second
      final = second
    }
  }
  const refusal = new ContextLedgerError(
    'INVALID_MESSAGE',
    `Session "${sessionId}": the store refused message ${message.trackingId} (${message.role})${repairs.length > 0 ? ' even after repair' : ''}; it was left out of the archive and removed from agent.messages. ${final.message}`,
    { sessionId, ...(final.path === undefined ? {} : { path: final.path }), cause: final },
  )
  logRefusal(
    sync,
    message,
    refusal,
    { path: refusal.path },
    `message refused: left out of the archive and removed from agent.messages: ${final.message}`,
  )
  return { refused: refusal }
}
