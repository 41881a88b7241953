/**
 * Checks of the arguments every public store call takes besides messages: session ids, message
 * references, pin attributions, window limits and query options. Each refuses a bad value with
 * `INVALID_OPTIONS` naming the argument or field (also as the error's `path`), so no call gets as far as
 * reading a property of `null` or running a query with a nonsense bound. They are hand-written, not zod:
 * some run on every append and every window read.
 */
import { ContextLedgerError } from '../errors.js'
import { DEFAULT_MESSAGE_LIMITS, describeValue } from '../messages/limits.js'
import type { TokenCounter } from '../messages/tokens.js'
import type { ReduceMode } from '../window/plan-cut.js'
import type { WindowLimits } from '../window/window-options.js'

/** The longest session id, in UTF-16 code units. */
export const SESSION_ID_MAX = 256

/** The longest actor name and reason of a pin, an unpin, an edit or a redaction (docs/api.md, "Limits"). */
export const ATTRIBUTION_MAX = 256

/** Names a message: by seq, by tracking id, or by its position in the current window. */
export type MessageRef = { seq: number } | { trackingId: string } | { windowIndex: number }

/** Who pins and why. */
export interface PinAttribution {
  /** Who: `'user'` (default), `'agent'`, `'rule'`, or any name (1–256 characters). */
  actor?: string
  /** Why (1–256 characters): the pin log keeps it with every pin. */
  reason?: string
}

/** Options of `history()`. */
export interface HistoryOptions {
  /** First seq returned (default 0). */
  fromSeq?: number | undefined
  /** Most entries returned (default 100). */
  limit?: number | undefined
}

/** Options of `pinnedMessages()`. */
export interface PinnedMessagesOptions {
  /** Restrict to one session; every session when omitted. */
  sessionId?: string | undefined
  /** Only messages whose latest pin was made by this actor (`'user'`, `'agent'`, `'append'`, …). */
  actor?: string | undefined
  /** Only messages whose latest pin's reason contains this text (letter case ignored). */
  reason?: string | undefined
  /** Only messages pinned (latest pin) at or after this instant. */
  since?: Date | number | undefined
  /** Only messages pinned (latest pin) strictly before this instant. */
  until?: Date | number | undefined
}

/** Checked {@link PinnedMessagesOptions}: the filters other than the session, null when not asked for. */
export interface PinnedFilters {
  readonly actor: string | null
  readonly reason: string | null
  readonly since: number | null
  readonly until: number | null
}

/**
 * The `INVALID_OPTIONS` error for one argument or field.
 *
 * @param field - e.g. `ref.seq`, `options.limit`
 * @param problem - what was expected and what arrived
 * @returns the error to throw
 */
export function invalidOption(field: string, problem: string): ContextLedgerError<'INVALID_OPTIONS'> {
  return new ContextLedgerError('INVALID_OPTIONS', `Invalid ${field}: ${problem}`, { path: field })
}

/**
 * Whether a value is a plain object (not null, not an array).
 *
 * @param value - anything
 * @returns true for an object
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Checks that an options argument is an object (what a manager spreads its session into).
 *
 * @param value - what the caller passed
 * @param field - its name, for the error
 * @returns the object
 * @throws ContextLedgerError `INVALID_OPTIONS` for anything else (an array, null, a string …)
 */
export function checkObject(value: unknown, field: string): Record<string, unknown> {
  if (!isRecord(value)) throw invalidOption(field, `expected an object, got ${describeValue(value)}`)
  return value
}

/**
 * Refuses a value that is not a plain object, or that has a key outside `known`.
 *
 * @param value - what the caller passed
 * @param field - how to name it in the error
 * @param known - the keys it may have
 * @returns the object
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the field or the unknown key
 */
