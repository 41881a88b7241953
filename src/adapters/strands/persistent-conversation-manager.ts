/**
 * The Strands Agents conversation manager backed by the ledger. Every message the agent adds is appended
 * to SQLite as it arrives; `agent.messages` is kept equal to the window the store computes; overflow
 * recovery first truncates oversized tool results in the window (the archive keeps the originals) and
 * evicts only when that cannot plausibly be enough. Nothing lives only in memory: a new process with a
 * new `Agent` over the same file sees the same `agent.messages`.
 *
 * Strands users change the conversation by touching `agent.messages` (pin flags, replaced messages,
 * messages pushed by hand); those changes are adopted at each invocation boundary and before a reduction.
 */
import {
  AfterInvocationEvent,
  BeforeInvocationEvent,
  ConversationManager,
  HookOrder,
  InitializedEvent,
  MessageAddedEvent,
} from '@strands-agents/sdk'
import type {
  ConversationManagerReduceOptions,
  LocalAgent,
  Message,
  Model,
  ProactiveCompressionConfig,
} from '@strands-agents/sdk'
import {
  ContextLedgerError,
  isContextLedgerError,
  isPinned,
  PersistentConversationManager as LedgerManager,
  type ContextStore,
  type LedgerEntry,
  type MessageRef,
  type NothingEvictedReason,
  type PersistentConversationManagerOptions as LedgerManagerOptions,
  type PinAttribution,
  handlePinMessage,
  pinMessageInputSchema,
  truncateToolResults,
  type PinMessageToolResult,
} from '../../index.js'
import { fromLedgerMessage, hasStrandsPin, setStrandsPin, toLedgerMessage } from './convert.js'

/** Options of the Strands {@link PersistentConversationManager}: the core manager's, plus Strands' own. */
export interface PersistentConversationManagerOptions extends LedgerManagerOptions {
  /**
   * Strands' proactive compression: `true` reduces when the projected input reaches 70% of the model's
   * context window, `{ compressionThreshold }` at that ratio (in (0, 1]). Off when omitted.
   */
  proactiveCompression?: boolean | ProactiveCompressionConfig
  /** Truncate oversized tool results in the window before evicting anything. Default true. */
  truncateToolResults?: boolean
}

/** What the last {@link PersistentConversationManager.reduce} did. */
export interface ReductionReport {
  /** `'overflow'` when the model refused the input, `'proactive'` when the threshold was reached. */
  readonly trigger: 'overflow' | 'proactive'
  /** Messages whose tool results the window now shows truncated (their originals stay in the archive). */
  readonly truncated: number
  /** Messages that left the window. */
  readonly evicted: number
  /**
   * Whether the model's token count says the window now fits (under the context window limit, or the
   * compression threshold); undefined when it could not be counted.
   */
  readonly fits: boolean | undefined
  /** Why nothing could be evicted, when eviction was needed and nothing went. */
  readonly reason: NothingEvictedReason | undefined
}

/** A message of `agent.messages` as this manager last saw it. */
interface Tracked {
  /** The object, to notice when Strands (or the user) replaced it. */
  message: Message
  /** Its pin flag at that time, to notice a pin or unpin made the Strands way. */
  pinned: boolean
}

interface AgentState {
  tracked: Map<string, Tracked>
}

const NAME = 'context-ledger:persistent-conversation-manager'
const STRANDS_PIN: PinAttribution = { actor: 'strands', reason: 'metadata.custom.pinned' }
const attached = new WeakMap<LocalAgent, PersistentConversationManager>()

function contentKey(message: { role: string; content: unknown }): string {
  return JSON.stringify([message.role, message.content])
}

function checkOptions(options: PersistentConversationManagerOptions): {
  proactiveCompression?: boolean | ProactiveCompressionConfig
} {
  if (typeof options !== 'object' || options === null)
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `PersistentConversationManager takes an options object with store and sessionId, got ${String(options)}`,
    )
  const { proactiveCompression, truncateToolResults } = options
  if (truncateToolResults !== undefined && typeof truncateToolResults !== 'boolean')
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `Invalid PersistentConversationManager options at truncateToolResults: expected a boolean, got ${JSON.stringify(truncateToolResults)}`,
    )
  if (proactiveCompression === undefined || typeof proactiveCompression === 'boolean')
    return proactiveCompression === undefined ? {} : { proactiveCompression }
  const threshold: unknown = (proactiveCompression as { compressionThreshold?: unknown } | null)
    ?.compressionThreshold
  if (typeof threshold !== 'number' || !(threshold > 0 && threshold <= 1))
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `Invalid PersistentConversationManager options at proactiveCompression.compressionThreshold: expected a number in (0, 1], got ${JSON.stringify(threshold)}`,
    )
  return { proactiveCompression }
}

