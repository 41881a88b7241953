/**
 * `ledgerMiddleware`: the ledger as `createAgent` middleware. Every message of the graph state is
 * appended once (before each model call — the prompt and the tool results —, after it — the model's
 * message, durable as soon as it exists — and when the agent ends), and every model call is given the
 * session's window instead of the whole state: bounded, pins kept, tool pairs whole. The session is the
 * run's thread (`configurable.thread_id`) unless `sessionId` names one, so a restarted process resumes the
 * same window by thread id. With `keepStateToWindow` the graph state itself is cut to the window before
 * each model call, so a checkpointer stops storing ever-growing copies of the history.
 */
import { RemoveMessage, type BaseMessage } from '@langchain/core/messages'
import type { ToolRunnableConfig } from '@langchain/core/tools'
import { createMiddleware, type AgentMiddleware } from 'langchain'
import { ContextLedgerError } from '../../errors.js'
import type { ContextStore } from '../../store/context-store.js'
import { resolveWindowLimits } from '../../window/window-options.js'
import { warnWindowError } from '../window-keeper.js'
import { checkMiddlewareOptions, type LedgerLangChainStore, type LedgerMiddlewareOptions } from './options.js'
import { langchainSummarizer } from './summarize.js'
import { ThreadSession, type LedgerThread, type ThreadBehaviour } from './thread.js'
import { recallTools } from './tools.js'
import { shownThrough, withoutCallsInFlight, type ShownMessage } from './window.js'

/**
 * LangGraph's `REMOVE_ALL_MESSAGES` (`@langchain/langgraph`): a `RemoveMessage` with this id makes the
 * `messages` reducer drop every message before it. Written out here, as `langchain` re-exports nothing
 * of it and `@langchain/langgraph` is not a peer of this package.
 */
export const REMOVE_ALL_MESSAGES = '__remove_all__'

/** `ledgerMiddleware`'s middleware, with its sessions for application code. */
export type LedgerMiddleware<S extends LedgerLangChainStore = ContextStore> = AgentMiddleware & {
  /**
   * The session a run on this thread uses (`sessionId` when the middleware was given one): its window
   * and archive as LangChain messages, summaries on demand, and the core manager.
   *
   * @param threadId - the thread (may be omitted when the middleware has a `sessionId`)
   * @throws ContextLedgerError `INVALID_OPTIONS` when there is neither
   */
  session(threadId?: string): LedgerThread<S>
}

/**
 * The graph state update that replaces `messages` by the window, then `fresh`.
 *
 * @param shown - the window
 * @param fresh - messages not stored yet, kept after it as they are
 * @returns the update
 */
const windowState = (shown: readonly ShownMessage[], fresh: readonly BaseMessage[] = []) => ({
  messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...shown.map((s) => s.message), ...fresh],
})

/** How many threads' sessions a middleware keeps open in memory (their state is in the ledger). */
const OPEN_THREADS = 1000

/** The thread id of a run's config, when it has one. */
function threadIdOf(configurable: unknown): string | undefined {
  const id = (configurable as { thread_id?: unknown } | undefined)?.thread_id
  if (typeof id === 'number' && Number.isFinite(id)) return String(id)
  return typeof id === 'string' && id !== '' ? id : undefined
}

const noSession = (): ContextLedgerError =>
  new ContextLedgerError(
    'INVALID_OPTIONS',
    'Invalid sessionId: ledgerMiddleware has no session for this run: pass `sessionId` to ledgerMiddleware, or run the agent on a thread (`agent.invoke(input, { configurable: { thread_id } })`)',
    { path: 'sessionId' },
  )