export function checkKeys(value: unknown, field: string, known: readonly string[]): Record<string, unknown> {
  const o = checkObject(value, field)
  for (const key in o)
    if (Object.hasOwn(o, key) && !known.includes(key))
      throw invalidOption(`${field}.${key}`, `unknown field (known: ${known.join(', ')})`)
  return o
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

function checkCount(value: unknown, field: string, min = 0): number {
  if (!isCount(value) || value < min)
    throw invalidOption(field, `expected an integer ≥ ${min}, got ${describeValue(value)}`)
  return value
}

function checkText(value: unknown, field: string, min: number, max: number): string {
  if (typeof value !== 'string') throw invalidOption(field, `expected a string, got ${describeValue(value)}`)
  if (value.length < min || value.length > max)
    throw invalidOption(field, `expected ${min}–${max} characters, got ${value.length}`)
  if (!value.isWellFormed()) throw invalidOption(field, 'contains a lone UTF-16 surrogate')
  return value
}

/**
 * Checks a session id: a well-formed string of 1–256 UTF-16 code units (a lone surrogate would be
 * stored as U+FFFD and never be found again).
 *
 * @param sessionId - what the caller passed
 * @param field - how to name it in the error
 * @throws ContextLedgerError `INVALID_OPTIONS`
 */
export function checkSessionId(sessionId: unknown, field = 'sessionId'): asserts sessionId is string {
  if (
    typeof sessionId !== 'string' ||
    sessionId.length === 0 ||
    sessionId.length > SESSION_ID_MAX ||
    !sessionId.isWellFormed()
  )
    throw invalidOption(
      field,
      `a sessionId is a non-empty, well-formed string of at most ${SESSION_ID_MAX} characters, got ${describeValue(sessionId)}`,
    )
}

/**
 * Checks a message reference: exactly one of `seq` (integer ≥ 0), `trackingId` (non-empty string) or
 * `windowIndex` (integer ≥ 0), and nothing else. A field set to `undefined` counts as absent.
 *
 * @param ref - what the caller passed
 * @returns the reference
 * @throws ContextLedgerError `INVALID_OPTIONS` naming `ref` or the bad field
 */
export function checkMessageRef(ref: unknown): MessageRef {
  const r = checkKeys(ref, 'ref', ['seq', 'trackingId', 'windowIndex'])
  const given = (['seq', 'trackingId', 'windowIndex'] as const).filter((k) => r[k] !== undefined)
  if (given.length !== 1)
    throw invalidOption(
      'ref',
      `name a message by exactly one of seq, trackingId or windowIndex, got ${given.length === 0 ? 'none' : given.join(' and ')}`,
    )
  if (r.trackingId !== undefined)
    checkText(r.trackingId, 'ref.trackingId', 1, DEFAULT_MESSAGE_LIMITS.maxStringLength)
  else if (r.seq !== undefined) checkCount(r.seq, 'ref.seq')
  else checkCount(r.windowIndex, 'ref.windowIndex')
  return r as MessageRef
}

/**
 * Checks a pin (or edit, or redaction) attribution: an optional `actor` and `reason`, each 1–256 characters.
 *
 * @param attribution - what the caller passed (undefined for none)
 * @returns the attribution
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the field
 */
export function checkAttribution(attribution: unknown): PinAttribution {
  if (attribution === undefined) return {}
  const a = checkKeys(attribution, 'attribution', ['actor', 'reason'])
  if (a.actor !== undefined) checkText(a.actor, 'attribution.actor', 1, ATTRIBUTION_MAX)
  if (a.reason !== undefined) checkText(a.reason, 'attribution.reason', 1, ATTRIBUTION_MAX)
  return a
}

/**
 * Checks `history()` options and fills in the defaults.
 *
 * @param options - what the caller passed (undefined for the defaults)
 * @returns `fromSeq` (default 0) and `limit` (default 100)
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the field
 */
export function checkHistoryOptions(options: unknown): { fromSeq: number; limit: number } {
  if (options === undefined) return { fromSeq: 0, limit: 100 }
  const o = checkKeys(options, 'options', ['fromSeq', 'limit'])
  return {
    fromSeq: o.fromSeq === undefined ? 0 : checkCount(o.fromSeq, 'options.fromSeq'),
    limit: o.limit === undefined ? 100 : checkCount(o.limit, 'options.limit'),
  }
}

/**
 * Checks `pinnedMessages()` options.
 *
 * @param options - what the caller passed (undefined for all sessions)
 * @returns the session to restrict to, if any
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the field
 */
export function checkPinnedMessagesOptions(options: unknown): {
  sessionId: string | undefined
  filters: PinnedFilters | undefined
} {
  if (options === undefined) return { sessionId: undefined, filters: undefined }
  const o = checkKeys(options, 'options', ['sessionId', 'actor', 'reason', 'since', 'until'])
  if (o.sessionId !== undefined) checkSessionId(o.sessionId, 'options.sessionId')
  const text = (v: unknown, field: string): string | null => {
    if (v === undefined) return null
    if (typeof v !== 'string') throw invalidOption(field, `expected a string, got ${describeValue(v)}`)
    return v
  }
  const time = (v: unknown, field: string): number | null => {
    if (v === undefined) return null
    const ms = v instanceof Date ? v.getTime() : v
    if (typeof ms !== 'number' || !Number.isFinite(ms))
      throw invalidOption(field, `expected a Date or ms since the epoch, got ${describeValue(v)}`)
    return ms
  }
  const filters = {
    actor: text(o.actor, 'options.actor'),
    reason: text(o.reason, 'options.reason'),
    since: time(o.since, 'options.since'),
    until: time(o.until, 'options.until'),
  }
  const any = Object.values(filters).some((v) => v !== null)
  return { sessionId: o.sessionId, filters: any ? filters : undefined }
}

/**
 * Checks resolved window limits as the store's window calls take them (`resolveWindowLimits` makes them
 * from a manager's options): `windowSize` an integer ≥ 1, `tokenBudget` undefined or an integer ≥ 1,
 * `first` and `last` integers ≥ 0, nothing else.
 *
 * @param limits - what the caller passed
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the field
 */
export function checkWindowLimits(limits: unknown): asserts limits is WindowLimits {
  const l = checkKeys(limits, 'limits', ['windowSize', 'tokenBudget', 'first', 'last', 'lowWaterMark'])
  checkCount(l.windowSize, 'limits.windowSize', 1)
  if (l.tokenBudget !== undefined) checkCount(l.tokenBudget, 'limits.tokenBudget', 1)
  checkCount(l.first, 'limits.first')
  checkCount(l.last, 'limits.last')
  const low = l.lowWaterMark
  if (low !== undefined && (typeof low !== 'number' || !(low > 0 && low < 1)))
    throw invalidOption('limits.lowWaterMark', `expected a share in (0, 1), got ${describeValue(low)}`)
}

/**
 * Checks the mode of `applyWindow()`.
 *
 * @param mode - what the caller passed
 * @throws ContextLedgerError `INVALID_OPTIONS`
 */
export function checkReduceMode(mode: unknown): asserts mode is ReduceMode {
  if (mode !== 'apply' && mode !== 'overflow')
    throw invalidOption('mode', `expected 'apply' or 'overflow', got ${describeValue(mode)}`)
}

/**
 * Checks a boolean argument.
 *
 * @param value - what the caller passed
 * @param field - its name
 * @throws ContextLedgerError `INVALID_OPTIONS`
 */
function checkBoolean(value: unknown, field: string): asserts value is boolean {
  if (typeof value !== 'boolean')
    throw invalidOption(field, `expected a boolean, got ${describeValue(value)}`)
}

/**
 * Checks a token counter.
 *
 * @param counter - what the caller passed
 * @throws ContextLedgerError `INVALID_OPTIONS`
 */
export function checkTokenCounter(counter: unknown): asserts counter is TokenCounter {
  if (typeof counter !== 'function')
    throw invalidOption('tokenCounter', `expected a function, got ${describeValue(counter)}`)
}

/**
 * Checks `redactMessage()` options: `actor`, `reason` and `replacement`, nothing else.
 *
 * @param options - what the caller passed (undefined for none)
 * @returns the options
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the field
 */
export function checkRedactOptions(options: unknown): {
  actor?: string
  reason?: string
  replacement?: unknown
} {
  if (options === undefined) return {}
  return checkKeys(options, 'options', ['actor', 'reason', 'replacement'])
}

/**
 * Checks `window()` options: an optional boolean `alternate`, nothing else.
 *
 * @param options - what the caller passed (undefined for none)
 * @returns whether to merge runs of same-role messages
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the field
 */
export function checkWindowReadOptions(options: unknown): boolean {
  if (options === undefined) return false
  const o = checkKeys(options, 'options', ['alternate'])
  if (o.alternate === undefined) return false
  checkBoolean(o.alternate, 'options.alternate')
  return o.alternate
}

/** Options of `summaries()`. */
export interface SummariesOptions {
  /** At most this many, newest first: an integer in [1, 10,000]. Default 100. */
  limit?: number | undefined
}

/**
 * Checks the options of `summaries()`.
 *
 * @param options - what the caller passed
 * @returns the limit
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the field
 */
export function checkSummariesOptions(options: unknown): number {
  const o = checkKeys(options, 'options', ['limit'])
  if (o.limit === undefined) return 100
  const limit = checkCount(o.limit, 'options.limit', 1)
  if (limit > 10_000)
    throw invalidOption('options.limit', `expected an integer in [1, 10000], got ${describeValue(limit)}`)
  return limit
}