/**
 * The ledger's manager for a Strands agent, when the agent uses one.
 *
 * @param agent - a Strands agent
 * @returns the manager attached by `initAgent`, or undefined
 */
export function ledgerManagerOf(agent: LocalAgent): PersistentConversationManager | undefined {
  return attached.get(agent)
}

/**
 * A Strands `ConversationManager` that keeps the whole conversation in a context-ledger store and shows
 * the agent the window SQL computes.
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
 */
export class PersistentConversationManager extends ConversationManager {
  /** Plugin name, unique per Strands agent. */
  readonly name = NAME
  /** The core manager doing the work: use it for `history()`, `pin()`, `window()` and the like. */
  readonly ledger: LedgerManager
  /** Whether reductions truncate oversized tool results before evicting. */
  readonly truncatesToolResults: boolean
  /** What the last reduction did, for logs and tests; undefined before the first. */
  lastReduction: ReductionReport | undefined = undefined
  private readonly states = new WeakMap<LocalAgent, AgentState>()

  /**
   * @param options - the core manager's options (store, sessionId, windowSize, tokenBudget, tokenCounter,
   *   protectedMessages or protectedMessageRange) plus `proactiveCompression` and `truncateToolResults`
   * @throws ContextLedgerError `INVALID_OPTIONS` for unknown option names or bad values
   */
  constructor(options: PersistentConversationManagerOptions) {
    super(checkOptions(options))
    const { proactiveCompression: _p, truncateToolResults, ...core } = options
    this.ledger = new LedgerManager(core)
    this.truncatesToolResults = truncateToolResults ?? true
  }

  /** The store holding the session. */
  get store(): ContextStore {
    return this.ledger.store
  }

  /** The session this manager keeps. */
  get sessionId(): string {
    return this.ledger.sessionId
  }

  /**
   * Attaches to an agent: registers Strands' overflow and proactive hooks (`super.initAgent`), restores
   * the session into `agent.messages` (appending the messages the agent was built with that the session
   * lacks), and follows every message the agent adds.
   *
   * @param agent - the agent, passed by Strands when it initializes its plugins
   */
  override initAgent(agent: LocalAgent): void {
    super.initAgent(agent)
    attached.set(agent, this)
    this.restore(agent)
    // Plugins that load messages on start (Strands' SessionManager restores its snapshot here) run first;
    // whatever they loaded is adopted and the agent sees the window again.
    agent.addHook(
      InitializedEvent,
      (event) => {
        const state = this.stateOf(event.agent)
        this.adopt(event.agent, state)
        this.show(event.agent, state, false)
      },
      { order: HookOrder.SDK_LAST + 1 },
    )
    agent.addHook(BeforeInvocationEvent, (event) => {
      const state = this.stateOf(event.agent)
      this.adopt(event.agent, state)
      this.show(event.agent, state, false)
    })
    agent.addHook(MessageAddedEvent, (event) => {
      const state = this.stateOf(event.agent)
      const message = event.message
      const pinned = hasStrandsPin(message)
      // Usually a plain append. Strands re-announces a message under the same trackingId when it merges
      // continuation input into it; then the window shows the merged form.
      const repair = this.adoptForeign(message, false, undefined)
      if (repair !== undefined) {
        // The store answered calls the previous message left open before this one: the model must see
        // that answer too, right before this message, or the next request is invalid.
        const at = event.agent.messages.indexOf(message)
        const shown = fromLedgerMessage(repair.message)
        if (at >= 0) event.agent.messages.splice(at, 0, shown)
        state.tracked.set(shown.trackingId, { message: shown, pinned: false })
      }
      state.tracked.set(message.trackingId, { message, pinned })
    })
    agent.addHook(AfterInvocationEvent, (event) => {
      const state = this.stateOf(event.agent)
      this.adopt(event.agent, state)
      this.ledger.applyWindow()
      this.show(event.agent, state, false)
    })
  }

