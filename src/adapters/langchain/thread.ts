/**
 * One ledger session seen from LangChain: what the middleware (per thread), the chat history and the
 * tools share — the session's queue (one call's read-then-write never interleaves with another's in this
 * process), the window keeper (a write never fails once its messages are stored), the format check, and
 * the window and archive as LangChain messages.
 */
import { randomUUID } from 'node:crypto'
import { AIMessage, type BaseMessage } from '@langchain/core/messages'
import { isContextLedgerError } from '../../errors.js'
import type { PersistentConversationManager } from '../../manager/persistent-conversation-manager.js'
import type { SummarizeOptions } from '../../manager/manager-options.js'
import type { MessageLimits } from '../../messages/limits.js'
import { invalidOption } from '../../store/check-args.js'
import type { LedgerEntry } from '../../store/store-types.js'
import type { SummarizeResult, Summarizer } from '../../summaries/summarize.js'
import { formatGuard, openPort, type LedgerPort } from '../port.js'
import type { PortPinTarget } from '../pin-runner.js'
import { serial, sessionState, type SessionState } from '../session-queue.js'
import type { AdapterSessionOptions, AdapterStore } from '../session-options.js'
import type { AsyncContextStore, AsyncLedgerManager } from '../strands/async-ledger.js'
import { WindowKeeper, type WindowErrorHandler } from '../window-keeper.js'
import { isLedgerId } from './messages.js'
import { appendMessages, heldPrefix, syncMessages } from './sync.js'
import { afterClear, archivedMessages, clearMarker, shownMessages, type ShownMessage } from './window.js'

/** The message format of the adapter's sessions. */
export const LANGCHAIN_FORMAT = 'langchain' as const

/** The core manager under a session: SQLite's, or for a PostgreSQL store its manager. */
export type LedgerManagerOf<S> = S extends AsyncContextStore
  ? AsyncLedgerManager
  : PersistentConversationManager

/** Options of {@link LedgerThread.history}. */
export interface LedgerHistoryOptions {
  /** The first seq (default 0). */
  readonly fromSeq?: number | undefined
  /** Most messages (default: all from `fromSeq` on). */
  readonly limit?: number | undefined
}

/** A session for application code: its window and archive as LangChain messages, and its ledger. */
export interface LedgerThread<S extends AdapterStore = AdapterStore> {
  /** The ledger session's id. */
  readonly sessionId: string
  /** The core manager underneath (on PostgreSQL, its calls awaited): pins, search, redaction, explain. */
  readonly ledger: LedgerManagerOf<S>
  /** What the model is given: the window, pins kept, tool pairs whole, repairs expanded, notes off. */
  window(): Promise<BaseMessage[]>
  /**
   * The archive as LangChain messages, oldest first: every message ever stored, evicted ones included,
   * and the rows the ledger wrote (repairs, clear markers) under `context-ledger:` ids.
   */
  history(options?: LedgerHistoryOptions): Promise<BaseMessage[]>
  /**
   * Folds the oldest part of the window into a summary written by the configured model (the core's
   * `summarize` rules).
   *
   * @throws ContextLedgerError `INVALID_OPTIONS` when no `summarize` was configured
   */
  summarize(options?: SummarizeOptions): Promise<SummarizeResult>
}

/** How a thread behaves besides its session. */
export interface ThreadBehaviour {
  /** Folds what the limits would evict, when configured. */
  readonly summarizer: Summarizer | undefined
  /** Told of a failure to keep the window within its limits after a write. */
  readonly onError: WindowErrorHandler
  /** The public object it serves, for errors (`ledgerMiddleware`). */
  readonly owner: string
}

const PAGE = 500

/** How many tool calls' views a session remembers for `pin_message` (the newest). */
const VIEWS = 256

/** Per session (its queue's state: one per store object and session id), the view of each tool call. */
const sessionViews = new WeakMap<SessionState, Map<string, readonly ShownMessage[]>>()

