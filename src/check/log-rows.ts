/**
 * The pin log and the edit log as the store's calls write them (docs/api.md, "pin", "editMessage"):
 *
 * - each pin event's attribution passes the check `pin()` runs on it (`checkAttribution`: an actor of
 *   1–256 characters, a reason within the string limit, no lone surrogate);
 * - a body carrying Strands' pin flag (`metadata.custom.pinned`) has a pin behind it: `append` pins such
 *   a message and logs it (actor `'append'`) — but a redacted body, which a replacement may give the flag;
 * - each edit's new form passes the validator `append` runs (`message-rules.ts`).
 */
import type Database from 'better-sqlite3'
import { prepareSpec } from '../db/typed-statement.js'
import { ContextLedgerError } from '../errors.js'
import { checkAttribution } from '../store/check-args.js'
import { bodyProblem, fieldOf, type BodyFacts } from './message-rules.js'
import { Offenders, type Fail } from './problems.js'
import { CHECK_READS } from './statements.js'

/**
 * Checks a session's pin and edit logs against the rules of the calls that write them.
 *
 * @param db - the connection, inside the check's read transaction
 * @param pk - the session's key
 * @param facts - which bodies carry the pin flag
 * @param fail - records a problem
 * @param inherited - for a branch: the inherited seqs a pin in its view stands behind (its ancestors' logs)
 * @returns the seqs the edit log records a redaction of
 */
export function checkLogRows(
  db: Database.Database,
  pk: number,
  facts: BodyFacts,
  fail: Fail,
  inherited?: ReadonlySet<number>,
): Set<number> {
  const attributions = new Offenders('pin log', 'a pin event pin() would refuse')
  const pinnedOnce = new Set<number>()
  for (const e of prepareSpec(db, CHECK_READS.pinEvents).iterate(pk)) {
    if (e.action === 'pin') pinnedOnce.add(e.seq)
    try {
      checkAttribution(e.reason === null ? { actor: e.actor } : { actor: e.actor, reason: e.reason })
    } catch (error) {
      if (!(error instanceof ContextLedgerError)) throw error
      const field = (error.path ?? 'attribution').replace(/^attribution\.?/, '') || 'actor'
      const reason = error.message.replace(/^Invalid [^:]*: /, '')
      attributions.add(
        { row: { table: 'pinEvent', id: e.id }, field },
        `pin event of seq ${e.seq}: ${reason}`,
      )
    }
  }
  const edits = new Offenders('edit body', 'an edit append would refuse')
  const redacted = new Set<number>()
  for (const e of prepareSpec(db, CHECK_READS.edits).iterate(pk)) {
    if (e.kind === 'redact') redacted.add(e.seq)
    if (e.body === null) continue
    const at = { table: 'edit', id: e.id } as const
    let body: unknown
    try {
      body = JSON.parse(e.body)
    } catch {
      edits.add({ row: at, field: 'message' }, `edit of seq ${e.seq}: its form is not JSON`)
      continue
    }
    const p = bodyProblem(body, facts.format)
    if (p !== undefined)
      edits.add(
        { row: at, field: fieldOf('message', p) },
        `edit of seq ${e.seq} ${fieldOf('message', p)}: ${p.reason}`,
      )
  }
  const flags = new Offenders('pin flag in body', 'a body carries the pin flag no pin stands behind')
  for (const seq of facts.pinFlagged)
    if (!pinnedOnce.has(seq) && !redacted.has(seq) && inherited?.has(seq) !== true)
      flags.add(
        { seq, field: 'message.metadata.custom.pinned' },
        `seq ${seq} carries metadata.custom.pinned, and no pin event records it`,
      )
  for (const o of [attributions, edits, flags]) o.report(fail)
  return redacted
}
