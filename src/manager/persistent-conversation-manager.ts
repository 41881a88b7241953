/**
 * `PersistentConversationManager`: one session of a {@link ContextStore} seen as a conversation manager.
 * It holds configuration only — the window, pins and boundary live in the file and are recomputed from
 * it on every call, so two managers (or two processes) on one session never act on stale state.
 */
import { z } from 'zod'
import { MESSAGE_FORMATS, type MessageFormatName } from '../formats/types.js'
import { describeValue } from '../messages/limits.js'
import { estimateTokens, type TokenCounter } from '../messages/tokens.js'
import type { MessageData, StoredMessageData } from '../messages/types.js'
import {
  checkSessionId,
  ContextStore,
  type LedgerEntry,
  type MessageRef,
  type PinAttribution,
  type PinResult,
  type WindowResult,
  type EditAttribution,
  type MessageEdit,
  type RedactOptions,
  type RedactResult,
  type WindowEntry,
  type WindowReadOptions,
  type DeleteSessionResult,
  type PruneOptions,
  type PruneResult,
} from '../store/context-store.js'
import { checkKeys, checkObject, invalidOption } from '../store/check-args.js'
import type { SummariesOptions, SummaryRecord } from '../store/context-store.js'
import type { EvictionRecord, EvictionsOptions, SearchHit, SearchOptions } from '../store/search-types.js'
import {
  foldExcess,
  foldIntoSummary,
  regenerateSummary,
  type SummarizeResult,
  type Summarizer,
  type SummaryContext,
} from '../summaries/summarize.js'
import {
  checkSummarizer,
  excessOptions,
  managerAppendOptions,
  resummarizeOptions,
  summarizeFoldRequest,
  summarizeOptions,
  type ManagerAppendOptions,
  type ReduceOptions,
  type ResummarizeOptions,
  type SummarizeExcessOptions,
  type SummarizeOptions,
} from './manager-options.js'
import {
  optionsError,
  resolveWindowLimits,
  type WindowLimitOptions,
  type WindowLimits,
} from '../window/window-options.js'

export type {
  ManagerAppendOptions,
  ReduceOptions,
  ResummarizeOptions,
  SummarizeExcessOptions,
  SummarizeOptions,
} from './manager-options.js'

/** Options of {@link PersistentConversationManager}. */
export interface PersistentConversationManagerOptions extends WindowLimitOptions {
  /** The store holding the session. */
  store: ContextStore
  /** The session; created on first append. */
  sessionId: string
  /** Counts a message's tokens on append; the built-in estimator when omitted. */
  tokenCounter?: TokenCounter | undefined
  /** The session's message format (default: the session's own, `'strands'` for a new one). */
  format?: MessageFormatName | undefined
}

const optionKeys = z.strictObject({
  store: z.instanceof(ContextStore, { message: 'expected a ContextStore from openContextStore()' }),
  sessionId: z.string(),
  tokenCounter: z.custom<TokenCounter>((v) => typeof v === 'function', 'expected a function').optional(),
  windowSize: z.unknown().optional(),
  tokenBudget: z.unknown().optional(),
  protectedMessages: z.unknown().optional(),
  protectedMessageRange: z.unknown().optional(),
  lowWaterMark: z.unknown().optional(),
  format: z.enum(MESSAGE_FORMATS).optional(),
})

/**
 * The core conversation manager (root entry `context-ledger`): keeps a whole conversation in a SQLite
 * ledger and decides, with SQL, what the model sees. It needs no agent framework: you append the
 * messages, call {@link PersistentConversationManager.applyWindow | applyWindow} (or
 * {@link PersistentConversationManager.reduce | reduce} when the model refused the input) and send the
 * model {@link PersistentConversationManager.window | window()}. With a Strands `Agent`, use the
 * `PersistentConversationManager` of `context-ledger/strands` instead: a Strands `ConversationManager`
 * that wraps this class (as its `ledger`) and keeps `agent.messages` equal to the window.
 *
 * @example
 * ```ts
 * const manager = new PersistentConversationManager({ store, sessionId: 'support-42', windowSize: 40 })
 * manager.append({ role: 'user', content: [{ text: 'Plan the migration' }] })
 * manager.applyWindow()
 * const messages = manager.window()
 * ```
 */