function viewsOf(state: SessionState): Map<string, readonly ShownMessage[]> {
  let views = sessionViews.get(state)
  if (views === undefined) sessionViews.set(state, (views = new Map<string, readonly ShownMessage[]>()))
  return views
}

/** The session behind every LangChain adapter object (see the module comment). */
export class ThreadSession<S extends AdapterStore = AdapterStore> implements LedgerThread<S> {
  readonly sessionId: string
  readonly ledger: LedgerManagerOf<S>
  readonly port: LedgerPort
  /** What the model was given at its last call through this object, for `pin_message`'s positions. */
  lastShown: readonly ShownMessage[] | undefined
  private readonly queue: SessionState
  private readonly keeper: WindowKeeper
  private readonly limits: Readonly<MessageLimits>
  /** Refuses a session of another format (a Strands, AI SDK or OpenAI Agents session under this id). */
  private readonly checkFormat: () => Promise<void>

  /**
   * @param options - store, session id, window limits and token counter
   * @param behaviour - summaries, error handler, owner
   * @throws ContextLedgerError `INVALID_OPTIONS` for a bad limit
   */
  constructor(
    options: AdapterSessionOptions<S>,
    private readonly behaviour: ThreadBehaviour,
  ) {
    const { store, ...core } = options
    const opened = openPort(store, { ...core, format: LANGCHAIN_FORMAT })
    this.ledger = opened.ledger as LedgerManagerOf<S>
    this.port = opened.port
    this.sessionId = options.sessionId
    this.limits = store.limits
    this.queue = sessionState(store, options.sessionId)
    this.keeper = new WindowKeeper(this.port, behaviour.summarizer, behaviour.onError)
    this.checkFormat = formatGuard(this.port, this.sessionId, LANGCHAIN_FORMAT)
  }

