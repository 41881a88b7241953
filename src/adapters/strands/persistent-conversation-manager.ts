/**
 * The Strands Agents conversation manager backed by the ledger. Every message the agent adds is appended
 * to SQLite — by default once per invocation, with the window, in one transaction; `agent.messages` is kept equal to the window the store computes; overflow
 * recovery first truncates oversized tool results in the window (the archive keeps the originals) and
 * evicts only when that cannot plausibly be enough — or, with `summarize`, folds the oldest part of the
 * window into a summary as Strands' `SummarizingConversationManager` does. Nothing lives only in memory:
 * a new process with a new `Agent` over the same file sees the same `agent.messages`.
 *
 * This file wires Strands' hooks; the work is in `sync/` (agent ↔ ledger), `reduction.ts` and
 * `summary-reduction.ts` (overflow policy), `options.ts` and `registry.ts` (which manager serves which
 * agent).
 */
import type { MessageFormatName } from '../../formats/types.js'
import { formatMismatch } from '../../store/append-format.js'
import {
  AfterInvocationEvent,
  AfterModelCallEvent,
  Agent,
  BeforeInvocationEvent,
  ConversationManager,
  HookOrder,
  InitializedEvent,
  MessageAddedEvent,
} from '@strands-agents/sdk'
import type { ConversationManagerReduceOptions, LocalAgent, Logger } from '@strands-agents/sdk'
import { ContextLedgerError } from '../../errors.js'
import { PersistentConversationManager as LedgerManager } from '../../manager/persistent-conversation-manager.js'
import type {
  BranchInfo,
  ContextStore,
  ForkOptions,
  RewindOptions,
  RewindResult,
} from '../../store/context-store.js'
import type { PinMessageToolResult } from '../../tools/pin-message-tool.js'
import type { AsyncContextStore, AsyncLedgerManager } from './async-ledger.js'
import { AsyncAgentSync, type AsyncWindowAtEnd } from './async-sync.js'
import { branchesOn, branchSettings, forkOn, rewindOn, type BranchTarget } from './branches.js'
import { modelSummarizer } from './generate-summary.js'
import { logLine } from './log.js'
import {
  resolveOptions,
  type PersistentConversationManagerOptions,
  type ResolvedSummarize,
} from './options.js'
import { reduceWindow, type ReductionReport } from './reduction.js'
import { attachManager } from './registry.js'
import {
  foldExcess,
  foldsOnlySummary,
  ratioFold,
  reduceBySummary,
  warnSummaryOnly,
} from './summary-reduction.js'
import { AgentSync, type Durability, type WindowAtEnd } from './sync/agent-sync.js'

export type { PersistentConversationManagerOptions, StrandsSummarizeOptions } from './options.js'
export type { AsyncContextStore, AsyncLedgerManager } from './async-ledger.js'

/**
 * The core manager a Strands manager wraps: SQLite's `PersistentConversationManager` for a SQLite store,
 * the PostgreSQL manager (every call returning a Promise) for a PostgreSQL store.
 */
export type LedgerManagerOf<S> = S extends AsyncContextStore ? AsyncLedgerManager : LedgerManager

/** A result as the store gives it: the value on SQLite, a Promise of it on PostgreSQL. */
export type OnStore<S, T> = S extends AsyncContextStore ? Promise<T> : T

/**
 * The options of the manager {@link PersistentConversationManager.fork} returns, over the ones it takes
 * from the manager forked (all of them but the session).
 */
export type BranchManagerOptions<S extends ContextStore | AsyncContextStore = ContextStore> = Omit<
  PersistentConversationManagerOptions<S>,
  'store' | 'sessionId'
>

const NAME = 'context-ledger:persistent-conversation-manager'

/** The lowest hook order: Strands runs hooks of a lower order first (`HookOrder.SDK_FIRST` is −100). */
const FIRST_OF_ALL = Number.MIN_SAFE_INTEGER

