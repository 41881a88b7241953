/**
 * A pin is a promise the window keeps (docs/design.md, "Window rules", 3), so a pin no window can keep —
 * on a message before the session's first plain user message — is refused with a typed error, whether it
 * comes from `pin()` or from Strands' pin flag on an appended message (see `window/showable.ts`).
 */
import { ContextLedgerError } from '../errors.js'
import { unshowableReason } from '../window/showable.js'
import { hasPinFlag } from '../messages/pin-flag.js'
import type { MessageData } from '../messages/types.js'
import type { PreparedMessage } from './prepare-message.js'
import type { LedgerView } from '../window/ledger-view.js'

/**
 * Refuses to pin a message no window can show.
 *
 * @param view - the session
 * @param seq - the message to pin
 * @param sessionId - the session's id, for the error
 * @throws ContextLedgerError `INVALID_OPTIONS` with path `ref`
 */
export function refuseUnshowablePin(view: LedgerView, seq: number, sessionId: string): void {
  const why = unshowableReason(view, seq)
  if (why !== undefined)
    throw new ContextLedgerError('INVALID_OPTIONS', `Invalid option ref: ${why}, so it cannot be pinned`, {
      path: 'ref',
      sessionId,
    })
}

/**
 * Refuses an append whose messages carry the pin flag where no window can show them. Asked only when a
 * message arrived pinned, so a plain append reads nothing more.
 *
 * @param view - the session after the rows were written (inside the append's transaction)
 * @param prepared - the messages appended
 * @param seqs - the seq each got, in the same order
 * @param batch - whether they came as an array (paths are then prefixed with `[index].`)
 * @param sessionId - the session's id, for the error
 * @throws ContextLedgerError `INVALID_MESSAGE` with path `metadata.custom.pinned`
 */
export function refuseUnshowablePins(
  view: () => LedgerView,
  prepared: readonly PreparedMessage[],
  seqs: readonly number[],
  batch: boolean,
  sessionId: string,
): void {
  const i = prepared.findIndex((m) => m.pinned)
  if (i < 0) return
  const v = view()
  prepared.forEach((m, index) => {
    const seq = seqs[index]
    const why = m.pinned && seq !== undefined ? unshowableReason(v, seq) : undefined
    if (why === undefined) return
    const path = `${batch ? `[${index}].` : ''}metadata.custom.pinned`
    throw new ContextLedgerError(
      'INVALID_MESSAGE',
      `Invalid message at ${path}: ${why}, so it cannot arrive pinned (leave the flag off; pin a message from the first plain user message on)`,
      { path, sessionId },
    )
  })
}

/**
 * Whether an unvalidated input carries the pin flag: the PostgreSQL store then reads where the session's
 * first plain user message is with the append's snapshot (a plain append does not).
 *
 * @param input - one message as the caller passed it
 * @returns true when it looks pinned
 */
export function arrivesPinned(input: unknown): boolean {
  return typeof input === 'object' && input !== null && hasPinFlag(input as MessageData)
}
