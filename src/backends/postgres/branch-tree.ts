/**
 * The tree of branches on PostgreSQL (docs/design.md, "Branches"): `branches()` in one statement, and
 * `deleteSession()` of a session with branches — its subtree locked, checked and deleted in one
 * transaction.
 */
import type { TreeRow } from '../../db/branch-statements.js'
import { ContextLedgerError } from '../../errors.js'
import { checkDeleteOptions } from '../../store/branches/delete.js'
import { orderTree, sessionNotFound, toBranchInfo } from '../../store/branches/tree.js'
import type { BranchInfo } from '../../store/branches/types.js'

/** A query in a transaction. */
type Query = <R>(text: string, values?: readonly unknown[]) => Promise<R[]>

/** Every session of the tree holding `$1` (its root first), each with its own newest seq. */
export const TREE_SQL = `WITH RECURSIVE up (pk, parent, depth) AS (
  SELECT pk, parent, 0 FROM context_ledger.sessions WHERE id = $1::text
  UNION ALL
  SELECT x.pk, x.parent, up.depth + 1 FROM up JOIN context_ledger.sessions x ON x.pk = up.parent
  WHERE up.depth < 100000
),
down (pk) AS (
  SELECT pk FROM up WHERE parent IS NULL
  UNION ALL
  SELECT x.pk FROM down JOIN context_ledger.sessions x ON x.parent = down.pk
)
SELECT s.pk, s.id, s.parent, s.fork_seq, s.kind, s.created_at, s.forked_at, s.fork_actor, s.fork_reason,
  (SELECT seq FROM context_ledger.messages WHERE session = s.pk ORDER BY seq DESC LIMIT 1) AS last_seq,
  s.parent IS NULL AS root
FROM down JOIN context_ledger.sessions s ON s.pk = down.pk`

/** A row of {@link TREE_SQL}. */
export type PgTreeRow = TreeRow & { root: boolean }

/**
 * The tree's rows in `branches()` order.
 *
 * @param sessionId - the session asked about
 * @param rows - what {@link TREE_SQL} returned
 * @returns the tree
 * @throws ContextLedgerError `SESSION_NOT_FOUND`
 */
export function toTree(sessionId: string, rows: readonly PgTreeRow[]): BranchInfo[] {
  const root = rows.find((r) => r.root)
  if (root === undefined) throw sessionNotFound(sessionId)
  const ids = new Map(rows.map((r) => [r.pk, r.id]))
  return orderTree(rows, root.pk).map(({ row, depth }) =>
    toBranchInfo(row, depth, row.parent === null ? null : (ids.get(row.parent) ?? null)),
  )
}

/** The session `$1` and every session below it, their rows locked (a fork below waits, then finds them). */
const LOCK_SUBTREE_SQL = `WITH RECURSIVE down (pk) AS (
  SELECT pk FROM context_ledger.sessions WHERE id = $1::text
  UNION ALL
  SELECT x.pk FROM down JOIN context_ledger.sessions x ON x.parent = down.pk
)
SELECT s.pk, s.id, s.kind FROM context_ledger.sessions s WHERE s.pk IN (SELECT pk FROM down)
ORDER BY s.pk FOR UPDATE`

/** Deletes every row of the sessions `$1` (keys), counting each table's rows. */
const DELETE_SESSIONS_SQL = `WITH s AS (SELECT unnest($1::int[]) AS pk),
e AS (DELETE FROM context_ledger.message_edits x USING s WHERE x.session = s.pk RETURNING 1),
p AS (DELETE FROM context_ledger.pin_events x USING s WHERE x.session = s.pk RETURNING 1),
c AS (DELETE FROM context_ledger.tool_calls x USING s WHERE x.session = s.pk RETURNING 1),
m AS (DELETE FROM context_ledger.messages x USING s WHERE x.session = s.pk RETURNING 1),
y AS (DELETE FROM context_ledger.summaries x USING s WHERE x.session = s.pk RETURNING 1),
v AS (DELETE FROM context_ledger.eviction_log x USING s WHERE x.session = s.pk RETURNING 1),
b AS (DELETE FROM context_ledger.branch_rows x USING s WHERE x.session = s.pk RETURNING 1),
d AS (DELETE FROM context_ledger.sessions x USING s WHERE x.pk = s.pk RETURNING 1)
SELECT (SELECT count(*) FROM d)::int AS deleted, (SELECT count(*) FROM m)::int AS messages,
  (SELECT count(*) FROM c)::int AS tool_calls, (SELECT count(*) FROM p)::int AS pin_events,
  (SELECT count(*) FROM e)::int AS edits, (SELECT count(*) FROM y)::int AS summaries,
  (SELECT count(*) FROM v)::int AS evictions`

/** What {@link deleteSubtree} deleted. */
export interface DeletedCounts {
  deleted: number
  messages: number
  tool_calls: number
  pin_events: number
  edits: number
  summaries: number
  evictions: number
}

/**
 * Deletes a session and the sessions below it, inside the caller's transaction: locks the subtree (again
 * until no branch was forked below it meanwhile: a fork of a locked session waits for its row), refuses a
 * live descendant unless `subtree`, deletes every row of every session of it.
 *
 * @param query - runs a statement in the transaction
 * @param sessionId - the session
 * @param options - `{ subtree? }` (unchecked: checked here)
 * @returns the rows deleted (zero counts when the session does not exist)
 * @throws ContextLedgerError `BRANCH_HAS_CHILDREN`, `INVALID_OPTIONS`
 */
export async function deleteSubtree(
  query: Query,
  sessionId: string,
  options: unknown,
): Promise<DeletedCounts | undefined> {
  const subtree = checkDeleteOptions(options)
  let locked = new Map<number, { id: string; kind: string }>()
  for (;;) {
    const rows = await query<{ pk: number; id: string; kind: string }>(LOCK_SUBTREE_SQL, [sessionId])
    const found = new Map(rows.map((r) => [r.pk, { id: r.id, kind: r.kind }]))
    if (found.size === locked.size && [...found.keys()].every((pk) => locked.has(pk))) break
    locked = found
  }
  const [self, ...below] = [...locked.entries()].sort((a, b) =>
    a[1].id === sessionId ? -1 : b[1].id === sessionId ? 1 : 0,
  )
  if (self === undefined) return undefined
  const live = below.filter(([, r]) => r.kind !== 'abandoned')
  if (live.length > 0 && !subtree)
    throw new ContextLedgerError(
      'BRANCH_HAS_CHILDREN',
      `Session "${sessionId}" has ${live.length} live branch${live.length === 1 ? '' : 'es'} (${live
        .slice(0, 3)
        .map(([, r]) => `"${r.id}"`)
        .join(', ')}${live.length > 3 ? ', …' : ''}); pass { subtree: true } to delete them too`,
      { sessionId, path: 'subtree' },
    )
  const [counts] = await query<DeletedCounts>(DELETE_SESSIONS_SQL, [[...locked.keys()]])
  return counts
}
