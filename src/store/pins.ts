/**
 * Pinning and unpinning, with the pin log. Pinning a message that left the window brings it back at once
 * with what protects it (its tool partners, a lead when it becomes the earliest); unpinning marks the kept
 * rows it protected for a recheck, so the next window application may let them go.
 */
import type { WindowLimits } from '../window/window-options.js'
import { protectedToRestore } from '../window/plan-cut.js'
import { toolComponent } from '../window/protection.js'
import { applyKeptChanges, PINS_ONLY } from './apply-window.js'
import {
  checkAttribution,
  checkMessageRef,
  checkSessionId,
  checkWindowLimits,
  type MessageRef,
} from './check-args.js'
import type { Ledger } from './ledger.js'
import { findMessage } from './lookup.js'
import { refuseUnshowablePin } from './showable-pins.js'
import { SqlLedgerView } from './sql-ledger-view.js'
import type { PinResult } from './store-types.js'

/**
 * Pins (`pinned: true`) or unpins a message and logs who did it and why, in one write transaction.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param ref - which message
 * @param pinned - the state to set
 * @param attribution - actor and reason for the pin log (unchecked: checked here)
 * @param limits - the limits whose protected ranges decide what else a pin brings back; undefined: the
 *   ranges the session's kept rows were last derived for
 * @returns what changed
 * @throws ContextLedgerError `MESSAGE_NOT_FOUND`, `INVALID_OPTIONS` naming a bad argument (`ref` for a pin
 *   no window can show: a message before the session's first plain user message), `READ_ONLY`
 */
export function setPinned(
  ledger: Ledger,
  sessionId: string,
  ref: MessageRef,
  pinned: boolean,
  attribution: unknown,
  limits: WindowLimits | undefined,
): PinResult {
  ledger.ensureWritable()
  checkSessionId(sessionId)
  checkMessageRef(ref)
  const by = checkAttribution(attribution)
  if (limits !== undefined) checkWindowLimits(limits)
  const st = ledger.st
  return ledger.write(sessionId, () => {
    const { session, row } = findMessage(ledger, sessionId, ref)
    if ((row.pinned === 1) === pinned)
      return { seq: row.seq, trackingId: row.uid, changed: false, restored: 0 }
    const view = new SqlLedgerView(st, session)
    if (pinned) refuseUnshowablePin(view, row.seq, sessionId)
    const now = Date.now()
    st.setPinned.run(pinned ? 1 : 0, session.pk, row.seq)
    st.insertPinEvent.run(
      session.pk,
      row.seq,
      pinned ? 'pin' : 'unpin',
      by.actor ?? 'user',
      by.reason ?? null,
      now,
    )
    let restored = 0
    if (pinned && row.seq < session.boundary) {
      // Just what this pin protects: its tool partners, and a lead if it is now the earliest.
      const protect = limits ?? { ...PINS_ONLY, first: session.kept_first ?? 0 }
      const changes = protectedToRestore(view, protect, [row.seq])
      applyKeptChanges(st, session, changes, protect.first)
      restored = changes.keep.length
    } else if (!pinned) {
      // Kept rows this pin protected may lose their protection: the next plan derives it again.
      for (const f of view.facts(toolComponent(view, row.seq)))
        if (f.kept && !f.recheck) st.setRecheck.run(1, session.pk, f.seq)
    }
    st.sessionTouch.run(now, session.pk)
    return { seq: row.seq, trackingId: row.uid, changed: true, restored }
  })
}
