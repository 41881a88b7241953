/**
 * `PostgresContextStore`: the ledger on a PostgreSQL server, for fleets of workers sharing sessions. The
 * same calls as the SQLite `ContextStore`, each returning a Promise, with one semantics: every write runs
 * the SQLite backend's own operation (`src/store/*`) on a {@link Slice} of the session — one snapshot
 * query — and writes what it changed back in one statement that commits only if no other writer got
 * there first (then it runs again on a new slice). So:
 *
 * - `append`, `applyWindow` (and pins, edits, summaries' writes) take two round trips, `window()` one,
 *   whatever the archive's size: the slice is bounded by the window, never by the history;
 * - writers of one session are serialized by its row (see `flush.ts`); readers never wait;
 * - a write whose connection dropped is looked for before it is tried again: an append that did commit
 *   is not appended twice.
 */
import { alternateRefused } from '../../window/alternate-roles.js'
import type pg from 'pg'
import { ContextLedgerError } from '../../errors.js'
import { describeValue } from '../../messages/limits.js'
import type { MessageLimits } from '../../messages/schema.js'
import { estimateTokens, type TokenCounter } from '../../messages/tokens.js'
import type { StoredMessageData } from '../../messages/types.js'
import { append } from '../../store/append.js'
import { checkAppendCount, checkAppendOptions, type AppendOptions } from '../../store/append-format.js'
import { readSessionMetadata } from '../../store/session-metadata.js'
import { appendSpec } from './append-spec.js'
import { applyPlanned } from '../../store/apply-window.js'
import {
  checkHistoryOptions,
  checkMessageRef,
  checkPinnedMessagesOptions,
  checkReduceMode,
  checkSessionId,
  checkSummariesOptions,
  checkWindowLimits,
  checkWindowReadOptions,
  type MessageRef,
  type PinAttribution,
} from '../../store/check-args.js'
import { editMessage, redactMessage, replaceArchived, setWindowContent } from '../../store/edits.js'
import {
  parseBody,
  toEntry,
  toMessageEdit,
  toPinEvent,
  toPinnedMessage,
  toWindowEntry,
} from '../../store/entries.js'
import { checkPruneOptions } from '../../store/retention-options.js'
import { formatNamed, type BodyFormat, type MessageFormatName } from '../../formats/index.js'
import { REDACTED_TEXT } from '../../messages/redact.js'
import type { DeleteSessionResult, PruneOptions, PruneResult } from '../../store/retention-options.js'
import { findMessage } from '../../store/lookup.js'
import { setPinned } from '../../store/pins.js'
import {
  dropSummary,
  planFold,
  toSummaryRecord,
  writeFold,
  writeRegeneration,
  type FoldPlan,
  type MadeSummary,
  type RegenerationPlan,
  type SummaryRecord,
} from '../../store/summaries.js'
import type {
  EditAttribution,
  LedgerEntry,
  MessageEdit,
  PinEvent,
  PinnedMessage,
  PinResult,
  RedactOptions,
  RedactResult,
  SessionSummary,
  WindowEntry,
  WindowReadOptions,
  WindowResult,
} from '../../store/store-types.js'
import type { SummariesOptions, HistoryOptions, PinnedMessagesOptions } from '../../store/check-args.js'
import { alternateRoles } from '../../window/alternate-roles.js'
import {
  planCut,
  type FoldRequest,
  type NothingEvictedReason,
  type ReduceMode,
} from '../../window/plan-cut.js'
import { ArrayLedgerView } from '../../window/array-view.js'
import type { WindowLimits } from '../../window/window-options.js'
import type { Database } from './database.js'
import { isConnectRefused, isConnectionLoss, isRetryable, sqlState, toPgLedgerError } from './pg-errors.js'
import { FLUSH_SQL, flushValues } from './flush.js'
import { searchError, searchStatement, toSearchHits, type PgHitRow, type PgSearchOptions } from './search.js'
import type { EvictionRecord, EvictionsOptions, SearchHit } from '../../store/search-types.js'
import { checkEvictionsOptions, checkSeq } from '../../store/recall-reads.js'

/** The largest seq a PostgreSQL ledger can hold (an `integer` column). */
const INT32_MAX = 2 ** 31 - 1
import { EVICTION_OF_SQL, EVICTIONS_SQL, pgEvictionRecord, type PgEvictionRow } from './reads-evictions.js'
import {
  LOCK_SESSION_SQL,
  entryRows,
  HISTORY_SQL,
  MESSAGE_COUNT_SQL,
  SESSION_IDS_SQL,
  SESSIONS_SQL,
  WINDOW_SQL,
  type PgEntryRow,
  type PgSessionRow,
  type PgWindowRow,
} from './reads.js'
import {
  EDITS_SQL,
  PIN_EVENTS_SQL,
  PINNED_SQL,
  RANGES_SQL,
  SUMMARIES_SQL,
  SUMMARY_CHAIN_SQL,
  SUMMARY_SQL,
  type PgChainRow,
  type PgPinnedRow,
  type PgSummaryRow,
  inheritedSummaries,
  type PgSummariesRow,
} from './reads-logs.js'
import { PostgresConversationManager, type PostgresConversationManagerOptions } from './manager.js'
import { forkCall, forkSpec } from './branch-fork.js'
import { deleteSubtree, TREE_SQL, toTree, type PgTreeRow } from './branch-tree.js'
import { rewindCall, rewindSpec } from './branch-rewind.js'
import { checkForkOptions, checkRewindOptions } from '../../store/branches/check-options.js'
import type {
  BranchInfo,
  DeleteSessionOptions,
  ForkOptions,
  RewindOptions,
  RewindResult,
} from '../../store/branches/types.js'
import { mintTrackingId } from '../../messages/tracking-id.js'
import { Slice, SliceMiss } from './slice.js'
import { SliceLedger } from './slice-ledger.js'
// Type-only but for a symbol: the Strands SDK is not loaded.
import { ASYNC_STORE, type AsyncContextStore } from '../../adapters/strands/async-ledger.js'
import {
  BRANCH_SNAPSHOT_SQL,
  SNAPSHOT_SQL,
  snapshotValues,
  type SnapshotParams,
  type SnapshotResult,
} from './snapshot-query.js'

/** How many times a write is tried when other writers keep getting there first, before the lock is taken. */
const OPTIMISTIC_ATTEMPTS = 3

/** How many times in all a write is tried (conflicts, lost connections) before it gives up. */
const MAX_ATTEMPTS = 12

/** How many messages one prune write erases at most (as the SQLite backend's `PRUNE_BATCH`). */
const PRUNE_BATCH = 2000

const NO_STATE = Object.freeze({ boundary: 0, kept: [] })

