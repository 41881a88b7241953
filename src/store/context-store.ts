/**
 * `ContextStore`: one SQLite file holding any number of sessions. It owns every transaction: appends,
 * pins and window changes each run in one `BEGIN IMMEDIATE` transaction that either commits whole or
 * leaves the file as it was. Reads run as single statements or read transactions, so they always see a
 * committed state. All calls are synchronous, like better-sqlite3's (but for `backup`).
 *
 * The class is the public face only: the reads come from {@link ContextStoreReader}, and each write
 * delegates to the module that does the job (`append.ts`, `apply-window.ts`, `pins.ts`, `edits.ts`,
 * `retention.ts`), all working on the open file's `Ledger`.
 */
import { estimateTokens, type TokenCounter } from '../messages/tokens.js'
import type { ReduceMode } from '../window/plan-cut.js'
import type { WindowLimits } from '../window/window-options.js'
import { append } from './append.js'
import type { AppendOptions } from './append-format.js'
import { applyWindow } from './apply-window.js'
import { type MessageRef, type PinAttribution } from './check-args.js'
import { ContextStoreTree } from './context-store-tree.js'
import { editMessage, redactMessage, setWindowContent } from './edits.js'
import type { DeleteSessionResult, PruneOptions, PruneResult } from './lifecycle.js'
import { setPinned } from './pins.js'
import { deleteSession, prune } from './retention.js'
import {
  dropSummary,
  planFold,
  planRegeneration,
  writeFold,
  writeRegeneration,
  type FoldPlan,
  type MadeSummary,
  type RegenerationPlan,
  type SummaryRecord,
} from './summaries.js'
import type { FoldRequest, NothingEvictedReason } from '../window/plan-cut.js'
import type { ContextStoreOptions } from './store-options.js'
import type { DeleteSessionOptions } from './branches/types.js'
import type {
  EditAttribution,
  LedgerEntry,
  PinResult,
  RedactOptions,
  RedactResult,
  WindowResult,
} from './store-types.js'

export type { ContextStoreOptions } from './store-options.js'
export type { AppendOptions } from './append-format.js'
export type { SessionMetadataFold } from './session-metadata.js'
export type { HistoryOptions, MessageRef, PinAttribution, PinnedMessagesOptions } from './check-args.js'
export type {
  BackupOptions,
  BackupResult,
  DeleteSessionResult,
  PruneOptions,
  PruneResult,
} from './lifecycle.js'
export type * from './store-types.js'
export type * from './search-types.js'
export type * from './branches/types.js'
export type { FoldPlan, MadeSummary, RegenerationPlan, SummaryEndReason, SummaryRecord } from './summaries.js'
export type { SummariesOptions } from './check-args.js'
export type { ExplainedWindowMessage, WindowExplanation, WindowReason } from './explain.js'
export { checkSessionId } from './check-args.js'

/**
 * A ledger file. Create one with {@link openContextStore}; share it between managers and sessions; close
 * it when done.
 */
export class ContextStore extends ContextStoreTree {
  /**
   * Prefer {@link openContextStore}.
   *
   * @param path - a file path or `':memory:'`
   * @param options - connection and validation options
   * @throws ContextLedgerError `INVALID_OPTIONS` naming a bad option, and what {@link openContextStore} throws
   */
  constructor(path: string, options: ContextStoreOptions = {}) {
    super(path, options)
  }

  /**
   * Appends messages to a session (created on first use), all or none. A message whose trackingId is
   * already in the session with the same role and content is skipped and its existing entry returned.
   *
   * Messages are in the session's message format (`'strands'` unless its first append named another):
   * pass `{ format }` to start a session of another format, e.g. `{ format: 'ai-sdk/model' }`.
   * `{ expectCount }` appends only when the session holds exactly that many messages (0: not created
   * yet), checked inside the write transaction. `{ sessionMetadata }` folds what the append wrote into the
   * session's metadata in that same transaction (see {@link AppendOptions.sessionMetadata}).
   *
   * @param sessionId - the session
   * @param messages - one message or several, oldest first
   * @param options - counts each message's tokens (default: the format's built-in estimate), or
   *   `{ tokenCounter?, format?, expectCount?, sessionMetadata? }`
   * @returns one entry per input message, in order
   * @throws ContextLedgerError `INVALID_MESSAGE`, `INVALID_TOKEN_COUNT`, `DUPLICATE_MESSAGE`, `STORAGE_FULL`,
   *   `FORMAT_MISMATCH` (messages of another format than the session's; nothing is written),
   *   `APPEND_CONFLICT` (the session does not hold `expectCount` messages; nothing is written),
   *   `INVALID_OPTIONS` at `sessionMetadata` (it threw or returned what is not JSON; nothing is written)
   */
  append(sessionId: string, messages: unknown, options?: TokenCounter | AppendOptions): LedgerEntry[] {
    return append(this.ledger, sessionId, messages, options)
  }

