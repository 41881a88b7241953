/**
 * The retention calls' options and results — deleting a session, pruning old message bodies — and the
 * form a pruned message keeps: apart from `lifecycle.ts` (backups, which load better-sqlite3) so that the
 * PostgreSQL backend shares them without loading the SQLite driver.
 */
import { describeValue } from '../messages/limits.js'
import { redactedForm } from '../messages/redact.js'
import type { JsonValue, StoredMessageData } from '../messages/types.js'
import { checkKeys, checkSessionId, invalidOption } from './check-args.js'

/** What {@link ContextStore.deleteSession} erased. */
export interface DeleteSessionResult {
  /** The session. */
  readonly sessionId: string
  /** Whether the session existed (false: nothing was written and every count is 0). */
  readonly deleted: boolean
  /** Messages erased. */
  readonly messages: number
  /** Tool-call links erased. */
  readonly toolCalls: number
  /** Pin-log entries erased. */
  readonly pinEvents: number
  /** Edit-log entries erased. */
  readonly edits: number
  /** Summaries erased. */
  readonly summaries: number
  /** Rows of the eviction log erased. */
  readonly evictions: number
  /**
   * True when no byte of the session is left in the ledger's files. False while another connection reads
   * an older snapshot: the store finishes the erasure at its next append, at `completeErasure()` or at
   * `close()`.
   */
  readonly erased: boolean
}

/** Options of {@link ContextStore.prune}. */
export interface PruneOptions {
  /** Prune one session; every session of the file when omitted. */
  sessionId?: string | undefined
  /** Messages appended strictly before this instant lose their content: a `Date` or ms since the epoch. */
  before: Date | number
  /** Pinned messages are never pruned: `true` is the only value accepted, and it must be given. */
  keepPinned: true
  /** Who prunes, for the edit log. Default `'retention'`. */
  actor?: string | undefined
  /** Why, for the edit log. Default `retention: appended before <ISO instant>`. */
  reason?: string | undefined
}

/** What {@link ContextStore.prune} did. */
export interface PruneResult {
  /** Sessions examined. */
  readonly sessions: number
  /** Messages whose content was erased by this call (already pruned ones are not counted again). */
  readonly pruned: number
  /** Like {@link DeleteSessionResult.erased}: whether the erased contents are gone from the files. */
  readonly erased: boolean
}

/** The marker a pruned message carries in `metadata.custom.contextLedger` (db/lifecycle-statements.ts tests it). */
const PRUNED_MARKER = 'pruned'

function checkOptionalText(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || value.length === 0 || value.length > 256)
    throw invalidOption(field, `expected a string of 1 to 256 characters, got ${describeValue(value)}`)
  return value
}

/** The largest time a `Date` holds, in ms from the epoch either way. */
const MAX_DATE_MS = 8.64e15

/**
 * Checks {@link PruneOptions}.
 *
 * @param options - what the caller passed
 * @returns the session (if one), the cut-off in ms since the epoch, and the attribution
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the field
 */
export function checkPruneOptions(options: unknown): {
  sessionId: string | undefined
  before: number
  actor: string
  reason: string
} {
  const o = checkKeys(options, 'options', ['sessionId', 'before', 'keepPinned', 'actor', 'reason'])
  if (o.sessionId !== undefined) checkSessionId(o.sessionId, 'options.sessionId')
  const raw = o.before
  const before = raw instanceof Date ? raw.getTime() : raw
  // ±8.64e15 ms is the range a Date can hold; past it the default reason could not name the time.
  if (typeof before !== 'number' || !Number.isFinite(before) || Math.abs(before) > MAX_DATE_MS)
    throw invalidOption(
      'options.before',
      `expected a valid Date or a number of ms since the epoch within ±${MAX_DATE_MS}, got ${describeValue(raw)}`,
    )
  if (o.keepPinned !== true)
    throw invalidOption(
      'options.keepPinned',
      `expected true (pinned messages are never pruned), got ${describeValue(o.keepPinned)}`,
    )
  return {
    sessionId: o.sessionId,
    before,
    actor: checkOptionalText(o.actor, 'options.actor') ?? 'retention',
    reason:
      checkOptionalText(o.reason, 'options.reason') ??
      `retention: appended before ${new Date(before).toISOString()}`,
  }
}

/**
 * The form a pruned message keeps: its redacted form (role, trackingId, tool ids; see redact.ts) marked
 * `metadata.custom.contextLedger.pruned = true`.
 *
 * @param message - the archived message
 * @returns the pruned form
 */
export function prunedForm(message: StoredMessageData): StoredMessageData {
  const redacted = redactedForm(message)
  const custom: Record<string, JsonValue> = { ...(redacted.metadata?.custom ?? {}) }
  const marks = custom.contextLedger
  const ledger = typeof marks === 'object' && marks !== null && !Array.isArray(marks) ? marks : {}
  custom.contextLedger = { ...ledger, [PRUNED_MARKER]: true }
  return { ...redacted, metadata: { ...redacted.metadata, custom } }
}