/** What a write reads: the snapshot's parameters but the session id. */
export type ReadSpec = Partial<Omit<SnapshotParams, 'sessionId'>>

const BASE: Omit<SnapshotParams, 'sessionId'> = Object.freeze({
  plan: 0,
  first: null,
  last: null,
  extra: [],
  keptK: 0,
  allKept: false,
  uids: [],
  toolIds: [],
  newest: 1,
  refSeq: null,
  refUid: null,
  refIndex: null,
  repeats: false,
  summaryId: null,
  windowBodies: false,
  newSummaries: 0,
  pruneFrom: null,
  pruneBefore: 0,
  pruneLimit: 0,
  forkSeq: null,
  forkUid: null,
  probe: [],
  subtree: false,
  freeBase: null,
})

/**
 * Makes the slice a write runs on from what its snapshot read (a fork makes the new branch's from its
 * parent's); it throws `ContextLedgerError`s for what the read shows is refused.
 */
export type MakeSlice = (result: SnapshotResult, read: SnapshotParams, uids: readonly string[]) => Slice

/** The slice of the session read. */
const defaultSlice: MakeSlice = (result, read, uids) =>
  new Slice(read.sessionId, result, uids, read.keptK, read.summaryId)

/** How a write went, for tests and benchmarks. */
export interface WriteStats {
  /** Writes that found another writer had committed first and ran again. */
  conflicts: number
  /** Writes that took the session's row lock after losing too many times. */
  locked: number
  /** Writes whose connection dropped and were looked for or tried again. */
  reconnects: number
}

/** The snapshot spec for a message reference. */
function refSpec(ref: MessageRef): ReadSpec {
  if ('seq' in ref) return { refSeq: ref.seq }
  if ('trackingId' in ref) return { refUid: ref.trackingId }
  return { refIndex: ref.windowIndex, keptK: ref.windowIndex + 1 }
}

/**
 * A ledger on a PostgreSQL server. Create one with {@link openPostgresContextStore}; share it between
 * managers, sessions and async callers; close it when done.
 */
export class PostgresContextStore implements AsyncContextStore {
  /** Marks a store whose calls return Promises (the Strands adapter takes either store). */
  readonly [ASYNC_STORE] = true as const
  /** The validation limits every incoming message must meet (frozen). */
  readonly limits: Readonly<MessageLimits>
  /** Opened with `readonly: true`: every write throws `READ_ONLY`. */
  readonly readonly: boolean
  /** How writes went (conflicts, lock fallbacks, reconnects), for tests and benchmarks. */
  readonly stats: WriteStats = { conflicts: 0, locked: 0, reconnects: 0 }
  /** Each session's format as this store last saw it (a hint for what an append reads; checked there). */
  private readonly formats = new Map<string, MessageFormatName>()
  /**
   * Sessions this store knows are branches: their writes read with the branch's statement. A hint only —
   * the trunk's statement reads a session's parent, and reads again when it finds one.
   */
  private readonly branchIds = new Set<string>()
  private readonly state: {
    where: string
    closed: boolean
    readonly: boolean
    limits: Readonly<MessageLimits>
  }

  /**
   * Prefer {@link openPostgresContextStore}, which checks the options and migrates.
   *
   * @param db - the pool
   * @param where - the database, for messages
   * @param limits - validation limits
   * @param readonly - refuse writes
   * @internal
   */
  constructor(
    private readonly db: Database,
    where: string,
    limits: Readonly<MessageLimits>,
    readonly: boolean,
  ) {
    this.limits = limits
    this.readonly = readonly
    this.state = { where, closed: false, readonly, limits }
  }

  /** Whether the store is still open. */
  get open(): boolean {
    return !this.state.closed
  }

  /** The pool the store queries through, for read-only queries the API does not cover. */
  get pool(): pg.Pool {
    this.ensureOpen()
    return this.db.pool
  }

  /**
   * Round trips to the server so far (one per statement).
   *
   * @internal Tests hold the store to its bound with it.
   */
  get roundTrips(): number {
    return this.db.roundTrips
  }

  /**
   * A manager of one session of this store: the core manager's options and methods, awaited.
   *
   * @param options - the session, window limits, protection and token counter
   * @returns the manager
   */
  manager(options: Omit<PostgresConversationManagerOptions, 'store'>): PostgresConversationManager {
    return new PostgresConversationManager({ ...options, store: this })
  }

  /**
   * Runs several reads on one snapshot: `fn` gets a read-only store whose every call sees the same
   * committed state (one connection in a REPEATABLE READ transaction), however many writers commit
   * meanwhile; that connection lost while `fn` runs, `fn`'s next call fails with `STORAGE_ERROR`.
   *
   * @param fn - the reads
   * @returns what `fn` returned
   */
  async reading<T>(fn: (snapshot: PostgresContextStore) => Promise<T>): Promise<T> {
    this.ensureOpen()
    return this.db.snapshot((db) => fn(new PostgresContextStore(db, this.state.where, this.limits, true)))
  }

  /** Closes the store (and the pool, when the store made it). Further calls throw `STORE_CLOSED`. Idempotent. */
  async close(): Promise<void> {
    if (this.state.closed) return
    this.state.closed = true
    await this.db.close()
  }

  private ensureOpen(): void {
    if (this.state.closed)
      throw new ContextLedgerError('STORE_CLOSED', `The store for ${this.state.where} is closed`)
  }

  private ensureWritable(): void {
    this.ensureOpen()
    if (this.readonly)
      throw new ContextLedgerError(
        'READ_ONLY',
        `The store for ${this.state.where} was opened with readonly: true; it cannot be written`,
      )
  }

