/**
 * The connection pool as the PostgreSQL store uses it: every query is one round trip (counted, so tests
 * can hold the store to its bound), takes literal SQL text with bound values only, reads `bigint`
 * columns as numbers (the store's are milliseconds and counts, far below 2^53). Its errors are the
 * driver's, which the store classifies (`pg-errors.ts`): a write that lost its connection may or may not
 * have committed, and the store finds out before it tries again (`store.ts`). Every client it checks out
 * for more than one statement goes through `checkout.ts`, which keeps a dropped connection from ending
 * the process.
 */
import pg from 'pg'
import { checkedOut, listenToPool } from './checkout.js'
import { isConnectionLoss, toPgLedgerError } from './pg-errors.js'

/** `bigint` (int8) and `numeric` columns as numbers: the store's are times in ms and counts. */
const TYPES = {
  getTypeParser: ((oid: Parameters<typeof pg.types.getTypeParser>[0], format?: 'text' | 'binary'): unknown =>
    oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC
      ? Number
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
}

/** Attempts of a snapshot whose connection was lost before its reads began. */
const SNAPSHOT_ATTEMPTS = 3

/**
 * The pool, with round trips counted. The store's own (the one without a client) listens on the pool's
 * `'error'` until it is closed, so a connection lost while idle never ends the process.
 */
export class Database {
  /** Round trips made so far (one per query). */
  roundTrips = 0
  private closed = false
  private readonly unlisten: (() => void) | undefined

  /**
   * @param pool - the pool
   * @param owned - whether closing the store ends the pool
   * @param client - the one client every query goes to (a snapshot's); without it, the pool's
   */
  constructor(
    readonly pool: pg.Pool,
    readonly owned: boolean,
    private readonly client?: pg.PoolClient,
  ) {
    this.unlisten = client === undefined ? listenToPool(pool) : undefined
  }

  /**
   * Runs `fn` with a database whose every query sees one snapshot: one client of the pool in a
   * read-only REPEATABLE READ transaction. A connection lost before `fn` began is replaced (a few
   * times); one lost while `fn` runs fails `fn`'s next query, and `fn`'s error is what this throws. A
   * connection lost at the COMMIT loses nothing: the transaction only read.
   *
   * @param fn - the reads
   * @param what - the operation, for errors
   * @returns what `fn` returned
   * @throws what `fn` threw; ContextLedgerError `STORAGE_ERROR` (or another code {@link toPgLedgerError}
   *   gives) when the snapshot could not begin or end
   */
  async snapshot<T>(fn: (db: Database) => Promise<T>, what = 'read on one snapshot'): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      // An object, not a local: the callback writes it, the catch reads it.
      const fnRan = { running: false }
      try {
        return await checkedOut(this.pool, async (client) => {
          const db = new Database(this.pool, false, client)
          try {
            await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
            fnRan.running = true
            const out = await fn(db)
            fnRan.running = false
            await db.query('COMMIT').catch((error: unknown) => {
              if (!isConnectionLoss(error)) throw error
            })
            return out
          } catch (error) {
            await db.query('ROLLBACK').catch(() => undefined)
            throw error
          } finally {
            this.roundTrips += db.roundTrips
          }
        })
      } catch (error) {
        if (fnRan.running) throw error
        if (isConnectionLoss(error) && attempt < SNAPSHOT_ATTEMPTS) continue
        throw toPgLedgerError(error, what)
      }
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
   * Only the rare paths use it (migrations, a write that took the session's lock): the hot paths are
   * single statements. Its errors are the driver's: the callers tell lost connections from refusals.
   *
   * @param fn - the work
   * @returns what `fn` returned
   */
  async transaction<T>(
    fn: (query: <R>(text: string, values?: readonly unknown[]) => Promise<R[]>) => Promise<T>,
  ): Promise<T> {
    return checkedOut(this.pool, async (client) => {
      const query = async <R>(text: string, values: readonly unknown[] = []): Promise<R[]> => {
        this.roundTrips++
        const result = await client.query<R & pg.QueryResultRow>({ text, values: [...values], types: TYPES })
        return result.rows
      }
      try {
        await query('BEGIN')
        const out = await fn(query)
        await query('COMMIT')
        return out
      } catch (error) {
        // Where the connection is gone, the server rolls back on its own.
        await query('ROLLBACK').catch(() => undefined)
        throw error
      }
    })
  }

  /**
   * Ends the pool if the store made it, or stops listening on the caller's. Idempotent. The store's own pool
   * keeps the listener: a client it dropped can still hear the server's goodbye after `end()` resolved
   * (the pool forgets a client before its socket has closed), and without a listener that is an uncaught
   * exception.
   */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.owned) await this.pool.end()
    else this.unlisten?.()
  }
}
