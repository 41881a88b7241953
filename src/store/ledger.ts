/**
 * One open ledger file as the store's operations see it: the connection and its prepared statements,
 * the session-key cache, the transactions (see `transactions.ts`), a pending erasure, and the full-text
 * index's idle pass (see `search-index.ts`). Every public call of `ContextStore` runs through one of
 * these; the operations themselves live in their own modules (append, pins, edits, reads, retention),
 * each taking the ledger as its first argument.
 */
import type Database from 'better-sqlite3'
import { ContextLedgerError } from '../errors.js'
import { LifecycleStatements } from '../db/lifecycle-statements.js'
import { openDatabase } from '../db/open.js'
import { walCheckpoint } from '../db/pragmas.js'
import { isBusy, toLedgerError, toReadError } from '../db/sqlite-errors.js'
import { prepareStatements, type Statements } from '../db/statements.js'
import { prepareBranchStatements } from '../db/branch-statements.js'
import { BranchRouter } from './branches/router.js'
import { watchTree } from '../db/tree-watch.js'
import type { MessageLimits } from '../messages/schema.js'
import { SearchIndexWriter, type SearchHooks } from './search-index.js'
import { SessionKeys } from './session-keys.js'
import type { StoreSettings } from './store-options.js'
import { Transactions } from './transactions.js'

/**
 * What the store's operations (append, pins, edits, window, summaries) work on: statements, session keys,
 * limits and transactions. The SQLite file is one ({@link SqliteLedger}); the PostgreSQL backend runs the
 * same operations on a snapshot of one session (`src/backends/postgres/slice-ledger.ts`).
 */
export interface Ledger {
  /** The statements the operations call. */
  readonly st: Statements
  /**
   * Branches (docs/design.md, "Branches"): what decides whether a session is a branch and answers the
   * statements for one. Undefined where every session is a root (a PostgreSQL snapshot of one session).
   */
  readonly branches?: BranchRouter
  /** The session-key cache. */
  readonly keys: SessionKeys
  /**
   * The full-text index's part of the write transactions (SQLite's; on PostgreSQL the operations' calls
   * to it only run the writes they wrap: a generated column would keep its index, see docs/postgres.md).
   */
  readonly search: SearchHooks
  /** The validation limits every incoming message must meet (frozen). */
  readonly limits: Readonly<MessageLimits>
  /** Opened with `readonly: true`. */
  readonly readonly: boolean
  /** Where the ledger is, for messages. */
  readonly path: string
  /** A redaction's, deletion's or prune's erasure could not finish yet. */
  erasurePending: boolean
  /** @throws ContextLedgerError `STORE_CLOSED` once the store is closed */
  ensureOpen(): void
  /** @throws ContextLedgerError `STORE_CLOSED`, or `READ_ONLY` for a store opened read-only */
  ensureWritable(): void
  /** Runs `fn` in one write transaction; see {@link SqliteLedger.write}. */
  write<T>(sessionId: string, fn: () => T): T
  /** Runs `fn` in a read transaction; see {@link SqliteLedger.read}. */
  read<T>(fn: () => T, what?: string, sessionId?: string): T
  /** Finishes a pending erasure; see {@link SqliteLedger.completeErasure}. */
  completeErasure(): boolean
}

/** An open ledger file: its connection, statements, session keys and transactions. */
export class SqliteLedger implements Ledger {
  /** The connection. */
  readonly db: Database.Database
  /** Its statements, branch-aware: a root's run the prepared ones themselves (see `branches/router.ts`). */
  readonly st: Statements
  /** Branches: the router behind {@link st}. */
  readonly branches: BranchRouter
  /** The lifecycle calls' statements, prepared on first use. */
  readonly lifecycle: LifecycleStatements
  /** The session-key cache. */
  readonly keys: SessionKeys
  /** The full-text index's part of the write transactions (batches, summaries, removals). */
  readonly search: SearchIndexWriter
  /** The validation limits every incoming message must meet (frozen). */
  readonly limits: Readonly<MessageLimits>
  /** Opened with `readonly: true`. */
  readonly readonly: boolean
  /** A redaction's, deletion's or prune's checkpoint could not finish yet (a reader held an older snapshot). */
  erasurePending = false
  private readonly transactions: Transactions
  /** The full-text index's idle pass, while one is scheduled (see {@link scheduleIndexing}). */
  private idlePass: NodeJS.Immediate | undefined
  private readonly onBackgroundError: ((error: ContextLedgerError) => void) | undefined

