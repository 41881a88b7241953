/**
 * The eviction log's reads (docs/design.md, "Recall"): a session's rows from a seq on, and why and when
 * one seq last left the window — one seek into the log's key either way.
 */
import type { EvictionRow } from '../db/rows.js'
import { checkKeys, checkSessionId, invalidOption } from './check-args.js'
import { describeValue } from '../messages/limits.js'
import type { EvictionCut, EvictionReason } from './eviction-log.js'
import type { Ledger } from './ledger.js'
import type { EvictionRecord } from './search-types.js'

/**
 * An eviction-log row as the API returns it.
 *
 * @param sessionId - the session it is of
 * @param r - the stored row
 * @returns the record
 */
export function toEvictionRecord(sessionId: string, r: EvictionRow): EvictionRecord {
  return {
    sessionId,
    fromSeq: r.from_seq,
    toSeq: r.to_seq,
    at: new Date(r.at),
    cut: r.cut as EvictionCut,
    reason: r.reason as EvictionReason,
    ...(r.summary === null ? {} : { summaryId: r.summary }),
    version: r.version,
  }
}

/**
 * Checks a seq argument of the eviction log's reads.
 *
 * @param value - what the caller passed
 * @param field - its name, for the error
 * @returns the seq
 * @throws ContextLedgerError `INVALID_OPTIONS` unless an integer ≥ 0
 */
export function checkSeq(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw invalidOption(field, `expected an integer ≥ 0, got ${describeValue(value)}`)
  return value
}

/**
 * Checks the arguments of `evictions()` on either backend.
 *
 * @param sessionId - the session
 * @param options - `fromSeq` (default 0), `limit` (default 100, 1 to 10,000)
 * @returns the options with their defaults
 * @throws ContextLedgerError `INVALID_OPTIONS` naming a bad option
 */
export function checkEvictionsOptions(
  sessionId: unknown,
  options: unknown,
): { fromSeq: number; limit: number } {
  checkSessionId(sessionId)
  const o = options === undefined ? {} : checkKeys(options, 'options', ['fromSeq', 'limit'])
  const fromSeq = o.fromSeq === undefined ? 0 : checkSeq(o.fromSeq, 'options.fromSeq')
  const limit = o.limit === undefined ? 100 : checkSeq(o.limit, 'options.limit')
  if (limit < 1 || limit > 10_000)
    throw invalidOption('options.limit', `expected 1 to 10000, got ${describeValue(limit)}`)
  return { fromSeq, limit }
}

/**
 * A session's eviction log from a seq on, ordered by the runs' last seq (newest cut first among equal).
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param options - `fromSeq`, `limit` (unchecked: checked here)
 * @returns the rows (empty for an unknown session)
 * @throws ContextLedgerError `INVALID_OPTIONS` naming a bad option
 */
export function readEvictions(ledger: Ledger, sessionId: string, options: unknown): EvictionRecord[] {
  ledger.ensureOpen()
  const { fromSeq, limit } = checkEvictionsOptions(sessionId, options)
  return ledger.read(
    () => {
      const pk = ledger.keys.sessionRow(sessionId)?.pk
      if (pk === undefined) return []
      return ledger.st.evictionsFrom.all(pk, fromSeq, limit).map((r) => toEvictionRecord(sessionId, r))
    },
    `read the eviction log of session "${sessionId}"`,
    sessionId,
  )
}

/**
 * Why and when a message last left the window.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param seq - the message
 * @returns the log row covering it, or undefined when it never left (or left before the log existed)
 * @throws ContextLedgerError `INVALID_OPTIONS` for a bad seq
 */
export function readEvictionOf(ledger: Ledger, sessionId: string, seq: unknown): EvictionRecord | undefined {
  ledger.ensureOpen()
  checkSessionId(sessionId)
  const n = checkSeq(seq, 'seq')
  return ledger.read(
    () => {
      const pk = ledger.keys.sessionRow(sessionId)?.pk
      if (pk === undefined) return undefined
      const row = ledger.st.evictionOf.get({ session: pk, n })
      return row === undefined ? undefined : toEvictionRecord(sessionId, row)
    },
    `read the eviction log of session "${sessionId}"`,
    sessionId,
  )
}