  /**
   * Makes room. First, unless `truncateToolResults` is false, every unpinned tool result in the window
   * over the threshold is truncated, oldest first (the window shows the truncated form, `history()` the
   * original). If the model's token count says that is not enough — or nothing could be truncated —
   * messages are evicted: on an overflow until the count says the input fits (or nothing more can go),
   * proactively for one round. `agent.messages` is then the window.
   *
   * @param options - the agent, its model, and the overflow error (absent for proactive compression)
   * @returns true when anything was truncated or evicted; false lets an overflow error propagate
   */
  override async reduce({ agent, model, error }: ConversationManagerReduceOptions): Promise<boolean> {
    const state = this.stateOf(agent)
    this.adopt(agent, state)
    const trigger = error === undefined ? 'proactive' : 'overflow'
    const threshold = error === undefined ? this._compressionThreshold : undefined
    const truncated = this.truncatesToolResults ? this.truncateWindow() : 0
    let evicted = 0
    let reason: NothingEvictedReason | undefined
    let fits: boolean | undefined = false
    if (truncated > 0) {
      this.show(agent, state, true)
      fits = await this.fits(agent, model, threshold)
    }
    // On an overflow, evict until the count says it fits; stop when it cannot be counted (the agent's
    // retry calls again if the model still refuses) or when nothing more can go. Proactive compression is
    // best effort: one round, so a prompt that is large for other reasons (tool specs, a huge system
    // prompt) does not empty the window before the model has even refused anything.
    while (fits === false) {
      const result = this.ledger.reduce({ overflow: error !== undefined })
      if (result.evicted === 0) {
        reason = result.reason
        break
      }
      evicted += result.evicted
      this.show(agent, state, true)
      fits = await this.fits(agent, model, threshold)
      if (error === undefined) break
    }
    this.lastReduction = { trigger, truncated, evicted, fits, reason: evicted === 0 ? reason : undefined }
    return truncated + evicted > 0
  }

  /**
   * Runs the `pin_message` tool for an agent: `index` is a position in `agent.messages`. The pin is
   * recorded with actor `'agent'` and the model's reason, and set as Strands' flag on the message.
   *
   * @param agent - the agent whose messages the index refers to
   * @param input - the tool input as the model sent it
   * @returns the text for the model, with `status: 'error'` for a bad index or an unpin of an unpinned message
   */
  runPinMessageTool(agent: LocalAgent, input: unknown): PinMessageToolResult {
    const state = this.stateOf(agent)
    this.adopt(agent, state)
    const messages = agent.messages
    const result = handlePinMessage(this.ledger, input, {
      target: {
        count: messages.length,
        resolve: (index) => ({ trackingId: (messages[index] as Message).trackingId }),
      },
    })
    if (result.pin !== undefined) {
      // Keep Strands' flag in step with the store, so the next adoption sees no change to record.
      // A call that reached the store leaves the message pinned exactly when it asked to pin.
      const pinned = pinMessageInputSchema.parse(input).action === 'pin'
      const message = messages.find((m) => m.trackingId === result.pin?.trackingId)
      if (message !== undefined) {
        setStrandsPin(message, pinned)
        state.tracked.set(message.trackingId, { message, pinned })
      }
    }
    return result
  }

  // ---------------------------------------------------------------- internals

  private stateOf(agent: LocalAgent): AgentState {
    let state = this.states.get(agent)
    if (state === undefined) {
      // Reached without initAgent (e.g. reduce on a bare `{ messages }`): adopt what the agent holds.
      state = { tracked: new Map() }
      this.states.set(agent, state)
    }
    return state
  }

  /** Start: the agent's constructor messages join the session, then the agent sees the window. */
  private restore(agent: LocalAgent): void {
    const state: AgentState = { tracked: new Map() }
    this.states.set(agent, state)
    const session = this.store.session(this.sessionId)
    // Messages built without a trackingId get a fresh one in every process; a seed the session already
    // starts with (same roles and content, same positions) is the same seed, not new messages.
    const seed =
      session !== undefined && session.messageCount > 0 && agent.messages.length > 0
        ? this.ledger.history({ limit: agent.messages.length })
        : undefined
    this.adopt(agent, state, seed)
    if (this.store.session(this.sessionId) !== undefined) this.ledger.applyWindow()
    this.show(agent, state, true)
  }