  /**
   * Opens (creating and migrating as needed) the file.
   *
   * @param path - the file path or `':memory:'`
   * @param settings - checked store options
   */
  constructor(
    readonly path: string,
    settings: StoreSettings,
  ) {
    this.limits = Object.freeze({ ...settings.limits })
    this.readonly = settings.readonly
    this.onBackgroundError = settings.onBackgroundError
    this.db = openDatabase(path, settings)
    const db = this.db
    const dataVersion = watchTree(db, !settings.readonly, () => {
      this.branches.treeChanged()
    })
    this.branches = new BranchRouter(
      prepareStatements(db),
      prepareBranchStatements(db),
      () => db.inTransaction,
      dataVersion,
    )
    this.st = this.branches.st
    const search = new SearchIndexWriter(this.st)
    this.search = search
    this.transactions = new Transactions(this.db, undefined, {
      begin: () => {
        this.branches.begin()
        search.begin()
      },
      beforeCommit: () => {
        search.beforeCommit()
      },
      afterCommit: () => {
        this.branches.committed()
        if (search.committed()) this.scheduleIndexing()
      },
    })
    this.lifecycle = new LifecycleStatements(this.db)
    this.keys = new SessionKeys(this.st)
  }

  /** @throws ContextLedgerError `STORE_CLOSED` once the store is closed */
  ensureOpen(): void {
    if (!this.db.open) throw new ContextLedgerError('STORE_CLOSED', `The store for ${this.path} is closed`)
  }

  /** @throws ContextLedgerError `STORE_CLOSED`, or `READ_ONLY` for a store opened read-only */
  ensureWritable(): void {
    this.ensureOpen()
    if (this.readonly)
      throw new ContextLedgerError(
        'READ_ONLY',
        `The store for ${this.path} was opened with readonly: true; it cannot be written`,
      )
  }

  /**
   * Runs `fn` in one write transaction (see {@link Transactions.write}: the lock is taken up front, and
   * a busy lock is waited for up to the busy timeout in all). SQLite failures become typed errors.
   *
   * @param sessionId - the session written, for the error
   * @param fn - the work
   * @returns what `fn` returned
   */
  write<T>(sessionId: string, fn: () => T): T {
    try {
      return this.transactions.write(fn)
    } catch (error) {
      // A rolled-back transaction may have created a session whose key was cached: forget them all.
      this.keys.clear()
      this.branches.reset()
      throw toLedgerError(error, `write to session "${sessionId}"; nothing was written`, sessionId)
    }
  }

  /**
   * Runs `fn` in a read transaction, so multi-statement reads see one snapshot. Every failure, of SQLite
   * or of decoding a stored row, becomes a typed error naming `what`.
   *
   * @param fn - the reads
   * @param what - the operation, for the error
   * @param sessionId - the session read, for the error
   * @returns what `fn` returned
   */
  read<T>(fn: () => T, what = `read ${this.path}`, sessionId?: string): T {
    try {
      return this.transactions.read(fn)
    } catch (error) {
      throw toReadError(error, what, sessionId)
    }
  }

