/**
 * Keeps one Strands agent's `agent.messages` and the ledger in step: messages the agent adds or the user
 * pushes go to the store, changes made the Strands way (pin flags, replaced messages) are recorded, and
 * `agent.messages` is replaced in place by the window the store computes.
 */
import type { LocalAgent, Message } from '@strands-agents/sdk'
import {
  isContextLedgerError,
  type ContextStore,
  type LedgerEntry,
  type MessageRef,
  type PersistentConversationManager as LedgerManager,
  type PinAttribution,
} from '../../index.js'
import { fromLedgerMessage, hasStrandsPin, setStrandsPin, toLedgerMessage } from './convert.js'

/** A message of `agent.messages` as the sync last saw it. */
interface Tracked {
  /** The object, to notice when Strands (or the user) replaced it. */
  message: Message
  /** Its pin flag at that time, to notice a pin or unpin made the Strands way. */
  pinned: boolean
}

const STRANDS_PIN: PinAttribution = { actor: 'strands', reason: 'metadata.custom.pinned' }

function contentKey(message: { role: string; content: unknown }): string {
  return JSON.stringify([message.role, message.content])
}

/** One agent's view of one session. */
export class AgentSync {
  private tracked = new Map<string, Tracked>()

  /**
   * @param agent - the agent whose `messages` this keeps
   * @param ledger - the core manager of the session
   */
  constructor(
    readonly agent: LocalAgent,
    private readonly ledger: LedgerManager,
  ) {}

  private get store(): ContextStore {
    return this.ledger.store
  }

  private get sessionId(): string {
    return this.ledger.sessionId
  }

  /** Start: the agent's constructor messages join the session, then the agent sees the window. */
  restore(): void {
    const session = this.store.session(this.sessionId)
    // Messages built without a trackingId get a fresh one in every process; a seed the session already
    // starts with (same roles and content, same positions) is the same seed, not new messages.
    const seed =
      session !== undefined && session.messageCount > 0 && this.agent.messages.length > 0
        ? this.ledger.history({ limit: this.agent.messages.length })
        : undefined
    this.adopt(seed)
    if (this.store.session(this.sessionId) !== undefined) this.ledger.applyWindow()
    this.show(true)
  }

  /** `MessageAddedEvent`: appends the message the agent just added. */
  added(message: Message): void {
    const pinned = hasStrandsPin(message)
    // Usually a plain append. Strands re-announces a message under the same trackingId when it merges
    // continuation input into it; then the window shows the merged form.
    const repair = this.adoptForeign(message, false, undefined)
    if (repair !== undefined) {
      // The store answered calls the previous message left open before this one: the model must see
      // that answer too, right before this message, or the next request is invalid.
      const at = this.agent.messages.indexOf(message)
      const shown = fromLedgerMessage(repair.message)
      if (at >= 0) this.agent.messages.splice(at, 0, shown)
      this.tracked.set(shown.trackingId, { message: shown, pinned: false })
    }
    this.tracked.set(message.trackingId, { message, pinned })
  }

  /**
   * Sets Strands' pin flag on a live message to the state the store already holds, and records it as
   * seen, so the next adoption records no change.
   *
   * @param message - a message of `agent.messages`
   * @param pinned - the state the store holds
   */
  showPin(message: Message, pinned: boolean): void {
    setStrandsPin(message, pinned)
    this.tracked.set(message.trackingId, { message, pinned })
  }

  /**
   * Brings changes made to `agent.messages` outside the agent loop into the store: messages it does not
   * know are appended; replaced messages (redacted, merged) are shown in their new form; Strands-style
   * pins and unpins are recorded.
   *
   * @param seed - at start, the session's first messages, to recognize a seed the session already has
   */
  adopt(seed?: readonly LedgerEntry[]): void {
    const messages = this.agent.messages
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i] as Message
      const pinned = hasStrandsPin(message)
      const tracked = this.tracked.get(message.trackingId)
      if (tracked === undefined) {
        this.adoptForeign(message, pinned, seed?.[i])
        this.tracked.set(message.trackingId, { message, pinned })
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

  /** Replaces `agent.messages` in place by the window (only the flags when the same messages are shown). */
  show(force: boolean): void {
    const window = this.ledger.window()
    const messages = this.agent.messages
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
    this.tracked = tracked
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
      this.store.setWindowContent(this.sessionId, { trackingId: data.trackingId }, data)
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
}