/**
 * The ledger as `createAgent` middleware (see the module comment). Put it first in `middleware`: its
 * `wrapModelCall` is then the outermost (the others see the window) and its `afterModel` runs last (it
 * stores the model's message as the others left it).
 *
 * @param options - store, limits, summaries, and `sessionId` / `keepStateToWindow` / `tools`
 * @returns the middleware, with `session(threadId)`
 * @throws ContextLedgerError `INVALID_OPTIONS` naming a bad or unknown option
 *
 * @example
 * ```ts
 * const store = openContextStore('agent.db')
 * const agent = createAgent({ model, tools, middleware: [ledgerMiddleware({ store, windowSize: 40 })] })
 * await agent.invoke({ messages: [new HumanMessage('Where is my order?')] }, { configurable: { thread_id: 'support-42' } })
 * ```
 */
export function ledgerMiddleware<S extends LedgerLangChainStore = ContextStore>(
  options: LedgerMiddlewareOptions<S>,
): LedgerMiddleware<S> {
  const checked = checkMiddlewareOptions(options)
  const { store, sessionId, summarize, onError, keepStateToWindow, tools, name, ...limits } = checked
  const { tokenCounter: _counter, ...windowLimits } = limits
  resolveWindowLimits(windowLimits)
  const behaviour: ThreadBehaviour = {
    summarizer: summarize === undefined ? undefined : langchainSummarizer(summarize),
    onError: onError ?? warnWindowError('context-ledger/langchain'),
    owner: 'ledgerMiddleware',
  }
  const threads = new Map<string, ThreadSession<S>>()
  const session = (threadId: string | undefined): ThreadSession<S> => {
    const id = sessionId ?? threadId
    if (id === undefined) throw noSession()
    let thread = threads.get(id)
    if (thread !== undefined) return thread
    thread = new ThreadSession<S>({ ...limits, store, sessionId: id }, behaviour)
    if (threads.size >= OPEN_THREADS) threads.delete(threads.keys().next().value as string)
    threads.set(id, thread)
    return thread
  }
  const ofRun = (configurable: unknown) => session(threadIdOf(configurable))
  const keep = keepStateToWindow === true
  const middleware = createMiddleware({
    name: name ?? 'ContextLedger',
    // Stores nothing: the new messages stay in the state as they are, after the window, for the
    // middlewares whose beforeModel runs after this one to rewrite (piiMiddleware redacts the prompt and
    // tool results in place); wrapModelCall, after every beforeModel, stores them as they left them.
    ...(keep
      ? {
          beforeModel: async (state, runtime) => {
            const thread = ofRun(runtime.configurable)
            return thread.run(async () => {
              const fresh = await thread.unheld(state.messages, 'messages')
              // Another writer's calls in flight stay out of the state; this run's own are answered by
              // its results among `fresh` (stored by wrapModelCall), and stay.
              return windowState(withoutCallsInFlight(await thread.shown(), fresh), fresh)
            })
          },
        }
      : {}),
    wrapModelCall: async (request, handler) => {
      const thread = ofRun(request.runtime.configurable)
      const shown = await thread.run(async () => {
        await thread.sync(request.state.messages, 'messages')
        return withoutCallsInFlight(await thread.shown())
      })
      const reply = await handler({ ...request, messages: shown.map((s) => s.message) })
      thread.remember(shown, reply)
      return reply
    },
    // The model's message, as the middlewares after this one left it; with keepStateToWindow the state
    // is the window again, up to that message and with it last (what another writer stored since stays
    // out: createAgent routes on the last message — see shownThrough), so a checkpoint never holds more
    // than the window and one step's results.
    afterModel: async (state, runtime) => {
      const thread = ofRun(runtime.configurable)
      return thread.run(async () => {
        await thread.sync(state.messages, 'messages')
        if (!keep) return undefined
        const reply = state.messages.at(-1)
        return windowState(shownThrough(await thread.shown(), await thread.seqOf(reply), reply))
      })
    },
    afterAgent: async (state, runtime) => {
      const thread = ofRun(runtime.configurable)
      await thread.run(() => thread.sync(state.messages, 'messages'))
    },
    ...(tools === true
      ? { tools: recallTools((config: ToolRunnableConfig | undefined) => ofRun(config?.configurable)) }
      : {}),
  })
  return Object.assign(middleware, { session: (threadId?: string) => session(threadId) })
}