  /**
   * Brings changes made to `agent.messages` outside the agent loop into the store: messages it does not
   * know are appended; replaced messages (redacted, merged) are shown in their new form; Strands-style
   * pins and unpins are recorded.
   */
  private adopt(agent: LocalAgent, state: AgentState, seed?: readonly LedgerEntry[]): void {
    const messages = agent.messages
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i] as Message
      const pinned = hasStrandsPin(message)
      const tracked = state.tracked.get(message.trackingId)
      if (tracked === undefined) {
        this.adoptForeign(message, pinned, seed?.[i])
        state.tracked.set(message.trackingId, { message, pinned })
        continue
      }
      if (tracked.message !== message) {
        const before = toLedgerMessage(tracked.message)
        const after = toLedgerMessage(message)
        if (contentKey(before) !== contentKey(after)) this.overlay(after)
        tracked.message = message
      }
      if (pinned !== tracked.pinned) {
        this.setPinned({ trackingId: message.trackingId }, pinned)
        tracked.pinned = pinned
      }
    }
  }

  /** Appends a message the store does not have yet; returns the repair row the store wrote before it, if any. */
  private adoptForeign(
    message: Message,
    pinned: boolean,
    seedEntry: LedgerEntry | undefined,
  ): LedgerEntry | undefined {
    const data = toLedgerMessage(message)
    if (seedEntry !== undefined && contentKey(seedEntry.message) === contentKey(data)) {
      if (pinned) this.setPinned({ seq: seedEntry.seq }, true)
      return undefined
    }
    let repair: LedgerEntry | undefined
    try {
      repair = this.ledger.append(data).repair
    } catch (error) {
      if (!isContextLedgerError(error, 'DUPLICATE_MESSAGE')) throw error
      // The session holds this trackingId with other content: the agent holds an edited copy.
      this.overlay(data)
    }
    if (pinned) this.setPinned({ trackingId: message.trackingId }, true)
    return repair
  }

  /** Shows `data` in the window in place of the archived message with its trackingId. */
  private overlay(data: ReturnType<typeof toLedgerMessage>): void {
    try {
      this.ledger.setWindowContent({ trackingId: data.trackingId }, data)
    } catch (error) {
      // A replacement that changes the role or tool ids cannot stand in for the original without breaking
      // tool pairs; the window keeps showing the archived message.
      if (!isContextLedgerError(error, 'INVALID_MESSAGE')) throw error
    }
  }

  private setPinned(ref: MessageRef, pinned: boolean): void {
    if (pinned) this.ledger.pin(ref, STRANDS_PIN)
    else this.ledger.unpin(ref, STRANDS_PIN)
  }

  /** Replaces `agent.messages` in place by the window (only the flags when the same messages are shown). */
  private show(agent: LocalAgent, state: AgentState, force: boolean): void {
    const window = this.ledger.window()
    const messages = agent.messages
    let same = !force && window.length === messages.length
    for (let i = 0; same && i < window.length; i++)
      same = (messages[i] as Message).trackingId === (window[i] as { trackingId: string }).trackingId
    const tracked = new Map<string, Tracked>()
    if (same) {
      for (let i = 0; i < window.length; i++) {
        const message = messages[i] as Message
        const pinned =
          (window[i] as { metadata?: { custom?: { pinned?: unknown } } }).metadata?.custom?.pinned === true
        setStrandsPin(message, pinned)
        tracked.set(message.trackingId, { message, pinned })
      }
    } else {
      messages.length = 0
      for (const data of window) {
        const message = fromLedgerMessage(data)
        messages.push(message)
        tracked.set(message.trackingId, { message, pinned: hasStrandsPin(message) })
      }
    }
    state.tracked = tracked
  }

  /** Truncates every unpinned oversized tool result in the window, oldest first; returns how many. */
  private truncateWindow(): number {
    const window = this.ledger.window()
    let truncated = 0
    for (let i = 0; i < window.length; i++) {
      // A pinned message and its tool-pair partner stay whole, as in Strands.
      if (isPinned(window, i)) continue
      const message = window[i] as (typeof window)[number]
      const shown = truncateToolResults(message)
      if (shown === message) continue
      this.ledger.setWindowContent({ trackingId: message.trackingId }, shown)
      truncated++
    }
    return truncated
  }

  /**
   * Whether the agent's messages fit by the model's own count: within its context window on an overflow,
   * under the compression threshold proactively. Undefined when the model cannot count.
   */
  private async fits(
    agent: LocalAgent,
    model: Model,
    threshold: number | undefined,
  ): Promise<boolean | undefined> {
    try {
      const toolSpecs = agent.toolRegistry.list().map((tool) => tool.toolSpec)
      const tokens = await model.countTokens(agent.messages, {
        toolSpecs,
        ...(agent.systemPrompt === undefined ? {} : { systemPrompt: agent.systemPrompt }),
      })
      const ratio = model.estimateUtilization(tokens)
      return threshold === undefined ? ratio <= 1 : ratio < threshold
    } catch {
      return undefined
    }
  }
}