export class PersistentConversationManager {
  /** The store. */
  readonly store: ContextStore
  /** The session this manager works on. */
  readonly sessionId: string
  /** Resolved window limits. */
  readonly limits: WindowLimits
  /** The token counter in use. */
  readonly tokenCounter: TokenCounter
  /** The message format appends are read in, when one was named. */
  readonly format: MessageFormatName | undefined
  /** Runs before every call (see {@link setBeforeUse}). */
  private beforeUse: (() => void) | undefined

  /**
   * @param options - store, session, window limits, protection and token counter
   * @throws ContextLedgerError `INVALID_OPTIONS` for unknown option names or bad values
   */
  constructor(options: PersistentConversationManagerOptions) {
    const parsed = optionKeys.safeParse(options)
    if (!parsed.success) throw optionsError(parsed.error, 'PersistentConversationManager')
    checkSessionId(options.sessionId)
    const { store, sessionId, tokenCounter, format, ...limitOptions } = options
    this.store = store
    this.sessionId = sessionId
    this.tokenCounter = tokenCounter ?? estimateTokens
    this.format = format
    this.limits = resolveWindowLimits(limitOptions)
  }

  /**
   * Sets what runs before every call of this manager: the Strands adapter writes the messages it holds
   * until the end of an invocation, so a call from a tool (a redaction, a pin, a read) sees them.
   *
   * @param fn - the work, or undefined for none
   * @internal
   */
  setBeforeUse(fn: (() => void) | undefined): void {
    this.beforeUse = fn
  }

  /**
   * Appends one message or several (all or none). Retrying with the same trackingId and content is a
   * no-op returning the existing entry.
   *
   * @param messages - a message or an array of them, oldest first
   * @param options - `expectCount`: append only when the session holds exactly that many messages;
   *   `sessionMetadata`: fold what it wrote into the session's metadata (see the store's `append`)
   * @returns the entry, or entries in input order
   * @throws ContextLedgerError `INVALID_MESSAGE`, `DUPLICATE_MESSAGE`, `INVALID_TOKEN_COUNT`, `STORAGE_FULL`,
   *   `APPEND_CONFLICT` (the session does not hold `expectCount` messages; nothing is written)
   */
  append(messages: MessageData, options?: ManagerAppendOptions): LedgerEntry
  append(messages: readonly MessageData[], options?: ManagerAppendOptions): LedgerEntry[]
  append(
    messages: MessageData | readonly MessageData[],
    options?: ManagerAppendOptions,
  ): LedgerEntry | LedgerEntry[] {
    this.beforeUse?.()
    const entries = this.store.append(
      this.sessionId,
      messages,
      managerAppendOptions(this.tokenCounter, this.format, options),
    )
    return Array.isArray(messages) ? entries : (entries[0] as LedgerEntry)
  }

  /**
   * Enforces `windowSize` and `tokenBudget` now. Within the limits nothing moves.
   *
   * @returns `evicted` (0 when none) and, when nothing could go, `reason`
   */
  applyWindow(): WindowResult {
    this.beforeUse?.()
    return this.store.applyWindow(this.sessionId, this.limits, 'apply')
  }

  /**
   * Makes room, as Strands' `reduce` does: evicts at least one unprotected message whenever a valid cut
   * exists, even when the window is within its limits (then from its third message on).
   *
   * @param options - `overflow: true` when the model refused the input as too long. The core reduces the
   *   same way either way (so does Strands' proactive reduction); adapters use the flag to decide whether
   *   to truncate tool results first. Checked, so a misspelt option is reported rather than ignored.
   * @returns `evicted` and, when nothing could go, `reason`
   * @throws ContextLedgerError `INVALID_OPTIONS` naming an unknown option or a non-boolean `overflow`
   */
  reduce(options: ReduceOptions = {}): WindowResult {
    this.beforeUse?.()
    const { overflow } = checkKeys(options, 'options', ['overflow'])
    if (overflow !== undefined && typeof overflow !== 'boolean')
      throw invalidOption('options.overflow', `expected a boolean, got ${describeValue(overflow)}`)
    return this.store.applyWindow(this.sessionId, this.limits, 'overflow')
  }

