/**
 * Keeps one Strands agent's `agent.messages` and the ledger in step: messages the agent adds or the user
 * pushes go to the store, changes made the Strands way (pin flags, replaced messages) are recorded, and
 * `agent.messages` is replaced in place by the window the store computes.
 *
 * This class is the adapter's single handle on an agent's view; each job lives in its own module:
 * adoption ({@link adoptMessages}), messages the agent adds ({@link mirrorAdded}), showing the window
 * ({@link present}), a view gone stale on a shared session (`shared-view.ts`), repair (`repair.ts`),
 * edits (`edits.ts`), pins (`pin-sync.ts`, `pin-tool.ts`), and messages held until the invocation ends
 * (`held.ts`): every call that reads or writes the session here writes the held messages first, in the
 * same transaction, so nothing ever sees the session without them.
 */
import type { Logger, LocalAgent, Message } from '@strands-agents/sdk'
import type { ContextLedgerError } from '../../../errors.js'
import type { PersistentConversationManager as LedgerManager } from '../../../manager/persistent-conversation-manager.js'
import type { LedgerEntry } from '../../../store/context-store.js'
import type { PinMessageToolResult } from '../../../tools/pin-message-tool.js'
import { logLine } from '../log.js'
import { mirrorAdded } from './added.js'
import { isRefusal } from './append.js'
import { adoptMessages } from './adopt.js'
import { HeldMessages, holdable, orderTrackingId } from './held.js'
import { runPinTool } from './pin-tool.js'
import { present } from './present.js'
import { showUpTo, ViewEnd } from './shared-view.js'
import { isSummary, TrackedMessages, type SyncContext } from './sync-context.js'

/**
 * When the messages an agent adds are written: `'invocation'`, together with the window at the end of the
 * invocation (or earlier, see `held.ts`); `'message'`, each in its own transaction as it arrives.
 */
export type Durability = 'invocation' | 'message'

/**
 * What the end of an invocation does to the window: `'slide'` applies the limits (what leaves the window
 * is evicted), `'keep'` leaves it (summaries without limits: Strands' summarizing manager does nothing
 * then), and a function folds the excess into a summary, outside any transaction.
 */
export type WindowAtEnd = 'slide' | 'keep' | (() => Promise<void>)

/** What a write of the held messages and the work after them came to. */
type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown }

/** One agent's view of one session. */
export class AgentSync {
  private readonly sync: SyncContext
  private readonly end = new ViewEnd()
  private readonly held = new HeldMessages()
  /**
   * Inside an invocation (between `BeforeInvocationEvent` and its end): only then are messages held. A
   * tool called directly (`agent.tool.x.invoke()`) adds its messages outside any invocation, and nothing
   * would write them before the next one.
   */
  private invoking = false

  /**
   * @param agent - the agent whose `messages` this keeps
   * @param ledger - the core manager of the session
   * @param logger - where repairs and refusals are reported
   * @param alternate - show the window with runs of same-role messages merged (roles strictly alternate)
   * @param durability - when added messages are written
   */
  constructor(
    agent: LocalAgent,
    ledger: LedgerManager,
    logger: Logger,
    alternate = false,
    private readonly durability: Durability = 'invocation',
  ) {
    this.sync = { agent, ledger, logger, alternate, tracked: new TrackedMessages() }
  }

  /** How many messages the agent added that are not written yet. */
  get heldCount(): number {
    return this.held.size
  }

  /** The agent whose `messages` this keeps. */
  get agent(): LocalAgent {
    return this.sync.agent
  }

  /**
   * Start: the agent's constructor messages join the session, then the agent sees the window. Refusals
   * are only logged: Strands caches a failed `initialize()` for good, so throwing here would break the
   * agent for its whole life.
   *
   * @param slide - apply the limits first (false with summaries: the excess is folded after the next
   *   invocation instead of dropped now)
   */
  restore(slide = true): void {
    const { agent, ledger } = this.sync
    const session = ledger.store.session(ledger.sessionId)
    // Messages built without a trackingId get a fresh one in every process; a seed the session already
    // starts with (same roles and content, same positions) is the same seed, not new messages.
    const seed =
      session !== undefined && session.messageCount > 0 && agent.messages.length > 0
        ? ledger.history({ limit: agent.messages.length })
        : undefined
    this.adopt(seed)
    if (slide && ledger.store.session(ledger.sessionId) !== undefined) ledger.applyWindow()
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
    if (isSummary(this.sync, message)) {
      // A summary stands for messages the ledger holds; stored again it would be a message of its own.
      this.sync.logger.warn(
        logLine(
          { session_id: this.sync.ledger.sessionId, tracking_id: message.trackingId },
          'summary message added to the conversation not stored; agent.messages shows the window again after the invocation: to send its text again, add a new message',
        ),
      )
      return
    }
    const minted = orderTrackingId(this.sync, this.held, message)
    if (this.durability === 'invocation' && this.invoking) {
      const count = this.sessionCount()
      const held = holdable(this.sync, this.held, message, count, minted)
      if (held !== undefined) {
        this.held.hold(held, count)
        return
      }
    }
    this.withHeld(() => mirrorAdded(this.sync, this.end, message))
  }

