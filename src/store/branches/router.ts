/**
 * The store's statements, branch-aware (docs/design.md, "Branches"). Every operation of the store calls
 * the declared statements of `src/db/statements.ts` with a session's pk; this puts an implementation of
 * the same table in front of the prepared statements. For a root's pk a routed statement calls the
 * prepared one itself — whether a pk is a branch is decided once and cached for good (a root never
 * becomes a branch, and pks are never reused) — so an unbranched session runs exactly today's statements.
 * For a branch's pk it answers from the owners' rows and the branch's `branch_rows`
 * (`branch-routes.ts`), through the branch's lineage.
 *
 * Lineages (and the views built on them) are kept across calls: read again only when the tree may have
 * changed — another connection committed (`PRAGMA data_version`, checked on every branch call) or this
 * connection wrote a lineage column (`src/db/tree-watch.ts`: TEMP triggers, so every path is seen). A
 * lineage read inside a transaction that changed the tree is kept for that transaction only, so a
 * rollback cannot leave one behind.
 */
import type { BranchStatements } from '../../db/branch-statements.js'
import type { SessionForAppendRow, Statements } from '../../db/statements.js'
import { lineageOf, segmentOf, type Lineage } from './lineage.js'
import { BRANCH_ROUTES } from './branch-routes.js'
import type { Routes } from './route-types.js'
import { BranchView } from './view.js'

/** Decides which pks are branches, reads their lineages, and builds the routed statements. */
export class BranchRouter {
  /** The routed statements: what the store's operations call. */
  readonly st: Statements
  /** pk → whether it is a branch: for good (see the module comment). */
  private readonly kinds = new Map<number, boolean>()
  /** pk → its view, across calls, while the tree is as it was committed when they were read. */
  private readonly views = new Map<number, BranchView>()
  /** pk → its view, in a transaction that changed the tree (a rollback would take the change back). */
  private readonly txViews = new Map<number, BranchView>()
  /** Whether this connection changed the tree in a transaction not yet known to have ended. */
  private dirty = false
  /** `PRAGMA data_version` when {@link views} was last known valid. */
  private seen = -1

  /**
   * @param base - the prepared statements
   * @param br - the prepared branch statements
   * @param inTransaction - whether the connection is inside a transaction
   * @param dataVersion - reads `PRAGMA data_version` (see `src/db/tree-watch.ts`)
   */
  constructor(
    readonly base: Statements,
    readonly br: BranchStatements,
    private readonly inTransaction: () => boolean,
    private readonly dataVersion: () => number,
  ) {
    this.st = routeAll(this, BRANCH_ROUTES)
  }

  /**
   * Forgets every lineage: a transaction failed, or the caller changed the tree and says so. Inside a
   * transaction what is read next is kept for the transaction only (it may still roll back).
   */
  reset(): void {
    this.views.clear()
    this.txViews.clear()
    this.dirty = this.inTransaction()
  }

  /** This connection changed the tree (a TEMP trigger calls it, inside the statement). */
  treeChanged(): void {
    this.views.clear()
    this.txViews.clear()
    this.dirty = true
  }

  /** A write transaction starts: a tree change of an attempt that did not commit is forgotten. */
  begin(): void {
    if (this.dirty) this.reset()
  }

  /** A write transaction committed: what was read in it after a tree change is the committed tree. */
  committed(): void {
    if (!this.dirty) return
    for (const [pk, view] of this.txViews) this.views.set(pk, view)
    this.txViews.clear()
    this.dirty = false
  }

  /** Drops what another connection's commit or a transaction that ended unseen may have made stale. */
  private sync(inside: boolean): void {
    if (this.dirty && !inside) this.reset()
    const version = this.dataVersion()
    if (version !== this.seen) {
      this.views.clear()
      this.txViews.clear()
      this.seen = version
    }
  }

