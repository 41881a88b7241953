/**
 * The recall and pin tools as AI SDK `tool()`s: `search_history`, `read_history` and `pin_message`, each
 * the core tool's zod input schema, description and handler (src/tools/), answering with the text the
 * model reads (an error result is text too, so the model can correct its input).
 */
import { tool, type ModelMessage, type Tool, type UIMessage } from 'ai'
import {
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
  type AsyncRecallManager,
  type RecallToolOptions,
} from '../../tools/recall-tools.js'
import { runPin } from '../pin-runner.js'
import type { LedgerPort } from '../port.js'
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

/** How the model's `pin_message` index maps to a message: each window message is `counts[i]` of them. */
async function targetOf(
  port: LedgerPort,
  format: 'model' | 'ui',
  toModel: ToModel,
): Promise<PinMessageTarget> {
  if (format === 'model') {
    const count = await port.windowCount()
    return { count, resolve: (windowIndex) => ({ windowIndex }) }
  }
  // A 'ui' session: the model sees each UI message as the ModelMessages `convertToModelMessages` makes.
  const window = (await port.window()) as unknown as UIMessage[]
  const owner: number[] = []
  for (const [i, m] of window.entries()) for (let k = (await toModel([m])).length; k > 0; k--) owner.push(i)
  return { count: owner.length, resolve: (index) => ({ windowIndex: owner[index] ?? index }) }
}

/** Converts UI messages to the ModelMessages the model sees (the session's `convertToModelMessages`). */
export type ToModel = (messages: UIMessage[]) => Promise<ModelMessage[]>

/**
 * The tools of a session.
 *
 * @param port - the session's store access
 * @param format - `'model'` (the model sees the window as is) or `'ui'` (as converted by `toModel`)
 * @param toModel - the session's conversion of UI messages
 * @param options - the recall tools' options
 * @returns the tools
 */
export function ledgerTools(
  port: LedgerPort,
  format: 'model' | 'ui',
  toModel: ToModel,
  options?: RecallToolOptions,
): LedgerTools {
  // Either backend's manager: the handlers answer at once on SQLite and with a Promise on PostgreSQL.
  const recall = port.recall as AsyncRecallManager
  return {
    search_history: tool({
      description: SEARCH_HISTORY_TOOL_DESCRIPTION,
      inputSchema: searchHistoryInputSchema,
      execute: async (input) => (await handleSearchHistory(recall, input, options)).text,
    }),
    read_history: tool({
      description: READ_HISTORY_TOOL_DESCRIPTION,
      inputSchema: readHistoryInputSchema,
      execute: async (input) => (await handleReadHistory(recall, input, options)).text,
    }),
    pin_message: tool({
      description: PIN_MESSAGE_TOOL_DESCRIPTION,
      inputSchema: pinMessageInputSchema,
      execute: async (input: PinMessageInput) => runPin(port, await targetOf(port, format, toModel), input),
    }),
  }
}