  /**
   * Runs several writes as one transaction: every write `fn` makes (appends, window changes, pins) runs
   * in a savepoint of it, undone alone if it throws, and all of them commit together — one commit, so
   * each page they change is written once instead of once per write. Nothing is written if `fn` throws.
   * `fn` must be synchronous; it may run again when the lock was busy at the start.
   *
   * @param sessionId - the session written, for errors
   * @param fn - the writes
   * @returns what `fn` returned
   * @throws ContextLedgerError what the writes throw, `DATABASE_BUSY`, `STORAGE_FULL`
   * @internal The Strands adapter writes an invocation's messages with its window this way.
   */
  batch<T>(sessionId: string, fn: () => T): T {
    this.ledger.ensureWritable()
    const result = this.ledger.write(sessionId, fn)
    if (this.ledger.erasurePending) this.ledger.completeErasure()
    return result
  }

  /**
   * Enforces the window limits (`apply`) or makes room after a context overflow (`overflow`).
   *
   * @param sessionId - the session
   * @param limits - window size, token budget, protected ranges
   * @param mode - `apply` or `overflow`
   * @returns how many messages left the window, and why none did when none did
   */
  applyWindow(sessionId: string, limits: WindowLimits, mode: ReduceMode = 'apply'): WindowResult {
    return applyWindow(this.ledger, sessionId, limits, mode)
  }

  /**
   * Plans a fold of the window's oldest part into a new summary, in one read snapshot (see
   * `PersistentConversationManager.summarize`, which calls it).
   *
   * @param sessionId - the session
   * @param limits - the manager's limits (their protected ranges never fold)
   * @param request - by ratio, or the excess over the limits
   * @returns the plan, or why nothing can be folded
   * @internal
   */
  planFold(
    sessionId: string,
    limits: WindowLimits,
    request: FoldRequest,
  ): { readonly plan: FoldPlan } | { readonly nothing: NothingEvictedReason } {
    return planFold(this.ledger, sessionId, limits, request)
  }

  /**
   * Writes a planned fold with its summary, checking first that the window is the one planned.
   *
   * @param plan - from {@link planFold}
   * @param made - the summary
   * @returns the summary written
   * @throws ContextLedgerError `SUMMARY_CONFLICT` when the window changed meanwhile
   * @internal
   */
  writeFold(plan: FoldPlan, made: MadeSummary): SummaryRecord {
    return writeFold(this.ledger, plan, made)
  }

  /**
   * Plans regenerating the summary the window shows.
   *
   * @param sessionId - the session
   * @param id - the summary
   * @param from - summarize the raw archive (`'raw'`) or the summary before it and its own messages
   * @returns the plan
   * @internal
   */
  planRegeneration(sessionId: string, id: number, from: 'raw' | 'previous'): RegenerationPlan {
    return planRegeneration(this.ledger, sessionId, id, from)
  }

  /**
   * Writes a regenerated summary in place of the one the window shows.
   *
   * @param plan - from {@link planRegeneration}
   * @param made - the new summary
   * @returns it
   * @internal
   */
  writeRegeneration(plan: RegenerationPlan, made: MadeSummary): SummaryRecord {
    return writeRegeneration(this.ledger, plan, made)
  }

  /**
   * Takes back the summary the window shows: the messages it folded come back into the window, the
   * summary it replaced (if any) is shown again, and the window is planned anew with `limits` — as if it
   * had never been made (over the limits, the oldest messages then leave by the sliding window's rule).
   * The summary stays in the ledger, ended as `'dropped'`.
   *
   * @param sessionId - the session
   * @param id - the summary's id
   * @param limits - the window limits to plan with afterwards
   * @returns the window plan made afterwards
   * @throws ContextLedgerError `SUMMARY_NOT_FOUND`, `SUMMARY_NOT_CURRENT` (only the summary the window
   *   shows can be dropped), `INVALID_OPTIONS`, `READ_ONLY`
   */
  dropSummary(sessionId: string, id: number, limits: WindowLimits): WindowResult {
    return dropSummary(this.ledger, sessionId, id, limits)
  }

  /**
   * Pins a message and records who pinned it and why. A message that left the window comes back at once,
   * with its tool partners (and a lead, when it becomes the window's earliest message).
   *
   * @param sessionId - the session
   * @param ref - which message
   * @param attribution - who pins (default `'user'`) and why
   * @param limits - the window limits in force: their protected ranges decide what else comes back.
   *   Default: the protected ranges the session's window was last applied with.
   * @returns what changed
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`, `INVALID_OPTIONS` naming a bad argument, `READ_ONLY`
   */
  pin(
    sessionId: string,
    ref: MessageRef,
    attribution: PinAttribution = {},
    limits?: WindowLimits,
  ): PinResult {
    return setPinned(this.ledger, sessionId, ref, true, attribution, limits)
  }

