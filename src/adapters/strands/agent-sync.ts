/**
 * Keeps one Strands agent's `agent.messages` and the ledger in step: messages the agent adds or the user
 * pushes go to the store, changes made the Strands way (pin flags, replaced messages) are recorded, and
 * `agent.messages` is replaced in place by the window the store computes.
 *
 * A message the store refuses never wedges the agent. It is repaired when it can be ({@link
 * repairMessage}: lone surrogates, over-long values, too-deep JSON…), and the live message is then
 * rewritten to the stored form, so the model sees exactly what was archived. Otherwise it is refused
 * once: logged, left out of the archive, and removed from `agent.messages`, so no later call meets it
 * again.
 *
 * The ledger is append-only, so a new message can only join at the end: one inserted in `agent.messages`
 * before messages the ledger already has is refused the same way (`MESSAGE_OUT_OF_ORDER`, naming its
 * index), never moved to the end behind the caller's back.
 */
import type { Logger, LocalAgent, Message } from '@strands-agents/sdk'
import {
  ContextLedgerError,
  DEFAULT_MESSAGE_LIMITS,
  isContextLedgerError,
  repairMessage,
  type ContextStore,
  type LedgerEntry,
  type MessageData,
  type MessageLimits,
  type MessageRef,
  type MessageRepair,
  type PersistentConversationManager as LedgerManager,
  type PinAttribution,
} from '../../index.js'
import {
  assignStoredForm,
  fromLedgerMessage,
  hasStrandsPin,
  setStrandsPin,
  toLedgerMessage,
} from './convert.js'
import { logLine } from './log.js'

/** A message of `agent.messages` as the sync last saw it. */
interface Tracked {
  /** The object, to notice when Strands (or the user) replaced it. */
  message: Message
  /** Its pin flag at that time, to notice a pin or unpin made the Strands way. */
  pinned: boolean
}

/** What storing a new message came to. */
type Stored =
  | { readonly refused?: undefined; readonly repairRow: LedgerEntry | undefined }
  | { readonly refused: ContextLedgerError }

const STRANDS_PIN: PinAttribution = { actor: 'strands', reason: 'metadata.custom.pinned' }
const SHOWN_REPAIRS = 3

function contentKey(message: { role: string; content: unknown }): string {
  return JSON.stringify([message.role, message.content])
}

/**
 * The store's validation limits, which repairs must meet. `ContextStore` keeps them in a private field;
 * reading it here avoids asking the caller to pass the same limits twice.
 */
function limitsOf(store: ContextStore): MessageLimits {
  const limits = (store as unknown as { limits?: MessageLimits }).limits
  return limits ?? DEFAULT_MESSAGE_LIMITS
}

function describeRepairs(repairs: readonly MessageRepair[]): string {
  const shown = repairs.slice(0, SHOWN_REPAIRS).map((r) => `${r.problem} at ${r.path}`)
  if (repairs.length > SHOWN_REPAIRS) shown.push(`${repairs.length - SHOWN_REPAIRS} more`)
  return shown.join('; ')
}

/** One agent's view of one session. */
export class AgentSync {
  private tracked = new Map<string, Tracked>()

  /**
   * @param agent - the agent whose `messages` this keeps
   * @param ledger - the core manager of the session
   * @param logger - where repairs and refusals are reported
   */
  constructor(
    readonly agent: LocalAgent,
    private readonly ledger: LedgerManager,
    private readonly logger: Logger,
  ) {}

  private get store(): ContextStore {
    return this.ledger.store
  }

  private get sessionId(): string {
    return this.ledger.sessionId
  }

  /**
   * Start: the agent's constructor messages join the session, then the agent sees the window. Refusals
   * are only logged: Strands caches a failed `initialize()` for good, so throwing here would break the
   * agent for its whole life.
   */
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

