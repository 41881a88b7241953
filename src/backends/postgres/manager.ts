/**
 * `PostgresConversationManager`: one session of a {@link PostgresContextStore}, with the options and
 * method names of the core `PersistentConversationManager`, every method returning a Promise. Like it,
 * it holds configuration only: the window, pins and boundary live in the database, so any number of
 * managers on any number of machines can work on one session.
 */
import type { AsyncLedgerManager } from '../../adapters/strands/async-ledger.js'
import { z } from 'zod'
import { describeValue } from '../../messages/limits.js'
import { estimateTokens, type TokenCounter } from '../../messages/tokens.js'
import type { MessageData, StoredMessageData } from '../../messages/types.js'
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
} from '../../manager/manager-options.js'
import {
  checkKeys,
  checkObject,
  checkSessionId,
  invalidOption,
  type MessageRef,
  type PinAttribution,
} from '../../store/check-args.js'
import type { DeleteSessionResult, PruneOptions, PruneResult } from '../../store/retention-options.js'
import type { SummariesOptions } from '../../store/check-args.js'
import type { FoldPlan, SummaryRecord } from '../../store/summaries.js'
import type { FoldRequest, NothingEvictedReason } from '../../window/plan-types.js'
import type {
  EditAttribution,
  LedgerEntry,
  MessageEdit,
  PinResult,
  RedactOptions,
  RedactResult,
  WindowEntry,
  WindowReadOptions,
  WindowResult,
} from '../../store/store-types.js'
import {
  foldExcess,
  foldIntoSummary,
  regenerateSummary,
  type SummarizeResult,
  type Summarizer,
  type SummaryContext,
} from '../../summaries/summarize.js'
import {
  optionsError,
  resolveWindowLimits,
  type WindowLimitOptions,
  type WindowLimits,
} from '../../window/window-options.js'
import { MESSAGE_FORMATS, type MessageFormatName } from '../../formats/types.js'
import { PostgresContextStore } from './store.js'
import type { PgSearchOptions } from './search.js'
import type { EvictionRecord, EvictionsOptions, SearchHit } from '../../store/search-types.js'

/** Options of {@link PostgresConversationManager}: those of the core manager, on a PostgreSQL store. */
export interface PostgresConversationManagerOptions extends WindowLimitOptions {
  /** The store holding the session. */
  store: PostgresContextStore
  /** The session; created on first append. */
  sessionId: string
  /** Counts a message's tokens on append; the built-in estimator when omitted. */
  tokenCounter?: TokenCounter | undefined
  /** The session's message format (default: the session's own, `'strands'` for a new one). */
  format?: MessageFormatName | undefined
}

