/**
 * An adapter's only access to the store: a session's calls as Promises, over either backend — the
 * SQLite core manager (each call answering at once) or the manager of an asynchronous store (the
 * PostgreSQL store of `context-ledger/postgres`, reached through `store.manager()` and described by
 * shape, so this entry loads nothing of PostgreSQL).
 */
import type { MessageFormatName } from '../formats/types.js'
import { formatMismatch } from '../store/append-format.js'
import { isContextLedgerError } from '../errors.js'
import {
  PersistentConversationManager,
  type PersistentConversationManagerOptions,
} from '../manager/persistent-conversation-manager.js'
import type { StoredMessageData } from '../messages/types.js'
import type {
  EditAttribution,
  LedgerEntry,
  MessageEdit,
  MessageRef,
  PinAttribution,
  PinResult,
  WindowResult,
} from '../store/context-store.js'
import type { ManagerAppendOptions, SummarizeOptions } from '../manager/manager-options.js'
import type { SummarizeResult, Summarizer } from '../summaries/summarize.js'
import type { AsyncRecallManager } from '../tools/recall-tools.js'
import {
  isAsyncStore,
  type AsyncContextStore,
  type AsyncLedgerManager,
  type AsyncManagerOptions,
} from './strands/async-ledger.js'
import type { AdapterStore } from './session-options.js'

/** One row of the window with its place in the archive (`seq` undefined for the summary). */
export interface PortWindowEntry {
  /** Its seq, or undefined for the summary. */
  readonly seq: number | undefined
  /** The message as the window shows it. */
  readonly message: StoredMessageData
  /** Whether it is pinned. */
  readonly pinned: boolean
}

/** What a framework adapter asks of a session, every call answering with a Promise. */
export interface LedgerPort {
  /** The format the session's messages are in, or undefined before its first append. */
  storedFormat(): Promise<MessageFormatName | undefined>
  /** The manager the recall tools' handlers read (either backend's: they run on both). */
  readonly recall: PersistentConversationManager | AsyncRecallManager
  /**
   * Appends messages (all or none) in the session's format; with `expectCount`, only when the session
   * holds exactly that many messages (else `APPEND_CONFLICT`, nothing written); with `sessionMetadata`,
   * folding what it wrote into the session's metadata in the same transaction (see `AppendOptions`).
   */
  append(messages: readonly unknown[], options?: ManagerAppendOptions): Promise<LedgerEntry[]>
  /** Enforces the window limits. */
  applyWindow(): Promise<WindowResult>
  /** The window, in the session's format. */
  window(): Promise<StoredMessageData[]>
  /** The window with each row's seq and pin. */
  windowEntries(): Promise<PortWindowEntry[]>
  /** A page of the archive. */
  history(fromSeq: number, limit: number): Promise<LedgerEntry[]>
  /** One message by tracking id, or undefined when the session has none. */
  byTrackingId(trackingId: string): Promise<LedgerEntry | undefined>
  /** Messages in the archive. */
  messageCount(): Promise<number>
  /** Messages in the window (its summary included). */
  windowCount(): Promise<number>
  /** Folds what is over the limits into a summary (the core's `summarizeExcess`). */
  summarizeExcess(summarizer: Summarizer): Promise<SummarizeResult>
  /** Folds the oldest part of the window into a summary (the core's `summarize`). */
  summarize(summarizer: Summarizer, options: SummarizeOptions): Promise<SummarizeResult>
  /** The session's edit log (edits and redactions), oldest first. */
  edits(): Promise<MessageEdit[]>
  /** Shows `message` in the window in place of `ref`'s message, recorded in the edit log. */
  edit(ref: MessageRef, message: unknown, attribution: EditAttribution): Promise<void>
  /** Pins (`true`) or unpins a message. */
  pin(ref: MessageRef, pinned: boolean, attribution: PinAttribution): Promise<PinResult>
}

/**
 * Runs a synchronous call as a Promise: its value, or a rejection with what it threw.
 *
 * @param fn - the call
 * @returns its value, a turn of the event loop later
 */
export async function later<T>(fn: () => T): Promise<T> {
  await Promise.resolve()
  return fn()
}

/** The entry a lookup found, or undefined for `MESSAGE_NOT_FOUND`. */
async function found(lookup: () => LedgerEntry | Promise<LedgerEntry>): Promise<LedgerEntry | undefined> {
  try {
    return await lookup()
  } catch (error) {
    if (isContextLedgerError(error, 'MESSAGE_NOT_FOUND')) return undefined
    throw error
  }
}