  /**
   * End of an invocation: the held messages, messages pushed meanwhile, and the window the limits call
   * for, written in one transaction; or, with summaries, the excess folded after that transaction (the
   * summarizer is a model call); then the agent sees the window.
   *
   * @param end - what happens to the window (see {@link WindowAtEnd})
   */
  async finish(end: WindowAtEnd = 'slide'): Promise<void> {
    this.invoking = false
    this.withHeld(() => {
      adoptMessages(this.sync)
      if (end === 'slide') this.sync.ledger.applyWindow()
    }, true)
    if (typeof end === 'function') await end()
    this.show(false)
  }

  /** `BeforeInvocationEvent`: messages the agent adds from now until the invocation ends may be held. */
  begin(): void {
    this.invoking = true
    this.summaryOnlyFolds = 0
  }

  /**
   * Overflow folds since the model last accepted its input that took nothing but the previous summary:
   * such a fold shrinks the window by no message, and a second one in a row is refused (see
   * `summary-reduction.ts`) — Strands would ask the model again forever.
   */
  summaryOnlyFolds = 0

  /** Writes the held messages now (in one transaction). */
  flush(): void {
    this.withHeld(() => undefined)
  }

  /**
   * Runs the `pin_message` tool: `index` is a position in `agent.messages` (see `pin-tool.ts`).
   *
   * @param input - the tool input as the model sent it
   * @returns the text for the model, with `status: 'error'` for input the model should correct
   */
  runPinTool(input: unknown): PinMessageToolResult {
    return this.withHeld(() => runPinTool(this.sync, input))
  }

  /**
   * Brings changes made to `agent.messages` outside the agent loop into the store (see `adopt.ts`).
   *
   * @param seed - at start, the session's first messages, to recognize a seed the session already has
   * @returns the refusals, in order (already logged)
   */
  adopt(seed?: readonly LedgerEntry[]): ContextLedgerError[] {
    return this.withHeld(() => adoptMessages(this.sync, seed))
  }

  /**
   * Makes `agent.messages` the window (see {@link present}), and notes the newest row it now holds.
   *
   * @param force - rebuild every message object
   */
  show(force: boolean): void {
    this.flush()
    const window = this.sync.ledger.window({ alternate: this.sync.alternate })
    present(this.sync, window, force)
    this.end.shown(window)
  }

  /** The session's message count, as stored. */
  private sessionCount(): number {
    const { ledger } = this.sync
    return ledger.store.messageCount(ledger.sessionId)
  }

  /**
   * Runs `work` after writing the held messages, in the same transaction: one commit for all of it.
   * A held message the store refuses is logged and dropped like any other (mirrorAdded), and its refusal
   * is thrown once the rest is committed; an error of `work` is thrown after the held messages are
   * committed (its own writes are undone, as each is a savepoint). When the transaction fails as a
   * whole, the messages are held again, to be written by the next call.
   *
   * @param work - what to do once the held messages are written
   * @param oneTransaction - run `work` in one transaction even when nothing is held (its writes commit
   *   together)
   * @returns what `work` returned
   */
  private withHeld<T>(work: () => T, oneTransaction = false): T {
    if (this.held.size === 0 && !oneTransaction) return work()
    const { ledger } = this.sync
    const held = this.held.take()
    // Set inside the transaction's callback (a closure, which the compiler's narrowing does not follow).
    const seen: { stale: boolean; refusal: ContextLedgerError | undefined } = {
      stale: false,
      refusal: undefined,
    }
    let outcome: Outcome<T>
    try {
      outcome = ledger.store.batch(ledger.sessionId, (): Outcome<T> => {
        for (const { message, form } of held) {
          try {
            // A view that missed another writer's rows is refreshed once, after `work`: refreshing up
            // to a held message would drop what follows it from agent.messages — the later held ones, and
            // the message being added, which Strands may answer next.
            seen.stale = mirrorAdded(this.sync, this.end, message, false, form) || seen.stale
          } catch (error) {
            if (!isRefusal(error)) throw error
            seen.refusal ??= error
          }
        }
        try {
          return { ok: true, value: work() }
        } catch (error) {
          return { ok: false, error }
        }
      })
    } catch (error) {
      this.held.restore(held)
      throw error
    }
    const last = this.sync.agent.messages.at(-1)
    if (seen.stale && last !== undefined) showUpTo(this.sync, last)
    if (!outcome.ok) throw outcome.error
    if (seen.refusal !== undefined) throw seen.refusal
    return outcome.value
  }
}
