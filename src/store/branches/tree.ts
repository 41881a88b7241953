/**
 * The tree of branches a session belongs to, as `branches()` lists it: the root first, then depth-first,
 * each session's children in the order they were made.
 */
import type { TreeRow } from '../../db/branch-statements.js'
import { ContextLedgerError } from '../../errors.js'
import { checkSessionId } from '../check-args.js'
import type { Ledger } from '../ledger.js'
import type { BranchRouter } from './router.js'
import type { BranchInfo } from './types.js'

/** The router of a ledger that has branches (every SQLite ledger). */
export function routerOf(ledger: Ledger): BranchRouter {
  if (ledger.branches === undefined) throw new Error('this ledger has no branches')
  return ledger.branches
}

/** `SESSION_NOT_FOUND` for a session that does not exist. */
export function sessionNotFound(
  sessionId: string,
  path = 'sessionId',
): ContextLedgerError<'SESSION_NOT_FOUND'> {
  return new ContextLedgerError('SESSION_NOT_FOUND', `No session "${sessionId}"`, { sessionId, path })
}

/** When a row was made: a branch's fork, a root's creation. */
const madeAt = (r: TreeRow): number => r.forked_at ?? r.created_at

/**
 * The sessions of a tree in `branches()` order with their depths.
 *
 * @param rows - every session of the tree (the `tree` statement from its root)
 * @param rootPk - the root's pk
 * @returns the rows in order, each with its depth
 */
export function orderTree(rows: readonly TreeRow[], rootPk: number): { row: TreeRow; depth: number }[] {
  const children = new Map<number, TreeRow[]>()
  let root: TreeRow | undefined
  for (const r of rows) {
    if (r.pk === rootPk) root = r
    else if (r.parent !== null) children.set(r.parent, [...(children.get(r.parent) ?? []), r])
  }
  const out: { row: TreeRow; depth: number }[] = []
  const visit = (row: TreeRow, depth: number): void => {
    out.push({ row, depth })
    const kids = [...(children.get(row.pk) ?? [])].sort((a, b) => madeAt(a) - madeAt(b) || a.pk - b.pk)
    for (const k of kids) visit(k, depth + 1)
  }
  if (root !== undefined) visit(root, 0)
  return out
}

/**
 * A tree row as `BranchInfo`.
 *
 * @param row - the session's row
 * @param depth - its depth below the root
 * @param parentId - its parent's id (null for a root)
 * @returns the info
 */
export function toBranchInfo(row: TreeRow, depth: number, parentId: string | null): BranchInfo {
  const inherited = row.fork_seq === null ? 0 : row.fork_seq + 1
  const own = row.last_seq === null ? 0 : row.last_seq + 1 - inherited
  return {
    sessionId: row.id,
    parentId,
    forkSeq: row.fork_seq,
    kind: row.kind,
    createdAt: madeAt(row),
    actor: row.fork_actor,
    reason: row.fork_reason,
    depth,
    messageCount: inherited + own,
    ownMessages: own,
  }
}

/**
 * Every session of the tree holding `pk`, in `branches()` order, inside the caller's transaction.
 *
 * @param router - the ledger's router
 * @param pk - a session of the tree
 * @returns the tree
 */
export function treeOf(router: BranchRouter, pk: number): BranchInfo[] {
  const lineage = router.lineage(pk)
  const rootPk = lineage.pks.at(-1) ?? pk
  const rows = router.br.tree.all(rootPk)
  const idOf = new Map(rows.map((r) => [r.pk, r.id]))
  return orderTree(rows, rootPk).map(({ row, depth }) =>
    toBranchInfo(row, depth, row.parent === null ? null : (idOf.get(row.parent) ?? null)),
  )
}

/**
 * One session's `BranchInfo`, inside the caller's transaction.
 *
 * @param router - the ledger's router
 * @param pk - the session
 * @returns its info
 */
export function branchInfo(router: BranchRouter, pk: number): BranchInfo {
  const id = router.base.sessionByPk.get(pk)?.id
  const info = treeOf(router, pk).find((b) => b.sessionId === id)
  if (info === undefined) throw new Error(`session ${pk} is not in its own tree`)
  return info
}

/**
 * The tree holding a session: see `ContextStore.branches`.
 *
 * @param ledger - the open ledger
 * @param sessionId - any session of the tree
 * @returns the root first, then depth-first, children in the order they were made
 * @throws ContextLedgerError `SESSION_NOT_FOUND`
 */
export function readBranches(ledger: Ledger, sessionId: string): BranchInfo[] {
  ledger.ensureOpen()
  checkSessionId(sessionId)
  return ledger.read(
    () => {
      const pk = ledger.keys.sessionRow(sessionId)?.pk
      if (pk === undefined) throw sessionNotFound(sessionId)
      return treeOf(routerOf(ledger), pk)
    },
    `read the branches of session "${sessionId}"`,
    sessionId,
  )
}
