/**
 * The connection pool as the PostgreSQL store uses it: every query is one round trip (counted, so tests
 * can hold the store to its bound), takes literal SQL text with bound values only, reads `bigint`
 * columns as numbers (the store's are milliseconds and counts, far below 2^53), and fails with a
 * {@link ContextLedgerError}. Connection losses are told apart: a write that lost its connection may or
 * may not have committed, and the store finds out before it tries again (`store.ts`).
 */
import pg from 'pg'
import { ContextLedgerError } from '../../errors.js'

/** A PostgreSQL error's SQLSTATE, if the error carries one. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined
}

/**
 * Whether an error means the connection was lost (or the server went away) rather than that the query
 * was refused: a write that failed so may have committed.
 *
 * @param error - what a query threw
 * @returns true for a lost connection
 */
export function isConnectionLoss(error: unknown): boolean {
  const state = sqlState(error)
  if (state !== undefined)
    return (
      state.startsWith('08') || // connection exception
      state === '57P01' || // admin_shutdown (pg_terminate_backend, a server stopping)
      state === '57P02' || // crash_shutdown
      state === '57P03' // cannot_connect_now (starting up, a failover)
    )
  const message = error instanceof Error ? error.message : ''
  const code = (error as { code?: unknown } | null)?.code
  return (
    ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTCONN', 'EHOSTUNREACH'].includes(String(code)) ||
    /Connection terminated|connection (was )?(closed|lost|ended)|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(
      message,
    )
  )
}

/** Whether an error is a transient conflict another attempt resolves (deadlock, serialization). */
export function isRetryable(error: unknown): boolean {
  const state = sqlState(error)
  return state === '40001' || state === '40P01' || state === '55P03'
}

/**
 * A PostgreSQL failure as a typed error.
 *
 * @param error - what a query threw
 * @param what - the operation, for the message
 * @param sessionId - the session, when there is one
 * @returns the typed error
 */
export function toPgLedgerError(error: unknown, what: string, sessionId?: string): ContextLedgerError {
  if (error instanceof ContextLedgerError) return error
  const state = sqlState(error)
  const detail = error instanceof Error ? error.message : String(error)
  const details = { cause: error, ...(sessionId === undefined ? {} : { sessionId }) }
  if (state === '53100' || state === '53200')
    return new ContextLedgerError('STORAGE_FULL', `PostgreSQL is out of space: ${what} (${detail})`, details)
  // 22021: PostgreSQL's text cannot hold the character NUL (U+0000), which a session id, an actor, a reason
  // or a tool name given to a call may contain (message bodies are JSON: their NULs are escaped).
  if (state === '22021')
    return new ContextLedgerError(
      'INVALID_OPTIONS',
      `PostgreSQL cannot store or look up text containing the character NUL (U+0000): ${what} (${detail})`,
      details,
    )
  if (state === '54000')
    return new ContextLedgerError(
      'STORAGE_ERROR',
      `PostgreSQL refused it: a limit of the server was exceeded: ${what} (${detail})`,
      details,
    )
  if (isRetryable(error) || state === '57014')
    return new ContextLedgerError('DATABASE_BUSY', `PostgreSQL was busy: ${what} (${detail})`, details)
  if (state === '25006')
    return new ContextLedgerError('READ_ONLY', `PostgreSQL refused a write: ${what} (${detail})`, details)
  return new ContextLedgerError('STORAGE_ERROR', `PostgreSQL failed: ${what} (${detail})`, details)
}

/** `bigint` (int8) and `numeric` columns as numbers: the store's are times in ms and counts. */
const TYPES = {
  getTypeParser: ((oid: Parameters<typeof pg.types.getTypeParser>[0], format?: 'text' | 'binary'): unknown =>
    oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC
      ? Number
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
}

/**
 * The pool, with round trips counted.
 */
export class Database {
  /** Round trips made so far (one per query). */
  roundTrips = 0
  private closed = false

  /**
   * @param pool - the pool
   * @param owned - whether closing the store ends the pool
   */
  constructor(
    readonly pool: pg.Pool,
    readonly owned: boolean,
    private readonly client?: pg.PoolClient,
  ) {}

  /**
   * Runs `fn` with a database whose every query sees one snapshot: one client of the pool in a
   * read-only REPEATABLE READ transaction.
   *
   * @param fn - the reads
   * @returns what `fn` returned
   */
  async snapshot<T>(fn: (db: Database) => Promise<T>): Promise<T> {
    const client = await this.pool.connect()
    const db = new Database(this.pool, false, client)
    let broken: unknown
    try {
      await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
      const out = await fn(db)
      await db.query('COMMIT')
      this.roundTrips += db.roundTrips
      return out
    } catch (error) {
      broken = error
      await db.query('ROLLBACK').catch(() => undefined)
      throw error
    } finally {
      client.release(broken !== undefined && isConnectionLoss(broken) ? (broken as Error) : undefined)
    }
  }

  /**
   * Runs one statement (one round trip).
   *
   * @param text - literal SQL
   * @param values - the bound values
   * @param name - a name to prepare it under on each connection (the hot statements: planned once)
   * @returns the rows
   */
  async query<R>(text: string, values: readonly unknown[] = [], name?: string): Promise<R[]> {
    this.roundTrips++
    const config = { text, values: [...values], types: TYPES, ...(name === undefined ? {} : { name }) }
    const result =
      this.client === undefined
        ? await this.pool.query<R & pg.QueryResultRow>(config)
        : await this.client.query<R & pg.QueryResultRow>(config)
    return result.rows
  }

  /**
   * Runs `fn` on one client of the pool inside a transaction (BEGIN … COMMIT; ROLLBACK on a throw).
   * Only the rare paths use it (migrations, deleting and pruning): the hot paths are single statements.
   *
   * @param fn - the work
   * @returns what `fn` returned
   */
  async transaction<T>(
    fn: (query: <R>(text: string, values?: readonly unknown[]) => Promise<R[]>) => Promise<T>,
  ): Promise<T> {
    const client = await this.pool.connect()
    const query = async <R>(text: string, values: readonly unknown[] = []): Promise<R[]> => {
      this.roundTrips++
      const result = await client.query<R & pg.QueryResultRow>({ text, values: [...values], types: TYPES })
      return result.rows
    }
    let broken: unknown
    try {
      await query('BEGIN')
      const out = await fn(query)
      await query('COMMIT')
      return out
    } catch (error) {
      broken = error
      try {
        await query('ROLLBACK')
      } catch {
        // The connection is gone; the server rolls back on its own.
      }
      throw error
    } finally {
      client.release(broken !== undefined && isConnectionLoss(broken) ? (broken as Error) : undefined)
    }
  }

  /** Ends the pool if the store made it. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.owned) await this.pool.end()
  }
}
