/**
 * Statements declared with their types. Each declaration carries its SQL, the parameters it binds, what
 * one result is (a row object, or the single value of a plucked column) and the names of its result
 * columns. Preparing it gives a better-sqlite3 `Statement<Params, Row>`, so `.get()`, `.all()` and
 * `.run()` are typed without casts; the column names exist at run time, so a test can compare them with
 * what SQLite reports for the SQL (`Statement#columns()`), and the compiler checks them against the row
 * type.
 */
import type Database from 'better-sqlite3'

/**
 * Every key of `R` mapped to `true`. An object literal of this type names exactly the columns of `R`:
 * a missing column and an extra one are both compile errors.
 */
export type ColumnsOf<R> = { readonly [K in keyof R]-?: true }

/** What a statement returns: row objects, the value of its single column per row (pluck mode), or nothing. */
export type StatementKind = 'rows' | 'value' | 'write'

/**
 * A declared statement: `P` is the tuple of bound parameters (`[{ s: number }]` for named ones), `R` one
 * result — a row object, or for a plucked statement the column's value.
 */
export interface StatementSpec<P extends unknown[], R> {
  /** The SQL text: literal, values always bound. */
  readonly sql: string
  /** What it returns. */
  readonly kind: StatementKind
  /** The result columns' names, in select order (one for `value`, none for `write`). */
  readonly columns: readonly string[]
  /** Carries `P` and `R` into the prepared statement's type; never set. */
  readonly types?: { readonly params: P; readonly row: R }
}

/** A statement whose parameters and results are not known here: the constraint of every table of them. */
export type AnySpec = StatementSpec<unknown[], unknown>

/** The prepared form of a declaration. */
export type Prepared<S> = S extends StatementSpec<infer P, infer R> ? Database.Statement<P, R> : never

/** A table of declarations, prepared. */
export type PreparedAll<T> = { readonly [K in keyof T]: Prepared<T[K]> }

/**
 * What the store's operations call on a statement: `get`, `all` and `run`. A prepared statement has it;
 * so does the PostgreSQL backend's in-memory answer to the same statement over a session's snapshot
 * (`src/backends/postgres/slice-statements.ts`), which is how both backends run the same operations.
 */
export type Callable<S> = Pick<Prepared<S>, 'get' | 'all' | 'run'>

/** A table of declarations as the operations call them (see {@link Callable}). */
export type CallableAll<T> = { readonly [K in keyof T]: Callable<T[K]> }

/**
 * Declares a statement that returns rows.
 *
 * @param sql - the SQL text
 * @param columns - its result columns, as an object with exactly the keys of `R`, in select order
 * @returns the declaration
 */
export function rows<P extends unknown[], R>(sql: string, columns: ColumnsOf<R>): StatementSpec<P, R> {
  return { sql, kind: 'rows', columns: Object.keys(columns) }
}

/**
 * Declares a statement that returns one column, prepared in pluck mode so each result is the bare value.
 *
 * @param sql - the SQL text
 * @param column - the column's name as SQLite reports it
 * @returns the declaration
 */
export function value<P extends unknown[], V>(sql: string, column: string): StatementSpec<P, V> {
  return { sql, kind: 'value', columns: [column] }
}

/**
 * Declares a statement that returns nothing (an INSERT, UPDATE or DELETE).
 *
 * @param sql - the SQL text
 * @returns the declaration
 */
export function write<P extends unknown[]>(sql: string): StatementSpec<P, never> {
  return { sql, kind: 'write', columns: [] }
}

/**
 * Prepares one declaration.
 *
 * @param db - an open, migrated connection
 * @param spec - the declaration
 * @returns the statement, in pluck mode for a `value` declaration
 */
export function prepareSpec<P extends unknown[], R>(
  db: Database.Database,
  spec: StatementSpec<P, R>,
): Database.Statement<P, R> {
  const statement = db.prepare<P, R>(spec.sql)
  return spec.kind === 'value' ? statement.pluck() : statement
}

/**
 * Prepares every declaration of a table once.
 *
 * @param db - an open, migrated connection
 * @param specs - the declarations, by name
 * @returns the statements, by the same names
 */
export function prepareAll<T extends Record<string, AnySpec>>(
  db: Database.Database,
  specs: T,
): PreparedAll<T> {
  const out: Record<string, unknown> = {}
  for (const [name, spec] of Object.entries(specs)) out[name] = prepareSpec(db, spec)
  // Built key by key from `specs`, each entry prepared from its own declaration: the mapped type holds.
  return out as PreparedAll<T>
}

/**
 * The SQL text of every declaration of a table.
 *
 * @param specs - the declarations, by name
 * @returns their SQL, by the same names
 */
export function sqlTexts<T extends Record<string, AnySpec>>(specs: T): { readonly [K in keyof T]: string } {
  const out: Record<string, string> = {}
  for (const [name, spec] of Object.entries(specs)) out[name] = spec.sql
  // Built key by key from `specs`: every key of T is present.
  return out as { readonly [K in keyof T]: string }
}