  private async query<R>(
    text: string,
    values: readonly unknown[],
    what: string,
    sessionId?: string,
    name?: string,
  ): Promise<R[]> {
    this.ensureOpen()
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.query<R>(text, values, name)
      } catch (error) {
        // A read is safe to repeat on a new connection.
        if ((isConnectionLoss(error) || isRetryable(error)) && attempt < 3) {
          if (isConnectRefused(error)) await reconnectPause(attempt)
          continue
        }
        throw toPgLedgerError(error, what, sessionId)
      }
    }
  }

  /**
   * Runs statements in one transaction, again on a new connection when the connection was lost or the
   * server asked for a retry (only for work that is safe to repeat: a delete).
   *
   * @param what - for errors
   * @param sessionId - the session, for errors
   * @param fn - the statements
   * @returns what `fn` returned
   */
  private async transactionRetried<T>(
    what: string,
    sessionId: string,
    fn: (query: <R>(text: string, values?: readonly unknown[]) => Promise<R[]>) => Promise<T>,
  ): Promise<T> {
    this.ensureOpen()
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.transaction(fn)
      } catch (error) {
        if ((isConnectionLoss(error) || isRetryable(error)) && attempt < 3) {
          if (isConnectRefused(error)) await reconnectPause(attempt)
          continue
        }
        throw toPgLedgerError(error, what, sessionId)
      }
    }
  }

  /**
   * Runs one of the store's operations on a slice of the session and writes what it changed: reads the
   * slice (one round trip), runs `op` on it, writes back (one round trip) if it changed anything. When
   * another writer committed first, all of it runs again; after {@link OPTIMISTIC_ATTEMPTS} such losses the
   * session's row is locked for the next attempt, so a writer always gets through. When the connection
   * drops during the write, the next attempt first looks for the rows the write inserted: found, the
   * write had committed and its result stands.
   *
   * @param sessionId - the session
   * @param spec - what the operation needs read
   * @param op - the operation (synchronous, on the slice)
   * @param what - for errors
   * @returns what `op` returned
   * @internal
   */
  async run<T>(
    sessionId: string,
    spec: ReadSpec,
    op: (ledger: SliceLedger) => T,
    what: string,
    make: MakeSlice = defaultSlice,
  ): Promise<T> {
    this.ensureOpen()
    const params: SnapshotParams = { ...BASE, ...spec, sessionId }
    let lost: { uids: string[]; value: T } | undefined
    let conflicts = 0
    for (let attempt = 1; ; attempt++) {
      let refused = false
      const locked = conflicts >= OPTIMISTIC_ATTEMPTS
      try {
        const outcome = locked
          ? await this.db.transaction(async (query) => {
              await query('SELECT 1 FROM context_ledger.sessions WHERE id = $1::text FOR UPDATE', [sessionId])
              return this.attempt(params, op, lost, query, make)
            })
          : await this.attempt(
              params,
              op,
              lost,
              (text, values, name) => this.db.query(text, values, name),
              make,
            )
        if (locked) this.stats.locked++
        if (outcome.done) return outcome.value
        lost = undefined
        conflicts++
        this.stats.conflicts++
      } catch (error) {
        if (error instanceof ContextLedgerError) throw error
        if (error instanceof SliceMiss) throw new Error(`${what}: ${error.message}`, { cause: error })
        if (error instanceof LostWrite) {
          this.stats.reconnects++
          refused = isConnectRefused(error.cause)
          lost = error.inserted.length > 0 ? { uids: error.inserted, value: error.value as T } : undefined
        } else if (isConnectionLoss(error)) {
          this.stats.reconnects++
          refused = isConnectRefused(error)
        } else if (isRetryable(error) || sqlState(error) === '23505') {
          conflicts++
          this.stats.conflicts++
        } else throw toPgLedgerError(error, what, sessionId)
        if (attempt >= MAX_ATTEMPTS) throw toPgLedgerError(error, what, sessionId)
      }
      if (attempt >= MAX_ATTEMPTS)
        throw new ContextLedgerError(
          'DATABASE_BUSY',
          `PostgreSQL: ${what} lost to other writers ${conflicts} times; nothing was written`,
          { sessionId },
        )
      if (refused) await reconnectPause(attempt)
      else if (conflicts > 1) await pause(conflicts)
    }
  }

  private async attempt<T>(
    params: SnapshotParams,
    op: (ledger: SliceLedger) => T,
    lost: { uids: string[]; value: T } | undefined,
    query: <R>(text: string, values: readonly unknown[], name?: string) => Promise<R[]>,
    make: MakeSlice,
  ): Promise<{ done: true; value: T } | { done: false }> {
    const read = lost === undefined ? params : { ...params, uids: [...params.uids, ...lost.uids] }
    const result = await this.snapshot(read, query)
    // The trackingId a call names (`{ trackingId }`) was looked up too: not read means not there.
    const asked = read.refUid === null ? read.uids : [...read.uids, read.refUid]
    const slice = make(result, read, asked)
    // The write whose connection dropped: committed if the rows it inserted are there.
    if (lost !== undefined && lost.uids.every((uid) => [...slice.rows.values()].some((r) => r.uid === uid)))
      return { done: true, value: lost.value }
    const value = op(new SliceLedger(slice, this.state))
    if (!slice.dirty) return { done: true, value }
    let written: number
    try {
      const [row] = await query<{ written: number }>(FLUSH_SQL, flushValues(slice), 'context_ledger_flush')
      written = row?.written ?? 0
    } catch (error) {
      if (isConnectionLoss(error)) {
        const inserted = [...slice.inserted].map((s) => slice.row(s, 'write').uid)
        throw new LostWrite(inserted, value, error)
      }
      throw error
    }
    return written === 1 ? { done: true, value } : { done: false }
  }

  /**
   * Reads a slice's rows: with the trunk's statement for a session not known as a branch, the branch's for
   * one that is (a branch's conversation through its lineage). A session found to be a branch by the
   * trunk's statement (forked by another process) is read again with the branch's, once: it stays known.
   */
  private async snapshot(
    read: SnapshotParams,
    query: <R>(text: string, values: readonly unknown[], name?: string) => Promise<R[]>,
  ): Promise<SnapshotResult> {
    const forking = read.forkSeq !== null || read.forkUid !== null || read.probe.length > 0 || read.subtree
    const branch = forking || this.branchIds.has(read.sessionId)
    const values = snapshotValues(read, branch)
    const [result] = branch
      ? await query<SnapshotResult>(BRANCH_SNAPSHOT_SQL, values, 'context_ledger_branch_snapshot')
      : await query<SnapshotResult>(SNAPSHOT_SQL, values, 'context_ledger_snapshot')
    if (result === undefined) throw new Error('the snapshot query returned no row')
    if (branch || result.session?.parent == null) return result
    this.branchIds.add(read.sessionId)
    return this.snapshot(read, query)
  }

  // ---- writes

  /**
   * Appends messages to a session (created on first use), all or none; see `ContextStore.append`.
   * Messages are in the session's format (`{ format }` names it for a new session).
   *
   * @param sessionId - the session
   * @param messages - one message or several, oldest first
   * @param options - a token counter (default: the format's built-in estimate), or
   *   `{ tokenCounter?, format?, expectCount?, sessionMetadata? }`; `expectCount` is checked, and
   *   `sessionMetadata` folded, on the slice the write commits on (a writer that lost the race runs again
   *   on a new slice, and then sees the other's rows and metadata: the fold may run more than once)
   * @returns one entry per input message, in order
   * @throws ContextLedgerError `INVALID_MESSAGE`, `INVALID_TOKEN_COUNT`, `DUPLICATE_MESSAGE`, `STORAGE_FULL`,
   *   `FORMAT_MISMATCH` (messages of another format than the session's; nothing is written),
   *   `APPEND_CONFLICT` (the session does not hold `expectCount` messages; nothing is written)
   */
  async append(
    sessionId: string,
    messages: unknown,
    options?: TokenCounter | AppendOptions,
  ): Promise<LedgerEntry[]> {
    this.ensureWritable()
    checkSessionId(sessionId)
    const { format: named, expectCount } = checkAppendOptions(options)
    if (Array.isArray(messages) && messages.length === 0) {
      // Nothing to write, but a count the session does not hold is still a conflict.
      if (expectCount !== undefined)
        checkAppendCount(sessionId, expectCount, await this.messageCount(sessionId))
      return []
    }
    for (;;) {
      // The ids the messages name are read in the session's format: named, or as last seen here.
      const assumed = named ?? this.formats.get(sessionId)
      const outcome = await this.run(
        sessionId,
        appendSpec(messages, assumed, this.limits),
        (ledger): { stale: true } | { entries: LedgerEntry[]; format: MessageFormatName } => {
          const stored = ledger.keys.formatOf(sessionId)
          const actual = stored === undefined ? undefined : formatNamed(stored).name
          // Deleted and made again in another format since: read the ids again, in every format.
          if (named === undefined && assumed !== undefined && actual !== undefined && actual !== assumed)
            return { stale: true }
          const entries = append(ledger, sessionId, messages, options)
          return { entries, format: actual ?? named ?? 'strands' }
        },
        `append to session "${sessionId}"`,
      )
      if ('entries' in outcome) {
        this.formats.set(sessionId, outcome.format)
        return outcome.entries
      }
      this.formats.delete(sessionId)
    }
  }

  /**
   * Enforces the window limits (`apply`) or makes room after a context overflow (`overflow`).
   *
   * @param sessionId - the session
   * @param limits - window size, token budget, protected ranges
   * @param mode - `apply` or `overflow`
   * @returns how many messages left the window, and why none did when none did
   */
  async applyWindow(
    sessionId: string,
    limits: WindowLimits,
    mode: ReduceMode = 'apply',
  ): Promise<WindowResult> {
    this.ensureWritable()
    checkSessionId(sessionId)
    checkWindowLimits(limits)
    checkReduceMode(mode)
    return this.run(
      sessionId,
      { plan: 2, first: limits.first, last: limits.last, keptK: 3 },
      (ledger) =>
        ledger.write(sessionId, () => {
          const session = ledger.keys.sessionRow(sessionId)
          if (session === undefined)
            return planCut(new ArrayLedgerView([], [], [], NO_STATE), limits, mode).plan
          return applyPlanned(ledger, session, limits, mode)
        }),
      `apply the window of session "${sessionId}"`,
    )
  }

  /**
   * Runs several writes of one session as one: each a function of a {@link SliceLedger} (the SQLite
   * backend's operations), all on one slice, written back in one statement — or, if any throws, none.
   *
   * @param sessionId - the session
   * @param spec - what the writes need read (the union of theirs)
   * @param fn - the writes
   * @returns what `fn` returned
   * @internal The Strands adapter writes an invocation's messages with its window this way.
   */
  async batch<T>(sessionId: string, spec: ReadSpec, fn: (ledger: SliceLedger) => T): Promise<T> {
    this.ensureWritable()
    checkSessionId(sessionId)
    return this.run(sessionId, spec, fn, `write to session "${sessionId}"`)
  }

  /**
   * Pins a message; see `ContextStore.pin`.
   *
   * @param sessionId - the session
   * @param ref - which message
   * @param attribution - who pins and why
   * @param limits - the limits in force (their protected ranges decide what else comes back)
   * @returns what changed
   */
  async pin(
    sessionId: string,
    ref: MessageRef,
    attribution: PinAttribution = {},
    limits?: WindowLimits,
  ): Promise<PinResult> {
    return this.setPinned(sessionId, ref, true, attribution, limits)
  }

  /**
   * Unpins a message; see `ContextStore.unpin`.
   *
   * @param sessionId - the session
   * @param ref - which message
   * @param attribution - who unpins and why
   * @returns what changed
   */
  async unpin(sessionId: string, ref: MessageRef, attribution: PinAttribution = {}): Promise<PinResult> {
    return this.setPinned(sessionId, ref, false, attribution, undefined)
  }

  private async setPinned(
    sessionId: string,
    ref: MessageRef,
    pinned: boolean,
    attribution: PinAttribution,
    limits: WindowLimits | undefined,
  ): Promise<PinResult> {
    this.ensureWritable()
    checkSessionId(sessionId)
    checkMessageRef(ref)
    if (limits !== undefined) checkWindowLimits(limits)
    return this.run(
      sessionId,
      {
        ...refSpec(ref),
        plan: 2,
        first: limits?.first ?? null,
        last: limits?.last ?? null,
        keptK: 3,
        ...pinExtra(ref),
      },
      (ledger) => setPinned(ledger, sessionId, ref, pinned, attribution, limits),
      `${pinned ? 'pin' : 'unpin'} a message of session "${sessionId}"`,
    )
  }

  /**
   * Sets what the window shows for one message; see `ContextStore.setWindowContent`.
   *
   * @param sessionId - the session
   * @param ref - which message
   * @param message - the replacement, or null to show the original again
   * @param tokenCounter - counts the replacement's tokens
   */
  async setWindowContent(
    sessionId: string,
    ref: MessageRef,
    message: unknown,
    tokenCounter: TokenCounter = estimateTokens,
  ): Promise<void> {
    this.ensureWritable()
    checkSessionId(sessionId)
    checkMessageRef(ref)
    await this.run(
      sessionId,
      refSpec(ref),
      (ledger) => {
        setWindowContent(ledger, sessionId, ref, message, tokenCounter)
      },
      `set the window content of a message of session "${sessionId}"`,
    )
  }

  /**
   * Edits a message as the model sees it; see `ContextStore.editMessage`.
   *
   * @param sessionId - the session
   * @param ref - which message
   * @param message - the new form
   * @param attribution - who edits and why
   * @param tokenCounter - counts the edit's tokens
   * @returns the message's entry after the edit
   */
  async editMessage(
    sessionId: string,
    ref: MessageRef,
    message: unknown,
    attribution: EditAttribution = {},
    tokenCounter: TokenCounter = estimateTokens,
  ): Promise<LedgerEntry> {
    this.ensureWritable()
    checkSessionId(sessionId)
    checkMessageRef(ref)
    return this.run(
      sessionId,
      refSpec(ref),
      (ledger) => editMessage(ledger, sessionId, ref, message, attribution, tokenCounter),
      `edit a message of session "${sessionId}"`,
    )
  }

  /**
   * Erases a message (and its occurrences sent again) from the archive; see `ContextStore.redactMessage`.
   * PostgreSQL keeps the replaced row versions until `VACUUM` reclaims them, so `erased` is always false
   * here: run `VACUUM` (docs/operations.md) to have the originals gone from the files.
   *
   * @param sessionId - the session
   * @param ref - which message
   * @param options - who redacts, why, and an optional replacement
   * @returns the message's entry after the redaction
   */
  async redactMessage(
    sessionId: string,
    ref: MessageRef,
    options: RedactOptions = {},
  ): Promise<RedactResult> {
    this.ensureWritable()
    checkSessionId(sessionId)
    checkMessageRef(ref)
    return this.run(
      sessionId,
      { ...refSpec(ref), repeats: true },
      (ledger) => redactMessage(ledger, sessionId, ref, options),
      `redact a message of session "${sessionId}"`,
    )
  }

  /**
   * Deletes a session and every row of it, in one transaction; see `ContextStore.deleteSession`. `erased`
   * is false: the deleted rows stay in the files until `VACUUM`.
   *
   * @param sessionId - the session
   * @param options - `subtree: true` to delete its live branches too (its abandoned ones always go with it)
   * @returns what was deleted, summed over every session deleted
   * @throws ContextLedgerError `BRANCH_HAS_CHILDREN` for a live branch below it without `subtree`
   */
  async deleteSession(sessionId: string, options?: DeleteSessionOptions): Promise<DeleteSessionResult> {
    this.ensureWritable()
    checkSessionId(sessionId)
    const row = await this.transactionRetried(`delete session "${sessionId}"`, sessionId, async (query) => {
      // The row lock in a statement of its own, so the delete's snapshot is taken after it: an append that
      // committed while the lock was awaited (appends update the row first) has its rows deleted too. The
      // sessions below it go with it (branch-tree.ts).
      await query(LOCK_SESSION_SQL, [sessionId])
      return deleteSubtree(query, sessionId, options)
    })
    this.formats.delete(sessionId)
    const deleted = (row?.deleted ?? 0) > 0
    return {
      sessionId,
      deleted,
      messages: row?.messages ?? 0,
      toolCalls: row?.tool_calls ?? 0,
      evictions: row?.evictions ?? 0,
      pinEvents: row?.pin_events ?? 0,
      edits: row?.edits ?? 0,
      summaries: row?.summaries ?? 0,
      erased: !deleted,
    }
  }

  /**
   * Makes a new session whose conversation is `sessionId`'s up to and including one message, without
   * copying a row; see `ContextStore.fork`. Two round trips: the parent read as it was at the fork point,
   * then one statement that creates the branch only if the parent's revision is still the one read.
   *
   * @param sessionId - the session to fork
   * @param options - `atSeq` or `trackingId` (exactly one), optional `newSessionId`, `actor`, `reason`,
   *   `metadata`
   * @returns the new branch
   * @throws ContextLedgerError `SESSION_NOT_FOUND`, `MESSAGE_NOT_FOUND` (path `atSeq` or `trackingId`),
   *   `SESSION_EXISTS` (path `newSessionId`), `INVALID_OPTIONS` naming the field, `READ_ONLY`
   */
  async fork(sessionId: string, options: ForkOptions): Promise<BranchInfo> {
    this.ensureWritable()
    checkSessionId(sessionId)
    const settings = checkForkOptions(options, this.limits)
    const req = {
      parentId: sessionId,
      settings,
      id: settings.newSessionId ?? mintTrackingId(),
      now: Date.now(),
    }
    const { make, op } = forkCall(req, this.state)
    const info = await this.run(sessionId, forkSpec(req), op, `fork session "${sessionId}"`, make)
    this.branchIds.add(req.id)
    this.formats.delete(req.id)
    return info
  }

  /**
   * Continues a session from an earlier message; see `ContextStore.rewind`. Two round trips: the session
   * read as it is after the message (with the revisions of the sessions below it), then one statement that
   * restricts its window, creates the abandoned branch and moves the rows after the message into it — all
   * or nothing, and nothing when a session below changed meanwhile (then it reads again). Nothing is written
   * when the message is already the newest.
   *
   * @param sessionId - the session
   * @param options - `toSeq` or `trackingId` (exactly one), optional `actor`, `reason`, `abandonedId`
   * @returns the session, the abandoned branch, and how many messages left
   * @throws ContextLedgerError `SESSION_NOT_FOUND`, `MESSAGE_NOT_FOUND` (path `toSeq` or `trackingId`),
   *   `SESSION_EXISTS` (path `abandonedId`), `INVALID_OPTIONS` naming the field, `READ_ONLY`
   */
  async rewind(sessionId: string, options: RewindOptions): Promise<RewindResult> {
    this.ensureWritable()
    checkSessionId(sessionId)
    const settings = checkRewindOptions(options)
    const req = { sessionId, settings, now: Date.now() }
    const { make, op } = rewindCall(req)
    const result = await this.run(sessionId, rewindSpec(req), op, `rewind session "${sessionId}"`, make)
    if (result.abandoned !== undefined) this.branchIds.add(result.abandoned.sessionId)
    return result
  }

  /**
   * The tree of branches holding a session (one round trip); see `ContextStore.branches`.
   *
   * @param sessionId - any session of the tree
   * @returns the root first, then depth-first, each session's children in the order they were made
   * @throws ContextLedgerError `SESSION_NOT_FOUND`
   */
  async branches(sessionId: string): Promise<BranchInfo[]> {
    this.ensureOpen()
    checkSessionId(sessionId)
    const rows = await this.query<PgTreeRow>(
      TREE_SQL,
      [sessionId],
      `read the branches of session "${sessionId}"`,
      sessionId,
    )
    return toTree(sessionId, rows)
  }

  /**
   * Retention: erases the content of old messages out of the window; see `ContextStore.prune`. At most
   * 2,000 messages per write. `erased` is false when anything was pruned (see {@link redactMessage}).
   *
   * @param options - `before`, `keepPinned: true`, `sessionId`, `actor`, `reason`
   * @returns sessions examined and messages pruned
   */
  async prune(options: PruneOptions): Promise<PruneResult> {
    this.ensureWritable()
    const { sessionId, before, actor, reason } = checkPruneOptions(options)
    const targets =
      sessionId === undefined
        ? (await this.query<{ id: string }>(SESSION_IDS_SQL, [], 'list the sessions to prune')).map(
            (s) => s.id,
          )
        : [sessionId]
    let pruned = 0
    let examined = 0
    for (const id of targets) {
      let from = 0
      for (;;) {
        const batch = await this.run(
          id,
          { pruneFrom: from, pruneBefore: before, pruneLimit: PRUNE_BATCH },
          (ledger) =>
            ledger.write(id, () => {
              const session = ledger.keys.sessionRow(id)
              if (session === undefined) return { count: 0, next: undefined, found: false }
              const by = { actor, reason, at: Date.now() }
              const format = formatNamed(session.format)
              const seqs = ledger.slice.pruned
              for (const seq of seqs) {
                const row = ledger.st.messageBySeq.get(session.pk, seq)
                if (row !== undefined)
                  replaceArchived(
                    ledger,
                    session,
                    row,
                    format.prune(parseBody(row.body), REDACTED_TEXT),
                    format,
                    by,
                  )
              }
              // The archive changed: a summary being made from it meanwhile must not be written (as SQLite's).
              if (seqs.length > 0) ledger.st.sessionTouch.run(by.at, session.pk)
              return {
                count: seqs.length,
                next: seqs.length < PRUNE_BATCH ? undefined : (seqs.at(-1) ?? 0) + 1,
                found: true,
              }
            }),
          `prune session "${id}"`,
        )
        if (from === 0 && batch.found) examined++
        pruned += batch.count
        if (batch.next === undefined) break
        from = batch.next
      }
    }
    return { sessions: examined, pruned, erased: pruned === 0 }
  }

  /**
   * Plans a fold of the window's oldest part into a new summary, in one snapshot.
   *
   * @param sessionId - the session
   * @param limits - the manager's limits
   * @param request - by ratio, or the excess over the limits
   * @returns the plan, or why nothing can be folded
   * @internal
   */
  async planFold(
    sessionId: string,
    limits: WindowLimits,
    request: FoldRequest,
  ): Promise<{ readonly plan: FoldPlan } | { readonly nothing: NothingEvictedReason }> {
    this.ensureWritable()
    checkSessionId(sessionId)
    checkWindowLimits(limits)
    return this.run(
      sessionId,
      { plan: 2, first: limits.first, last: limits.last, allKept: true, windowBodies: true },
      (ledger) => planFold(ledger, sessionId, limits, request),
      `plan a summary of session "${sessionId}"`,
    )
  }

  /**
   * Writes a planned fold with its summary, checking the window is still the one planned.
   *
   * @param plan - from {@link planFold}
   * @param made - the summary
   * @returns the summary written
   * @internal
   */
  async writeFold(plan: FoldPlan, made: MadeSummary): Promise<SummaryRecord> {
    this.ensureWritable()
    const c = plan.decision.changes
    const touched = [...c.keep.map((k) => k.seq), ...c.release, ...c.remark.map((k) => k.seq)]
    return this.run(
      plan.sessionId,
      { plan: 2, first: plan.limits.first, last: plan.limits.last, newSummaries: 1, extra: touched },
      (ledger) => writeFold(ledger, plan, made),
      `write a summary of session "${plan.sessionId}"`,
    )
  }

  /**
   * Plans regenerating the summary the window shows (two round trips: its chain, then the messages).
   *
   * @param sessionId - the session
   * @param id - the summary
   * @param from - `'raw'` or `'previous'`
   * @returns the plan
   * @internal
   */
  async planRegeneration(sessionId: string, id: number, from: 'raw' | 'previous'): Promise<RegenerationPlan> {
    this.ensureWritable()
    checkSessionId(sessionId)
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
      throw new ContextLedgerError(
        'INVALID_OPTIONS',
        `Invalid summary id: expected a positive integer, got ${describeValue(id)}`,
        {
          path: 'id',
        },
      )
    const what = `plan regenerating summary ${id} of session "${sessionId}"`
    const chain = await this.query<PgChainRow>(
      SUMMARY_CHAIN_SQL,
      [sessionId, id, from === 'previous'],
      what,
      sessionId,
    )
    const head = chain[0]
    const notFound = new ContextLedgerError(
      'SUMMARY_NOT_FOUND',
      `No summary ${id} in session "${sessionId}"`,
      {
        sessionId,
      },
    )
    if (head === undefined || head.id === null) throw notFound
    if (head.summary !== id)
      throw new ContextLedgerError(
        'SUMMARY_NOT_CURRENT',
        `Summary ${id} of session "${sessionId}" is not the one its window shows (${head.summary === null ? 'it shows none' : `it shows summary ${head.summary}`}); only that one can be regenerated or dropped`,
        { sessionId },
      )
    const ranges: [number, number][] = []
    let previous: StoredMessageData | undefined
    for (const link of chain) {
      if (link.seqs === null || link.body === null) continue
      // A chain only leads to older summaries (the query follows it only downward, so it ends): one that
      // points at itself or a newer one is a damaged database, as with SQLite.
      if (link.id !== null && link.replaces !== null && link.replaces >= link.id)
        throw new ContextLedgerError(
          'CORRUPT_DATABASE',
          `Session "${sessionId}": summary ${link.id} replaces itself down its chain; the database is damaged`,
          { sessionId },
        )
      if (from === 'previous' && link.depth === 1) {
        previous = parseBody(link.body)
        break
      }
      ranges.push(...(JSON.parse(link.seqs) as [number, number][]))
    }
    const merged = mergeRanges(ranges)
    const rows = await this.query<{ body: string }>(
      RANGES_SQL,
      [head.pk, merged.map((r) => r[0]), merged.map((r) => r[1])],
      what,
      sessionId,
    )
    const summary = await this.summary(sessionId, id)
    const input: StoredMessageData[] = previous === undefined ? [] : [previous]
    for (const r of rows) input.push(parseBody(r.body))
    const format = formatNamed(head.format).name
    return { sessionId, sessionPk: head.pk, version: head.version, summary, input, format }
  }

  /**
   * Writes a regenerated summary in place of the one the window shows.
   *
   * @param plan - from {@link planRegeneration}
   * @param made - the new summary
   * @returns it
   * @internal
   */
  async writeRegeneration(plan: RegenerationPlan, made: MadeSummary): Promise<SummaryRecord> {
    this.ensureWritable()
    return this.run(
      plan.sessionId,
      { newSummaries: 1 },
      (ledger) => writeRegeneration(ledger, plan, made),
      `write a summary of session "${plan.sessionId}"`,
    )
  }

  /**
   * Takes back the summary the window shows; see `ContextStore.dropSummary`.
   *
   * @param sessionId - the session
   * @param id - the summary's id
   * @param limits - the window limits to plan with afterwards
   * @returns the window plan made afterwards
   */
  async dropSummary(sessionId: string, id: number, limits: WindowLimits): Promise<WindowResult> {
    this.ensureWritable()
    checkSessionId(sessionId)
    checkWindowLimits(limits)
    return this.run(
      sessionId,
      {
        plan: 2,
        first: limits.first,
        last: limits.last,
        allKept: true,
        summaryId: Number.isSafeInteger(id) ? id : null,
      },
      (ledger) => dropSummary(ledger, sessionId, id, limits),
      `drop summary ${String(id)} of session "${sessionId}"`,
    )
  }

  /**
   * Nothing to finish: PostgreSQL keeps replaced row versions until `VACUUM` (docs/operations.md).
   *
   * @returns false
   */
  async completeErasure(): Promise<boolean> {
    this.ensureOpen()
    return Promise.resolve(false)
  }

  // ---- reads

  /**
   * The messages the model should see, in order (one round trip).
   *
   * @param sessionId - the session
   * @param options - `alternate: true` merges runs of same-role messages
   * @returns the window (empty for an unknown session)
   */
  async window(sessionId: string, options: WindowReadOptions = {}): Promise<StoredMessageData[]> {
    const alternate = checkWindowReadOptions(options)
    const entries = await this.windowRows(sessionId, (format) => {
      if (alternate && format.name !== 'strands') throw alternateRefused(sessionId, format.name)
    })
    const out = entries.map((e) => e.message)
    return alternate ? alternateRoles(out) : out
  }

  /**
   * The window with each row's seq (undefined for the summary row), message (as `window()` returns it)
   * and pin, in one round trip (the statement `window()` runs).
   *
   * @param sessionId - the session
   * @returns the window's rows in order (empty for an unknown session)
   */
  async windowEntries(sessionId: string): Promise<WindowEntry[]> {
    return this.windowRows(sessionId)
  }

  /** The window's rows shown in the session's format (`check` sees the format first). */
  private async windowRows(sessionId: string, check?: (format: BodyFormat) => void): Promise<WindowEntry[]> {
    this.ensureOpen()
    checkSessionId(sessionId)
    const rows = await this.query<PgWindowRow>(
      WINDOW_SQL,
      [sessionId],
      `read the window of session "${sessionId}"`,
      sessionId,
      'context_ledger_window',
    )
    const format = formatNamed(rows[0]?.format)
    check?.(format)
    return rows.map((row) => toWindowEntry(format, row.k, parseBody(row.body), row.pinned))
  }

  /**
   * The archive, evicted messages included, in seq order.
   *
   * @param sessionId - the session
   * @param options - `fromSeq` (default 0) and `limit` (default 100)
   * @returns entries, oldest first
   */
  async history(sessionId: string, options?: HistoryOptions): Promise<LedgerEntry[]> {
    this.ensureOpen()
    checkSessionId(sessionId)
    const { fromSeq, limit } = checkHistoryOptions(options)
    const rows = await this.query<PgEntryRow>(
      HISTORY_SQL,
      [sessionId, fromSeq, limit],
      `read the history of session "${sessionId}"`,
      sessionId,
    )
    return rows.map((r) => {
      const { session, row } = entryRows(r)
      return toEntry(session, row)
    })
  }

  /**
   * One archived message.
   *
   * @param sessionId - the session
   * @param ref - by seq, tracking id or window position
   * @returns its entry
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`
   */
  async message(sessionId: string, ref: MessageRef): Promise<LedgerEntry> {
    this.ensureOpen()
    checkSessionId(sessionId)
    checkMessageRef(ref)
    return this.run(
      sessionId,
      refSpec(ref),
      (ledger) => {
        const { session, row } = findMessage(ledger, sessionId, ref)
        return toEntry(session, row)
      },
      `read a message of session "${sessionId}"`,
    )
  }

  /**
   * Every session with its sizes, ordered by id.
   *
   * @returns the sessions
   */
  async sessions(): Promise<SessionSummary[]> {
    const rows = await this.query<PgSessionRow>(SESSIONS_SQL, [null], 'list the sessions')
    return rows.map(toSummary)
  }

  /**
   * One session's sizes.
   *
   * @param sessionId - the session
   * @returns its summary, or undefined when it does not exist yet
   */
  async session(sessionId: string): Promise<SessionSummary | undefined> {
    this.ensureOpen()
    checkSessionId(sessionId)
    const [row] = await this.query<PgSessionRow>(
      SESSIONS_SQL,
      [sessionId],
      `read session "${sessionId}"`,
      sessionId,
    )
    return row === undefined ? undefined : toSummary(row)
  }

  /**
   * How many messages a session holds.
   *
   * @param sessionId - the session
   * @returns its message count (0 when it does not exist yet)
   * @internal As the SQLite store's: for adapters.
   */
  async messageCount(sessionId: string): Promise<number> {
    this.ensureOpen()
    checkSessionId(sessionId)
    const [row] = await this.query<{ count: number }>(
      MESSAGE_COUNT_SQL,
      [sessionId],
      `read session "${sessionId}"`,
      sessionId,
    )
    return row?.count ?? 0
  }

  /**
   * Pinned messages with when, who and why they were pinned.
   *
   * @param options - `sessionId` to restrict to one session
   * @returns pinned messages ordered by session and seq
   */
  async pinnedMessages(options?: PinnedMessagesOptions): Promise<PinnedMessage[]> {
    this.ensureOpen()
    const { sessionId, filters } = checkPinnedMessagesOptions(options)
    const rows = await this.query<PgPinnedRow>(
      PINNED_SQL,
      [
        sessionId ?? null,
        filters?.actor ?? null,
        filters?.reason ?? null,
        filters?.since ?? null,
        filters?.until ?? null,
      ],
      'read the pinned messages',
      sessionId,
    )
    return rows.map((r) => toPinnedMessage({ ...r, kept: r.kept ? 1 : 0 }, formatNamed(r.format)))
  }

  /**
   * Full-text search over the whole archive — evicted messages, the window, summaries — with
   * PostgreSQL's text search: the same options and hits as the SQLite store's `search()`, in one round
   * trip. Raw queries use `syntax: 'tsquery'` (PostgreSQL's `to_tsquery`); scores are `-ts_rank`, lower
   * is better (see src/backends/postgres/search.ts for how ranking differs from FTS5's bm25).
   *
   * @param query - words and `"quoted phrases"` (or a tsquery)
   * @param options - filters, paging, syntax
   * @returns the hits, best first
   * @throws ContextLedgerError `INVALID_QUERY` for a query PostgreSQL refuses (or too long), `INVALID_OPTIONS`
   */
  async search(query: string, options?: PgSearchOptions): Promise<SearchHit[]> {
    this.ensureOpen()
    const st = searchStatement(query, options)
    if (st === undefined) return []
    try {
      return toSearchHits(await this.query<PgHitRow>(st.text, st.values, 'search the archive', st.sessionId))
    } catch (error) {
      throw searchError(error, st.query)
    }
  }

  /**
   * A session's eviction log from a seq on: one row per run of messages a cut took out of the window,
   * ordered by the run's last seq (newest cut first among equal); see `ContextStore.evictions`.
   *
   * @param sessionId - the session
   * @param options - `fromSeq` (default 0), `limit` (default 100, at most 10,000)
   * @returns the rows (none for an unknown session)
   * @throws ContextLedgerError `INVALID_OPTIONS` naming a bad option
   */
  async evictions(sessionId: string, options?: EvictionsOptions): Promise<EvictionRecord[]> {
    this.ensureOpen()
    const { fromSeq, limit } = checkEvictionsOptions(sessionId, options)
    // Seqs are 32-bit on PostgreSQL: none is past that.
    if (fromSeq > INT32_MAX) return []
    const rows = await this.query<PgEvictionRow>(
      EVICTIONS_SQL,
      [sessionId, fromSeq, limit],
      `read the eviction log of session "${sessionId}"`,
      sessionId,
    )
    return rows.map((r) => pgEvictionRecord(sessionId, r))
  }

  /**
   * Why and when a message last left the window (one index descent); see `ContextStore.evictionOf`.
   *
   * @param sessionId - the session
   * @param seq - the message
   * @returns the log row covering it, or undefined when it never left (or left before the log existed)
   * @throws ContextLedgerError `INVALID_OPTIONS` for a bad seq
   */
  async evictionOf(sessionId: string, seq: number): Promise<EvictionRecord | undefined> {
    this.ensureOpen()
    checkSessionId(sessionId)
    const n = checkSeq(seq, 'seq')
    if (n > INT32_MAX) return undefined
    const [row] = await this.query<PgEvictionRow>(
      EVICTION_OF_SQL,
      [sessionId, n],
      `read the eviction log of session "${sessionId}"`,
      sessionId,
    )
    return row === undefined ? undefined : pgEvictionRecord(sessionId, row)
  }

  /**
   * The pin log of a session, oldest first.
   *
   * @param sessionId - the session
   * @returns every pin and unpin
   */
  async pinEvents(sessionId: string): Promise<PinEvent[]> {
    this.ensureOpen()
    checkSessionId(sessionId)
    const rows = await this.query<Parameters<typeof toPinEvent>[0]>(
      PIN_EVENTS_SQL,
      [sessionId],
      `read the pin log of session "${sessionId}"`,
      sessionId,
    )
    return rows.map(toPinEvent)
  }

  /**
   * The edit log of a session, oldest first.
   *
   * @param sessionId - the session
   * @returns the edits
   */
  async edits(sessionId: string): Promise<MessageEdit[]> {
    this.ensureOpen()
    checkSessionId(sessionId)
    const rows = await this.query<Parameters<typeof toMessageEdit>[1]>(
      EDITS_SQL,
      [sessionId],
      `read the edit log of session "${sessionId}"`,
      sessionId,
    )
    return rows.map((r) => toMessageEdit(sessionId, r))
  }

  /**
   * A session's summaries, newest first.
   *
   * @param sessionId - the session
   * @param options - `limit` (default 100)
   * @returns the summaries
   */
  async summaries(sessionId: string, options: SummariesOptions = {}): Promise<SummaryRecord[]> {
    this.ensureOpen()
    checkSessionId(sessionId)
    const limit = checkSummariesOptions(options)
    const rows = await this.query<PgSummariesRow>(
      SUMMARIES_SQL,
      [sessionId, limit],
      `read the summaries of session "${sessionId}"`,
      sessionId,
    )
    return inheritedSummaries(rows, limit).map((r) =>
      toSummaryRecord(sessionId, r.row, r.current, r.inherited),
    )
  }

  /**
   * One summary of a session.
   *
   * @param sessionId - the session
   * @param id - the summary's id
   * @returns it
   * @throws ContextLedgerError `SUMMARY_NOT_FOUND`
   */
  async summary(sessionId: string, id: number): Promise<SummaryRecord> {
    this.ensureOpen()
    checkSessionId(sessionId)
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
      throw new ContextLedgerError(
        'INVALID_OPTIONS',
        `Invalid summary id: expected a positive integer, got ${describeValue(id)}`,
        {
          path: 'id',
        },
      )
    const [row] = await this.query<PgSummaryRow>(
      SUMMARY_SQL,
      [sessionId, id],
      `read summary ${id} of session "${sessionId}"`,
      sessionId,
    )
    if (row === undefined)
      throw new ContextLedgerError('SUMMARY_NOT_FOUND', `No summary ${id} in session "${sessionId}"`, {
        sessionId,
      })
    return toSummaryRecord(sessionId, row, row.current, row.inherited)
  }
}

