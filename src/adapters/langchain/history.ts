/**
 * `LedgerChatMessageHistory`: LangChain's chat-history interface on the ledger, for
 * `RunnableWithMessageHistory` and the chains and memories that take a `BaseChatMessageHistory`. What it
 * hands back (`getMessages()`) is the session's window — bounded, pins kept, tool pairs whole — and every
 * message it is given is stored once, exactly as LangChain serializes it, and never deleted.
 */
import type { BaseMessage } from '@langchain/core/messages'
import { BaseListChatMessageHistory } from '@langchain/core/chat_history'
import type { SummarizeOptions } from '../../manager/manager-options.js'
import type { ContextStore } from '../../store/context-store.js'
import type { SummarizeResult } from '../../summaries/summarize.js'
import { warnWindowError } from '../window-keeper.js'
import {
  checkHistoryOptions,
  type LedgerChatMessageHistoryOptions,
  type LedgerLangChainStore,
} from './options.js'
import { langchainSummarizer } from './summarize.js'
import { ThreadSession, type LedgerHistoryOptions, type LedgerManagerOf } from './thread.js'

/**
 * A chat message history kept in the ledger (see the module comment).
 *
 * @example
 * ```ts
 * const store = openContextStore('chat.db')
 * const chain = new RunnableWithMessageHistory({
 *   runnable: prompt.pipe(model),
 *   getMessageHistory: (sessionId) => new LedgerChatMessageHistory({ store, sessionId, windowSize: 30 }),
 *   inputMessagesKey: 'question',
 *   historyMessagesKey: 'history',
 * })
 * ```
 */
export class LedgerChatMessageHistory<
  S extends LedgerLangChainStore = ContextStore,
> extends BaseListChatMessageHistory {
  /** LangChain's serialization namespace of this class. */
  lc_namespace = ['context_ledger', 'langchain', 'chat_history']
  /** The ledger session's id. */
  readonly sessionId: string
  /** The core manager underneath (on PostgreSQL, its calls awaited): pins, search, redaction, explain. */
  readonly ledger: LedgerManagerOf<S>
  private readonly thread: ThreadSession<S>

  /**
   * @param options - store, session id, window limits, summaries, token counter, `onError`
   * @throws ContextLedgerError `INVALID_OPTIONS` naming a bad or unknown option
   */
  constructor(options: LedgerChatMessageHistoryOptions<S>) {
    super()
    const { summarize, onError, ...session } = checkHistoryOptions(options)
    this.thread = new ThreadSession<S>(session, {
      summarizer: summarize === undefined ? undefined : langchainSummarizer(summarize),
      onError: onError ?? warnWindowError('context-ledger/langchain'),
      owner: 'LedgerChatMessageHistory',
    })
    this.sessionId = this.thread.sessionId
    this.ledger = this.thread.ledger
  }

  /** The window as LangChain messages: what a chain gives its model as the history. */
  async getMessages(): Promise<BaseMessage[]> {
    return this.thread.window()
  }

  /**
   * Stores a message (see {@link addMessages}).
   *
   * @throws ContextLedgerError `INVALID_MESSAGE` with a path (nothing written)
   */
  async addMessage(message: BaseMessage): Promise<void> {
    await this.addMessages([message])
  }

  /**
   * Stores messages, all or none, after checking each with LangChain's own (de)serialization (its
   * `toDict()` must revive through `mapStoredMessagesToChatMessages`); then keeps the window within its
   * limits. A message whose id the session holds with equal content writes nothing, one the window
   * handed out under a `context-ledger:` id is the ledger's already; other content under a stored id, or
   * a `context-ledger:` id that names nothing the session showed with that content, is refused.
   *
   * @throws ContextLedgerError `INVALID_MESSAGE` with a path (`[1].data.tool_call_id`; nothing written)
   */
  override async addMessages(messages: BaseMessage[]): Promise<void> {
    await this.thread.run(() => this.thread.add(messages))
  }

  /**
   * Starts the conversation afresh: `getMessages()` is empty afterwards. Nothing is deleted — a marker
   * row hides what the window held before it (`history()`, search and the recall tools still find
   * everything); to erase for privacy, use `ledger.redact` or the store's `deleteSession`.
   */
  override async clear(): Promise<void> {
    await this.thread.run(() => this.thread.clear())
  }

  /**
   * The archive as LangChain messages, oldest first: every message ever stored, evicted and cleared ones
   * included.
   */
  async history(options?: LedgerHistoryOptions): Promise<BaseMessage[]> {
    return this.thread.history(options)
  }

  /**
   * Folds the oldest part of the window into a summary written by the configured model.
   *
   * @throws ContextLedgerError `INVALID_OPTIONS` when no `summarize` was configured
   */
  async summarize(options?: SummarizeOptions): Promise<SummarizeResult> {
    return this.thread.summarize(options)
  }
}
