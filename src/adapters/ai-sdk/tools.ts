/**
 * The recall and pin tools as AI SDK `tool()`s: `search_history`, `read_history` and `pin_message`, each
 * the core tool's zod input schema, description and handler (src/tools/), answering with the text the
 * model reads (an error result is text too, so the model can correct its input).
 */
import { convertToModelMessages, tool, type Tool, type UIMessage } from 'ai'
import type { PersistentConversationManager } from '../../manager/persistent-conversation-manager.js'
import {
  handlePinMessage,
  PIN_MESSAGE_TOOL_DESCRIPTION,
  pinMessageInputSchema,
  type PinMessageInput,
  type PinMessageTarget,
} from '../../tools/pin-message-tool.js'
import {
  handleReadHistory,
  handleSearchHistory,
  READ_HISTORY_TOOL_DESCRIPTION,
  readHistoryInputSchema,
  SEARCH_HISTORY_TOOL_DESCRIPTION,
  searchHistoryInputSchema,
  type RecallToolOptions,
} from '../../tools/recall-tools.js'
import type { z } from 'zod'

/** The session's tools, to spread into `tools` of `generateText` / `streamText` / `ToolLoopAgent`. */
export interface LedgerTools {
  /** Full-text search of the whole conversation, evicted messages first. */
  readonly search_history: Tool<z.infer<typeof searchHistoryInputSchema>, string>
  /** Reads messages by seq, evicted ones included. */
  readonly read_history: Tool<z.infer<typeof readHistoryInputSchema>, string>
  /** Pins (or unpins) a message of the window the model sees. */
  readonly pin_message: Tool<PinMessageInput, string>
}

/**
 * How the model's `pin_message` index maps to the window of a `'ui'` session: the model sees each UI
 * message as the ModelMessages `convertToModelMessages` makes of it.
 */
async function uiTarget(manager: PersistentConversationManager): Promise<PinMessageTarget> {
  const window = manager.window() as unknown as UIMessage[]
  const owner: number[] = []
  for (const [i, m] of window.entries())
    for (let k = (await convertToModelMessages([m])).length; k > 0; k--) owner.push(i)
  return { count: owner.length, resolve: (index) => ({ windowIndex: owner[index] ?? index }) }
}

/**
 * The tools of a session.
 *
 * @param manager - the session's core manager
 * @param format - `'model'` (the model sees the window as is) or `'ui'` (as converted)
 * @param options - the recall tools' options
 * @returns the tools
 */
export function ledgerTools(
  manager: PersistentConversationManager,
  format: 'model' | 'ui',
  options?: RecallToolOptions,
): LedgerTools {
  return {
    search_history: tool({
      description: SEARCH_HISTORY_TOOL_DESCRIPTION,
      inputSchema: searchHistoryInputSchema,
      execute: (input) => Promise.resolve(handleSearchHistory(manager, input, options).text),
    }),
    read_history: tool({
      description: READ_HISTORY_TOOL_DESCRIPTION,
      inputSchema: readHistoryInputSchema,
      execute: (input) => Promise.resolve(handleReadHistory(manager, input, options).text),
    }),
    pin_message: tool({
      description: PIN_MESSAGE_TOOL_DESCRIPTION,
      inputSchema: pinMessageInputSchema,
      execute: async (input: PinMessageInput) => {
        const target = format === 'ui' ? await uiTarget(manager) : undefined
        return handlePinMessage(manager, input, { target }).text
      },
    }),
  }
}
