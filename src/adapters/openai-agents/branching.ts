/**
 * The branch calls a `LedgerSession` makes, as Promises over either backend: rewind-and-append in one
 * transaction (`popItem`, `replace_suffix`), fork, the branch tree, and the lookup of an operation id in
 * the session or in a branch it abandoned. SQLite's store answers with `rewindAndAppend`
 * (`src/store/rewind-append.ts`); a PostgreSQL store with its own `rewindAndAppend` (the same names,
 * async). A store without rewind-and-append (or without branches) gets none: the session then withdraws
 * items with markers, as it did before branches.
 */
import { isContextLedgerError } from '../../errors.js'
import type { BranchInfo, ForkOptions } from '../../store/branches/types.js'
import { ContextStore } from '../../store/context-store.js'
import { rewindAndAppend, type RewindAndAppendOptions } from '../../store/rewind-append.js'
import type { AppendOptions } from '../../store/append-format.js'
import type { MessageRef } from '../../store/check-args.js'
import type { LedgerEntry } from '../../store/store-types.js'
import type { AsyncLedgerManager } from '../strands/async-ledger.js'
import type { PersistentConversationManager } from '../../manager/persistent-conversation-manager.js'
import type { AdapterStore } from '../session-options.js'

export type { RewindAndAppendOptions } from '../../store/rewind-append.js'

/**
 * Rewinds the session to `toSeq` (undefined: nothing rewound) and appends `messages`, in one
 * transaction, when the session holds `expectCount` messages ending with `expectNewest`.
 */
export type Rewinder = (options: RewindAndAppendOptions, messages: readonly unknown[]) => Promise<void>

/** What a session asks of the store's branches. */
export interface BranchPort {
  /** Rewind-and-append, or undefined on a store that forks but cannot do it in one transaction. */
  readonly rewindAppend: Rewinder | undefined
  /** Forks the session. */
  fork(options: ForkOptions): Promise<BranchInfo>
  /** The tree holding the session, root first. */
  branches(): Promise<BranchInfo[]>
  /**
   * The message with this trackingId in the session's conversation, or else in a branch the session
   * abandoned (its rewinds' branches, and theirs); undefined when none holds it.
   */
  findKept(trackingId: string): Promise<LedgerEntry | undefined>
}

/** The calls of a store with branches, either backend's (awaited either way). */
interface BranchingStore {
  fork(sessionId: string, options: ForkOptions): BranchInfo | Promise<BranchInfo>
  branches(sessionId: string): BranchInfo[] | Promise<BranchInfo[]>
  message(sessionId: string, ref: MessageRef): LedgerEntry | Promise<LedgerEntry>
  rewindAndAppend?(
    sessionId: string,
    options: RewindAndAppendOptions,
    messages: readonly unknown[],
    appendOptions: Pick<AppendOptions, 'tokenCounter' | 'format'>,
  ): unknown
}

/** The entry, or undefined for `MESSAGE_NOT_FOUND`. */
async function lookup(store: BranchingStore, sessionId: string, trackingId: string) {
  try {
    return await store.message(sessionId, { trackingId })
  } catch (error) {
    if (isContextLedgerError(error, 'MESSAGE_NOT_FOUND')) return undefined
    throw error
  }
}

/** The tree holding the session; empty while the session does not exist yet. */
async function tree(store: BranchingStore, sessionId: string): Promise<BranchInfo[]> {
  try {
    return await store.branches(sessionId)
  } catch (error) {
    if (isContextLedgerError(error, 'SESSION_NOT_FOUND')) return []
    throw error
  }
}

/**
 * The abandoned branches below a session: its rewinds' branches and, recursively, theirs (a later rewind
 * to an earlier point re-parents the earlier abandoned branch under the new one).
 *
 * @param tree - the tree holding the session (`branches()`)
 * @param sessionId - the session
 * @returns their ids
 */
export function abandonedBelow(tree: readonly BranchInfo[], sessionId: string): string[] {
  const out: string[] = []
  const visit = (parent: string): void => {
    for (const b of tree)
      if (b.parentId === parent && b.kind === 'abandoned') {
        out.push(b.sessionId)
        visit(b.sessionId)
      }
  }
  visit(sessionId)
  return out
}

/**
 * The branch port of a session, or undefined when the store has no branches. A PostgreSQL store that
 * forks but has no `rewindAndAppend` gets one without `rewindAppend`.
 *
 * @param store - the store
 * @param manager - the session's manager (its token counter and format are the append's)
 * @returns the port, or undefined
 */
export function branchPort(
  store: AdapterStore,
  manager: PersistentConversationManager | AsyncLedgerManager,
): BranchPort | undefined {
  const s = store as unknown as Partial<BranchingStore>
  if (typeof s.fork !== 'function' || typeof s.branches !== 'function') return undefined
  const b = store as unknown as BranchingStore
  const { sessionId } = manager
  // Both backends' managers hold the resolved token counter and the format their appends use.
  const { tokenCounter, format } = manager as unknown as Pick<AppendOptions, 'tokenCounter' | 'format'>
  const appendOptions = { tokenCounter, format }
  const pgRewind = b.rewindAndAppend?.bind(b)
  const rewindAppend: Rewinder | undefined =
    store instanceof ContextStore
      ? async (options, messages) => {
          await Promise.resolve()
          rewindAndAppend(store, sessionId, options, messages, appendOptions)
        }
      : pgRewind === undefined
        ? undefined
        : async (options, messages) => {
            await pgRewind(sessionId, options, messages, appendOptions)
          }
  return {
    rewindAppend,
    fork: async (options) => b.fork(sessionId, options),
    branches: async () => b.branches(sessionId),
    findKept: async (trackingId) => {
      const own = await lookup(b, sessionId, trackingId)
      if (own !== undefined) return own
      for (const id of abandonedBelow(await tree(b, sessionId), sessionId)) {
        const found = await lookup(b, id, trackingId)
        if (found !== undefined) return found
      }
      return undefined
    },
  }
}
