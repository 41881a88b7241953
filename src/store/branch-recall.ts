/**
 * What recall reads of a branch (docs/design.md, "Branches"): the recall statements of branches,
 * prepared once per connection on first use (a file without branches never prepares them), and a
 * branch as recall sees it in one read — its key, boundary and lineage.
 */
import type Database from 'better-sqlite3'
import { BRANCH_PENDING_STATEMENTS, BRANCH_RECALL_STATEMENTS } from '../db/branch-recall-statements.js'
import { BRANCH_STATEMENTS } from '../db/branch-statements.js'
import { prepareAll, type PreparedAll } from '../db/typed-statement.js'
import { lineageOf, type Lineage } from './branches/lineage.js'
import { pendingStatements } from './search-scope.js'

/** The statements a recall read of a branch uses: the recall statements of branches and the lineage's. */
const RECALL_READS = { ...BRANCH_RECALL_STATEMENTS, lineage: BRANCH_STATEMENTS.lineage }

/** The recall statements of branches, with the lineage's. */
export type BranchRecall = PreparedAll<typeof RECALL_READS>

const byConnection = new WeakMap<Database.Database, BranchRecall>()
const pendingByConnection = new WeakMap<Database.Database, PreparedAll<typeof BRANCH_PENDING_STATEMENTS>>()

/**
 * The recall statements of branches on a connection.
 *
 * @param db - the connection (a ledger at this version's schema)
 * @returns them, prepared on first use
 */
export function branchRecall(db: Database.Database): BranchRecall {
  let st = byConnection.get(db)
  if (st === undefined) {
    st = prepareAll(db, RECALL_READS)
    byConnection.set(db, st)
  }
  return st
}

/**
 * The pending rows' search of a branch's part, once the connection's temporary index exists.
 *
 * @param db - the connection
 * @returns the statements
 */
export function branchPending(db: Database.Database): PreparedAll<typeof BRANCH_PENDING_STATEMENTS> {
  let st = pendingByConnection.get(db)
  if (st === undefined) {
    pendingStatements(db)
    st = prepareAll(db, BRANCH_PENDING_STATEMENTS)
    pendingByConnection.set(db, st)
  }
  return st
}

/** A session as recall reads it through its lineage, in one read transaction. */
export interface BranchView {
  /** Its key. */
  readonly pk: number
  /** Its id. */
  readonly id: string
  /** Its boundary: what its window holds from. */
  readonly boundary: number
  /** Its conversation's parts and the logs it inherits. */
  readonly lineage: Lineage
}

/**
 * A session as recall reads it.
 *
 * @param db - the connection, inside the caller's read transaction
 * @param row - the session's key, id and boundary
 * @returns the view (a root's lineage is its own rows alone)
 */
export function branchView(
  db: Database.Database,
  row: { readonly pk: number; readonly id: string; readonly boundary: number },
): BranchView {
  const lineage = lineageOf(branchRecall(db).lineage.all(row.pk))
  return { pk: row.pk, id: row.id, boundary: row.boundary, lineage }
}