  /**
   * The messages the model should see, in order; pinned ones carry `metadata.custom.pinned = true`.
   *
   * @param options - `alternate: true` merges runs of same-role messages (roles strictly alternate)
   * @returns the materialized window
   */
  window(options: WindowReadOptions = {}): StoredMessageData[] {
    this.beforeUse?.()
    return this.store.window(this.sessionId, options)
  }

  /**
   * The window with each row's seq (undefined for the summary row), message (as `window()` returns it)
   * and pin; see the store's `windowEntries`.
   *
   * @returns the window's rows in order
   */
  windowEntries(): WindowEntry[] {
    this.beforeUse?.()
    return this.store.windowEntries(this.sessionId)
  }

  /**
   * Edits a message as the model sees it; the archive keeps the original and the edit log records it.
   *
   * @param ref - `{ windowIndex }`, `{ seq }` or `{ trackingId }`
   * @param message - the new form (same role, trackingId and tool ids)
   * @param attribution - who edits (default `'user'`) and why
   * @returns the entry after the edit
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`, `INVALID_MESSAGE`
   */
  edit(ref: MessageRef, message: MessageData, attribution: EditAttribution = {}): LedgerEntry {
    this.beforeUse?.()
    return this.store.editMessage(this.sessionId, ref, message, attribution, this.tokenCounter)
  }

  /**
   * Full-text search of this session's archive (see {@link ContextStore.search}): evicted messages, the
   * window and summaries, best first.
   *
   * @param query - what to find (plain words and `"phrases"`, or FTS5 syntax with `syntax: 'fts5'`)
   * @param options - the store's search options but `sessionId`
   * @returns the hits
   * @throws ContextLedgerError `INVALID_QUERY`, `INVALID_OPTIONS`
   */
  search(query: string, options: Omit<SearchOptions, 'sessionId'> = {}): SearchHit[] {
    this.beforeUse?.()
    if (Object.hasOwn(checkObject(options, 'options'), 'sessionId'))
      throw invalidOption(
        'options.sessionId',
        'a manager searches its own session; use store.search() for others',
      )
    return this.store.search(query, { ...options, sessionId: this.sessionId })
  }

  /**
   * This session's eviction log (see {@link ContextStore.evictions}).
   *
   * @param options - `fromSeq`, `limit`
   * @returns the rows
   */
  evictions(options?: EvictionsOptions): EvictionRecord[] {
    this.beforeUse?.()
    return this.store.evictions(this.sessionId, options)
  }

  /**
   * Erases a message's original from the archive (see {@link ContextStore.redactMessage}).
   *
   * @param ref - `{ windowIndex }`, `{ seq }` or `{ trackingId }`
   * @param options - who redacts (default `'user'`), why, and an optional replacement
   * @returns the entry after the redaction, with `erased` (see {@link ContextStore.redactMessage})
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`, `INVALID_MESSAGE`
   */
  redact(ref: MessageRef, options: RedactOptions = {}): RedactResult {
    this.beforeUse?.()
    return this.store.redactMessage(this.sessionId, ref, options)
  }

  /**
   * Retention for this session: erases the content of its messages appended before `options.before` that
   * are out of the window and not pinned (see {@link ContextStore.prune}). The window is unchanged.
   *
   * @param options - `before` (Date or ms since the epoch), `keepPinned: true` (required), `actor`, `reason`
   * @returns messages pruned and whether their contents are gone from the files
   * @throws ContextLedgerError `INVALID_OPTIONS` naming the field (`options.sessionId` is the manager's own)
   */
  prune(options: Omit<PruneOptions, 'sessionId'>): PruneResult {
    this.beforeUse?.()
    // JavaScript callers can pass anything; the store checks the rest.
    const given: unknown = options
    if (typeof given === 'object' && given !== null && Object.hasOwn(given, 'sessionId'))
      throw invalidOption('options.sessionId', `the manager prunes its own session "${this.sessionId}" only`)
    return this.store.prune({ ...options, sessionId: this.sessionId })
  }