  /**
   * `MessageAddedEvent`: appends the message the agent just added (repaired if need be).
   *
   * @param message - the message, already in `agent.messages`
   * @throws ContextLedgerError `INVALID_MESSAGE` when the store refuses it even repaired; it is then logged
   *   and gone from `agent.messages`, and the invocation ends with this error
   */
  added(message: Message): void {
    // Usually a plain append. Strands re-announces a message under the same trackingId when it merges
    // continuation input into it; then the window shows the merged form.
    const stored = this.storeNew(message, false, undefined)
    if (stored.refused !== undefined) {
      this.drop([message])
      throw stored.refused
    }
    if (stored.repairRow !== undefined) {
      // The store answered calls the previous message left open before this one: the model must see
      // that answer too, right before this message, or the next request is invalid.
      const at = this.agent.messages.indexOf(message)
      const shown = fromLedgerMessage(stored.repairRow.message)
      if (at >= 0) this.agent.messages.splice(at, 0, shown)
      this.tracked.set(shown.trackingId, { message: shown, pinned: false })
    }
    this.tracked.set(message.trackingId, { message, pinned: hasStrandsPin(message) })
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
   * pins and unpins are recorded. Messages the store refuses are logged and removed from
   * `agent.messages`.
   *
   * @param seed - at start, the session's first messages, to recognize a seed the session already has
   * @returns the refusals, in order (already logged)
   */
  adopt(seed?: readonly LedgerEntry[]): ContextLedgerError[] {
    const messages = this.agent.messages
    const refusals: ContextLedgerError[] = []
    const refused: Message[] = []
    const lastKnown = this.lastKnownIndex(seed)
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i] as Message
      const pinned = hasStrandsPin(message)
      const tracked = this.tracked.get(message.trackingId)
      if (tracked === undefined) {
        if (i < lastKnown && !this.isSeed(seed, i, message) && !this.inLedger(message.trackingId)) {
          refusals.push(this.outOfOrder(message, i))
          refused.push(message)
          continue
        }
        const stored = this.storeNew(message, pinned, seed?.[i])
        if (stored.refused !== undefined) {
          refusals.push(stored.refused)
          refused.push(message)
          continue
        }
        this.tracked.set(message.trackingId, { message, pinned: hasStrandsPin(message) })
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
    this.drop(refused)
    return refusals
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

  /**
   * The index of the last message of `agent.messages` the ledger already has: one the sync tracks, or at
   * start (with a seed) one the session holds. New messages may only come after it.
   */
  private lastKnownIndex(seed: readonly LedgerEntry[] | undefined): number {
    const messages = this.agent.messages
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i] as Message
      if (this.tracked.has(message.trackingId)) return i
      if (seed !== undefined && (this.isSeed(seed, i, message) || this.inLedger(message.trackingId))) return i
    }
    return -1
  }

  /** Whether the message at `i` is the session's own seed message at that position. */
  private isSeed(seed: readonly LedgerEntry[] | undefined, i: number, message: Message): boolean {
    const entry = seed?.[i]
    return entry !== undefined && contentKey(entry.message) === contentKey(toLedgerMessage(message))
  }

  /** Whether the session holds a message with this trackingId. */
  private inLedger(trackingId: string): boolean {
    try {
      this.ledger.message({ trackingId })
      return true
    } catch (error) {
      if (isContextLedgerError(error, 'MESSAGE_NOT_FOUND')) return false
      throw error
    }
  }

  /** The refusal of a new message inserted before messages the ledger has (logged). */
  private outOfOrder(message: Message, index: number): ContextLedgerError {
    const refusal = new ContextLedgerError(
      'MESSAGE_OUT_OF_ORDER',
      `Session "${this.sessionId}": agent.messages[${index}] (${message.role}, trackingId ${message.trackingId}) is new but sits before messages the ledger already has; the ledger is append-only, so it was not stored and was removed from agent.messages. Add new messages at the end.`,
      { sessionId: this.sessionId, path: `agent.messages[${index}]` },
    )
    this.logger.error(
      logLine(
        {
          session_id: this.sessionId,
          tracking_id: message.trackingId,
          role: message.role,
          code: refusal.code,
          index,
        },
        'new message inserted before stored ones refused: not stored, removed from agent.messages',
      ),
      refusal,
    )
    return refusal
  }

