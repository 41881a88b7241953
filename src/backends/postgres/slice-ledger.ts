/**
 * A {@link Ledger} over one {@link Slice}: what the SQLite backend's operations (`src/store/*`) get when
 * the PostgreSQL store runs them. Their "transaction" is the slice itself — nothing reaches the database
 * until the store writes the slice back in one statement — so `write` and `read` just run the work.
 */
import { ContextLedgerError } from '../../errors.js'
import type { MessageLimits } from '../../messages/schema.js'
import type { Ledger } from '../../store/ledger.js'
import type { SearchHooks } from '../../store/search-index.js'
import { SessionKeys } from '../../store/session-keys.js'
import type { Statements } from '../../db/statements.js'
import type { Slice } from './slice.js'
import { sliceStatements } from './slice-statements.js'

/** Whether the store can still be used, and written. */
export interface StoreState {
  /** Where the store is, for messages. */
  readonly where: string
  /** Closed: every call throws `STORE_CLOSED`. */
  readonly closed: boolean
  /** Opened `readonly`. */
  readonly readonly: boolean
  /** Validation limits. */
  readonly limits: Readonly<MessageLimits>
}

/** The operations' view of one slice. */
export class SliceLedger implements Ledger {
  readonly st: Statements
  readonly keys: SessionKeys
  readonly limits: Readonly<MessageLimits>
  readonly readonly: boolean
  readonly path: string
  erasurePending = false
  /**
   * No full-text index to keep on PostgreSQL (yet): each hook only runs the write it wraps.
   */
  readonly search: SearchHooks = {
    replaceBody: (_session, _seq, replace) => {
      replace()
    },
    messageAppended: () => undefined,
    summaryInserted: () => undefined,
    removeSession: () => undefined,
    sessionDeleted: () => undefined,
  }
  /** How many write transactions the operations opened (a batch nests them). */
  writes = 0

  /**
   * @param slice - the slice
   * @param state - the store's state
   */
  constructor(
    readonly slice: Slice,
    private readonly state: StoreState,
  ) {
    this.st = sliceStatements(slice)
    this.keys = new SessionKeys(this.st)
    this.limits = state.limits
    this.readonly = state.readonly
    this.path = state.where
  }

  ensureOpen(): void {
    if (this.state.closed)
      throw new ContextLedgerError('STORE_CLOSED', `The store for ${this.state.where} is closed`)
  }

  ensureWritable(): void {
    this.ensureOpen()
    if (this.readonly)
      throw new ContextLedgerError(
        'READ_ONLY',
        `The store for ${this.state.where} was opened with readonly: true; it cannot be written`,
      )
  }

  write<T>(_sessionId: string, fn: () => T): T {
    this.writes++
    return fn()
  }

  read<T>(fn: () => T): T {
    return fn()
  }

  /** PostgreSQL keeps replaced row versions until VACUUM: an erasure is never known to be complete here. */
  completeErasure(): boolean {
    return !this.erasurePending
  }
}
