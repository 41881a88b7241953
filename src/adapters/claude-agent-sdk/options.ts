/**
 * The options of `LedgerSessionStore` and of its `prune`, checked: an unknown or bad option is its
 * `INVALID_OPTIONS`, naming the option, whichever backend the store is.
 */
import { z } from 'zod'
import type { ContextStore } from '../../store/context-store.js'
import { describeValue } from '../../messages/limits.js'
import { checkKeys, invalidOption } from '../../store/check-args.js'
import { adapterOptionFields, checkAdapterOptions, type AdapterStore } from '../session-options.js'
import { checkProjectKey } from './keys.js'

/** Options of `LedgerSessionStore`. */
export interface LedgerSessionStoreOptions<S extends AdapterStore = ContextStore> {
  /**
   * The ledger the transcripts go to: `openContextStore(path)`, or `openPostgresContextStore(…)` of
   * `context-ledger/postgres`.
   */
  readonly store: S
  /**
   * Put before every ledger session id this store makes (default none), to keep its sessions apart from
   * other sessions in a ledger shared with other adapters or tenants: `'claude:'` gives
   * `claude:<projectKey>/<sessionId>`. Stores with different prefixes on one ledger never see each
   * other's transcripts.
   */
  readonly prefix?: string | undefined
}

/** The longest prefix: room is left for the key's parts. */
const PREFIX_MAX = 64

const optionsSchema = z.strictObject({
  store: adapterOptionFields.store,
  prefix: z
    .string()
    .max(PREFIX_MAX)
    .refine((p) => p.isWellFormed(), 'expected a well-formed string')
    .optional(),
})

/**
 * Checks a `LedgerSessionStore`'s options.
 *
 * @param options - what the caller passed
 * @returns them, typed
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the bad or unknown option
 */
export function checkStoreOptions<S extends AdapterStore>(
  options: LedgerSessionStoreOptions<S>,
): LedgerSessionStoreOptions<S> {
  return checkAdapterOptions(options, optionsSchema, 'LedgerSessionStore')
}

/** Options of `LedgerSessionStore.prune`. */
export interface ClaudePruneOptions {
  /** Entries appended strictly before this instant lose their content (a `Date` or ms since the epoch). */
  readonly olderThan: Date | number
  /** Pinned entries are never pruned: `true` is the only value accepted, and it must be given. */
  readonly keepPinned: true
  /** Only the transcripts of this project (default: every transcript of this store). */
  readonly projectKey?: string | undefined
  /** Who prunes, for the edit log (default `'retention'`). */
  readonly actor?: string | undefined
  /** Why, for the edit log. */
  readonly reason?: string | undefined
}

/**
 * Checks the options of `prune`; the core checks `actor` and `reason`.
 *
 * @param options - what the caller passed
 * @returns them, with `olderThan` in ms since the epoch
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the field
 */
export function checkPruneOptions(options: unknown): ClaudePruneOptions & { readonly olderThan: number } {
  const o = checkKeys(options, 'options', ['olderThan', 'keepPinned', 'projectKey', 'actor', 'reason'])
  const at = o.olderThan instanceof Date ? o.olderThan.getTime() : o.olderThan
  if (typeof at !== 'number' || !Number.isFinite(at))
    throw invalidOption(
      'options.olderThan',
      `expected a valid Date or ms since the epoch, got ${describeValue(o.olderThan)}`,
    )
  if (o.keepPinned !== true)
    throw invalidOption(
      'options.keepPinned',
      `expected true (pinned entries are never pruned; say so explicitly), got ${describeValue(o.keepPinned)}`,
    )
  if (o.projectKey !== undefined) checkProjectKey(o.projectKey, 'options.projectKey')
  return { ...(o as unknown as ClaudePruneOptions), olderThan: at }
}
