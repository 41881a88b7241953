/**
 * One Strands agent's `agent.messages` kept in step with a store whose calls return Promises (the
 * PostgreSQL store): the asynchronous counterpart of `sync/agent-sync.ts`, driven from Strands' hooks,
 * which Strands awaits. The same rules, in a smaller form:
 * - every message the agent adds is appended as it arrives (each append is one atomic write on the
 *   server; `durability: 'message'`) — repaired if the store refuses it as it is, refused (logged,
 *   removed from `agent.messages`, the invocation ends with the error) if even repair cannot make it
 *   acceptable;
 * - messages pushed to `agent.messages` between invocations are adopted at the next one: new ones at the
 *   end appended, a new one before stored ones refused (`MESSAGE_OUT_OF_ORDER`), a replaced or edited
 *   one recorded as an edit, a pin flag set or cleared the Strands way recorded as a pin or unpin;
 * - at the end of an invocation the limits are applied (or the excess folded into a summary) and
 *   `agent.messages` becomes the window the store computes;
 * - the `pin_message` tool pins in the store (actor `'agent'`) by the index the model saw.
 */
import type { Logger, LocalAgent, Message } from '@strands-agents/sdk'
import { ContextLedgerError, isContextLedgerError } from '../../errors.js'
import { repairMessage } from '../../messages/repair-message.js'
import type { LedgerEntry, MessageRef, PinAttribution } from '../../store/context-store.js'
import { isSummaryMessage } from '../../summaries/summary-message.js'
import {
  checkPinMessageInput,
  describePinOutcome,
  type PinMessageToolResult,
} from '../../tools/pin-message-tool.js'
import type { AsyncContextStore, AsyncLedgerManager } from './async-ledger.js'
import { assignStoredForm, hasStrandsPin, setStrandsPin, toLedgerMessage } from './convert.js'
import { logLine } from './log.js'
import { present } from './sync/present.js'
import { contentKey, drop, keyOf, TrackedMessages } from './sync/sync-context.js'

const STRANDS_PIN: PinAttribution = { actor: 'strands', reason: 'metadata.custom.pinned' }

/** What the end of an invocation does to the window (see `WindowAtEnd` of the synchronous sync). */
export type AsyncWindowAtEnd = 'slide' | 'keep' | (() => Promise<void>)

/** One agent's view of one session on an asynchronous store. */
export class AsyncAgentSync {
  private readonly tracked = new TrackedMessages()

  /**
   * Overflow folds since the model last accepted its input (or the invocation began) that took nothing
   * but the previous summary; a second one in a row is refused, as on SQLite (`summary-reduction.ts`).
   */
  summaryOnlyFolds = 0

  /**
   * @param agent - the agent whose `messages` this keeps
   * @param ledger - the core manager of the session on the asynchronous store
   * @param store - the store
   * @param logger - where repairs and refusals are reported
   * @param alternate - show the window with runs of same-role messages merged
   */
  constructor(
    readonly agent: LocalAgent,
    private readonly ledger: AsyncLedgerManager,
    private readonly store: AsyncContextStore,
    private readonly logger: Logger,
    private readonly alternate: boolean,
  ) {}

  /**
   * Start: the agent's constructor messages join the session (a seed the session already starts with is
   * recognized, not stored again), the limits are applied, and the agent sees the window. Refusals are
   * only logged, as with SQLite: Strands caches a failed `initialize()` for good.
   *
   * @param slide - apply the limits first (false with summaries)
   */
  async restore(slide: boolean): Promise<void> {
    const sessionId = this.ledger.sessionId
    const session = await this.store.session(sessionId)
    const seed =
      session !== undefined && session.messageCount > 0 && this.agent.messages.length > 0
        ? await this.ledger.history({ limit: this.agent.messages.length })
        : undefined
    await this.adopt(seed)
    if (slide && (await this.store.session(sessionId)) !== undefined) await this.ledger.applyWindow()
    await this.show(true)
  }

