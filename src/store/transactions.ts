/**
 * The store's transactions: how they wait for another connection's write lock, and when the write-ahead
 * log is checkpointed. Both decide how long a single call can stall when several processes share a file.
 *
 * Waiting. SQLite's own busy handler is not used: it sleeps longer the longer a caller has waited (1, 2,
 * 5 … then 100 ms between polls), so a caller that has waited a while polls rarely and loses the lock to
 * every newcomer — under steady contention single calls stalled for seconds. The connection's
 * `busy_timeout` is 0 instead, and a busy lock is polled here at short, jittered intervals that get
 * shorter, not longer, as a caller keeps waiting, until one deadline (`busyTimeoutMs`) for the whole call.
 *
 * Checkpointing. SQLite's automatic checkpoint is PASSIVE: it copies what no reader still needs and
 * never waits. While other processes keep committing and reading, it never catches up with the end of
 * the log, so the log is never restarted: it grew by 100–300 MiB in 15 s of contention, and every
 * commit past the threshold ran another checkpoint. The automatic checkpoint is off instead (see
 * `src/db/open.ts`).
 * Every {@link CHECKPOINT_CHECK_EVERY} commits a connection looks at the log's size; past
 * {@link WAL_CHECKPOINT_BYTES}, that call checkpoints in two steps: a PASSIVE one copies the bulk of the
 * log while other connections go on writing, then a RESTART one takes the write lock, copies what was
 * committed meanwhile, and waits at most {@link CHECKPOINT_WAIT_MS} for readers still on the log, so
 * the next write starts the log over (and `journal_size_limit` cuts the file back). Writers are held up
 * only for the second step; the log stays near that size; one checkpoint copies about that much.
 */
import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import type Database from 'better-sqlite3'
import { WAL_CHECKPOINT_BYTES } from '../db/open.js'
import { readIntegerPragma } from '../db/pragmas.js'
import { isBusy } from '../db/sqlite-errors.js'

export { WAL_CHECKPOINT_BYTES }

/**
 * How long a checkpoint waits for the write lock, and then for readers still on the log, ms. It holds
 * the write lock while waiting for readers, so this also bounds how long it holds up other writers
 * beyond its copying. A checkpoint that gives up is tried again at the next look.
 */
export const CHECKPOINT_WAIT_MS = 10

/** SQLite's busy handler for a checkpoint's second step (literal text: see src/db/pragmas.ts). */
const SET_CHECKPOINT_WAIT: `busy_timeout = ${typeof CHECKPOINT_WAIT_MS}` = 'busy_timeout = 10'

/** A connection looks at the log's size after every this many of its commits (a `stat`, ~3 µs). */
export const CHECKPOINT_CHECK_EVERY = 32

/** The longest sleep between two attempts to take the lock, ms: a fresh waiter's, at most. */
export const LOCK_POLL_MAX_MS = 1

/** After waiting this long, ms, a caller polls at most every {@link LOCK_POLL_LATE_MAX_MS}. */
export const LOCK_POLL_LATE_AFTER_MS = 20

/** The longest sleep between polls of a caller that has waited {@link LOCK_POLL_LATE_AFTER_MS} or more. */
export const LOCK_POLL_LATE_MAX_MS = 0.3

/**
 * How long to sleep before the next attempt to take a busy lock: jittered (so waiters do not poll in
 * step), and shorter for a caller that has already waited, so the longest waiter is the likeliest to
 * catch the lock between two transactions of others.
 *
 * @param waitedMs - how long this call has waited so far
 * @param random - a number in [0, 1)
 * @returns ms to sleep, in (0, {@link LOCK_POLL_MAX_MS}]
 */
export function lockPollDelayMs(waitedMs: number, random: number): number {
  const max = waitedMs < LOCK_POLL_LATE_AFTER_MS ? LOCK_POLL_MAX_MS : LOCK_POLL_LATE_MAX_MS
  return max * (0.25 + 0.75 * random)
}

/** Time and randomness, replaceable in tests. */
export interface LockClock {
  /** A monotonic time in ms. */
  now(): number
  /** Blocks the thread for `ms` (the API is synchronous: a wait cannot yield to the event loop). */
  sleep(ms: number): void
  /** A number in [0, 1). */
  random(): number
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4))

/** The real clock. */
export const systemClock: LockClock = Object.freeze({
  now: () => performance.now(),
  sleep: (ms: number) => {
    Atomics.wait(sleepCell, 0, 0, ms)
  },
  random: Math.random,
})

/** What runs at the edges of every outermost write transaction, inside it. */
export interface WriteHooks {
  /** First thing in the transaction (and again when a busy lock makes it start over). */
  begin(): void
  /** Last thing before the commit: writes that must be made once per transaction. */
  beforeCommit(): void
  /** Just after the commit, outside the transaction (not after one that failed). Must not throw. */
  afterCommit(): void
}