  /**
   * Finishes a pending erasure: checkpoints the write-ahead log into the file and truncates it, without
   * waiting for readers.
   *
   * @returns true when no erased content is left in the files (or none was pending)
   */
  completeErasure(): boolean {
    this.ensureOpen()
    if (!this.erasurePending || this.readonly) return !this.erasurePending
    // Inside a batch of writes: the checkpoint waits for the batch's commit (the next write runs it).
    if (this.db.inTransaction) return false
    // Never waits: the connection's busy_timeout is 0 (Transactions waits for locks itself), set again in
    // case a caller changed it through connection().
    try {
      this.db.pragma('busy_timeout = 0')
      this.erasurePending = walCheckpoint(this.db, 'TRUNCATE').busy !== 0
    } catch (error) {
      if (!isBusy(error)) throw toLedgerError(error, `checkpoint ${this.path} to erase redacted messages`)
    }
    return !this.erasurePending
  }

  /**
   * Indexes the messages that wait above the full-text index's watermark, in one write transaction that
   * does not wait for the lock: when another connection holds it, they stay for the next pass (a search
   * reads them meanwhile). Any failure leaves them waiting too.
   *
   * @returns whether the index now holds every message
   */
  indexPending(): boolean {
    if (this.readonly || !this.db.open || this.db.inTransaction) return false
    return this.tryIndexPending() === undefined
  }

  /**
   * Closes the file: cancels the idle pass, indexes the messages still waiting for the full-text index
   * (if the lock is free), and finishes a pending erasure if no reader still holds it up. Idempotent.
   */
  close(): void {
    if (this.idlePass !== undefined) clearImmediate(this.idlePass)
    this.idlePass = undefined
    if (!this.db.open) return
    this.indexPending()
    if (this.erasurePending && !this.readonly) this.completeErasure()
    this.db.close()
  }

  /**
   * After a write left a batch waiting: one pass at the event loop's next turn, at most one scheduled at
   * a time. An agent awaits its model between appends, so the pass runs there rather than inside the
   * append that completed the batch. Unref'd: it never keeps the process alive (`close()` indexes what
   * is left, and a process that exits without closing leaves the messages waiting, searchable, for the
   * next pass of whoever opens the file).
   */
  private scheduleIndexing(): void {
    if (this.idlePass !== undefined || this.readonly) return
    this.idlePass = setImmediate(() => {
      this.idlePass = undefined
      this.indexAtIdle()
    })
    this.idlePass.unref()
  }

  /**
   * The idle pass: indexes what waits, without waiting for the lock (a busy wait here would block the
   * whole event loop for work nobody is waiting on; another connection's lock leaves the messages to the
   * next write's pass, or to the write that finds too many waiting). Never throws — it runs on the event
   * loop, where a throw would end the process: a failure goes to `onBackgroundError`, if given.
   */
  private indexAtIdle(): void {
    if (this.readonly || !this.db.open || this.db.inTransaction) return
    const failure = this.tryIndexPending()
    if (failure === undefined || isBusy(failure) || this.onBackgroundError === undefined) return
    const what = `index the messages waiting for the full-text index of ${this.path} (they stay waiting, and searchable)`
    const mapped = toLedgerError(failure, what)
    const error =
      mapped instanceof ContextLedgerError
        ? mapped
        : new ContextLedgerError(
            'STORAGE_ERROR',
            `Could not ${what}: ${failure instanceof Error ? failure.message : `threw ${typeof failure}`}`,
            { cause: failure },
          )
    try {
      this.onBackgroundError(error)
    } catch {
      // Documented: what the callback throws is ignored (thrown here, it would end the process).
    }
  }

  /**
   * One attempt at indexing every waiting message in its own write transaction (`BEGIN IMMEDIATE`; the
   * connection's busy timeout is 0, see `transactions.ts`).
   *
   * @returns the error it failed with, or undefined when it committed
   */
  private tryIndexPending(): unknown {
    try {
      this.db.transaction(() => this.search.indexPending()).immediate()
    } catch (error) {
      // Busy, or the disk is full: nothing was written; a later pass, a write or close() indexes them.
      this.search.rolledBack()
      return error
    }
    this.search.committed()
    return undefined
  }
}