  /** Removes messages (by identity) from `agent.messages`. */
  private drop(messages: readonly Message[]): void {
    if (messages.length === 0) return
    const gone = new Set(messages)
    const kept = this.agent.messages.filter((m) => !gone.has(m))
    this.agent.messages.splice(0, this.agent.messages.length, ...kept)
  }

  /**
   * Stores a message the sync has not seen: recognized as the session's seed, appended (repaired if the
   * store refuses it as it is), or refused (logged). Returns the repair row the store wrote before it.
   */
  private storeNew(message: Message, pinned: boolean, seedEntry: LedgerEntry | undefined): Stored {
    const data = toLedgerMessage(message)
    if (seedEntry !== undefined && contentKey(seedEntry.message) === contentKey(data)) {
      if (pinned) this.setPinned({ seq: seedEntry.seq }, true)
      return { repairRow: undefined }
    }
    let entry: LedgerEntry | undefined
    try {
      entry = this.appendOrOverlay(data)
    } catch (error) {
      if (!isContextLedgerError(error, 'INVALID_MESSAGE')) throw error
      const repaired = this.appendRepaired(message, data, error)
      if (repaired.refused !== undefined) return repaired
      entry = repaired.entry
    }
    if (pinned) this.setPinned({ trackingId: message.trackingId }, true)
    return { repairRow: entry?.repair }
  }

  /**
   * The store refused `data`: store its repaired form and show that form in the live message, or refuse
   * the message once (logged) when repair cannot make it acceptable.
   */
  private appendRepaired(
    message: Message,
    data: MessageData,
    error: ContextLedgerError,
  ): { refused?: undefined; entry: LedgerEntry | undefined } | { refused: ContextLedgerError } {
    const { message: repaired, repairs } = repairMessage(data, limitsOf(this.store))
    let final = error
    if (repairs.length > 0) {
      try {
        const entry = this.appendOrOverlay(repaired)
        assignStoredForm(message, entry?.message ?? repaired)
        this.logger.warn(
          logLine(
            {
              session_id: this.sessionId,
              tracking_id: message.trackingId,
              role: message.role,
              repairs: repairs.length,
            },
            `message repaired before it was stored (${describeRepairs(repairs)}); agent.messages shows the stored form`,
          ),
        )
        return { entry }
      } catch (second) {
        if (!isContextLedgerError(second, 'INVALID_MESSAGE')) throw second
        final = second
      }
    }
    const refusal = new ContextLedgerError(
      'INVALID_MESSAGE',
      `Session "${this.sessionId}": the store refused message ${message.trackingId} (${message.role})${repairs.length > 0 ? ' even after repair' : ''}; it was left out of the archive and removed from agent.messages. ${final.message}`,
      { sessionId: this.sessionId, ...(final.path === undefined ? {} : { path: final.path }), cause: final },
    )
    this.logger.error(
      logLine(
        {
          session_id: this.sessionId,
          tracking_id: message.trackingId,
          role: message.role,
          code: refusal.code,
          path: refusal.path,
        },
        `message refused: left out of the archive and removed from agent.messages: ${final.message}`,
      ),
      refusal,
    )
    return { refused: refusal }
  }

  /** Appends; a trackingId the session holds with other content is an edited copy, shown in the window. */
  private appendOrOverlay(data: MessageData): LedgerEntry | undefined {
    try {
      return this.ledger.append(data)
    } catch (error) {
      if (!isContextLedgerError(error, 'DUPLICATE_MESSAGE')) throw error
      this.overlay(data as ReturnType<typeof toLedgerMessage>)
      return undefined
    }
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
