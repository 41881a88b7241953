/**
 * Checking what `fork()` and `rewind()` are given, before any transaction: the point (exactly one of a
 * seq and a trackingId), the new ids, who and why, the metadata. Each problem is `INVALID_OPTIONS` naming
 * the field.
 */
import { ContextLedgerError } from '../../errors.js'
import { snapshotJson } from '../../messages/json-snapshot.js'
import { describeValue } from '../../messages/limits.js'
import type { MessageLimits } from '../../messages/schema.js'
import { ATTRIBUTION_MAX, checkKeys, checkSessionId, invalidOption } from '../check-args.js'

/** A seq or a trackingId naming a message of the session. */
export type Point = { seq: number; field: string } | { trackingId: string; field: 'trackingId' }

/** Checked fork options. */
export interface ForkSettings {
  readonly point: Point
  readonly newSessionId: string | undefined
  readonly actor: string
  readonly reason: string | null
  /** The metadata as stored (JSON text), `null` for none, undefined for the parent's. */
  readonly metadata: string | null | undefined
}

/** Checked rewind options. */
export interface RewindSettings {
  readonly point: Point
  readonly abandonedId: string | undefined
  readonly actor: string
  readonly reason: string | null
}

function text(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    value.length > ATTRIBUTION_MAX ||
    !value.isWellFormed()
  )
    throw invalidOption(
      field,
      `expected a well-formed string of 1–${ATTRIBUTION_MAX} characters, got ${describeValue(value)}`,
    )
  return value
}

function point(o: Record<string, unknown>, seqField: string): Point {
  const seq = o[seqField]
  const trackingId = o.trackingId
  if ((seq === undefined) === (trackingId === undefined))
    throw invalidOption(seqField, `give exactly one of ${seqField} and trackingId`)
  if (seq !== undefined) {
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0)
      throw invalidOption(seqField, `expected an integer ≥ 0, got ${describeValue(seq)}`)
    return { seq, field: seqField }
  }
  if (typeof trackingId !== 'string' || trackingId.length === 0)
    throw invalidOption('trackingId', `expected a non-empty string, got ${describeValue(trackingId)}`)
  return { trackingId, field: 'trackingId' }
}

/**
 * Checks `fork()` options.
 *
 * @param options - what the caller passed
 * @param limits - the store's validation limits (the metadata is held to them)
 * @returns the settings
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the field
 */
export function checkForkOptions(options: unknown, limits: Readonly<MessageLimits>): ForkSettings {
  const o = checkKeys(options, 'options', [
    'atSeq',
    'trackingId',
    'newSessionId',
    'actor',
    'reason',
    'metadata',
  ])
  if (o.newSessionId !== undefined) checkSessionId(o.newSessionId, 'newSessionId')
  let metadata: string | null | undefined
  if ('metadata' in o && o.metadata !== undefined) {
    try {
      metadata = o.metadata === null ? null : JSON.stringify(snapshotJson(o.metadata, limits, true))
    } catch (error) {
      throw new ContextLedgerError('INVALID_OPTIONS', 'Invalid metadata: expected plain JSON', {
        path: 'metadata',
        cause: error,
      })
    }
  }
  return {
    point: point(o, 'atSeq'),
    newSessionId: o.newSessionId,
    actor: text(o.actor, 'actor') ?? 'user',
    reason: text(o.reason, 'reason') ?? null,
    metadata,
  }
}

/**
 * Checks `rewind()` options.
 *
 * @param options - what the caller passed
 * @returns the settings
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the field
 */
export function checkRewindOptions(options: unknown): RewindSettings {
  const o = checkKeys(options, 'options', ['toSeq', 'trackingId', 'actor', 'reason', 'abandonedId'])
  if (o.abandonedId !== undefined) checkSessionId(o.abandonedId, 'abandonedId')
  return {
    point: point(o, 'toSeq'),
    abandonedId: o.abandonedId,
    actor: text(o.actor, 'actor') ?? 'user',
    reason: text(o.reason, 'reason') ?? null,
  }
}