  /**
   * Brings changes made to `agent.messages` outside the agent loop into the store.
   *
   * @param seed - at start, the session's first messages, to recognize a seed the session already has
   * @returns the refusals, in order (already logged)
   */
  async adopt(seed?: readonly LedgerEntry[]): Promise<ContextLedgerError[]> {
    const messages = [...this.agent.messages]
    const refusals: ContextLedgerError[] = []
    const refused: Message[] = []
    // New messages may only come after the last one the ledger already has.
    let lastKnown = -1
    for (let i = messages.length - 1; i >= 0 && lastKnown < 0; i--)
      if (this.tracked.has((messages[i] as Message).trackingId)) lastKnown = i
    const seen = new Set<string>()
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i] as Message
      if (this.isSummary(message)) continue
      const pinned = hasStrandsPin(message)
      const duplicate = seen.has(message.trackingId)
      seen.add(message.trackingId)
      const tracked = duplicate ? undefined : this.tracked.get(message.trackingId)
      if (tracked !== undefined) {
        const key = keyOf(message)
        if (key !== tracked.key)
          await this.ledger.edit({ trackingId: message.trackingId }, toLedgerMessage(message))
        if (pinned !== tracked.pinned) await this.recordPin({ trackingId: message.trackingId }, pinned)
        this.tracked.track(message)
        continue
      }
      const seedEntry = seed?.[i]
      if (seedEntry !== undefined && contentKey(seedEntry.message) === keyOf(message)) {
        if (pinned && !seedEntry.pinned) await this.recordPin({ seq: seedEntry.seq }, true)
        Object.assign(message, { trackingId: seedEntry.trackingId })
        this.tracked.track(message)
        continue
      }
      const known = duplicate ? undefined : await this.storedEntry(message.trackingId)
      if (known !== undefined) {
        if (keyOf(message) !== contentKey(known.windowMessage ?? known.message))
          await this.ledger.edit({ trackingId: message.trackingId }, toLedgerMessage(message))
        if (pinned && !known.pinned) await this.recordPin({ trackingId: message.trackingId }, true)
        this.tracked.track(message)
        continue
      }
      if (i < lastKnown) {
        refusals.push(this.outOfOrder(message, i))
        refused.push(message)
        continue
      }
      const refusal = await this.storeNew(message, pinned)
      if (refusal !== undefined) {
        refusals.push(refusal)
        refused.push(message)
      }
    }
    drop(this.agent, refused)
    return refusals
  }

  /**
   * `MessageAddedEvent`: appends the message the agent just added (repaired if need be).
   *
   * @param message - the message, already in `agent.messages`
   * @throws ContextLedgerError `INVALID_MESSAGE` when the store refuses it even repaired (logged, removed
   *   from `agent.messages`)
   */
  async added(message: Message): Promise<void> {
    if (this.isSummary(message)) {
      this.logger.warn(
        logLine(
          { session_id: this.ledger.sessionId, tracking_id: message.trackingId },
          'summary message added to the conversation not stored; agent.messages shows the window again after the invocation',
        ),
      )
      return
    }
    if (this.tracked.has(message.trackingId)) return
    const refusal = await this.storeNew(message, hasStrandsPin(message))
    if (refusal !== undefined) {
      drop(this.agent, [message])
      throw refusal
    }
  }

  /**
   * End of an invocation: messages pushed meanwhile adopted, the window the limits call for (or the
   * excess folded into a summary), then the agent sees the window.
   *
   * @param end - what happens to the window
   */
  async finish(end: AsyncWindowAtEnd): Promise<void> {
    await this.adopt()
    if (end === 'slide' && (await this.store.session(this.ledger.sessionId)) !== undefined)
      await this.ledger.applyWindow()
    if (typeof end === 'function') await end()
    await this.show(false)
  }

  /**
   * Makes `agent.messages` the window the store computes.
   *
   * @param force - rebuild every message object
   */
  async show(force: boolean): Promise<void> {
    const window = await this.ledger.window({ alternate: this.alternate })
    present({ agent: this.agent, tracked: this.tracked }, window, force)
  }

  /**
   * Runs the `pin_message` tool: `index` is a position in `agent.messages`.
   *
   * @param input - the tool input as the model sent it
   * @returns the text for the model, with `status: 'error'` for input the model should correct
   */
  async runPinTool(input: unknown): Promise<PinMessageToolResult> {
    const messages = [...this.agent.messages]
    const checked = checkPinMessageInput(input, messages.length)
    if (!checked.ok) return checked.result
    const { index, action, reason } = checked.input
    const target = messages[index] as Message
    if (this.isSummary(target))
      return {
        status: 'error',
        text: `Message ${index} is a summary of earlier messages and cannot be pinned (or unpinned): it stands for messages that left your context window. Pin a message after it instead.`,
      }
    await this.adopt()
    const attribution = { actor: 'agent', ...(reason === undefined ? {} : { reason }) }
    const ref = { trackingId: target.trackingId }
    let changed: boolean
    try {
      const pin =
        action === 'pin' ? await this.ledger.pin(ref, attribution) : await this.ledger.unpin(ref, attribution)
      changed = pin.changed
    } catch (error) {
      if (isContextLedgerError(error, 'MESSAGE_NOT_FOUND'))
        return {
          status: 'error',
          text: `Message ${index} is not in the conversation store yet; try again later.`,
        }
      throw error
    }
    // Strands' flag in step with the store, so the next adoption records no change.
    setStrandsPin(target, action === 'pin')
    this.tracked.track(target)
    return describePinOutcome(index, action, changed)
  }

  /** Whether a live message is the summary the window showed, or an unseen message with the marker. */
  private isSummary(message: Message): boolean {
    const id = message.trackingId
    return id === this.tracked.summaryId || (!this.tracked.has(id) && isSummaryMessage(message))
  }

  private async recordPin(ref: MessageRef, pinned: boolean): Promise<void> {
    if (pinned) await this.ledger.pin(ref, STRANDS_PIN)
    else await this.ledger.unpin(ref, STRANDS_PIN)
  }

  private async storedEntry(trackingId: string): Promise<LedgerEntry | undefined> {
    try {
      return await this.ledger.message({ trackingId })
    } catch (error) {
      if (isContextLedgerError(error, 'MESSAGE_NOT_FOUND')) return undefined
      throw error
    }
  }

  /**
   * Appends a message the sync has not seen, repaired if the store refuses it as it is.
   *
   * @returns the refusal (already logged), or undefined when stored
   */
  private async storeNew(message: Message, pinned: boolean): Promise<ContextLedgerError | undefined> {
    const data = toLedgerMessage(message)
    let entry: LedgerEntry | undefined
    try {
      entry = (await this.ledger.append([data]))[0]
    } catch (error) {
      if (!isContextLedgerError(error, 'INVALID_MESSAGE')) {
        if (
          isContextLedgerError(error, 'INVALID_TOKEN_COUNT') ||
          isContextLedgerError(error, 'DUPLICATE_MESSAGE')
        )
          return this.refuse(message, error, error.message)
        throw error
      }
      const { message: repaired, repairs } = repairMessage(data, this.store.limits)
      if (repairs.length === 0) return this.refuse(message, error, error.message)
      try {
        entry = (await this.ledger.append([repaired]))[0]
      } catch (second) {
        if (!isContextLedgerError(second, 'INVALID_MESSAGE')) throw second
        return this.refuse(message, second, `${second.message} (even after repair)`)
      }
      assignStoredForm(message, entry?.message ?? repaired)
      this.logger.warn(
        logLine(
          { session_id: this.ledger.sessionId, tracking_id: message.trackingId, repairs: repairs.length },
          'message repaired before it was stored; agent.messages shows the stored form',
        ),
      )
    }
    if (entry !== undefined && entry.trackingId !== data.trackingId)
      Object.assign(message, { trackingId: entry.trackingId })
    if (pinned) await this.recordPin({ trackingId: message.trackingId }, true)
    this.tracked.track(message)
    return undefined
  }

  private refuse(message: Message, cause: ContextLedgerError, why: string): ContextLedgerError {
    const sessionId = this.ledger.sessionId
    const refusal = new ContextLedgerError(
      cause.code,
      `Session "${sessionId}": the store refused message ${message.trackingId} (${message.role}); it was left out of the archive and removed from agent.messages. ${why}`,
      { sessionId, ...(cause.path === undefined ? {} : { path: cause.path }), cause },
    )
    this.logger.error(
      logLine(
        { session_id: sessionId, tracking_id: message.trackingId, role: message.role, code: cause.code },
        `message refused: left out of the archive and removed from agent.messages: ${why}`,
      ),
      refusal,
    )
    return refusal
  }

  private outOfOrder(message: Message, index: number): ContextLedgerError {
    const sessionId = this.ledger.sessionId
    const refusal = new ContextLedgerError(
      'MESSAGE_OUT_OF_ORDER',
      `Session "${sessionId}": agent.messages[${index}] (${message.role}, trackingId ${message.trackingId}) is new but sits before messages the ledger already has; the ledger is append-only, so it was not stored and was removed from agent.messages. Add new messages at the end.`,
      { sessionId, path: `agent.messages[${index}]` },
    )
    this.logger.error(
      logLine(
        { session_id: sessionId, tracking_id: message.trackingId, index, code: refusal.code },
        'new message inserted before stored ones refused: not stored, removed from agent.messages',
      ),
      refusal,
    )
    return refusal
  }
}
