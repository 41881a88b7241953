/**
 * `deleteSession()` of a session with branches (docs/design.md, "Branches"): a live descendant (a fork, or
 * anything below one) keeps its ancestors' rows alive, so deleting is refused unless the whole subtree is
 * asked for; abandoned descendants (what rewinds took out) go with the session.
 */
import type { DeletedRows } from '../../db/lifecycle-statements.js'
import { ContextLedgerError } from '../../errors.js'
import { checkKeys, invalidOption } from '../check-args.js'
import type { SqliteLedger } from '../ledger.js'
import { orderTree } from './tree.js'

/**
 * Checks `deleteSession()` options.
 *
 * @param options - what the caller passed
 * @returns whether the subtree goes too
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the field
 */
export function checkDeleteOptions(options: unknown): boolean {
  if (options === undefined) return false
  const o = checkKeys(options, 'options', ['subtree'])
  if (o.subtree !== undefined && typeof o.subtree !== 'boolean')
    throw invalidOption('options.subtree', 'expected a boolean')
  return o.subtree === true
}

/**
 * Deletes a session and its descendants, deepest first, inside the caller's write transaction.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session's id
 * @param pk - its key
 * @param subtree - whether live descendants may go too
 * @returns the rows deleted, summed over every session deleted
 * @throws ContextLedgerError `BRANCH_HAS_CHILDREN` for a live descendant without `subtree`
 */
export function deleteTree(
  ledger: SqliteLedger,
  sessionId: string,
  pk: number,
  subtree: boolean,
): DeletedRows {
  const br = ledger.branches.br
  const below = orderTree(br.tree.all(pk), pk)
  const live = below.filter((b) => b.depth > 0 && b.row.kind !== 'abandoned')
  if (live.length > 0 && !subtree)
    throw new ContextLedgerError(
      'BRANCH_HAS_CHILDREN',
      `Session "${sessionId}" has ${live.length} live branch${live.length === 1 ? '' : 'es'} (${live
        .slice(0, 3)
        .map((b) => `"${b.row.id}"`)
        .join(', ')}${live.length > 3 ? ', …' : ''}); pass { subtree: true } to delete them too`,
      { sessionId, path: 'subtree' },
    )
  const sum: DeletedRows = { messages: 0, toolCalls: 0, pinEvents: 0, edits: 0, summaries: 0, evictions: 0 }
  for (const { row } of below.reverse()) {
    ledger.search.removeSession(row.pk)
    br.deleteBranchRows.run(row.pk)
    const d = ledger.lifecycle.deleteSessionRows(row.pk)
    for (const k of Object.keys(sum) as (keyof DeletedRows)[]) sum[k] += d[k]
    ledger.keys.forget(row.id)
  }
  return sum
}
