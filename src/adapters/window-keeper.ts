/**
 * Keeping a session's window within its limits after messages are stored — without ever making the call
 * that stored them fail. Once an append has committed, the messages are the session's: a summary model
 * that is rate limited, writes summaries longer than the budget or loses a race, or a database that goes
 * away during the fold, must not make the adapter's write reject (a framework's loop would take the step
 * or run as failed and stop, and a retry could store it twice). So a failed fold falls back to eviction
 * (the sliding window, no model call); a failure of that too leaves the limits to be enforced before the
 * next read; every such failure is reported to `onError`, never thrown. Every framework adapter uses it.
 */
import type { Summarizer } from '../summaries/summarize.js'
import type { LedgerPort } from './port.js'

/** Told of a failure to keep the window within its limits after the messages were stored. */
export type WindowErrorHandler = (error: unknown) => void

/**
 * The default handler: a process warning naming the adapter.
 *
 * @param entry - the adapter's entry point, e.g. `context-ledger/openai-agents`
 * @returns the handler
 */
export const warnWindowError =
  (entry: string): WindowErrorHandler =>
  (error) => {
    const message = error instanceof Error ? error.message : String(error)
    process.emitWarning(`${entry}: the window was not brought within its limits: ${message}`)
  }

/** Brings a session's window within its limits after each write (see the module's header). */
export class WindowKeeper {
  /** The limits were not enforced after the last write: enforce them before the next read. */
  private pending = false

  /**
   * @param port - the session
   * @param summarizer - folds what the limits would evict into a summary, when configured
   * @param onError - told of each failure (the call that stored the messages still succeeds)
   */
  constructor(
    private readonly port: LedgerPort,
    private readonly summarizer: Summarizer | undefined,
    private readonly onError: WindowErrorHandler,
  ) {}

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
