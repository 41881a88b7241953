/**
 * A session's format, read before a write and checked in it. A write validates and counts its messages
 * in the session's format before taking the write lock (the token counter is caller code), so it reads
 * that format from the connection's cache; another connection may since have deleted the session and
 * created it again in another format. The write compares the format with the row it reads and, when it
 * changed, writes nothing and runs again with the format read afresh.
 */
import { ContextLedgerError } from '../errors.js'
import type { BodyFormat } from '../formats/index.js'
import type { Ledger } from './ledger.js'

/** What a write returns when the session's format is not the one its messages were read in. */
export const STALE_FORMAT: unique symbol = Symbol('stale format')

/**
 * Whether two stored format names name one state of a session.
 *
 * @param a - a stored name (null: `'strands'`), or undefined for no session
 * @param b - another
 * @returns true when both are undefined, or both name the same format
 */
export function sameFormat(a: string | null | undefined, b: string | null | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  return (a ?? 'strands') === (b ?? 'strands')
}

/**
 * Whether a session's row holds another format than the one a write read its messages in.
 *
 * @param format - the format the write used
 * @param session - the session's row, read in the write
 * @returns true when the write must run again
 */
export function formatChanged(format: BodyFormat, session: { format: string | null }): boolean {
  return format.name !== (session.format ?? 'strands')
}

/**
 * Runs `attempt` with the session's format as this connection knows it (null: `'strands'`; undefined:
 * no session), again with the format read afresh while it returns {@link STALE_FORMAT} — a few times:
 * a session that other connections keep deleting and creating in other formats gets `FORMAT_MISMATCH`.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param attempt - the write; returns {@link STALE_FORMAT} having written nothing
 * @returns what the last attempt returned
 * @throws ContextLedgerError `FORMAT_MISMATCH` when the format changed under every attempt
 */
export function withSessionFormat<T>(
  ledger: Ledger,
  sessionId: string,
  attempt: (seen: string | null | undefined) => T | typeof STALE_FORMAT,
): T {
  for (let tries = 0; tries < MAX_FORMAT_TRIES; tries++) {
    const out = attempt(ledger.keys.formatOf(sessionId))
    if (out !== STALE_FORMAT) return out
    ledger.keys.forget(sessionId)
  }
  throw new ContextLedgerError(
    'FORMAT_MISMATCH',
    `Session "${sessionId}" changed its message format under ${MAX_FORMAT_TRIES} attempts (other connections deleted it and created it again in another format); nothing was written`,
    { sessionId },
  )
}

/** How many times a write is tried again with the session's format read afresh. */
const MAX_FORMAT_TRIES = 4

/**
 * Prepares a write's messages in the format `seen`; when they are refused, and the session's row now
 * holds another format than `seen` (the cache was stale), asks for another attempt instead.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param seen - the format the messages are read in, as the cache had it
 * @param prepare - validates and counts the messages
 * @returns what `prepare` returned, or {@link STALE_FORMAT}
 */
export function prepareIn<T>(
  ledger: Ledger,
  sessionId: string,
  seen: string | null | undefined,
  prepare: () => T,
): T | typeof STALE_FORMAT {
  try {
    return prepare()
  } catch (error) {
    if (!sameFormat(seen, ledger.st.sessionById.get(sessionId)?.format)) return STALE_FORMAT
    throw error
  }
}
