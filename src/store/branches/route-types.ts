/**
 * The shape of a routed statement (see `router.ts`, `branch-routes.ts`): what a branch form of a statement
 * is given and how it names the session among the statement's arguments.
 */
import type { BranchRouter } from './router.js'
import type { BranchView } from './view.js'

/** One call of a routed statement on a branch (or on any session, for a route marked `always`). */
export interface Call {
  /** The router. */
  readonly router: BranchRouter
  /** The branch's view (undefined for an `always` route). */
  readonly view: BranchView | undefined
  /** The arguments as the operation passed them. */
  readonly args: readonly unknown[]
  /** The prepared statement. */
  readonly prepared: {
    get(...a: unknown[]): unknown
    all(...a: unknown[]): unknown[]
    run(...a: unknown[]): unknown
  }
}

/** A statement's branch form. */
export interface Route {
  /** The session's pk among the arguments (ignored for an `always` route). */
  readonly pk: (args: readonly unknown[]) => number | undefined
  /** Called for every session, trunk or branch (it decides itself). */
  readonly always?: boolean
  readonly get?: (c: Call) => unknown
  readonly all?: (c: Call) => unknown[]
  readonly run?: (c: Call) => unknown
}

/** Routes by statement name. */
export type Routes = Readonly<Record<string, Route>>

/** The pk is the first argument. */
export const FIRST = (a: readonly unknown[]): number => a[0] as number
/** The pk is the third argument. */
export const THIRD = (a: readonly unknown[]): number => a[2] as number
/** The pk is `@s` of a named-parameter object. */
export const NAMED_S = (a: readonly unknown[]): number => (a[0] as { s: number }).s
/** Never used: an `always` route. */
export const ANY = (): undefined => undefined

/** What a write that changed nothing returns. */
export const NO_CHANGE = Object.freeze({ changes: 0, lastInsertRowid: 0 })

/** The view of a routed call (set for every route but `always` ones). */
export function viewOf(c: Call): BranchView {
  if (c.view === undefined) throw new Error('a branch route called without a branch')
  return c.view
}