const NO_HOOKS: WriteHooks = Object.freeze({
  begin: () => undefined,
  beforeCommit: () => undefined,
  afterCommit: () => undefined,
})

/**
 * Runs functions in transactions on one connection, waiting for a busy lock by {@link lockPollDelayMs}
 * for at most `timeoutMs` per call. Errors are SQLite's own (the caller maps them); a lock still busy at
 * the deadline throws SQLite's `SQLITE_BUSY`.
 */
export class Transactions {
  private readonly tx: Database.Transaction<(fn: () => unknown) => unknown>
  private readonly walPath: string | undefined
  private commits = 0

  /** How long one call may wait for the lock in all, ms: the connection's busy timeout when taken over. */
  readonly timeoutMs: number

  /**
   * Takes over the connection's busy handling: its `busy_timeout` (better-sqlite3's `timeout`) becomes
   * the deadline of each call here, and SQLite's own is set to 0.
   *
   * @param db - an open connection
   * @param clock - time, sleep and randomness (tests replace it)
   * @param hooks - what runs first and last in every outermost write transaction
   */
  constructor(
    private readonly db: Database.Database,
    private readonly clock: LockClock = systemClock,
    private readonly hooks: WriteHooks = NO_HOOKS,
  ) {
    this.timeoutMs = readIntegerPragma(db, 'busy_timeout')
    db.pragma('busy_timeout = 0')
    this.tx = db.transaction((fn: () => unknown) => fn())
    this.walPath = db.memory ? undefined : `${resolve(db.name)}-wal`
  }

  /**
   * Runs `fn` in a write transaction that takes the lock up front (`BEGIN IMMEDIATE`), so it never has to
   * upgrade a read lock mid-way — the deadlock SQLite answers with an immediate `SQLITE_BUSY`. Should
   * SQLite report the lock busy at any point, the transaction is rolled back and the whole of `fn` run
   * again: `fn` must read everything it decides on inside the transaction. Called inside another write,
   * `fn` runs in a savepoint of it: undone alone if it throws, committed with the enclosing write.
   *
   * @param fn - the work; synchronous
   * @returns what `fn` returned
   */
  write<T>(fn: () => T): T {
    // Inside another write (a batch of writes): a savepoint, committed with the enclosing transaction.
    if (this.db.inTransaction) return this.tx(fn) as T
    const result = this.retry(
      () =>
        this.tx.immediate(() => {
          this.hooks.begin()
          const value = fn()
          this.hooks.beforeCommit()
          return value
        }) as T,
    )
    this.hooks.afterCommit()
    this.checkpointIfDue()
    return result
  }

  /**
   * Runs `fn` in a read transaction, so multi-statement reads see one snapshot. In WAL mode a reader
   * waits only while another connection rebuilds the WAL index after a crash.
   *
   * @param fn - the reads; synchronous
   * @returns what `fn` returned
   */
  read<T>(fn: () => T): T {
    return this.retry(() => this.tx.deferred(fn) as T)
  }

  /**
   * Every {@link CHECKPOINT_CHECK_EVERY} commits, checkpoints the log when it has outgrown
   * {@link WAL_CHECKPOINT_BYTES}. Never throws: the transaction before it is committed, and a checkpoint
   * that fails or gives up (another connection is checkpointing, a reader stayed) is tried again at the
   * next look.
   */
  private checkpointIfDue(): void {
    if (this.walPath === undefined || ++this.commits % CHECKPOINT_CHECK_EVERY !== 0) return
    if (walSize(this.walPath) <= WAL_CHECKPOINT_BYTES) return
    try {
      this.db.pragma('wal_checkpoint(PASSIVE)')
      // SQLite's own busy handler for this one call, with a short wait: for the write lock, then readers.
      this.db.pragma(SET_CHECKPOINT_WAIT)
      this.db.pragma('wal_checkpoint(RESTART)')
    } catch {
      // An I/O error: the log stays as it is until the next look tries again.
    } finally {
      this.db.pragma('busy_timeout = 0')
    }
  }

  private retry<T>(attempt: () => T): T {
    const started = this.clock.now()
    for (;;) {
      try {
        return attempt()
      } catch (error) {
        if (!isBusy(error)) throw error
        const now = this.clock.now()
        const left = started + this.timeoutMs - now
        if (left <= 0) throw error
        this.clock.sleep(Math.min(left, lockPollDelayMs(now - started, this.clock.random())))
      }
    }
  }
}

/** The size of the log file, 0 when it is missing or cannot be read (then no checkpoint is due). */
function walSize(path: string): number {
  try {
    return statSync(path, { throwIfNoEntry: false })?.size ?? 0
  } catch {
    return 0
  }
}