  /**
   * Deletes this session from the file, every row of it (see {@link ContextStore.deleteSession}). The
   * manager stays usable: the next append starts the session again from scratch.
   *
   * @returns what was deleted and whether it is gone from the files
   */
  deleteSession(): DeleteSessionResult {
    this.beforeUse?.()
    return this.store.deleteSession(this.sessionId)
  }

  /**
   * The session's edit log, oldest first.
   *
   * @returns every edit and redaction
   */
  edits(): MessageEdit[] {
    this.beforeUse?.()
    return this.store.edits(this.sessionId)
  }

  /**
   * Pins a message: it stays in the window until unpinned, and counts toward the limits. A message that
   * already left the window comes back at once.
   *
   * @param ref - `{ windowIndex }`, `{ seq }` or `{ trackingId }`
   * @param attribution - who pins (default `'user'`) and why
   * @returns what changed
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`
   */
  pin(ref: MessageRef, attribution: PinAttribution = {}): PinResult {
    this.beforeUse?.()
    return this.store.pin(this.sessionId, ref, attribution, this.limits)
  }

  /**
   * Unpins a message; it may leave the window at the next {@link applyWindow}.
   *
   * @param ref - `{ windowIndex }`, `{ seq }` or `{ trackingId }`
   * @param attribution - who unpins (default `'user'`) and why
   * @returns what changed
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`
   */
  unpin(ref: MessageRef, attribution: PinAttribution = {}): PinResult {
    this.beforeUse?.()
    return this.store.unpin(this.sessionId, ref, attribution)
  }

  /**
   * Shows `message` in the window in place of the archived message `ref` names (the archive keeps the
   * original), counted with this manager's token counter; `null` shows the original again. The
   * replacement must keep the role, trackingId and tool ids of the original (a message holding late tool
   * results may give those results as text, in their window form).
   *
   * @param ref - `{ windowIndex }`, `{ seq }` or `{ trackingId }`
   * @param message - the replacement, or null
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`, `INVALID_MESSAGE`, `INVALID_TOKEN_COUNT`
   */
  setWindowContent(ref: MessageRef, message: MessageData | null): void {
    this.beforeUse?.()
    this.store.setWindowContent(this.sessionId, ref, message, this.tokenCounter)
  }

  /**
   * Folds the oldest part of the window into a summary, as Strands' `SummarizingConversationManager` does:
   * the oldest `max(1, ⌊len × summaryRatio⌋)` window messages (at most all but the newest
   * `preserveRecentMessages`), moved forward past tool results and calls whose result does not follow.
   * Protected messages in that part (pins, the first/last N, their tool partners) stay, in order, before
   * the summary; the summary the window showed is folded into the new one. The summarizer runs outside any
   * transaction; the summary is written in one short transaction that checks the window is still the one
   * planned. `history()` is unchanged: the raw messages stay as they were.
   *
   * @param summarizer - makes the summary (usually a model call): see {@link Summarizer}
   * @param options - `summaryRatio` (0.3), `preserveRecentMessages` (10), `systemPrompt`, `model`
   * @returns `summarized` (0 with a `reason` when nothing could be folded) and the new `summary`
   * @throws ContextLedgerError `SUMMARIZER_FAILED` (nothing changed; the summarizer's error is its
   *   `cause`), `SUMMARY_CONFLICT` (the window kept changing; nothing was written), `INVALID_OPTIONS`
   */
  async summarize(summarizer: Summarizer, options: SummarizeOptions = {}): Promise<SummarizeResult> {
    this.beforeUse?.()
    checkSummarizer(summarizer)
    const parsed = summarizeOptions.safeParse(options)
    if (!parsed.success) throw optionsError(parsed.error, 'summarize')
    const o = parsed.data
    return foldIntoSummary(this.summaryContext(), summarizer, summarizeFoldRequest(o), {
      systemPrompt: o.systemPrompt,
      model: o.model,
    })
  }