  /**
   * Runs `fn` after every call queued on the session before it (in this process).
   *
   * @param fn - the work
   * @returns its result
   */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return serial(this.queue, fn)
  }

  /**
   * Appends what `messages` holds that the ledger does not (see sync.ts), then keeps the limits. Call
   * inside {@link run}.
   *
   * @param messages - the graph state's messages
   * @param root - their name in error paths
   * @returns how many were appended
   */
  async sync(messages: readonly BaseMessage[], root: string): Promise<number> {
    await this.checkFormat()
    const written = await syncMessages(this.port, messages, root, this.limits)
    if (written > 0) await this.keeper.settle()
    return written
  }

  /**
   * The messages of `messages` the ledger does not hold yet (see sync.ts), without storing them. Call
   * inside {@link run}.
   *
   * @param messages - the graph state's messages
   * @param root - their name in error paths
   * @returns the new messages, in order
   */
  async unheld(messages: readonly BaseMessage[], root: string): Promise<BaseMessage[]> {
    await this.checkFormat()
    return messages.slice(await heldPrefix(this.port, messages, root, this.limits))
  }

  /**
   * Appends messages once by id (a chat history's), then keeps the limits. Call inside {@link run}.
   *
   * @param messages - the caller's messages
   */
  async add(messages: readonly unknown[]): Promise<void> {
    await this.checkFormat()
    if ((await appendMessages(this.port, messages, this.limits)) > 0) await this.keeper.settle()
  }

  /** What the model sees now, with its rows. Call inside {@link run}. */
  async shown(): Promise<ShownMessage[]> {
    await this.checkFormat()
    await this.keeper.beforeRead()
    return shownMessages(this.port)
  }

  /**
   * The seq of the row holding `message`, found by its own id (undefined for none, or an id the ledger
   * gave). Call inside {@link run}.
   *
   * @param message - a message of the graph state
   */
  async seqOf(message: BaseMessage | undefined): Promise<number | undefined> {
    const id = message?.id
    if (typeof id !== 'string' || id === '' || isLedgerId(id)) return undefined
    return (await this.port.byTrackingId(id))?.seq
  }

  window(): Promise<BaseMessage[]> {
    return this.run(async () => (await this.shown()).map((s) => s.message))
  }

  async history(options: LedgerHistoryOptions = {}): Promise<BaseMessage[]> {
    const from = options.fromSeq ?? 0
    const limit = options.limit ?? Infinity
    if (!Number.isInteger(from) || from < 0) throw invalidOption('fromSeq', 'expected an integer ≥ 0')
    if (limit !== Infinity && (!Number.isInteger(limit) || limit < 1))
      throw invalidOption('limit', 'expected an integer ≥ 1')
    const entries: LedgerEntry[] = []
    for (let seq = from; entries.length < limit;) {
      const page = await this.port.history(seq, Math.min(PAGE, limit - entries.length))
      entries.push(...page)
      if (page.length === 0) break
      seq = (page.at(-1) as LedgerEntry).seq + 1
    }
    return archivedMessages(entries)
  }

  summarize(options: SummarizeOptions = {}): Promise<SummarizeResult> {
    const summarizer = this.behaviour.summarizer
    if (summarizer === undefined)
      return Promise.reject(
        invalidOption(
          'summarize',
          `nothing to summarize with: pass \`summarize: { model }\` to ${this.behaviour.owner}`,
        ),
      )
    return this.run(async () => {
      await this.checkFormat()
      return this.port.summarize(summarizer, options)
    })
  }

  /**
   * Hides what the window shows behind a marker row, deleting nothing (see window.ts); pinned messages
   * it hides keep the marker pinned, so they never come back into view. Call inside {@link run}.
   */
  async clear(): Promise<void> {
    await this.checkFormat()
    for (let attempt = 1; ; attempt++) {
      const count = await this.port.messageCount()
      const shown = afterClear(await this.port.windowEntries(), (e) => e.message)
      if (shown.length === 0) return
      try {
        const [marker] = await this.port.append([clearMarker(randomUUID())], { expectCount: count })
        if (marker !== undefined && shown.some((e) => e.pinned))
          await this.port.pin({ seq: marker.seq }, true, { actor: 'context-ledger', reason: 'clear' })
        await this.keeper.settle()
        return
      } catch (error) {
        if (!isContextLedgerError(error, 'APPEND_CONFLICT') || attempt >= 8) throw error
      }
    }
  }

  /**
   * Records what the model was given, for `pin_message`: the view of each tool call the model made
   * from it (whichever object of this session runs the tool: `ledgerTools` beside the middleware), and
   * the last view of this object.
   *
   * @param shown - what the model was given
   * @param reply - what it answered
   */
  remember(shown: readonly ShownMessage[], reply: unknown): void {
    this.lastShown = shown
    if (!AIMessage.isInstance(reply)) return
    const views = viewsOf(this.queue)
    for (const call of reply.tool_calls ?? []) {
      if (call.id === undefined) continue
      views.delete(call.id)
      views.set(call.id, shown)
      if (views.size > VIEWS) views.delete(views.keys().next().value as string)
    }
  }

  /**
   * `pin_message`'s view, each message resolving to its row (the summary cannot be pinned): what the
   * model was given when it made the call `callId` — not the view of another run's model call on the
   * thread since, nor the window after storing the model's message evicted its oldest — else what this
   * object last gave a model, else the window now. Call inside {@link run}.
   *
   * @param callId - the id of the `pin_message` call, when known
   */
  async pinTarget(callId?: string): Promise<PortPinTarget> {
    const view = callId === undefined ? undefined : viewsOf(this.queue).get(callId)
    const shown = view ?? this.lastShown ?? (await this.shown())
    return {
      count: shown.length,
      resolve: (i) => ({ seq: shown[i]?.seq ?? -1 }),
      refusal: (i) =>
        shown[i]?.seq === undefined
          ? `Message ${i} is the summary of earlier messages; it cannot be pinned (read the messages it stands for with read_history, and pin those).`
          : undefined,
    }
  }
}