/**
 * The port over the SQLite core manager.
 *
 * @param manager - the session's core manager
 * @returns the port
 */
export function sqlitePort(manager: PersistentConversationManager): LedgerPort {
  const summary = () => manager.store.session(manager.sessionId)
  return {
    recall: manager,
    append: (messages, options) =>
      later(() =>
        options === undefined
          ? manager.append(messages as never[])
          : manager.append(messages as never[], options),
      ),
    applyWindow: () => later(() => manager.applyWindow()),
    window: () => later(() => manager.window()),
    windowEntries: () => later(() => manager.windowEntries()),
    history: (fromSeq, limit) => later(() => manager.history({ fromSeq, limit })),
    byTrackingId: (trackingId) => found(() => manager.message({ trackingId })),
    messageCount: () => later(() => summary()?.messageCount ?? 0),
    storedFormat: () => later(() => summary()?.format),
    windowCount: () => later(() => summary()?.windowMessages ?? 0),
    summarizeExcess: (summarizer) => manager.summarizeExcess(summarizer),
    summarize: (summarizer, options) => manager.summarize(summarizer, options),
    edits: () => later(() => manager.edits()),
    edit: (ref, message, attribution) =>
      later(() => {
        manager.edit(ref, message as never, attribution)
      }),
    pin: (ref, pinned, attribution) =>
      later(() => (pinned ? manager.pin(ref, attribution) : manager.unpin(ref, attribution))),
  }
}

/**
 * The port over the manager of an asynchronous store (PostgreSQL).
 *
 * @param store - the store
 * @param manager - the session's manager on it (`store.manager(options)`)
 * @returns the port
 */
export function asyncPort(store: AsyncContextStore, manager: AsyncLedgerManager): LedgerPort {
  const summary = () => store.session(manager.sessionId)
  return {
    recall: manager,
    append: (messages, options) =>
      options === undefined
        ? manager.append(messages as never[])
        : manager.append(messages as never[], options),
    applyWindow: () => manager.applyWindow(),
    window: () => manager.window(),
    windowEntries: () => manager.windowEntries(),
    history: (fromSeq, limit) => manager.history({ fromSeq, limit }),
    byTrackingId: (trackingId) => found(() => manager.message({ trackingId })),
    messageCount: async () => (await summary())?.messageCount ?? 0,
    storedFormat: async () => (await summary())?.format,
    windowCount: async () => (await summary())?.windowMessages ?? 0,
    summarizeExcess: (summarizer) => manager.summarizeExcess(summarizer),
    summarize: (summarizer, options) => manager.summarize(summarizer, options),
    edits: () => manager.edits(),
    edit: async (ref, message, attribution) => {
      await manager.edit(ref, message as never, attribution)
    },
    pin: (ref, pinned, attribution) =>
      pinned ? manager.pin(ref, attribution) : manager.unpin(ref, attribution),
  }
}

/**
 * Opens a session on either backend: the core manager (SQLite's, or the PostgreSQL store's manager) and
 * the port over it.
 *
 * @param store - the store
 * @param options - the manager's options (session, limits, token counter, format)
 * @returns the manager and its port
 * @throws ContextLedgerError `INVALID_OPTIONS` for a bad limit
 */
export function openPort(
  store: AdapterStore,
  options: AsyncManagerOptions,
): { ledger: PersistentConversationManager | AsyncLedgerManager; port: LedgerPort } {
  if (isAsyncStore(store)) {
    const manager = store.manager(options)
    return { ledger: manager, port: asyncPort(store, manager) }
  }
  // The limits are unknown here: the manager checks them (INVALID_OPTIONS naming the option).
  const manager = new PersistentConversationManager({
    ...options,
    store,
  } as PersistentConversationManagerOptions)
  return { ledger: manager, port: sqlitePort(manager) }
}

/**
 * A check that refuses a session of another format (a Strands session under the id an AI SDK session
 * opens, say), on reads as appends refuse it on writes; it reads the session's format until the session
 * exists in the right one, then never again.
 *
 * @param port - the session
 * @param sessionId - its id, for the error
 * @param format - the adapter's format
 * @returns the check
 */
export function formatGuard(
  port: LedgerPort,
  sessionId: string,
  format: MessageFormatName,
): () => Promise<void> {
  let checked = false
  return async () => {
    if (checked) return
    const stored = await port.storedFormat()
    if (stored !== undefined && stored !== format) throw formatMismatch(sessionId, stored, format)
    checked = stored !== undefined
  }
}
