/**
 * The adapter's only access to the store: a session's calls as Promises. Today it wraps the SQLite core
 * manager (each call answers at once); the PostgreSQL manager of `context-ledger/postgres`, whose calls
 * already return Promises, slots in here without the rest of the adapter changing.
 */
import { isContextLedgerError } from '../../errors.js'
import type { PersistentConversationManager } from '../../manager/persistent-conversation-manager.js'
import type { StoredMessageData } from '../../messages/types.js'
import type { EditAttribution, LedgerEntry, MessageRef, WindowResult } from '../../store/context-store.js'
import type { SummarizeOptions } from '../../manager/manager-options.js'
import type { SummarizeResult, Summarizer } from '../../summaries/summarize.js'

/** What the AI SDK adapter asks of a session, every call answering with a Promise. */
export interface LedgerPort {
  /** Appends messages (all or none) in the session's format. */
  append(messages: readonly unknown[]): Promise<LedgerEntry[]>
  /** Enforces the window limits. */
  applyWindow(): Promise<WindowResult>
  /** The window, in the session's format. */
  window(): Promise<StoredMessageData[]>
  /** A page of the archive. */
  history(fromSeq: number, limit: number): Promise<LedgerEntry[]>
  /** One message by tracking id, or undefined when the session has none. */
  byTrackingId(trackingId: string): Promise<LedgerEntry | undefined>
  /** Messages in the archive. */
  messageCount(): Promise<number>
  /** Folds what is over the limits into a summary (the core's `summarizeExcess`). */
  summarizeExcess(summarizer: Summarizer): Promise<SummarizeResult>
  /** Folds the oldest part of the window into a summary (the core's `summarize`). */
  summarize(summarizer: Summarizer, options: SummarizeOptions): Promise<SummarizeResult>
  /** Shows `message` in the window in place of `ref`'s message, recorded in the edit log. */
  edit(ref: MessageRef, message: unknown, attribution: EditAttribution): Promise<void>
}

/** Runs a synchronous call as a Promise: its value, or a rejection with what it threw. */
async function later<T>(fn: () => T): Promise<T> {
  await Promise.resolve()
  return fn()
}

/**
 * The port over the SQLite core manager.
 *
 * @param manager - the session's core manager
 * @returns the port
 */
export function sqlitePort(manager: PersistentConversationManager): LedgerPort {
  return {
    append: (messages) => later(() => manager.append(messages as never[])),
    applyWindow: () => later(() => manager.applyWindow()),
    window: () => later(() => manager.window()),
    history: (fromSeq, limit) => later(() => manager.history({ fromSeq, limit })),
    byTrackingId: (trackingId) =>
      later(() => {
        try {
          return manager.message({ trackingId })
        } catch (error) {
          if (isContextLedgerError(error, 'MESSAGE_NOT_FOUND')) return undefined
          throw error
        }
      }),
    messageCount: () => later(() => manager.store.session(manager.sessionId)?.messageCount ?? 0),
    summarizeExcess: (summarizer) => manager.summarizeExcess(summarizer),
    summarize: (summarizer, options) => manager.summarize(summarizer, options),
    edit: (ref, message, attribution) =>
      later(() => {
        manager.edit(ref, message as never, attribution)
      }),
  }
}
