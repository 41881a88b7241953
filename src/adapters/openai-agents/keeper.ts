/**
 * Keeping the window within its limits after items are stored — without ever making the call that stored
 * them fail. Once an append has committed, the items are the session's: a summary model that is rate
 * limited, writes summaries longer than the budget or loses a race, or a database that goes away during
 * the fold, must not make `addItems` reject (the runner would take the run as failed, and a retry would
 * store the turn twice). So a failed fold falls back to eviction (the sliding window, no model call); a
 * failure of that too leaves the limits to be enforced before the next read; every such failure is
 * reported to `onError`, never thrown.
 */
import type { LedgerEntry } from '../../store/store-types.js'
import type { Summarizer } from '../../summaries/summarize.js'
import type { LedgerPort } from '../port.js'
import { foldCompaction } from './compaction.js'

/** Told of a failure to keep the window within its limits after the items were stored. */
export type WindowErrorHandler = (error: unknown) => void

/** The default handler: one warning line on stderr. */
export const warnWindowError: WindowErrorHandler = (error) => {
  const message = error instanceof Error ? error.message : String(error)
  process.emitWarning(
    `context-ledger/openai-agents: the window was not brought within its limits: ${message}`,
  )
}

/** Brings a session's window within its limits after each write (see the module's header). */
export class WindowKeeper {
  /** The limits were not enforced after the last write: enforce them before the next read. */
  private pending = false

  /**
   * @param port - the session
   * @param summarizer - folds what the limits would evict into a summary, when configured
   * @param onError - told of each failure (the call that stored the items still succeeds)
   */
  constructor(
    private readonly port: LedgerPort,
    private readonly summarizer: Summarizer | undefined,
    private readonly onError: WindowErrorHandler,
  ) {}

  /**
   * After an append: folds what precedes a compaction item among `entries`, then enforces the limits.
   *
   * @param entries - what the append wrote
   */
  async afterAppend(entries: readonly LedgerEntry[]): Promise<void> {
    try {
      await foldCompaction(this.port, entries)
    } catch (error) {
      // The compaction item is stored; what the model is handed starts there either way.
      this.onError(error)
    }
    await this.settle()
  }

  /** Before a read: enforces the limits a failed write left unenforced. */
  async beforeRead(): Promise<void> {
    if (this.pending) await this.settle()
  }

  /** Enforces the limits: folding with the summarizer, else (or when that fails) evicting. */
  async settle(): Promise<void> {
    const summarizer = this.summarizer
    if (summarizer !== undefined) {
      try {
        await this.port.summarizeExcess(summarizer)
        this.pending = false
        return
      } catch (error) {
        this.onError(error)
      }
    }
    try {
      await this.port.applyWindow()
      this.pending = false
    } catch (error) {
      this.pending = true
      this.onError(error)
    }
  }
}