/** A write whose connection dropped: what it inserted and what it would have returned. */
class LostWrite extends Error {
  constructor(
    readonly inserted: string[],
    readonly value: unknown,
    cause: unknown,
  ) {
    super('the connection dropped during a write', { cause })
  }
}

/** The rows a pin's reference names are seeds of the planner's part (their tool partners come back with them). */
function pinExtra(ref: MessageRef): ReadSpec {
  return 'seq' in ref && Number.isSafeInteger(ref.seq) ? { extra: [ref.seq] } : {}
}

/**
 * A short jittered pause before asking for a connection again after the server refused one (a restart, a
 * switchover, logins refused for maintenance): asking again at once only spends the attempts. A connection
 * the server ended is replaced at once. Up to 10 ms × the attempt, 60 ms at most.
 */
async function reconnectPause(attempt: number): Promise<void> {
  const ms = Math.min(60, 10 * attempt) * (0.5 + Math.random() / 2)
  await new Promise((resolve) => setTimeout(resolve, ms))
}

/** A short jittered pause before trying again after losing to other writers. */
async function pause(conflicts: number): Promise<void> {
  const ms = Math.min(20, conflicts) * Math.random()
  await new Promise((resolve) => setTimeout(resolve, ms))
}

function mergeRanges(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const out: [number, number][] = []
  for (const [lo, hi] of [...ranges].sort((a, c) => a[0] - c[0])) {
    const last = out.at(-1)
    if (last !== undefined && lo <= last[1]) last[1] = Math.max(last[1], hi)
    else out.push([lo, hi])
  }
  return out
}

function toSummary(r: PgSessionRow): SessionSummary {
  const keptCount = r.kept_count ?? r.kept_rows
  const keptTokens = r.kept_tokens ?? r.kept_rows_tokens
  const summary = r.summary === null ? 0 : 1
  return {
    id: r.id,
    messageCount: r.message_count,
    parentId: r.parent_id,
    forkSeq: r.fork_seq,
    kind: r.kind,
    windowMessages: keptCount + summary + r.message_count - r.boundary,
    windowTokens: keptTokens + (r.summary_tokens ?? 0) + r.total_tokens - r.before + r.correction,
    summaryId: r.summary ?? undefined,
    totalTokens: r.total_tokens,
    pinnedCount: r.pinned,
    boundary: r.boundary,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
    format: formatNamed(r.format).name,
    metadata: readSessionMetadata(r.metadata),
  }
}
