/**
 * Counts the SQL work a store does, deterministically: statements executed, rows they returned, and the
 * elements of every JSON array bound to `@seqs` (a batched lookup costs one seek per element). Timing is
 * for `bench/`; tests compare these counts instead — e.g. the same operation in a session with 10× the
 * pins must not do 10× the work.
 */
import type Database from 'better-sqlite3'
import type { ContextStore } from '../../src/index.js'

/** The work counted since the last reset. */
export interface Work {
  /** Statements executed. */
  readonly statements: number
  /** Rows they returned. */
  readonly rows: number
  /** Elements of bound `@seqs` arrays. */
  readonly bound: number
  /** Executions per statement name. */
  readonly byName: Readonly<Record<string, number>>
}

/** A counter attached to one store. */
export interface StatementCounter {
  /** Starts counting from zero. */
  reset(): void
  /** What was counted since the last reset. */
  work(): Work
  /** Runs `fn` and returns the work it did. */
  measure(fn: () => unknown): Work
}

/**
 * Wraps every prepared statement of a store so that each execution is counted. The store keeps its
 * statements in a private field; reaching it is the point of this helper, hence the casts.
 *
 * @param store - an open store
 * @returns the counter
 */
export function countStatements(store: ContextStore): StatementCounter {
  const statements = (store as unknown as { st: Record<string, Database.Statement> }).st
  let counted = { statements: 0, rows: 0, bound: 0, byName: {} as Record<string, number> }
  const note = (name: string, args: unknown[], rows: number): void => {
    counted.statements++
    counted.rows += rows
    counted.byName[name] = (counted.byName[name] ?? 0) + 1
    const named = args[0]
    if (typeof named === 'object' && named !== null && 'seqs' in named) {
      const seqs = named.seqs
      if (typeof seqs === 'string') counted.bound += (JSON.parse(seqs) as unknown[]).length
    }
  }
  for (const [name, statement] of Object.entries(statements)) {
    const stmt = statement as unknown as Record<string, (...args: unknown[]) => unknown>
    const run = stmt.run?.bind(statement)
    const get = stmt.get?.bind(statement)
    const all = stmt.all?.bind(statement)
    if (run !== undefined)
      stmt.run = (...args: unknown[]) => {
        note(name, args, 0)
        return run(...args)
      }
    if (get !== undefined)
      stmt.get = (...args: unknown[]) => {
        const row = get(...args)
        note(name, args, row === undefined ? 0 : 1)
        return row
      }
    if (all !== undefined)
      stmt.all = (...args: unknown[]) => {
        const rows = all(...args) as unknown[]
        note(name, args, rows.length)
        return rows
      }
  }
  const counter: StatementCounter = {
    reset() {
      counted = { statements: 0, rows: 0, bound: 0, byName: {} }
    },
    work: () => ({ ...counted, byName: { ...counted.byName } }),
    measure(fn) {
      counter.reset()
      fn()
      return counter.work()
    },
  }
  return counter
}
