/**
 * What the adapters (Strands, AI SDK) need of a store whose calls return Promises — the PostgreSQL store
 * of `context-ledger/postgres` — described structurally, so this entry loads neither `pg` nor its types.
 * `PostgresContextStore` and `PostgresConversationManager` implement these interfaces (checked where
 * they are declared).
 */
import type { MessageData, StoredMessageData } from '../../messages/types.js'
import type { MessageLimits } from '../../messages/schema.js'
import type {
  ManagerAppendOptions,
  ReduceOptions,
  SummarizeExcessOptions,
  SummarizeOptions,
} from '../../manager/manager-options.js'
import type { MessageRef, PinAttribution } from '../../store/check-args.js'
import type { DeleteSessionResult, PruneOptions, PruneResult } from '../../store/retention-options.js'
import type {
  BranchInfo,
  DeleteSessionOptions,
  ForkOptions,
  RewindOptions,
  RewindResult,
} from '../../store/branches/types.js'
import type {
  EditAttribution,
  LedgerEntry,
  MessageEdit,
  PinResult,
  SessionSummary,
  WindowEntry,
  WindowReadOptions,
  WindowResult,
} from '../../store/store-types.js'
import type { FoldPlan } from '../../store/summaries.js'
import type { SummarizeResult, Summarizer } from '../../summaries/summarize.js'
import type { FoldRequest, NothingEvictedReason } from '../../window/plan-types.js'
import type { TokenCounter } from '../../messages/tokens.js'
import type { WindowLimits } from '../../window/window-options.js'
import type { AsyncRecallManager } from '../../tools/recall-tools.js'
import type { MessageFormatName } from '../../formats/types.js'

/**
 * The mark of a store whose calls return Promises (a registry-wide symbol, so two copies of the package
 * agree on it).
 */
export const ASYNC_STORE: unique symbol = Symbol.for('context-ledger.async-store') as never

/** The options of a manager of an asynchronous store: the core manager's, without the store. */
export interface AsyncManagerOptions {
  /** The session. */
  readonly sessionId: string
  /** Counts a message's tokens. */
  readonly tokenCounter?: TokenCounter | undefined
  /** Window size in messages. */
  readonly windowSize?: unknown
  /** Token budget. */
  readonly tokenBudget?: unknown
  /** Protected first/last messages. */
  readonly protectedMessages?: unknown
  /** Protected range. */
  readonly protectedMessageRange?: unknown
  /** Low-water mark. */
  readonly lowWaterMark?: unknown
  /** The session's message format (default: the session's own, `'strands'` for a new one). */
  readonly format?: MessageFormatName | undefined
}

/** A store whose calls return Promises: the PostgreSQL store. */
export interface AsyncContextStore {
  /** Its mark. */
  readonly [ASYNC_STORE]: true
  /** The validation limits every incoming message must meet. */
  readonly limits: Readonly<MessageLimits>
  /**
   * @param sessionId - the session
   * @returns its summary, or undefined when it does not exist
   */
  session(sessionId: string): Promise<SessionSummary | undefined>
  /** Every session of the ledger, with its sizes (the Claude Agent SDK store lists its own from them). */
  sessions(): Promise<SessionSummary[]>
  /**
   * Deletes a session and everything of it; see `ContextStore.deleteSession`.
   *
   * @param sessionId - the session
   * @param options - `subtree: true` to delete its live branches too
   */
  deleteSession(sessionId: string, options?: DeleteSessionOptions): Promise<DeleteSessionResult>
  /**
   * A new branch of a session, without copying a message; see `ContextStore.fork`.
   *
   * @param sessionId - the session to fork
   * @param options - the fork point and the branch's id, actor, reason, metadata
   */
  fork(sessionId: string, options: ForkOptions): Promise<BranchInfo>
  /**
   * Continues a session from an earlier message, the rest kept as an abandoned branch; see
   * `ContextStore.rewind`.
   *
   * @param sessionId - the session
   * @param options - the last message that stays, and the abandoned branch's id, actor, reason
   */
  rewind(sessionId: string, options: RewindOptions): Promise<RewindResult>
  /**
   * The tree of branches holding a session; see `ContextStore.branches`.
   *
   * @param sessionId - any session of the tree
   */
  branches(sessionId: string): Promise<BranchInfo[]>
  /**
   * Retention: erases the content of old messages out of the window; see `ContextStore.prune`.
   *
   * @param options - `before`, `keepPinned: true`, `sessionId`, `actor`, `reason`
   */
  prune(options: PruneOptions): Promise<PruneResult>
  /**
   * @param options - the manager's options
   * @returns a manager of one session
   */
  manager(options: AsyncManagerOptions): AsyncLedgerManager
}

/**
 * The core manager's calls on an asynchronous store, each returning a Promise (the recall tools' too:
 * `search`, and the store's `session` and `evictionOf`).
 */
export interface AsyncLedgerManager extends AsyncRecallManager {
  /** The session. */
  readonly sessionId: string
  /** Resolved window limits. */
  readonly limits: WindowLimits
  /** Appends messages (`expectCount`: only onto that many); see the core manager's `append`. */
  append(messages: readonly MessageData[], options?: ManagerAppendOptions): Promise<LedgerEntry[]>
  /** Applies the limits; see the core manager's `applyWindow`. */
  applyWindow(): Promise<WindowResult>
  /** Makes room; see the core manager's `reduce`. */
  reduce(options?: ReduceOptions): Promise<WindowResult>
  /** The window; see the core manager's `window`. */
  window(options?: WindowReadOptions): Promise<StoredMessageData[]>
  /** The window with each row's seq and pin; see the core manager's `windowEntries`. */
  windowEntries(): Promise<WindowEntry[]>
  /** The session's edit log; see the core manager's `edits`. */
  edits(): Promise<MessageEdit[]>
  /** Records an edit; see the core manager's `edit`. */
  edit(ref: MessageRef, message: MessageData, attribution?: EditAttribution): Promise<LedgerEntry>
  /** Pins a message; see the core manager's `pin`. */
  pin(ref: MessageRef, attribution?: PinAttribution): Promise<PinResult>
  /** Unpins a message; see the core manager's `unpin`. */
  unpin(ref: MessageRef, attribution?: PinAttribution): Promise<PinResult>
  /** Folds by ratio; see the core manager's `summarize`. */
  summarize(summarizer: Summarizer, options?: SummarizeOptions): Promise<SummarizeResult>
  /** Folds the excess; see the core manager's `summarizeExcess`. */
  summarizeExcess(summarizer: Summarizer, options?: SummarizeExcessOptions): Promise<SummarizeResult>
  /** One message; see the core manager's `message`. */
  message(ref: MessageRef): Promise<LedgerEntry>
  /** The archive; see the core manager's `history`. */
  history(options?: { fromSeq?: number; limit?: number }): Promise<LedgerEntry[]>
  /**
   * Plans a fold without writing it (the adapter asks whether an overflow fold would take only the
   * summary).
   */
  planFold(
    request: FoldRequest,
  ): Promise<{ readonly plan: FoldPlan } | { readonly nothing: NothingEvictedReason }>
}

/**
 * Whether a value is a store whose calls return Promises.
 *
 * @param value - anything
 * @returns true for the PostgreSQL store
 */
export function isAsyncStore(value: unknown): value is AsyncContextStore {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Partial<Record<typeof ASYNC_STORE, unknown>>)[ASYNC_STORE] === true
  )
}