  /**
   * Enforces `windowSize` and `tokenBudget` by folding instead of dropping: what the sliding window would
   * evict goes into the summary (which counts as one message of its own tokens), down to `lowWaterMark`
   * of the limits when one is set. Within the limits nothing happens. When the new summary leaves the
   * window still over them, it folds again (at most three rounds).
   *
   * @param summarizer - makes the summary
   * @param options - `systemPrompt`, `model`
   * @returns what was folded (in all rounds) and the summary the window shows
   * @throws ContextLedgerError `SUMMARIZER_FAILED`, `SUMMARY_CONFLICT`, `INVALID_OPTIONS`
   */
  async summarizeExcess(
    summarizer: Summarizer,
    options: SummarizeExcessOptions = {},
  ): Promise<SummarizeResult> {
    this.beforeUse?.()
    checkSummarizer(summarizer)
    const parsed = excessOptions.safeParse(options)
    if (!parsed.success) throw optionsError(parsed.error, 'summarizeExcess')
    return foldExcess(this.summaryContext(), summarizer, {
      systemPrompt: parsed.data.systemPrompt,
      model: parsed.data.model,
    })
  }

  /**
   * Regenerates the summary the window shows — with a better model or a new prompt — from the archive:
   * the same messages, the same place in the window, a new text. The old one stays in the ledger, ended
   * as `'regenerated'`; the new one names it (`regenerates`).
   *
   * @param id - the summary the window shows
   * @param summarizer - makes the new summary
   * @param options - `from` (`'raw'`, default, or `'previous'`), `systemPrompt`, `model`
   * @returns the new summary
   * @throws ContextLedgerError `SUMMARY_NOT_FOUND`, `SUMMARY_NOT_CURRENT`, `SUMMARIZER_FAILED`,
   *   `SUMMARY_CONFLICT`, `INVALID_OPTIONS`
   */
  async resummarize(
    id: number,
    summarizer: Summarizer,
    options: ResummarizeOptions = {},
  ): Promise<SummaryRecord> {
    this.beforeUse?.()
    checkSummarizer(summarizer)
    const parsed = resummarizeOptions.safeParse(options)
    if (!parsed.success) throw optionsError(parsed.error, 'resummarize')
    const o = parsed.data
    return regenerateSummary(this.summaryContext(), id, summarizer, o.from ?? 'raw', {
      systemPrompt: o.systemPrompt,
      model: o.model,
    })
  }

  /**
   * Takes back the summary the window shows: the messages it folded return to the window (the summary it
   * replaced is shown again), and the window is planned anew with this manager's limits, as if the summary
   * had never been made. The summary stays in the ledger, ended as `'dropped'`.
   *
   * @param id - the summary the window shows
   * @returns the window plan made afterwards
   * @throws ContextLedgerError `SUMMARY_NOT_FOUND`, `SUMMARY_NOT_CURRENT`
   */
  dropSummary(id: number): WindowResult {
    this.beforeUse?.()
    return this.store.dropSummary(this.sessionId, id, this.limits)
  }

  /**
   * The session's summaries, newest first, each with exactly the messages it stands for.
   *
   * @param options - `limit` (default 100)
   * @returns the summaries; `current` marks the one the window shows
   */
  summaries(options: SummariesOptions = {}): SummaryRecord[] {
    this.beforeUse?.()
    return this.store.summaries(this.sessionId, options)
  }

  /**
   * One summary of the session.
   *
   * @param id - its id
   * @returns it
   * @throws ContextLedgerError `SUMMARY_NOT_FOUND`
   */
  summary(id: number): SummaryRecord {
    this.beforeUse?.()
    return this.store.summary(this.sessionId, id)
  }

  private summaryContext(): SummaryContext {
    return {
      store: this.store,
      sessionId: this.sessionId,
      limits: this.limits,
      tokenCounter: this.tokenCounter,
    }
  }

  /**
   * The session's archive, evicted messages included.
   *
   * @param options - `fromSeq` (default 0) and `limit` (default 100)
   * @returns entries in seq order
   */
  history(options: { fromSeq?: number; limit?: number } = {}): LedgerEntry[] {
    this.beforeUse?.()
    return this.store.history(this.sessionId, options)
  }

  /**
   * One archived message.
   *
   * @param ref - `{ seq }`, `{ trackingId }` or `{ windowIndex }`
   * @returns its entry
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`
   */
  message(ref: MessageRef): LedgerEntry {
    this.beforeUse?.()
    return this.store.message(this.sessionId, ref)
  }
}