  /**
   * Whether a session is a branch.
   *
   * @param pk - the session's key
   * @returns true for a branch; false for a root or a session that does not exist
   */
  isBranch(pk: number): boolean {
    const known = this.kinds.get(pk)
    if (known !== undefined) return known
    const parent = this.br.parentOf.get(pk)
    if (parent === undefined) return false
    this.kinds.set(pk, parent !== null)
    return parent !== null
  }

  /**
   * A branch's view: its lineage as last read, unless the tree may have changed since.
   *
   * @param pk - the branch's key
   * @returns its view
   */
  view(pk: number): BranchView {
    const inside = this.inTransaction()
    this.sync(inside)
    const views = this.dirty ? this.txViews : this.views
    const cached = views.get(pk)
    if (cached !== undefined) return cached
    const view = new BranchView(this.base, this.br, this.lineage(pk))
    views.set(pk, view)
    return view
  }

  /**
   * A session's lineage, read now.
   *
   * @param pk - the session's key
   * @returns its lineage
   */
  lineage(pk: number): Lineage {
    return lineageOf(this.br.lineage.all(pk))
  }

  /** Forgets a view (a fork or rewind changed the tree inside the transaction). */
  forget(pk: number): void {
    this.views.delete(pk)
    this.txViews.delete(pk)
  }

  /**
   * A session row as the store reads it, for a branch without rows of its own: its newest message is the
   * fork-point row, whose flags (and cut flags as the branch sees them) the append continues from.
   *
   * @param row - the row the prepared statement read
   * @returns the row as the branch sees it
   */
  sessionRow<R extends SessionForAppendRow | undefined>(row: R): R {
    if (row === undefined) return row
    this.kinds.set(row.pk, row.parent !== null)
    if (row.parent === null || row.fork_seq === null || row.message_count !== row.fork_seq + 1) return row
    const view = this.view(row.pk)
    const seq = row.fork_seq
    const owner = segmentOf(view.lineage, seq)?.owner
    const f = owner === undefined ? undefined : this.base.flagsBySeq.get(owner, seq)
    if (f === undefined) return row
    const cut = view.lineage.cuts.get(seq)
    return {
      ...row,
      last_role: f.role,
      last_has_tool_use: f.has_tool_use,
      last_has_tool_result: f.has_tool_result,
      last_plain_user: f.plain_user,
      last_trim_point: cut?.trim === true ? 1 : 0,
      last_pair_start: cut?.pair === true ? 1 : 0,
    }
  }
}

/** A prepared statement as the operations call it, without its types (the table below is checked by name). */
interface Loose {
  get(...args: unknown[]): unknown
  all(...args: unknown[]): unknown[]
  run(...args: unknown[]): unknown
}

/** Builds the routed table: each routed statement in front of the prepared one, the rest as they are. */
function routeAll(router: BranchRouter, routes: Routes): Statements {
  const base = router.base as unknown as Record<string, Loose>
  const out: Record<string, Loose> = { ...base }
  for (const [name, route] of Object.entries(routes)) {
    const prepared = base[name]
    if (prepared === undefined) throw new Error(`no statement ${name} to route`)
    const pick = (args: unknown[]): BranchView | undefined => {
      if (route.always === true) return undefined
      const pk = route.pk(args)
      return pk !== undefined && router.isBranch(pk) ? router.view(pk) : undefined
    }
    const method = (kind: 'get' | 'all' | 'run') => {
      const impl = route[kind]
      return (...args: unknown[]): never => {
        const view = pick(args)
        if (impl !== undefined && (view !== undefined || route.always === true))
          return impl({ router, view, args, prepared }) as never
        if (view !== undefined)
          throw new Error(`${name}.${kind} is not branch-aware (session ${view.pk} is a branch)`)
        return prepared[kind](...args) as never
      }
    }
    out[name] = { get: method('get'), all: method('all'), run: method('run') }
  }
  // Built from the prepared table key by key, each routed entry keeping its statement's call shape.
  return out as unknown as Statements
}