/**
 * The Strands Agents `ConversationManager` of context-ledger (`context-ledger/strands`): pass it as an
 * `Agent`'s `conversationManager` and the agent's whole conversation is kept in a context-ledger store,
 * while `agent.messages` always holds the window SQL computes. It wraps the core
 * `PersistentConversationManager` of the root entry `context-ledger` (available as {@link PersistentConversationManager.ledger}), which
 * does the work without any agent framework; use the core one directly when you drive the model
 * yourself or use another SDK, this one with a Strands `Agent`.
 *
 * @example
 * ```ts
 * import { Agent } from '@strands-agents/sdk'
 * import { openContextStore } from 'context-ledger'
 * import { PersistentConversationManager, pinMessageTool } from 'context-ledger/strands'
 *
 * const store = openContextStore('agent.db')
 * const agent = new Agent({
 *   model,
 *   tools: [pinMessageTool],
 *   conversationManager: new PersistentConversationManager({ store, sessionId: 'support-42', windowSize: 40 }),
 * })
 * await agent.invoke('Plan the migration')   // every message is in agent.db; agent.messages is the window
 * ```
 *
 * With a PostgreSQL store (`openPostgresContextStore` of `context-ledger/postgres`) the same options
 * work, but for two: each message the agent adds is written as it is added (`durability: 'message'`),
 * and overflow recovery evicts (or, with `summarize`, folds) without truncating tool results first.
 * {@link PersistentConversationManager.ledger | ledger} is then the PostgreSQL manager, its calls awaited.
 */
export class PersistentConversationManager<
  S extends ContextStore | AsyncContextStore = ContextStore,
