/**
 * The recall and pin tools as LangChain tools (`tool()` with the core tools' zod schemas):
 * `search_history`, `read_history` and `pin_message`, each the core tool's description and handler
 * (src/tools/), answering with the text the model reads (an error result is text too, so the model can
 * correct its input). Each call finds its session through `resolve` — one fixed session for
 * {@link ledgerTools}, the run's thread for the middleware's own tools.
 */
import { tool, type StructuredTool, type ToolRunnableConfig } from '@langchain/core/tools'
import { PIN_MESSAGE_TOOL_DESCRIPTION, pinMessageInputSchema } from '../../tools/pin-message-tool.js'
import {
  handleReadHistory,
  handleSearchHistory,
  READ_HISTORY_TOOL_DESCRIPTION,
  readHistoryInputSchema,
  SEARCH_HISTORY_TOOL_DESCRIPTION,
  searchHistoryInputSchema,
  type AsyncRecallManager,
} from '../../tools/recall-tools.js'
import type { ContextStore } from '../../store/context-store.js'
import { runPin } from '../pin-runner.js'
import { warnWindowError } from '../window-keeper.js'
import { checkToolsOptions, type LedgerLangChainStore, type LedgerToolsOptions } from './options.js'
import { ThreadSession } from './thread.js'

/** Finds the session a tool call reads, from the call's config. */
export type ResolveThread = (config: ToolRunnableConfig | undefined) => ThreadSession

/**
 * The three tools over sessions found by `resolve`.
 *
 * @param resolve - the session of a call
 * @returns `search_history`, `read_history`, `pin_message`
 */
export function recallTools(resolve: ResolveThread): StructuredTool[] {
  // Either backend's manager: the handlers answer at once on SQLite and with a Promise on PostgreSQL.
  const recall = (config: ToolRunnableConfig | undefined) => resolve(config).port.recall as AsyncRecallManager
  return [
    tool(async (input, config) => (await handleSearchHistory(recall(config), input)).text, {
      name: 'search_history',
      description: SEARCH_HISTORY_TOOL_DESCRIPTION,
      schema: searchHistoryInputSchema,
    }),
    tool(async (input, config) => (await handleReadHistory(recall(config), input)).text, {
      name: 'read_history',
      description: READ_HISTORY_TOOL_DESCRIPTION,
      schema: readHistoryInputSchema,
    }),
    tool(
      async (input, config) => {
        const thread = resolve(config)
        // The call's own id: pin_message resolves positions against what the model that made it saw.
        const callId = (config as ToolRunnableConfig | undefined)?.toolCall?.id
        return thread.run(async () => runPin(thread.port, await thread.pinTarget(callId), input))
      },
      { name: 'pin_message', description: PIN_MESSAGE_TOOL_DESCRIPTION, schema: pinMessageInputSchema },
    ),
  ]
}

/**
 * The recall and pin tools of one session, for `createAgent({ tools })` or any LangChain agent: full-text
 * search of the whole conversation (evicted messages included), reading messages by seq, and pinning a
 * message of the window by its position in what the model sees. (`ledgerMiddleware({ tools: true })`
 * gives an agent the same tools, each call reading its run's thread.)
 *
 * @param options - store, session id (and the window limits, if the session is also written elsewhere with them)
 * @returns `search_history`, `read_history`, `pin_message`
 * @throws ContextLedgerError `INVALID_OPTIONS` naming a bad or unknown option
 *
 * @example
 * ```ts
 * const agent = createAgent({ model, tools: [...myTools, ...ledgerTools({ store, sessionId: 'support-42' })] })
 * ```
 */
export function ledgerTools<S extends LedgerLangChainStore = ContextStore>(
  options: LedgerToolsOptions<S>,
): StructuredTool[] {
  const checked = checkToolsOptions(options)
  const thread = new ThreadSession(checked, {
    summarizer: undefined,
    onError: warnWindowError('context-ledger/langchain'),
    owner: 'ledgerTools',
  })
  return recallTools(() => thread)
}
