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
  isContextLedgerError,
  repairMessage,
  type ContextStore,
  type LedgerEntry,
  type MessageData,
  type MessageRef,
  type MessageRepair,
  type PersistentConversationManager as LedgerManager,
  type PinAttribution,
  type StoredMessageData,
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
  /** Its role and content at that time (JSON), to notice an edit made in place. */
  key: string
  /** Its pin flag at that time, to notice a pin or unpin made the Strands way. */
  pinned: boolean
}

/** What storing a new message came to. */
type Stored =
  | {
      readonly refused?: undefined
      readonly repairRow: LedgerEntry | undefined
      /** The stored entry, when the message was appended (not a seed, not an edit of the newest). */
      readonly entry?: LedgerEntry | undefined
    }
  | { readonly refused: ContextLedgerError }

const STRANDS_PIN: PinAttribution = { actor: 'strands', reason: 'metadata.custom.pinned' }
const STRANDS_EDIT = { actor: 'strands', reason: 'changed in agent.messages' }
const SHOWN_REPAIRS = 3

function contentKey(message: { role: string; content: unknown }): string {
  return JSON.stringify([message.role, message.content])
}

/** The content key of a live message. */
function keyOf(message: Message): string {
  return contentKey(toLedgerMessage(message))
}

/** The trackingIds a message merged for `alternate` holds (`mergedFrom`), or just its own. */
function mergedFrom(data: MessageData): unknown[] {
  const from = (data.metadata?.custom?.contextLedger as { mergedFrom?: unknown } | undefined)?.mergedFrom
  return Array.isArray(from) ? from : [data.trackingId]
}

