/**
 * A summary's end in a branch (docs/design.md, "Branches"): a branch may show a summary an ancestor wrote
 * (the one its window showed at the fork). That row is the ancestor's: when it leaves the branch's
 * window (replaced, regenerated, dropped, evicted), or comes back, the branch records it on its own
 * session row (`fork_summary_ended_at`, `fork_summary_end_reason`) and the ancestor's row stays as the
 * ancestor's window left it. A root's summaries are always its own: it runs the statements it always ran.
 */
import type { SessionRow } from '../../db/statements.js'
import type { Ledger } from '../ledger.js'

/** Why a summary left a window. */
type EndReason = 'replaced' | 'regenerated' | 'dropped' | 'evicted'

/**
 * Whether the summary `id` shown by `session` is an ancestor's.
 *
 * @param ledger - the open ledger
 * @param session - the session
 * @param id - the summary
 * @returns true when the session did not write it
 */
export function inheritedSummary(ledger: Ledger, session: SessionRow, id: number): boolean {
  if (session.parent === null || ledger.branches === undefined) return false
  return ledger.branches.br.summaryOwner.get(id) !== session.pk
}

/**
 * Records that summary `id` left the window of `session`, inside the caller's transaction.
 *
 * @param ledger - the open ledger
 * @param session - the session
 * @param id - the summary
 * @param now - ms since the epoch
 * @param reason - why
 */
export function endSummaryIn(
  ledger: Ledger,
  session: SessionRow,
  id: number,
  now: number,
  reason: EndReason,
): void {
  if (!inheritedSummary(ledger, session, id)) ledger.st.endSummary.run(now, reason, id)
  else ledger.branches?.br.endForkSummary.run(now, reason, session.pk)
}

/**
 * Records that summary `id` is shown by the window of `session` again (a dropped summary's predecessor),
 * inside the caller's transaction.
 *
 * @param ledger - the open ledger
 * @param session - the session
 * @param id - the summary
 */
export function reopenSummaryIn(ledger: Ledger, session: SessionRow, id: number): void {
  if (!inheritedSummary(ledger, session, id)) ledger.st.reopenSummary.run(id)
  else ledger.branches?.br.setForkSummary.run(id, session.pk)
}
