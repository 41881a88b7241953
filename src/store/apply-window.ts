/**
 * Moving the window: applying a plan of the window rules (`planCut`, see docs/design.md, "Window rules")
 * to a session — its boundary, its kept rows and the kept totals on the session row.
 */
import type { SessionForAppendRow, SessionRow, Statements } from '../db/statements.js'
import { planCut, type KeptChanges, type ReduceMode } from '../window/plan-cut.js'
import { ArrayLedgerView } from '../window/array-view.js'
import type { WindowLimits } from '../window/window-options.js'
import { checkReduceMode, checkSessionId, checkWindowLimits } from './check-args.js'
import type { Ledger } from './ledger.js'
import { SqlLedgerView } from './sql-ledger-view.js'
import { cutReason, recordEvictions, tailRuns } from './eviction-log.js'
import { endShownSummary, recordLimits } from './window-state.js'
import type { WindowResult } from './store-types.js'

const NO_STATE = Object.freeze({ boundary: 0, kept: [] })

/**
 * Limits that protect pinned messages only: what an append or a pin may bring back without knowing the
 * manager's protected ranges (callers set `first` to the range the kept rows were last derived for).
 */
export const PINS_ONLY: WindowLimits = Object.freeze({
  windowSize: Number.MAX_SAFE_INTEGER,
  tokenBudget: undefined,
  first: 0,
  last: 0,
})

/**
 * Enforces the window limits (`apply`) or makes room after a context overflow (`overflow`), in one write
 * transaction.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param limits - window size, token budget, protected ranges
 * @param mode - `apply` or `overflow`
 * @returns how many messages left the window, and why none did when none did
 * @throws ContextLedgerError `INVALID_OPTIONS` naming a bad argument, `READ_ONLY`, `STORE_CLOSED`
 */
export function applyWindow(
  ledger: Ledger,
  sessionId: string,
  limits: WindowLimits,
  mode: ReduceMode,
): WindowResult {
  ledger.ensureWritable()
  checkSessionId(sessionId)
  checkWindowLimits(limits)
  checkReduceMode(mode)
  return ledger.write(sessionId, () => {
    const session = ledger.keys.sessionRow(sessionId)
    // A session with no messages yet is not created by asking; it reports what an empty one would.
    if (session === undefined) return planCut(new ArrayLedgerView([], [], [], NO_STATE), limits, mode).plan
    return applyPlanned(ledger, session, limits, mode)
  })
}

/**
 * Plans the window of a session and writes the plan, inside the caller's write transaction: the kept
 * rows, the boundary, the summary when the cut took it out, and the limits planned with.
 *
 * @param ledger - the open ledger (inside a write transaction)
 * @param session - the session's row, read in the same transaction
 * @param limits - window size, token budget, protected ranges
 * @param mode - `apply` or `overflow`
 * @returns the plan
 */
export function applyPlanned(
  ledger: Ledger,
  session: SessionForAppendRow,
  limits: WindowLimits,
  mode: ReduceMode,
): WindowResult {
  const st = ledger.st
  const { plan, changes } = planCut(new SqlLedgerView(st, session), limits, mode)
  const now = Date.now()
  applyKeptChanges(st, session, changes, limits.first)
  if (plan.summaryEvicted) endShownSummary(ledger, session, now)
  const moved = plan.boundary !== session.boundary
  if (moved) st.sessionBoundary.run(plan.boundary, now, session.pk)
  else if (plan.evicted > 0 || plan.restored > 0) st.sessionTouch.run(now, session.pk)
  if (plan.evicted > 0) {
    const out = {
      tail: tailRuns(
        session.boundary,
        plan.boundary,
        changes.keep.map((k) => k.seq),
      ),
      released: [...changes.release].sort((a, b) => a - b),
    }
    const cut = plan.cut ?? 'released'
    recordEvictions(st, session.pk, out, cut, cutReason(session, limits, mode, moved), now)
  }
  recordLimits(st, session, limits)
  return plan
}

/**
 * Writes a plan's changes to the kept rows and the session's kept totals (only what changed). After a
 * plan that examined every kept row, the marks match `first`, which is recorded.
 *
 * @param st - the connection's statements (inside the write transaction)
 * @param session - the session's row, read in the same transaction
 * @param changes - what the plan changes
 * @param first - the first-N protected range the plan used
 */
export function applyKeptChanges(
  st: Statements,
  session: SessionRow,
  changes: KeptChanges,
  first: number,
): void {
  const pk = session.pk
  for (const k of changes.keep) st.setKept.run(1, k.recheck ? 1 : 0, pk, k.seq)
  for (const s of changes.release) st.setKept.run(0, 0, pk, s)
  for (const m of changes.remark) st.setRecheck.run(m.recheck ? 1 : 0, pk, m.seq)
  const keptFirst = changes.complete ? first : session.kept_first
  if (
    changes.keptCount !== session.kept_count ||
    changes.keptTokens !== session.kept_tokens ||
    keptFirst !== session.kept_first
  )
    st.setKeptTotals.run(changes.keptCount, changes.keptTokens, keptFirst, pk)
}