/** Whether `call` holds a toolUse for every toolResult of `answer`. */
function answersCallsOf(answer: MessageData, call: Message | undefined): boolean {
  if (call === undefined) return false
  const uses = new Set(
    toLedgerMessage(call).content.flatMap((b) => ('toolUse' in b ? [b.toolUse.toolUseId] : [])),
  )
  return answer.content.every((b) => !('toolResult' in b) || uses.has(b.toolResult.toolUseId))
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
   * The seq of the newest stored row this agent's view holds: set by each message it stores, and looked
   * up from `lastShown` (the window's last trackingId) only when an added message needs it.
   */
  private lastSeq: number | undefined = undefined
  private lastShown: string | undefined = undefined

  /**
   * @param agent - the agent whose `messages` this keeps
   * @param ledger - the core manager of the session
   * @param logger - where repairs and refusals are reported
   * @param alternate - show the window with runs of same-role messages merged (roles strictly alternate)
   */
  constructor(
    readonly agent: LocalAgent,
    private readonly ledger: LedgerManager,
    private readonly logger: Logger,
    private readonly alternate = false,
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
    const at = this.agent.messages.indexOf(message)
    // The store answered calls the previous message left open before this one: the model must see that
    // answer too, right before this message, or the next request is invalid. A repair row answering a call
    // this agent does not show (another writer's, on a shared session) stays out of this turn's view; the
    // window shows it from the next invocation on.
    const repairShown =
      stored.repairRow !== undefined &&
      at >= 0 &&
      answersCallsOf(stored.repairRow.message, this.agent.messages[at - 1])
    if (repairShown && stored.repairRow !== undefined) {
      const shown = fromLedgerMessage(stored.repairRow.message)
      this.agent.messages.splice(at, 0, shown)
      this.track(shown)
    }
    this.track(message)
    const entry = stored.entry
    if (entry === undefined) return
    const stale = this.isStale(entry, stored.repairRow, repairShown)
    this.lastSeq = entry.seq
    if (stale) this.showUpTo(message)
    else if (this.alternate) this.mergeWithPrevious(message)
  }

  /**
   * Whether this agent's view before `message` misses rows another writer stored in between (a session
   * with two writers): the row stored right before it (or before the repair row written for it) is not
   * the last row this view holds, or the store answered a call this view does not show.
   */
  private isStale(entry: LedgerEntry, repairRow: LedgerEntry | undefined, repairShown: boolean): boolean {
    if (repairRow !== undefined && !repairShown) return true
    const before = (repairRow ?? entry).seq - 1
    if (this.lastSeq === undefined && this.lastShown !== undefined)
      this.lastSeq = this.storedEntry(this.lastShown)?.seq
    return before >= 0 && this.lastSeq !== before
  }

  /**
   * Makes `agent.messages` the stored window up to `message`, which stays its last message: the rows
   * other writers stored before it join this agent's view, so the conversation the model gets next is
   * the valid one the ledger holds. Rows stored after it stay out until the next invocation.
   */
  private showUpTo(message: Message): void {
    const window = this.ledger.window({ alternate: this.alternate })
    const end = window.findIndex((data) => mergedFrom(data).includes(message.trackingId))
    if (end >= 0) this.present(window.slice(0, end + 1), false)
  }

  /**
   * With `alternate`, a message that follows one of the same role within an invocation joins it, as
   * `window({ alternate: true })` would show them: the roles the model sees keep alternating.
   */
  private mergeWithPrevious(message: Message): void {
    const messages = this.agent.messages
    const at = messages.indexOf(message)
    const previous = messages[at - 1]
    if (at < 1 || previous === undefined || previous.role !== message.role) return
    const [merged] = this.ledger
      .window({ alternate: true })
      .filter((m) => m.trackingId === previous.trackingId)
    if (merged === undefined) return
    assignStoredForm(previous, merged)
    messages.splice(at, 1)
    this.track(previous)
  }

  /** Records a live message as seen in its current form. */
  private track(message: Message): void {
    this.tracked.set(message.trackingId, { message, key: keyOf(message), pinned: hasStrandsPin(message) })
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
    this.track(message)
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
    const seen = new Set<string>()
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i] as Message
      const pinned = hasStrandsPin(message)
      // A second message under a trackingId already met here is a copy (e.g. `clone()` of an earlier
      // message) sent again: new to the ledger, which stores it as a new occurrence.
      const duplicate = seen.has(message.trackingId)
      const tracked = duplicate ? undefined : this.tracked.get(message.trackingId)
      seen.add(message.trackingId)
      if (tracked === undefined) {
        if (i < lastKnown && !this.isSeed(seed, i, message) && !this.inLedger(message.trackingId)) {
          refusals.push(this.outOfOrder(message, i))
          refused.push(message)
          continue
        }
        // A message the ledger holds (loaded by another plugin, or the agent was built with it) is that
        // message, not a new one: adopted, with any change recorded as an edit.
        const known = duplicate ? undefined : this.storedEntry(message.trackingId)
        if (known !== undefined) {
          const key = keyOf(message)
          if (key !== contentKey(known.windowMessage ?? known.message)) this.edit(toLedgerMessage(message))
          if (pinned && !known.pinned) this.setPinned({ trackingId: message.trackingId }, true)
          this.track(message)
          continue
        }
        const stored = this.storeNew(message, pinned, seed?.[i])
        if (stored.refused !== undefined) {
          refusals.push(stored.refused)
          refused.push(message)
          continue
        }
        seen.add(message.trackingId)
        this.track(message)
        continue
      }
      // Replaced or edited in place (a redaction, a correction): the window shows the new form, and the
      // ledger's edit log records it; the archive keeps the original.
      const key = keyOf(message)
      if (key !== tracked.key) {
        const data = toLedgerMessage(message)
        if (mergedFrom(data).length > 1) this.refuseMergedEdit(data)
        else this.edit(data)
      }
      tracked.message = message
      tracked.key = key
      if (pinned !== tracked.pinned) {
        this.setPinned({ trackingId: message.trackingId }, pinned)
        tracked.pinned = pinned
      }
    }
    this.drop(refused)
    return refusals
  }

  /**
   * Makes `agent.messages` the window (see {@link present}), and notes the newest row it now holds.
   *
   * @param force - rebuild every message object
   */
  show(force: boolean): void {
    const window = this.ledger.window({ alternate: this.alternate })
    this.present(window, force)
    const last = window.at(-1)
    this.lastShown = last === undefined ? undefined : String(mergedFrom(last).at(-1))
    this.lastSeq = undefined
  }

  /**
   * Makes `agent.messages` exactly `shown` (window messages, in order). A live message already showing
   * one of them stays the same object — its pin flag set, and metadata changed by hand reverted (only
   * content edits and pin flags are recorded); any other gets a new message. `force` rebuilds them all.
   */
  private present(shown: readonly StoredMessageData[], force: boolean): void {
    const messages = this.agent.messages
    const live = new Map(force ? [] : messages.map((m) => [m.trackingId, m]))
    const next = shown.map((data) => {
      const known = live.get(data.trackingId)
      if (known === undefined) return fromLedgerMessage(data)
      // The content key adopt() recorded for this very object, or computed now.
      const seen = this.tracked.get(known.trackingId)
      if ((seen?.message === known ? seen.key : keyOf(known)) !== contentKey(data))
        return fromLedgerMessage(data)
      setStrandsPin(known, data.metadata?.custom?.pinned === true)
      if (JSON.stringify(known.metadata ?? null) !== JSON.stringify(data.metadata ?? null))
        assignStoredForm(known, data)
      return known
    })
    if (next.length !== messages.length || next.some((m, i) => m !== messages[i]))
      messages.splice(0, messages.length, ...next)
    this.tracked = new Map()
    for (const message of next) this.track(message)
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
    return this.storedEntry(trackingId) !== undefined
  }

  /** The session's message with this trackingId, if it holds one. */
  private storedEntry(trackingId: string): LedgerEntry | undefined {
    try {
      return this.ledger.message({ trackingId })
    } catch (error) {
      if (isContextLedgerError(error, 'MESSAGE_NOT_FOUND')) return undefined
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
      // A copy of an earlier message is stored as a new occurrence under a new trackingId: the live
      // message takes it, so agent.messages and the window name the same message.
      if (entry !== undefined && entry.trackingId !== data.trackingId)
        Object.assign(message, { trackingId: entry.trackingId })
    } catch (error) {
      if (!isContextLedgerError(error, 'INVALID_MESSAGE')) throw error
      const repaired = this.appendRepaired(message, data, error)
      if (repaired.refused !== undefined) return repaired
      entry = repaired.entry
    }
    if (pinned) this.setPinned({ trackingId: message.trackingId }, true)
    return { repairRow: entry?.repair, entry }
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
    const { message: repaired, repairs } = repairMessage(data, this.store.limits)
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

  /**
   * Appends; a trackingId the session holds as its newest message with other content is that message
   * changed (Strands merges continuation input into it): an edit.
   */
  private appendOrOverlay(data: MessageData): LedgerEntry | undefined {
    try {
      return this.ledger.append(data)
    } catch (error) {
      if (!isContextLedgerError(error, 'DUPLICATE_MESSAGE')) throw error
      this.edit(data as ReturnType<typeof toLedgerMessage>)
      return undefined
    }
  }

  /**
   * Records a change made in `agent.messages` as an edit: the window shows `data` in place of the
   * archived message with its trackingId. A change of role or tool ids cannot stand in for the original
   * without breaking tool pairs: it is logged, and the window (hence `agent.messages`, at the next
   * `show`) keeps the stored form.
   */
  private edit(data: ReturnType<typeof toLedgerMessage>): void {
    try {
      this.ledger.edit({ trackingId: data.trackingId }, data, STRANDS_EDIT)
    } catch (error) {
      if (
        !isContextLedgerError(error, 'INVALID_MESSAGE') &&
        !isContextLedgerError(error, 'MESSAGE_NOT_FOUND')
      )
        throw error
      this.logger.warn(
        logLine(
          { session_id: this.sessionId, tracking_id: data.trackingId, code: error.code },
          `change to a stored message not recorded, agent.messages shows the stored form again: ${error.message}`,
        ),
      )
    }
  }

  /** An edit of a merged message cannot be split back into its stored messages: logged, not recorded. */
  private refuseMergedEdit(data: MessageData): void {
    this.logger.warn(
      logLine(
        { session_id: this.sessionId, tracking_id: data.trackingId },
        'change to a merged message (alternate: true) not recorded, agent.messages shows the stored form again: edit the stored messages with manager.ledger.edit',
      ),
    )
  }

  private setPinned(ref: MessageRef, pinned: boolean): void {
    if (pinned) this.ledger.pin(ref, STRANDS_PIN)
    else this.ledger.unpin(ref, STRANDS_PIN)
  }
}