  /**
   * Unpins a message and records who unpinned it and why; it may leave the window at the next window
   * application.
   *
   * @param sessionId - the session
   * @param ref - which message
   * @param attribution - who unpins (default `'user'`) and why
   * @returns what changed
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`, `INVALID_OPTIONS` naming a bad argument, `READ_ONLY`
   */
  unpin(sessionId: string, ref: MessageRef, attribution: PinAttribution = {}): PinResult {
    return setPinned(this.ledger, sessionId, ref, false, attribution, undefined)
  }

  /**
   * Sets what the window shows for one message, leaving the archived original untouched — for example
   * the message with oversized tool results truncated. `null` restores the original. The replacement must
   * keep the role, the trackingId and the toolUse / toolResult ids of the original, so tool pairs and
   * identity survive; for a message holding late tool results it may instead give those results in their
   * window form, as text blocks. The window counts the replacement's own tokens (toward `tokenBudget`, in
   * `windowTokens`), counted here before the write lock is taken.
   *
   * @param sessionId - the session
   * @param ref - which message
   * @param message - the replacement, or null to show the original again
   * @param tokenCounter - counts the replacement's tokens (default: the built-in estimator); pass the
   *   session's counter (a manager's `setWindowContent` does)
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`, `INVALID_MESSAGE`, `INVALID_TOKEN_COUNT`
   */
  setWindowContent(
    sessionId: string,
    ref: MessageRef,
    message: unknown,
    tokenCounter: TokenCounter = estimateTokens,
  ): void {
    setWindowContent(this.ledger, sessionId, ref, message, tokenCounter)
  }

  /**
   * Edits a message as the model sees it: the window shows `message` from now on, the archive keeps the
   * original, and the change is recorded in the edit log (who, when, why, the new form). The edit must
   * keep the role, trackingId and tool ids of the original, so tool pairs survive. An edit equal to what
   * the window already shows records nothing; one equal to the archived original shows the original again.
   * In a message holding late tool results, those results stay shown as text whatever the edit says.
   *
   * @param sessionId - the session
   * @param ref - which message
   * @param message - the new form (its trackingId may be omitted)
   * @param attribution - who edits (default `'user'`) and why
   * @param tokenCounter - counts the edit's tokens (default: the built-in estimator); the window counts
   *   the message with them
   * @returns the message's entry after the edit
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`, `INVALID_MESSAGE`, `INVALID_OPTIONS`, `READ_ONLY`
   */
  editMessage(
    sessionId: string,
    ref: MessageRef,
    message: unknown,
    attribution: EditAttribution = {},
    tokenCounter: TokenCounter = estimateTokens,
  ): LedgerEntry {
    return editMessage(this.ledger, sessionId, ref, message, attribution, tokenCounter)
  }

  /**
   * Erases a message from the archive itself: its stored bytes — and those of every occurrence of it sent
   * again (`repeatOf`) — are replaced by `replacement` (default: the same role, trackingId and tool ids with
   * every content replaced by `[redacted]`), earlier edits' copies are erased too, and the edit log records
   * who redacted it and when, without the original. Freed space is zeroed (`secure_delete`), and the
   * write-ahead log is checkpointed and truncated so no old page image keeps the original. A checkpoint
   * cannot finish while another connection reads an older snapshot: then `erased` is false, and the store
   * finishes it at its next write, at {@link completeErasure} or at {@link close}. The token count
   * recorded on append is kept. Copies of the text in other messages are not erased: summaries, and the
   * results of the recall tools (`search_history` snippets, `read_history` text) the model received —
   * which `search()` leaves out by default, so search them with `excludeTools: []` and redact those too
   * (docs/api.md, "Summaries, recall results and erasure").
   *
   * @param sessionId - the session
   * @param ref - which message
   * @param options - who redacts (default `'user'`), why, and an optional replacement
   * @returns the message's entry after the redaction, and whether the original is already gone from the files
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`, `INVALID_MESSAGE` (a replacement that changes role,
   *   trackingId or tool ids), `INVALID_OPTIONS`, `READ_ONLY`
   */
  redactMessage(sessionId: string, ref: MessageRef, options: RedactOptions = {}): RedactResult {
    return redactMessage(this.ledger, sessionId, ref, options)
  }

