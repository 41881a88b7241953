/**
 * Small writes on a session's window state that several operations make inside their own transaction:
 * the limits a window was last planned with, and the summary a cut takes out of the window.
 */
import type { SessionForAppendRow, Statements } from '../db/statements.js'
import type { WindowLimits } from '../window/window-options.js'
import { endSummaryIn } from './branches/summary-ends.js'
import type { Ledger } from './ledger.js'

/**
 * Records the limits a window was last planned with, when they changed (tools that explain a window read
 * them).
 *
 * @param st - the statements
 * @param session - the session's row, read in the same transaction
 * @param limits - the limits planned with
 */
export function recordLimits(st: Statements, session: SessionForAppendRow, limits: WindowLimits): void {
  const json = JSON.stringify(limits)
  if (json !== session.limits) st.setSessionLimits.run(json, session.pk)
}

/**
 * Ends the summary the window showed when a cut took it out (inside the cut's transaction).
 *
 * @param ledger - the open ledger (inside the cut's transaction)
 * @param session - the session's row, read in the same transaction
 * @param now - ms since the epoch
 */
export function endShownSummary(ledger: Ledger, session: SessionForAppendRow, now: number): void {
  if (session.summary === null) return
  endSummaryIn(ledger, session, session.summary, now, 'evicted')
  ledger.st.setSessionSummary.run(null, now, session.pk)
}