> extends ConversationManager {
  /** Plugin name, unique per Strands agent. */
  readonly name = NAME
  /**
   * The core manager of the session: use it for `history()`, `pin()`, `window()`, `redact()` and the like.
   * Every call first writes the messages the manager holds until the end of an invocation (see
   * {@link flush}), so a call from a tool sees the invocation so far.
   */
  readonly ledger: LedgerManagerOf<S>
  /** The same session for the agents' syncs, which write held messages themselves (SQLite). */
  private readonly core: LedgerManager | undefined
  /** The PostgreSQL store and the session's manager on it, when `store` is one. */
  private readonly async: { store: AsyncContextStore; core: AsyncLedgerManager } | undefined
  private readonly asyncSyncs = new WeakMap<LocalAgent, AsyncAgentSync>()
  /** The PostgreSQL syncs of the agents attached by initAgent, for a rewind. */
  private readonly attachedAsync = new Set<AsyncAgentSync>()
  /** The options as given, for the manager of a fork. */
  private readonly options: PersistentConversationManagerOptions<S>
  /** Whether reductions truncate oversized tool results before evicting. */
  readonly truncatesToolResults: boolean
  /** Whether the agent sees the window with roles strictly alternating (`alternate` option). */
  readonly alternate: boolean
  /** When the messages the agent adds are written (`durability` option). */
  readonly durability: Durability
  /** Where the manager reports what it handled on its own. */
  readonly logger: Logger
  /**
   * How summaries are made (`summarize` option), or undefined when the window slides without them.
   *
   * @internal
   */
  readonly summarize: ResolvedSummarize | undefined
  /**
   * What the last reduction did, for tests; undefined before the first. The logger gets the same facts
   * when a reduction falls short.
   *
   * @internal
   */
  lastReduction: ReductionReport | undefined = undefined
  private readonly syncs = new WeakMap<LocalAgent, AgentSync>()
  /** The syncs of the agents attached by initAgent, for {@link flush}. */
  private readonly attached = new Set<AgentSync>()

  /**
   * @param options - the core manager's options (store, sessionId, windowSize, tokenBudget, tokenCounter,
   *   protectedMessages or protectedMessageRange, lowWaterMark) plus `summarize`, `pinFirst`,
   *   `proactiveCompression`, `truncateToolResults`, `alternate`, `durability` and `logger`
   * @throws ContextLedgerError `INVALID_OPTIONS` for unknown option names or bad values
   */
  constructor(options: PersistentConversationManagerOptions<S>) {
    const resolved = resolveOptions(options)
    super(resolved.base)
    this.options = { ...options }
    const { store, ...rest } = resolved.core
    if (resolved.asyncStore !== undefined) {
      const core = resolved.asyncStore.manager(rest)
      this.core = undefined
      this.async = { store: resolved.asyncStore, core }
      // Nothing is held on PostgreSQL: the ledger needs no flush before use.
      this.ledger = core as LedgerManagerOf<S>
    } else {
      const sqlite = { ...rest, store: store as ContextStore }
      this.core = new LedgerManager(sqlite)
      this.async = undefined
      // A manager holds configuration only: two over the same session are the same session.
      const ledger = new LedgerManager(sqlite)
      ledger.setBeforeUse(() => {
        this.flush()
      })
      this.ledger = ledger as LedgerManagerOf<S>
    }
    this.truncatesToolResults = resolved.truncateToolResults
    this.alternate = resolved.alternate
    this.durability = resolved.durability
    this.logger = resolved.logger
    this.summarize = resolved.summarize
  }

  /** The store holding the session. */
  get store(): S {
    return (this.async?.store ?? (this.core as LedgerManager).store) as S
  }

  /** The session this manager keeps. */
  get sessionId(): string {
    return this.ledger.sessionId
  }

  /**
   * Attaches to an agent: registers Strands' overflow and proactive hooks (`super.initAgent`), restores
   * the session into `agent.messages` (appending the messages the agent was built with that the session
   * lacks), and follows every message the agent adds. Strands calls it from `agent.initialize()` (which
   * the first `invoke` runs), so `agent.messages` holds the window from then on.
   *
   * @param agent - the agent, passed by Strands when it initializes its plugins
   * @throws ContextLedgerError `INVALID_OPTIONS` when the agent is not an `Agent` of the
   *   `@strands-agents/sdk` this package loads (two copies of the SDK installed): its hooks would never
   *   fire, and the session would silently record nothing
   */
  // Strands' plugin registry awaits initAgent (`await plugin.initAgent(agent)`): on PostgreSQL the
  // session is restored before the agent's first invocation.
  // eslint-disable-next-line @typescript-eslint/no-misused-promises, @typescript-eslint/no-invalid-void-type -- see above; void is Strands' own return type, kept for SQLite
  override initAgent(agent: LocalAgent): S extends AsyncContextStore ? Promise<void> : void {
    if (!(agent instanceof Agent))
      throw new ContextLedgerError(
        'INVALID_OPTIONS',
        'agent: not an Agent of the @strands-agents/sdk that context-ledger/strands loads, so its events would ' +
          'never reach the ledger; two copies of the SDK are installed (e.g. a linked local install) — ' +
          "install context-ledger so that it shares the application's @strands-agents/sdk: from a local path, " +
          '`npm install --install-links <path>`, or from a tarball (see docs/install.md)',
        { path: 'agent' },
      )
    super.initAgent(agent)
    attachManager(agent, this)
    // The conditional return type: a Promise exactly when S is the asynchronous store.
    if (this.async !== undefined) return this.initAsync(agent, this.async.core) as never
    refuseOtherFormat(this.ledger.sessionId, this.core?.store.session(this.ledger.sessionId)?.format)
    const sync = this.newSync(agent)
    this.attached.add(sync)
    sync.restore(this.summarize === undefined)
    // Plugins that load messages on start (Strands' SessionManager restores its snapshot here) run first;
    // whatever they loaded is adopted and the agent sees the window again.
    agent.addHook(
      InitializedEvent,
      (event) => {
        const sync = this.syncOf(event.agent)
        sync.adopt()
        sync.show(false)
      },
      { order: HookOrder.SDK_LAST + 1 },
    )
    agent.addHook(BeforeInvocationEvent, (event) => {
      const sync = this.syncOf(event.agent)
      const refusals = sync.adopt()
      sync.show(false)
      sync.begin()
      // Messages pushed since the last invocation that the store refused: the caller learns it here.
      if (refusals[0] !== undefined) throw refusals[0]
    })
    // The model accepted its input: an overflow fold that takes only the summary may help once more.
    agent.addHook(AfterModelCallEvent, (event) => {
      if (event.error === undefined) this.syncOf(event.agent).summaryOnlyFolds = 0
    })
    // First among the hooks, so later ones see the message as the ledger keeps it (its trackingId).
    agent.addHook(
      MessageAddedEvent,
      (event) => {
        this.syncOf(event.agent).added(event.message)
      },
      { order: HookOrder.SDK_FIRST },
    )
    // Strands fires it after every invocation, failed ones included, and stops at the first hook that
    // throws: at the lowest order there is, so another hook failing (a SessionManager that cannot save,
    // a hook of the caller's at SDK_FIRST or below) never keeps the invocation's held messages from being
    // written. Only a hook registered later at this same order runs before it. Strands awaits it: a fold
    // of the excess into a summary (a model call) is done before the next hook runs.
    agent.addHook(
      AfterInvocationEvent,
      async (event) => {
        await this.syncOf(event.agent).finish(this.windowAtEnd(event.agent))
      },
      { order: FIRST_OF_ALL },
    )
    return undefined as never
  }

  /**
   * Writes the messages the agent added that are still held for the end of the invocation (with
   * `durability: 'invocation'`), in one transaction: the prompt, and the calls and results of earlier tool
   * rounds (Strands adds a call to `agent.messages` with its result, once the tool has run). Call it from
   * a long-running tool that wants the conversation so far on disk. Nothing to do with `durability:
   * 'message'`, or between invocations.
   *
   * @throws ContextLedgerError `STORAGE_FULL`, `DATABASE_BUSY` (the messages stay held, to be written by
   *   the next write), `INVALID_MESSAGE` for a message the store refused even repaired (logged and dropped
   *   from `agent.messages`; the others are written)
   */
  flush(): void {
    // On PostgreSQL nothing is held: every message is written as it is added.
    for (const sync of this.attached) sync.flush()
  }

  /**
   * Makes room. First, unless `truncateToolResults` is false, every unpinned tool result in the window
   * over the threshold is truncated, oldest first (the window shows the truncated form, `history()` the
   * original). If the model's token count says that is not enough — or nothing could be truncated —
   * messages are evicted: on an overflow until the count says the input fits (or nothing more can go),
   * proactively for one round. `agent.messages` is then the window. A truncation the store refuses is
   * logged and left to eviction.
   *
   * When an overflow cannot be absorbed — the window is still over the model's limit and nothing more can
   * leave it, or nothing would be left to send — it returns false, so Strands raises its
   * `ContextWindowOverflowError` instead of retrying; the logger gets one line naming the session, the
   * window's size and the reason. The model is never handed an empty conversation.
   *
   * With `summarize`, it reduces as Strands' `SummarizingConversationManager` does instead: the oldest
   * `summaryRatio` of the window (at most all but `preserveRecentMessages`) is folded into a summary
   * written by `summarize.model`, or the model passed here (no tool results are truncated first unless
   * `truncateToolResults: true`). Nothing to fold: a warning, and false. On an overflow, a summarizer
   * that fails — or a window with no valid split point — raises its error (a thrown string as an `Error`)
   * with the overflow error as `cause`; proactively, it is logged and the result is false.
   *
   * @param options - the agent, its model, and the overflow error (absent for proactive compression)
   * @returns on an overflow, true when something was truncated, evicted or summarized and the input may
   *   now fit (the agent retries); proactively, true when something was truncated, evicted or summarized
   * @throws Error with `summarize`, on an overflow: the summarizer's error, or `Unable to find valid split
   *   point for summarization`, with the overflow error as `cause`
   */
  override async reduce(options: ConversationManagerReduceOptions): Promise<boolean> {
    if (this.async !== undefined) return this.reduceAsync(this.async.core, options)
    const { agent, model, error } = options
    const sync = this.syncOf(agent)
    sync.adopt()
    if (this.summarize !== undefined) {
      const { reduced, report, raise } = await reduceBySummary(this.sqlite(), sync, {
        agent,
        model,
        error,
        threshold: error === undefined ? this._compressionThreshold : undefined,
        truncate: this.truncatesToolResults,
        settings: this.summarize,
        logger: this.logger,
      })
      this.lastReduction = report
      if (raise !== undefined) throw raise
      return reduced
    }
    const { reduced, report } = await reduceWindow(this.sqlite(), sync, {
      agent,
      model,
      overflow: error !== undefined,
      threshold: error === undefined ? this._compressionThreshold : undefined,
      truncate: this.truncatesToolResults,
      logger: this.logger,
    })
    this.lastReduction = report
    return reduced
  }

  /**
   * Forks the session: a new session whose conversation is this one's up to and including the message
   * `atSeq` or `trackingId` names — the `trackingId` of a message of `agent.messages` will do — without
   * copying a message, for another agent to continue (`new Agent({ conversationManager: branch })`).
   * This session and its agent go on unchanged; from here on neither sees what the other adds. What the
   * agents of this manager added or pushed is written first, so every message they show can be a fork
   * point. On PostgreSQL, await it.
   *
   * @param point - `atSeq` or `trackingId` (exactly one), and the store's `newSessionId`, `actor`,
   *   `reason`, `metadata`
   * @param options - options of the new manager that differ from this one's (all but `store` and
   *   `sessionId`; the rest are this manager's)
   * @returns a manager of the new session, with this one's options
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND` (no such message in the session), `SESSION_EXISTS`,
   *   `SESSION_NOT_FOUND`, `INVALID_OPTIONS` (nothing written), or a refusal of a message an agent pushed
   */
  fork(
    point: ForkOptions,
    options: BranchManagerOptions<S> = {},
  ): OnStore<S, PersistentConversationManager<S>> {
    return forkOn(this.branchTarget(), point, () => {
      const settings = branchSettings(this.options, options)
      // Bad options are refused before anything is written: a manager checks them as it is made.
      checkOptions(settings(this.sessionId))
      return (id: string) => new PersistentConversationManager<S>(settings(id))
    }) as never
  }

  /**
   * Rewinds the session: it continues from the message `toSeq` or `trackingId` names (the last that
   * stays), and every agent of this manager sees its window again — `agent.messages` replaced in place, as
   * Strands' `agent.loadSnapshot` does. The messages after it leave the conversation but nothing is lost:
   * they become the abandoned branch `result.abandoned` (listed by {@link branches}, searchable, its
   * session id `<sessionId>~<k>` unless `abandonedId` names it), and the session's eviction log records
   * them with reason `'rewind'`. What the agents added or pushed is written first. On PostgreSQL, await it.
   *
   * @param point - `toSeq` or `trackingId` (exactly one), and the store's `actor`, `reason`, `abandonedId`
   * @returns the session and the abandoned branch as the store describes them, and how many messages left
   * @throws ContextLedgerError `INVALID_OPTIONS` (path `agent`) while an agent of this manager is
   *   invoking; `MESSAGE_NOT_FOUND` (no such message, or past the newest), `SESSION_EXISTS`,
   *   `SESSION_NOT_FOUND`, `INVALID_OPTIONS` (nothing written)
   */
  rewind(point: RewindOptions): OnStore<S, RewindResult> {
    return rewindOn(this.branchTarget(), point) as never
  }

  /**
   * The tree of branches holding this session: its root first, then each branch after its parent, with
   * parent, fork point, kind (`'root'`, `'fork'`, `'abandoned'`), who forked, when and why. On
   * PostgreSQL, await it.
   *
   * @returns the tree, as the store's `branches` lists it
   * @throws ContextLedgerError `SESSION_NOT_FOUND` before the session's first message
   */
  branches(): OnStore<S, BranchInfo[]> {
    this.flush()
    return branchesOn(this.branchTarget()) as never
  }

  /**
   * Runs the `pin_message` tool for an agent: `index` is a position in `agent.messages`. The pin is
   * recorded with actor `'agent'` and the model's reason, and set as Strands' flag on the message.
   *
   * @param agent - the agent whose messages the index refers to
   * @param input - the tool input as the model sent it
   * @returns the text for the model, with `status: 'error'` for a bad index or an unpin of an unpinned message
   * @internal `pinMessageTool` calls it; give the agent that tool instead.
   */
  runPinMessageTool(agent: LocalAgent, input: unknown): PinMessageToolResult | Promise<PinMessageToolResult> {
    if (this.async !== undefined) return this.asyncSyncOf(agent).runPinTool(input)
    return this.syncOf(agent).runPinTool(input)
  }

  /** {@link initAgent} on PostgreSQL: the same hooks, each awaiting the store. */
  private async initAsync(agent: LocalAgent, core: AsyncLedgerManager): Promise<void> {
    refuseOtherFormat(core.sessionId, (await this.async?.store.session(core.sessionId))?.format)
    const sync = this.asyncSyncOf(agent)
    this.attachedAsync.add(sync)
    await sync.restore(this.summarize === undefined)
    agent.addHook(
      InitializedEvent,
      async (event) => {
        const sync = this.asyncSyncOf(event.agent)
        await sync.adopt()
        await sync.show(false)
      },
      { order: HookOrder.SDK_LAST + 1 },
    )
    agent.addHook(BeforeInvocationEvent, async (event) => {
      const sync = this.asyncSyncOf(event.agent)
      sync.summaryOnlyFolds = 0
      const refusals = await sync.adopt()
      await sync.show(false)
      if (refusals[0] !== undefined) throw refusals[0]
    })
    // The model accepted its input: an overflow fold that takes only the summary may help once more.
    agent.addHook(AfterModelCallEvent, (event) => {
      if (event.error === undefined) this.asyncSyncOf(event.agent).summaryOnlyFolds = 0
    })
    agent.addHook(
      MessageAddedEvent,
      async (event) => {
        await this.asyncSyncOf(event.agent).added(event.message)
      },
      { order: HookOrder.SDK_FIRST },
    )
    agent.addHook(
      AfterInvocationEvent,
      async (event) => {
        const settings = this.summarize
        const end: AsyncWindowAtEnd =
          settings === undefined
            ? 'slide'
            : !settings.limited
              ? 'keep'
              : () => foldExcess(core, settings, event.agent.model, this.logger)
        await this.asyncSyncOf(event.agent).finish(end)
      },
      { order: FIRST_OF_ALL },
    )
  }

  /**
   * {@link reduce} on PostgreSQL: evicts by the window rules (`reduce({ overflow })`), or with
   * `summarize` folds the oldest share of the window into a summary; then the agent sees the window.
   */
  private async reduceAsync(
    core: AsyncLedgerManager,
    { agent, model, error }: ConversationManagerReduceOptions,
  ): Promise<boolean> {
    const sync = this.asyncSyncOf(agent)
    await sync.adopt()
    let reduced: boolean
    const settings = this.summarize
    if (settings !== undefined) {
      // As on SQLite: a second overflow fold in a row that would take only the summary is refused
      // (Strands would fold and ask the model again forever); reduce returns false and the overflow is raised.
      if (
        error !== undefined &&
        sync.summaryOnlyFolds > 0 &&
        foldsOnlySummary(await core.planFold(ratioFold(settings)))
      ) {
        warnSummaryOnly(this.logger, core.sessionId, agent.messages.length, settings)
        await sync.show(false)
        return false
      }
      try {
        const result = await core.summarize(modelSummarizer(settings.model ?? model), {
          summaryRatio: settings.summaryRatio,
          preserveRecentMessages: settings.preserveRecentMessages,
          systemPrompt: settings.systemPrompt,
        })
        reduced = result.summary !== undefined
        if (error !== undefined && result.summary?.messageCount === 0) sync.summaryOnlyFolds++
      } catch (failure) {
        if (error !== undefined) {
          const cause = failure instanceof Error ? failure : new Error(String(failure))
          throw new Error(cause.message, { cause: error })
        }
        this.logger.warn(
          logLine(
            { session_id: core.sessionId, error: String(failure) },
            'proactive summary failed; the window stays as it is',
          ),
        )
        reduced = false
      }
    } else {
      const result = await core.reduce({ overflow: error !== undefined })
      reduced = result.evicted > 0
    }
    await sync.show(false)
    if (!reduced && error !== undefined)
      this.logger.warn(
        logLine(
          { session_id: core.sessionId },
          'context window overflow not recovered: nothing more can leave the window',
        ),
      )
    return reduced
  }

  /** The session, its store and the agents attached by initAgent, for a fork or a rewind. */
  private branchTarget(): BranchTarget {
    const { sessionId } = this
    if (this.async !== undefined)
      return { sessionId, async: this.async.store, syncs: [...this.attachedAsync] }
    return { sessionId, store: this.sqlite().store, syncs: [...this.attached] }
  }

  private asyncSyncOf(agent: LocalAgent): AsyncAgentSync {
    const found = this.asyncSyncs.get(agent)
    if (found !== undefined) return found
    const async = this.async
    if (async === undefined) throw new Error('not a PostgreSQL-backed manager')
    const sync = new AsyncAgentSync(agent, async.core, async.store, this.logger, this.alternate)
    this.asyncSyncs.set(agent, sync)
    return sync
  }

  /** What the end of an invocation does to the window: slide it, or fold its excess into a summary. */
  private windowAtEnd(agent: LocalAgent): WindowAtEnd {
    const settings = this.summarize
    if (settings === undefined) return 'slide'
    if (!settings.limited) return 'keep'
    return () => foldExcess(this.sqlite(), settings, agent.model, this.logger)
  }

  /** The SQLite core manager (every path but PostgreSQL's). */
  private sqlite(): LedgerManager {
    if (this.core === undefined) throw new Error('not a SQLite-backed manager')
    return this.core
  }

  /** The agent's sync; created on first use when reached without initAgent (e.g. reduce on a bare `{ messages }`). */
  private syncOf(agent: LocalAgent): AgentSync {
    return this.syncs.get(agent) ?? this.newSync(agent)
  }

  private newSync(agent: LocalAgent): AgentSync {
    const sync = new AgentSync(agent, this.sqlite(), this.logger, this.alternate, this.durability)
    this.syncs.set(agent, sync)
    return sync
  }
}

/**
 * Checks a manager's options as the constructor does, without keeping the manager.
 *
 * @param options - the options
 * @throws ContextLedgerError `INVALID_OPTIONS`
 */
function checkOptions<S extends ContextStore | AsyncContextStore>(
  options: PersistentConversationManagerOptions<S>,
): void {
  // Making a manager touches no store: it only checks and resolves the options.
  new PersistentConversationManager<S>(options)
}

/**
 * Refuses a session of another format than Strands: its messages are no Strands messages, and an agent
 * would be handed them.
 *
 * @param sessionId - the session
 * @param format - its format, or undefined when it does not exist yet
 * @throws ContextLedgerError `FORMAT_MISMATCH`
 */
function refuseOtherFormat(sessionId: string, format: MessageFormatName | undefined): void {
  if (format === undefined || format === 'strands') return
  throw formatMismatch(sessionId, format, 'strands')
}
