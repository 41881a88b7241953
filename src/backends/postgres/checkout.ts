/**
 * A connection the server ends (`pg_terminate_backend`, a failover, idle reaping, a restart) must fail a
 * call, never the process. node-postgres emits `'error'` on a client whose connection dies — with a query
 * in flight or between two — and an emitter with no listener throws it as an uncaught exception. The
 * pool listens on its idle clients (and emits `'error'` on itself for them), and `pool.query` listens on
 * the client it borrows; a client checked out with `pool.connect()` has no listener but ours. So every
 * check-out goes through {@link checkedOut}, and the store listens on its pool ({@link listenToPool}).
 */
import type pg from 'pg'
import { isConnectionLoss } from './pg-errors.js'

/**
 * Checks a client out of the pool for `fn` (several statements on one connection: a snapshot, a
 * transaction), listening for its `'error'` meanwhile. A client that broke — it emitted `'error'`, or
 * `fn` failed with a lost connection — is released with the error, so the pool destroys it instead of
 * handing out a dead connection; a healthy one goes back to the pool. The failure itself reaches the
 * caller as the rejection of the statement that met it.
 *
 * @param pool - the pool
 * @param fn - the work on the client
 * @returns what `fn` returned
 * @throws what `pool.connect()` or `fn` threw
 */
export async function checkedOut<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let broken: Error | undefined
  const onError = (error: Error): void => {
    broken ??= error
  }
  const client = await connect(pool, onError)
  try {
    return await fn(client)
  } catch (error) {
    if (isConnectionLoss(error)) broken ??= error instanceof Error ? error : new Error(String(error))
    throw error
  } finally {
    // The pool puts its own listener back on the client as it takes it (`release`), so the client is never
    // without one; with an error it ends the client and drops it.
    client.off('error', onError)
    client.release(broken)
  }
}

/**
 * Checks a client out with `onError` listening on it from the moment the pool hands it over. The pool takes
 * its own listener off as it does, and calls back at once; a `'error'` in the same read as the connection's
 * first ReadyForQuery (a server that ends the connection as it is made) is emitted before any Promise
 * continuation runs, so a listener added after `await pool.connect()` would come too late.
 *
 * @param pool - the pool
 * @param onError - the listener
 * @returns the client
 */
function connect(pool: pg.Pool, onError: (error: Error) => void): Promise<pg.PoolClient> {
  return new Promise((resolve, reject) => {
    pool.connect((error, client) => {
      if (error !== undefined || client === undefined) {
        reject(error ?? new Error('the pool gave no client'))
        return
      }
      client.on('error', onError)
      resolve(client)
    })
  })
}

/**
 * Listens on the pool's `'error'` — a client that lost its connection while idle in the pool, or after
 * the store gave it back — so that it does not end the process. The pool has already dropped that
 * client; the next call connects anew. Other listeners of the pool still hear every error.
 *
 * @param pool - the pool
 * @returns a function that stops listening
 */
export function listenToPool(pool: pg.Pool): () => void {
  const onError = (): void => undefined
  pool.on('error', onError)
  return () => {
    pool.off('error', onError)
  }
}
