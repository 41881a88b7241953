/**
 * `LedgerSession.fork`'s options and its fork point, in the terms an Agents user has: an item of
 * `getItems()` (`atItem`), or the ledger's own (`atSeq`, `trackingId` from `history()`), or by default
 * the session's newest item. The fork itself is the core's: the branch shares every row up to the fork
 * point with the session (nothing is copied) and continues on its own.
 */
import { z } from 'zod'
import { invalidOption } from '../../store/check-args.js'
import { optionsError } from '../../window/window-options.js'
import type { VisibleItem } from './visible.js'

/** Options of `LedgerSession.fork`: at most one fork point (default: the session's newest item). */
export interface LedgerForkOptions {
  /**
   * The branch keeps `getItems()[atItem]` and everything before it (a negative index counts from the
   * end: `-1` is the newest item the model sees).
   */
  readonly atItem?: number | undefined
  /** …or the last message the branch keeps, by seq (`history()` gives seqs). */
  readonly atSeq?: number | undefined
  /** …or by trackingId. */
  readonly trackingId?: string | undefined
  /** The branch's session id (default: a minted UUID v7). */
  readonly newSessionId?: string | undefined
  /** Who forks (default `'user'`). */
  readonly actor?: string | undefined
  /** Why, free text. */
  readonly reason?: string | undefined
  /** The branch's metadata (default: the session's). */
  readonly metadata?: unknown
}

const schema = z.strictObject({
  atItem: z.number().int().optional(),
  atSeq: z.number().int().nonnegative().optional(),
  trackingId: z.string().optional(),
  newSessionId: z.string().optional(),
  actor: z.string().optional(),
  reason: z.string().optional(),
  metadata: z.unknown().optional(),
})

/** Where the core forks: by seq or by trackingId. */
export type CoreForkPoint = { atSeq: number } | { trackingId: string }

/**
 * Checks the options (before anything is read).
 *
 * @param options - what the caller passed
 * @returns them, typed
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the bad field, or when two fork points are given
 */
export function checkForkOptions(options: unknown): LedgerForkOptions {
  const parsed = schema.safeParse(options ?? {})
  if (!parsed.success) throw optionsError(parsed.error, 'fork')
  const given = (['atItem', 'atSeq', 'trackingId'] as const).filter((k) => parsed.data[k] !== undefined)
  if (given.length > 1)
    throw invalidOption(given[1] ?? 'atItem', `give one fork point, not ${given.join(' and ')}`)
  return parsed.data
}

/**
 * The core's fork point for the options.
 *
 * @param options - checked options
 * @param shown - what the model sees (for `atItem`)
 * @param count - the session's message count (the default is its newest message)
 * @returns the fork point
 * @throws ContextLedgerError `INVALID_OPTIONS` at `atItem` when no such item is shown, or it is the summary
 */
export function forkPoint(
  options: LedgerForkOptions,
  shown: readonly VisibleItem[],
  count: number,
): CoreForkPoint {
  if (options.atSeq !== undefined) return { atSeq: options.atSeq }
  if (options.trackingId !== undefined) return { trackingId: options.trackingId }
  // An empty session does not exist yet: seq 0 lets the core say so (SESSION_NOT_FOUND).
  if (options.atItem === undefined) return { atSeq: Math.max(count - 1, 0) }
  const item = shown.at(options.atItem)
  if (item === undefined)
    throw invalidOption('atItem', `the model sees ${shown.length} items: there is no item ${options.atItem}`)
  if (item.seq === undefined)
    throw invalidOption('atItem', 'that item is the summary, which has no place to fork at')
  return { atSeq: item.seq }
}
