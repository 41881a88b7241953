/**
 * Erasing data on purpose: deleting a whole session, and pruning the content of old messages that left
 * the window (retention). Both leave the ledger valid, run in write transactions, and finish by
 * checkpointing the write-ahead log so the erased bytes do not linger in the files (see `Ledger`).
 */
import { PRUNE_BATCH } from '../db/lifecycle-statements.js'
import { formatNamed } from '../formats/index.js'
import { REDACTED_TEXT } from '../messages/redact.js'
import { checkSessionId } from './check-args.js'
import { checkDeleteOptions, deleteTree } from './branches/delete.js'
import { replaceArchived } from './edits.js'
import { parseBody } from './entries.js'
import type { SqliteLedger as Ledger } from './ledger.js'
import { checkPruneOptions, type DeleteSessionResult, type PruneResult } from './lifecycle.js'

const NOTHING_DELETED = Object.freeze({
  messages: 0,
  toolCalls: 0,
  pinEvents: 0,
  edits: 0,
  summaries: 0,
  evictions: 0,
})

/**
 * Deletes a session and every row of it in one write transaction; see `ContextStore.deleteSession`.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param options - `{ subtree? }` (unchecked: checked here)
 * @returns what was deleted, and whether it is gone from the files
 */
export function deleteSession(ledger: Ledger, sessionId: string, options?: unknown): DeleteSessionResult {
  ledger.ensureWritable()
  checkSessionId(sessionId)
  const subtree = checkDeleteOptions(options)
  const counts = ledger.write(sessionId, () => {
    const row = ledger.st.sessionById.get(sessionId)
    if (row === undefined) return undefined
    // With its branches (a live one refused without `subtree`: see branches/delete.ts).
    const deleted = deleteTree(ledger, sessionId, row.pk, subtree)
    ledger.search.sessionDeleted()
    return deleted
  })
  ledger.keys.forget(sessionId)
  if (counts !== undefined) ledger.erasurePending = true
  const deleted = counts ?? NOTHING_DELETED
  return { sessionId, deleted: counts !== undefined, ...deleted, erased: ledger.completeErasure() }
}

/**
 * Erases the content of old messages out of the window, at most {@link PRUNE_BATCH} per transaction;
 * see `ContextStore.prune`.
 *
 * @param ledger - the open ledger
 * @param options - the prune options (unchecked: checked here)
 * @returns sessions examined, messages pruned, and whether the contents are gone from the files
 */
export function prune(ledger: Ledger, options: unknown): PruneResult {
  ledger.ensureWritable()
  const { sessionId, before, actor, reason } = checkPruneOptions(options)
  const targets =
    sessionId === undefined
      ? ledger.read(() => ledger.lifecycle.sessionKeys(), 'list the sessions to prune').map((s) => s.id)
      : [sessionId]
  let pruned = 0
  let examined = 0
  for (const id of targets) {
    let from = 0
    for (;;) {
      const batch = ledger.write(id, () => {
        const session = ledger.st.sessionById.get(id)
        if (session === undefined) return { count: 0, next: undefined, found: false }
        const rows = ledger.lifecycle.pruneCandidates(session.pk, from, session.boundary, before)
        const by = { actor, reason, at: Date.now() }
        const format = formatNamed(session.format)
        for (const row of rows)
          replaceArchived(ledger, session, row, format.prune(parseBody(row.body), REDACTED_TEXT), format, by)
        // The archive changed: a summary being made from it meanwhile must not be written (see summaries.ts).
        if (rows.length > 0) ledger.st.sessionTouch.run(by.at, session.pk)
        const last = rows[rows.length - 1]
        return {
          count: rows.length,
          next: rows.length < PRUNE_BATCH ? undefined : (last?.seq ?? 0) + 1,
          found: true,
        }
      })
      if (from === 0 && batch.found) examined++
      pruned += batch.count
      if (batch.count > 0) ledger.erasurePending = true
      if (batch.next === undefined) break
      from = batch.next
    }
  }
  return { sessions: examined, pruned, erased: ledger.completeErasure() }
}