  /**
   * Indexes the messages that wait for the full-text index, in one write transaction that does not wait
   * for the lock. The store does this by itself: once a batch of messages waits (32, or 64 Ki characters
   * of bodies) it indexes them at the event loop's next turn after the write — an agent awaiting its
   * model — or inside a write, when a caller that never yields lets 256 messages (128 Ki characters)
   * wait; `close()` indexes the rest. Searches never need it — they read the waiting messages
   * themselves — but a copy of the file made now (or a reader of an older version of the library) then
   * finds every message in the index; and a pass the store ran at idle that failed (another connection
   * held the lock; see the `onBackgroundError` option) is made up at once.
   *
   * @returns whether the index now holds every message (false when another connection held the lock)
   */
  indexPending(): boolean {
    this.ledger.ensureWritable()
    return this.ledger.indexPending()
  }

  /**
   * Finishes erasing what {@link redactMessage} replaced: checkpoints the write-ahead log into the file
   * and truncates it, without waiting for readers. Called by the store after each write and on close
   * while an erasure is pending.
   *
   * @returns true when no redacted original is left in the files (or none was pending)
   */
  completeErasure(): boolean {
    return this.ledger.completeErasure()
  }

  /**
   * Deletes a session: every message, tool-call link, pin and edit-log entry and the session itself, in
   * one write transaction. Freed pages are zeroed (`secure_delete`) and the write-ahead log is checkpointed
   * and truncated, as after {@link redactMessage}, so no byte of the session lingers in the files; `erased`
   * says whether that is done already (see {@link completeErasure}). The session id can be used again
   * afterwards: it starts from scratch. Deleting a session that does not exist writes nothing and returns
   * `deleted: false` with zero counts.
   *
   * A session with branches (docs/api.md, "Branches"): its abandoned descendants (what rewinds took out)
   * are deleted with it; a live descendant — a fork, or anything below one — is refused with
   * `BRANCH_HAS_CHILDREN` unless `subtree: true`, which deletes every descendant. The counts are summed
   * over every session deleted.
   *
   * @param sessionId - the session
   * @param options - `subtree: true` to delete its live branches too
   * @returns what was deleted, and whether it is gone from the files
   * @throws ContextLedgerError `BRANCH_HAS_CHILDREN`, `INVALID_OPTIONS`, `READ_ONLY`, `DATABASE_BUSY`,
   *   `STORAGE_ERROR`
   */
  deleteSession(sessionId: string, options?: DeleteSessionOptions): DeleteSessionResult {
    return deleteSession(this.ledger, sessionId, options)
  }

  /**
   * Retention: erases the content of messages appended before `options.before` that are out of the
   * window — before the boundary, not kept, not pinned — in one session or in all. The rows stay (seqs stay
   * dense, token counts and prefix sums unchanged), each body replaced by its pruned form (see
   * `prunedForm`: role, trackingId and tool ids kept, `metadata.custom.contextLedger.pruned = true`);
   * edits' copies are erased, and the edit log records one `redact` entry per pruned message (actor
   * `'retention'` unless given). The window is unchanged. A message brought back into the window later (a
   * pin, a wider protected range) shows its pruned form. Each transaction prunes at most
   * {@link PRUNE_BATCH} messages of one session, so the lock is never held long; a failed call may have
   * committed earlier batches, and running it again finishes the rest (pruning is idempotent). The files
   * are then checkpointed as after {@link redactMessage}.
   *
   * @param options - `before` (Date or ms since the epoch), `keepPinned: true` (required), optional
   *   `sessionId`, `actor`, `reason`
   * @returns sessions examined, messages pruned, and whether the contents are gone from the files
   * @throws ContextLedgerError `INVALID_OPTIONS` naming the field (also for `keepPinned` other than true),
   *   `READ_ONLY`, `DATABASE_BUSY`, `STORAGE_ERROR`
   */
  prune(options: PruneOptions): PruneResult {
    return prune(this.ledger, options)
  }
}

/**
 * Opens a ledger file, creating and migrating it as needed.
 *
 * @param path - a file path, or `':memory:'` for a throwaway store
 * @param options - busy timeout, durability, validation limits, `readonly`, `mustExist`
 * @returns the store
 * @throws ContextLedgerError `INVALID_OPTIONS` naming a bad option; `NOT_A_LEDGER`, `CORRUPT_DATABASE` or
 *   `SCHEMA_TOO_NEW` (the file is left untouched); `FILE_NOT_FOUND` for a missing file with `mustExist` or
 *   `readonly`; `SCHEMA_TOO_OLD` for a file that needs migrating opened `readonly`; `READ_ONLY` when the
 *   file cannot be opened even to read because its directory is not writable
 *
 * @example
 * ```ts
 * const store = openContextStore('agent.db')
 * ```
 */
export function openContextStore(path: string, options: ContextStoreOptions = {}): ContextStore {
  return new ContextStore(path, options)
}
