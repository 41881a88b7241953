/**
 * The eviction log's reads (docs/design.md, "Recall"): a session's rows from a seq on, and why and when
 * one seq last left the window — one seek into the log's key either way. A branch reads its own log and
 * what it inherits of its ancestors' (`branch-evictions.ts`): one seek per session of its lineage.
 */
import type { EvictionRow } from '../db/rows.js'
import { checkKeys, checkSessionId, invalidOption } from './check-args.js'
import { describeValue } from '../messages/limits.js'
import { branchEvictionOf, branchEvictions, type BranchEvictionRow } from './branch-evictions.js'
import { branchRecall, branchView } from './branch-recall.js'
import type { EvictionCut, EvictionReason } from './eviction-log.js'
import type { SqliteLedger } from './ledger.js'
import type { EvictionRecord } from './search-types.js'

/** The sessions a log row names beside its own: the abandoned branch of a rewind, the ancestor it is from. */
export interface EvictionNames {
  /** For a rewind's row: the abandoned branch's id (undefined when it was deleted since). */
  readonly abandonedId?: string | undefined
  /** For a row a branch inherits: the ancestor whose cut it was. */
  readonly inheritedFrom?: string | undefined
}

/**
 * An eviction-log row as the API returns it.
 *
 * @param sessionId - the session it is of
 * @param r - the stored row
 * @param names - the sessions it names beside its own (a rewind's abandoned branch, an inherited row's ancestor)
 * @returns the record
 */
export function toEvictionRecord(
  sessionId: string,
  r: EvictionRow,
  names: EvictionNames = {},
): EvictionRecord {
  // A rewind's row names the abandoned branch's session in `summary`, never a summary.
  const rewind = r.cut === 'rewind'
  return {
    sessionId,
    fromSeq: r.from_seq,
    toSeq: r.to_seq,
    at: new Date(r.at),
    cut: r.cut as EvictionCut,
    reason: r.reason as EvictionReason,
    ...(r.summary === null || rewind ? {} : { summaryId: r.summary }),
    ...(rewind && names.abandonedId !== undefined ? { abandonedId: names.abandonedId } : {}),
    ...(names.inheritedFrom === undefined ? {} : { inheritedFrom: names.inheritedFrom }),
    version: r.version,
  }
}

/**
 * A SQLite log row as the API returns it, the sessions it names looked up by key.
 *
 * @param ledger - the open ledger, inside the read
 * @param sessionId - the session whose log is read
 * @param r - the row, and the ancestor it is inherited from (if it is)
 * @returns the record
 */
function recordOf(ledger: SqliteLedger, sessionId: string, r: BranchEvictionRow): EvictionRecord {
  const idOf = (pk: number | null | undefined): string | undefined =>
    pk === null || pk === undefined ? undefined : branchRecall(ledger.db).sessionIdOf.get(pk)
  return toEvictionRecord(sessionId, r.row, {
    abandonedId: r.row.cut === 'rewind' ? idOf(r.row.summary) : undefined,
    inheritedFrom: idOf(r.from),
  })
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
export function readEvictions(ledger: SqliteLedger, sessionId: string, options: unknown): EvictionRecord[] {
  ledger.ensureOpen()
  const { fromSeq, limit } = checkEvictionsOptions(sessionId, options)
  return ledger.read(
    () => {
      const row = ledger.keys.sessionRow(sessionId)
      if (row === undefined) return []
      const rows: BranchEvictionRow[] =
        row.parent === null
          ? ledger.st.evictionsFrom
              .all(row.pk, fromSeq, limit)
              .map((r) => ({ row: r, from: undefined, depth: 0 }))
          : branchEvictions(ledger.db, branchView(ledger.db, row), fromSeq, limit)
      return rows.map((r) => recordOf(ledger, sessionId, r))
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
export function readEvictionOf(
  ledger: SqliteLedger,
  sessionId: string,
  seq: unknown,
): EvictionRecord | undefined {
  ledger.ensureOpen()
  checkSessionId(sessionId)
  const n = checkSeq(seq, 'seq')
  return ledger.read(
    () => {
      const session = ledger.keys.sessionRow(sessionId)
      if (session === undefined) return undefined
      if (session.parent !== null) {
        const found = branchEvictionOf(ledger.db, branchView(ledger.db, session), n)
        return found === undefined ? undefined : recordOf(ledger, sessionId, found)
      }
      const row = ledger.st.evictionOf.get({ session: session.pk, n })
      return row === undefined ? undefined : toEvictionRecord(sessionId, row)
    },
    `read the eviction log of session "${sessionId}"`,
    sessionId,
  )
}