const optionKeys = z.strictObject({
  // Checked when called, not when this module loads: the store's module imports this one.
  store: z.custom<PostgresContextStore>(
    (v) => v instanceof PostgresContextStore,
    'expected a PostgresContextStore from openPostgresContextStore()',
  ),
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
 * The core conversation manager on a PostgreSQL store: append, apply the window, read it — the same
 * calls as `PersistentConversationManager`, awaited.
 *
 * @example
 * ```ts
 * const manager = new PostgresConversationManager({ store, sessionId: 'support-42', windowSize: 40 })
 * await manager.append({ role: 'user', content: [{ text: 'Plan the migration' }] })
 * await manager.applyWindow()
 * const messages = await manager.window()
 * ```
 */
export class PostgresConversationManager implements AsyncLedgerManager {
  /** The store. */
  readonly store: PostgresContextStore
  /** The session this manager works on. */
  readonly sessionId: string
  /** Resolved window limits. */
  readonly limits: WindowLimits
  /** The token counter in use. */
  readonly tokenCounter: TokenCounter
  /** The message format appends are read in, when one was named. */
  readonly format: MessageFormatName | undefined
  private beforeUse: (() => Promise<void>) | undefined

  /**
   * @param options - store, session, window limits, protection and token counter
   * @throws ContextLedgerError `INVALID_OPTIONS` for unknown option names or bad values
   */
  constructor(options: PostgresConversationManagerOptions) {
    const parsed = optionKeys.safeParse(options)
    if (!parsed.success) throw optionsError(parsed.error, 'PostgresConversationManager')
    checkSessionId(options.sessionId)
    const { store, sessionId, tokenCounter, format, ...limitOptions } = options
    this.store = store
    this.sessionId = sessionId
    this.tokenCounter = tokenCounter ?? estimateTokens
    this.format = format
    this.limits = resolveWindowLimits(limitOptions)
  }

  /**
   * Sets what runs before every call of this manager (the Strands adapter writes the messages it holds).
   *
   * @param fn - the work, or undefined for none
   * @internal
   */
  setBeforeUse(fn: (() => Promise<void>) | undefined): void {
    this.beforeUse = fn
  }

  private async before(): Promise<void> {
    if (this.beforeUse !== undefined) await this.beforeUse()
  }

  /**
   * Appends one message or several (all or none); see `PersistentConversationManager.append`.
   *
   * @param messages - a message or an array of them, oldest first
   * @param options - `expectCount`: append only when the session holds exactly that many messages;
   *   `sessionMetadata`: fold what it wrote into the session's metadata (see the store's `append`)
   * @returns the entry, or entries in input order
   * @throws ContextLedgerError `APPEND_CONFLICT` (the session does not hold `expectCount` messages), and
   *   what the store's `append` throws
   */
  async append(messages: MessageData, options?: ManagerAppendOptions): Promise<LedgerEntry>
  async append(messages: readonly MessageData[], options?: ManagerAppendOptions): Promise<LedgerEntry[]>
  async append(
    messages: MessageData | readonly MessageData[],
    options?: ManagerAppendOptions,
  ): Promise<LedgerEntry | LedgerEntry[]> {
    await this.before()
    const entries = await this.store.append(
      this.sessionId,
      messages,
      managerAppendOptions(this.tokenCounter, this.format, options),
    )
    return Array.isArray(messages) ? entries : (entries[0] as LedgerEntry)
  }

  /**
   * Enforces `windowSize` and `tokenBudget` now.
   *
   * @returns `evicted` (0 when none) and, when nothing could go, `reason`
   */
  async applyWindow(): Promise<WindowResult> {
    await this.before()
    return this.store.applyWindow(this.sessionId, this.limits, 'apply')
  }

  /**
   * Makes room, as Strands' `reduce` does; see `PersistentConversationManager.reduce`.
   *
   * @param options - `overflow: true` when the model refused the input as too long
   * @returns `evicted` and, when nothing could go, `reason`
   */
  async reduce(options: ReduceOptions = {}): Promise<WindowResult> {
    await this.before()
    const { overflow } = checkKeys(options, 'options', ['overflow'])
    if (overflow !== undefined && typeof overflow !== 'boolean')
      throw invalidOption('options.overflow', `expected a boolean, got ${describeValue(overflow)}`)
    return this.store.applyWindow(this.sessionId, this.limits, 'overflow')
  }

  /**
   * The messages the model should see, in order.
   *
   * @param options - `alternate: true` merges runs of same-role messages
   * @returns the materialized window
   */
  async window(options: WindowReadOptions = {}): Promise<StoredMessageData[]> {
    await this.before()
    return this.store.window(this.sessionId, options)
  }

  /**
   * The window with each row's seq, message and pin; see `PersistentConversationManager.windowEntries`.
   *
   * @returns the window's rows in order
   */
  async windowEntries(): Promise<WindowEntry[]> {
    await this.before()
    return this.store.windowEntries(this.sessionId)
  }

  /**
   * Edits a message as the model sees it.
   *
   * @param ref - which message
   * @param message - the new form
   * @param attribution - who edits and why
   * @returns the entry after the edit
   */
  async edit(ref: MessageRef, message: MessageData, attribution: EditAttribution = {}): Promise<LedgerEntry> {
    await this.before()
    return this.store.editMessage(this.sessionId, ref, message, attribution, this.tokenCounter)
  }

  /**
   * Erases a message's original from the archive.
   *
   * @param ref - which message
   * @param options - who redacts, why, and an optional replacement
   * @returns the entry after the redaction
   */
  async redact(ref: MessageRef, options: RedactOptions = {}): Promise<RedactResult> {
    await this.before()
    return this.store.redactMessage(this.sessionId, ref, options)
  }

  /**
   * Retention for this session.
   *
   * @param options - `before`, `keepPinned: true`, `actor`, `reason`
   * @returns messages pruned
   */
  async prune(options: Omit<PruneOptions, 'sessionId'>): Promise<PruneResult> {
    await this.before()
    const given: unknown = options
    if (typeof given === 'object' && given !== null && Object.hasOwn(given, 'sessionId'))
      throw invalidOption('options.sessionId', `the manager prunes its own session "${this.sessionId}" only`)
    return this.store.prune({ ...options, sessionId: this.sessionId })
  }

  /**
   * Deletes this session, every row of it.
   *
   * @returns what was deleted
   */
  async deleteSession(): Promise<DeleteSessionResult> {
    await this.before()
    return this.store.deleteSession(this.sessionId)
  }

  /**
   * The session's edit log, oldest first.
   *
   * @returns every edit and redaction
   */
  async edits(): Promise<MessageEdit[]> {
    await this.before()
    return this.store.edits(this.sessionId)
  }

  /**
   * Pins a message.
   *
   * @param ref - which message
   * @param attribution - who pins and why
   * @returns what changed
   */
  async pin(ref: MessageRef, attribution: PinAttribution = {}): Promise<PinResult> {
    await this.before()
    return this.store.pin(this.sessionId, ref, attribution, this.limits)
  }

  /**
   * Unpins a message.
   *
   * @param ref - which message
   * @param attribution - who unpins and why
   * @returns what changed
   */
  async unpin(ref: MessageRef, attribution: PinAttribution = {}): Promise<PinResult> {
    await this.before()
    return this.store.unpin(this.sessionId, ref, attribution)
  }

  /**
   * Shows `message` in the window in place of the archived message `ref` names.
   *
   * @param ref - which message
   * @param message - the replacement, or null
   */
  async setWindowContent(ref: MessageRef, message: MessageData | null): Promise<void> {
    await this.before()
    await this.store.setWindowContent(this.sessionId, ref, message, this.tokenCounter)
  }

  /**
   * Folds the oldest part of the window into a summary; see `PersistentConversationManager.summarize`.
   *
   * @param summarizer - makes the summary
   * @param options - `summaryRatio`, `preserveRecentMessages`, `systemPrompt`, `model`
   * @returns what was folded
   */
  async summarize(summarizer: Summarizer, options: SummarizeOptions = {}): Promise<SummarizeResult> {
    await this.before()
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
   * Enforces the limits by folding instead of dropping; see `PersistentConversationManager.summarizeExcess`.
   *
   * @param summarizer - makes the summary
   * @param options - `systemPrompt`, `model`
   * @returns what was folded
   */
  async summarizeExcess(
    summarizer: Summarizer,
    options: SummarizeExcessOptions = {},
  ): Promise<SummarizeResult> {
    await this.before()
    checkSummarizer(summarizer)
    const parsed = excessOptions.safeParse(options)
    if (!parsed.success) throw optionsError(parsed.error, 'summarizeExcess')
    return foldExcess(this.summaryContext(), summarizer, {
      systemPrompt: parsed.data.systemPrompt,
      model: parsed.data.model,
    })
  }

  /**
   * Regenerates the summary the window shows; see `PersistentConversationManager.resummarize`.
   *
   * @param id - the summary the window shows
   * @param summarizer - makes the new summary
   * @param options - `from`, `systemPrompt`, `model`
   * @returns the new summary
   */
  async resummarize(
    id: number,
    summarizer: Summarizer,
    options: ResummarizeOptions = {},
  ): Promise<SummaryRecord> {
    await this.before()
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
   * Takes back the summary the window shows.
   *
   * @param id - the summary the window shows
   * @returns the window plan made afterwards
   */
  async dropSummary(id: number): Promise<WindowResult> {
    await this.before()
    return this.store.dropSummary(this.sessionId, id, this.limits)
  }

  /**
   * The session's summaries, newest first.
   *
   * @param options - `limit` (default 100)
   * @returns the summaries
   */
  async summaries(options: SummariesOptions = {}): Promise<SummaryRecord[]> {
    await this.before()
    return this.store.summaries(this.sessionId, options)
  }

  /**
   * One summary of the session.
   *
   * @param id - its id
   * @returns it
   */
  async summary(id: number): Promise<SummaryRecord> {
    await this.before()
    return this.store.summary(this.sessionId, id)
  }

  /**
   * The session's archive, evicted messages included.
   *
   * @param options - `fromSeq` (default 0) and `limit` (default 100)
   * @returns entries in seq order
   */
  async history(options: { fromSeq?: number; limit?: number } = {}): Promise<LedgerEntry[]> {
    await this.before()
    return this.store.history(this.sessionId, options)
  }

  /**
   * Full-text search of this session's archive (see {@link PostgresContextStore.search}): evicted
   * messages, the window and summaries, best first.
   *
   * @param query - plain words and `"phrases"`, or a tsquery with `syntax: 'tsquery'`
   * @param options - the store's search options but `sessionId`
   * @returns the hits
   * @throws ContextLedgerError `INVALID_QUERY`, `INVALID_OPTIONS`
   */
  async search(query: string, options: Omit<PgSearchOptions, 'sessionId'> = {}): Promise<SearchHit[]> {
    await this.before()
    if (Object.hasOwn(checkObject(options, 'options'), 'sessionId'))
      throw invalidOption(
        'options.sessionId',
        'a manager searches its own session; use store.search() for others',
      )
    return this.store.search(query, { ...options, sessionId: this.sessionId })
  }

  /**
   * This session's eviction log (see {@link PostgresContextStore.evictions}).
   *
   * @param options - `fromSeq`, `limit`
   * @returns the rows
   */
  async evictions(options?: EvictionsOptions): Promise<EvictionRecord[]> {
    await this.before()
    return this.store.evictions(this.sessionId, options)
  }

  /**
   * One archived message.
   *
   * @param ref - `{ seq }`, `{ trackingId }` or `{ windowIndex }`
   * @returns its entry
   */
  async message(ref: MessageRef): Promise<LedgerEntry> {
    await this.before()
    return this.store.message(this.sessionId, ref)
  }

  /**
   * Plans a fold of this session's window without writing it (one read of the session).
   *
   * @param request - the fold's rule
   * @returns the plan, or why nothing can be folded
   * @internal The Strands adapter asks whether an overflow fold would take only the summary.
   */
  async planFold(
    request: FoldRequest,
  ): Promise<{ readonly plan: FoldPlan } | { readonly nothing: NothingEvictedReason }> {
    await this.before()
    return this.store.planFold(this.sessionId, this.limits, request)
  }

  private summaryContext(): SummaryContext {
    return {
      store: this.store,
      sessionId: this.sessionId,
      limits: this.limits,
      tokenCounter: this.tokenCounter,
    }
  }
}
