/**
 * Keeps one Strands agent's `agent.messages` and the ledger in step: messages the agent adds or the user
 * pushes go to the store, changes made the Strands way (pin flags, replaced messages) are recorded, and
 * `agent.messages` is replaced in place by the window the store computes.
 *
 * This class is the adapter's single handle on an agent's view; each job lives in its own module:
 * adoption ({@link adoptMessages}), messages the agent adds ({@link mirrorAdded}), showing the window
 * ({@link present}), a view gone stale on a shared session (`shared-view.ts`), repair (`repair.ts`),
 * edits (`edits.ts`) and pins (`pin-sync.ts`, `pin-tool.ts`).
 */
import type { Logger, LocalAgent, Message } from '@strands-agents/sdk'
import type { ContextLedgerError } from '../../../errors.js'
import type { PersistentConversationManager as LedgerManager } from '../../../manager/persistent-conversation-manager.js'
import type { LedgerEntry } from '../../../store/context-store.js'
import type { PinMessageToolResult } from '../../../tools/pin-message-tool.js'
import { mirrorAdded } from './added.js'
import { adoptMessages } from './adopt.js'
import { runPinTool } from './pin-tool.js'
import { present } from './present.js'
import { ViewEnd } from './shared-view.js'
import { TrackedMessages, type SyncContext } from './sync-context.js'

/** One agent's view of one session. */
export class AgentSync {
  private readonly sync: SyncContext
  private readonly end = new ViewEnd()

  /**
   * @param agent - the agent whose `messages` this keeps
   * @param ledger - the core manager of the session
   * @param logger - where repairs and refusals are reported
   * @param alternate - show the window with runs of same-role messages merged (roles strictly alternate)
   */
  constructor(agent: LocalAgent, ledger: LedgerManager, logger: Logger, alternate = false) {
    this.sync = { agent, ledger, logger, alternate, tracked: new TrackedMessages() }
  }

  /** The agent whose `messages` this keeps. */
  get agent(): LocalAgent {
    return this.sync.agent
  }

  /**
   * Start: the agent's constructor messages join the session, then the agent sees the window. Refusals
   * are only logged: Strands caches a failed `initialize()` for good, so throwing here would break the
   * agent for its whole life.
   */
  restore(): void {
    const { agent, ledger } = this.sync
    const session = ledger.store.session(ledger.sessionId)
    // Messages built without a trackingId get a fresh one in every process; a seed the session already
    // starts with (same roles and content, same positions) is the same seed, not new messages.
    const seed =
      session !== undefined && session.messageCount > 0 && agent.messages.length > 0
        ? ledger.history({ limit: agent.messages.length })
        : undefined
    this.adopt(seed)
    if (ledger.store.session(ledger.sessionId) !== undefined) ledger.applyWindow()
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
    mirrorAdded(this.sync, this.end, message)
  }

  /**
   * Runs the `pin_message` tool: `index` is a position in `agent.messages` (see `pin-tool.ts`).
   *
   * @param input - the tool input as the model sent it
   * @returns the text for the model, with `status: 'error'` for input the model should correct
   */
  runPinTool(input: unknown): PinMessageToolResult {
    return runPinTool(this.sync, input)
  }

  /**
   * Brings changes made to `agent.messages` outside the agent loop into the store (see `adopt.ts`).
   *
   * @param seed - at start, the session's first messages, to recognize a seed the session already has
   * @returns the refusals, in order (already logged)
   */
  adopt(seed?: readonly LedgerEntry[]): ContextLedgerError[] {
    return adoptMessages(this.sync, seed)
  }

  /**
   * Makes `agent.messages` the window (see {@link present}), and notes the newest row it now holds.
   *
   * @param force - rebuild every message object
   */
  show(force: boolean): void {
    const window = this.sync.ledger.window({ alternate: this.sync.alternate })
    present(this.sync, window, force)
    this.end.shown(window)
  }
}
