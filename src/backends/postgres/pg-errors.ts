/**
 * What a PostgreSQL failure means to the store: a lost connection (a write that may have committed), a
 * transient conflict (run it again), or a refusal — and each as a {@link ContextLedgerError}.
 */
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
      state === '57P03' || // cannot_connect_now (starting up, a failover)
      refusedConnect(error, state)
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

/**
 * A connection the server refused to open because the database does not take connections for now
 * (`ALTER DATABASE … ALLOW_CONNECTIONS false` during maintenance or a switchover: SQLSTATE 55000 raised by
 * the server's `CheckMyDatabase` at login). Nothing was sent, so whatever was to run can run on the next
 * connection; other 55000 errors (a statement refused for the object's state) are not this.
 */
function refusedConnect(error: unknown, state: string): boolean {
  if (state !== '55000') return false
  const routine = (error as { routine?: unknown }).routine
  const message = error instanceof Error ? error.message : ''
  return routine === 'CheckMyDatabase' || /is not currently accepting connections/.test(message)
}

/**
 * Whether a lost connection is one the server would not open (starting up, refusing logins for now, the
 * port closed), rather than one it ended: asking again at once would only be refused again.
 *
 * @param error - what a query threw
 * @returns true for a refused connection
 */
export function isConnectRefused(error: unknown): boolean {
  const state = sqlState(error)
  if (state !== undefined) return state === '57P03' || refusedConnect(error, state)
  return (error as { code?: unknown } | null)?.code === 'ECONNREFUSED'
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
