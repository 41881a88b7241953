/**
 * Rewind and append in one transaction (SQLite): a session continues from an earlier message — what came
 * after it leaving as an abandoned branch (`rewind`) — and new messages continue it, both or neither.
 * Guarded like a compare-and-append: the session must hold exactly `expectCount` messages, the newest of
 * them `expectNewest` (its trackingId), read under the write lock. The count alone is not enough once a
 * session can rewind: another writer's rewind and append can bring it back to the same number with other
 * rows; a trackingId never comes back (a rewound row leaves with its branch, a new row gets a new one).
 *
 * The OpenAI Agents adapter's `popItem` and `replace_suffix` are written this way. Written as a module
 * of its own so the core can take it as `ContextStore.rewindAndAppend`; the PostgreSQL store is asked
 * for the same call, with the same names (see the adapter's `branching.ts`).
 */
import { ContextLedgerError } from '../errors.js'
import type { AppendOptions } from './append-format.js'
import type { ContextStore } from './context-store.js'
import type { LedgerEntry } from './store-types.js'
import type { RewindOptions, RewindResult } from './branches/types.js'

/** Options of {@link rewindAndAppend}. */
export interface RewindAndAppendOptions extends Omit<RewindOptions, 'toSeq' | 'trackingId'> {
  /**
   * The last message that stays; undefined or the newest seq: nothing is rewound (the append alone,
   * guarded).
   */
  readonly toSeq?: number | undefined
  /** Write only when the session holds exactly this many messages (0: it does not exist yet). */
  readonly expectCount: number
  /** …and its newest message has this trackingId (undefined: not checked). */
  readonly expectNewest?: string | undefined
}

/** What {@link rewindAndAppend} did. */
export interface RewindAndAppendResult {
  /** The rewind, or undefined when nothing was rewound (`toSeq` undefined or the newest seq). */
  readonly rewind: RewindResult | undefined
  /** The appended messages' entries, in order. */
  readonly entries: LedgerEntry[]
}

/** The error for a session another writer moved: nothing was written. */
function moved(sessionId: string, what: string, path: string): ContextLedgerError {
  return new ContextLedgerError('APPEND_CONFLICT', `Session "${sessionId}" ${what} (nothing was written)`, {
    sessionId,
    path,
  })
}

/** Checks the guard under the write lock. */
function checkGuard(store: ContextStore, sessionId: string, options: RewindAndAppendOptions): void {
  const count = store.session(sessionId)?.messageCount ?? 0
  if (count !== options.expectCount)
    throw moved(sessionId, `holds ${count} messages, not the ${options.expectCount} expected`, 'expectCount')
  if (options.expectNewest === undefined || count === 0) return
  const newest = store.message(sessionId, { seq: count - 1 }).trackingId
  if (newest !== options.expectNewest)
    throw moved(sessionId, `ends with "${newest}", not "${options.expectNewest}"`, 'expectNewest')
}

/**
 * Rewinds the session to `toSeq` and appends `messages` after it, in one transaction.
 *
 * @param store - the store
 * @param sessionId - the session (or branch)
 * @param options - where to rewind, the guard, who and why
 * @param messages - what continues the session (may be empty)
 * @param appendOptions - the append's token counter and format
 * @returns the rewind (undefined when nothing was rewound) and the new entries
 * @throws ContextLedgerError `APPEND_CONFLICT` (the guard failed), what `rewind` and `append` throw;
 *   nothing is written
 */
export function rewindAndAppend(
  store: ContextStore,
  sessionId: string,
  options: RewindAndAppendOptions,
  messages: readonly unknown[],
  appendOptions: Pick<AppendOptions, 'tokenCounter' | 'format'> = {},
): RewindAndAppendResult {
  const { toSeq, expectCount, expectNewest: _newest, ...who } = options
  return store.batch(sessionId, () => {
    checkGuard(store, sessionId, options)
    const rewind =
      toSeq === undefined || toSeq === expectCount - 1
        ? undefined
        : store.rewind(sessionId, { ...who, toSeq })
    const entries = messages.length === 0 ? [] : store.append(sessionId, [...messages], appendOptions)
    return { rewind, entries }
  })
}
