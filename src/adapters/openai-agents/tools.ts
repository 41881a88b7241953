/**
 * The recall and pin tools as the OpenAI Agents SDK's function tools: `search_history`, `read_history`
 * and `pin_message`, each the core tool's zod input schema, description and handler (src/tools/),
 * answering with the text the model reads (an error result is text too, so the model can correct its
 * input). The parameters are the zod schemas as JSON Schema, not strict (the schemas have optional
 * fields, which OpenAI's strict mode refuses); the core handlers check the input themselves.
 */
import { tool, type FunctionTool } from '@openai/agents'
import { z } from 'zod'
import { PIN_MESSAGE_TOOL_DESCRIPTION, pinMessageInputSchema } from '../../tools/pin-message-tool.js'
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
import { runPin, type PortPinTarget } from '../pin-runner.js'
import type { LedgerPort } from '../port.js'
import type { VisibleItem } from './visible.js'

/** The session's tools, to add to an `Agent`'s `tools`. */
export interface LedgerTools {
  /** Full-text search of the whole conversation, evicted and withdrawn items included. */
  readonly search_history: LedgerTool
  /** Reads items by seq, evicted ones included. */
  readonly read_history: LedgerTool
  /** Pins (or unpins) an item of what the model sees, by its position. */
  readonly pin_message: LedgerTool
  /** The three, as an array for `new Agent({ tools: [...session.tools.all] })`. */
  readonly all: readonly LedgerTool[]
}

/** One of the session's function tools. */
export type LedgerTool = FunctionTool<unknown, Parameters, string>

type Parameters = {
  type: 'object'
  properties: Record<string, never>
  required: never[]
  additionalProperties: true
}

/** A zod object schema as the non-strict JSON Schema the SDK's `tool()` takes. */
function jsonSchema(schema: z.ZodType): Parameters {
  const json = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>
  const { $schema: _version, ...rest } = json
  return { ...rest, additionalProperties: true } as unknown as Parameters
}

/** What the model sees as a pin target: each item by its row; a summary cannot be pinned; reasoning goes along. */
function targetOf(shown: readonly VisibleItem[]): PortPinTarget {
  const seqOf = (i: number): number | undefined => shown[i]?.seq
  return {
    count: shown.length,
    resolve: (i) => ({ seq: seqOf(i) ?? -1 }),
    refusal: (i) =>
      seqOf(i) === undefined
        ? `Message ${i} is the summary of earlier messages; it cannot be pinned (pin the messages it stands for by reading them with read_history).`
        : undefined,
    // A reasoning item goes with the output item after it: pinned with it, so the window keeps them together.
    companions: (i) => {
      const refs: { seq: number }[] = []
      for (let k = i - 1; k >= 0 && shown[k]?.item.type === 'reasoning'; k--) {
        const seq = seqOf(k)
        if (seq !== undefined) refs.push({ seq })
      }
      return refs
    },
  }
}

/**
 * The tools of a session.
 *
 * @param port - the session's store access
 * @param shown - what the model sees now (the session's `getItems()` with seqs)
 * @param options - the recall tools' options
 * @returns the tools
 */
export function ledgerTools(
  port: LedgerPort,
  shown: () => Promise<VisibleItem[]>,
  options?: RecallToolOptions,
): LedgerTools {
  // Either backend's manager: the handlers answer at once on SQLite and with a Promise on PostgreSQL.
  const recall = port.recall as AsyncRecallManager
  const search_history = tool({
    name: 'search_history',
    description: SEARCH_HISTORY_TOOL_DESCRIPTION,
    parameters: jsonSchema(searchHistoryInputSchema),
    strict: false,
    execute: async (input: unknown) => (await handleSearchHistory(recall, input, options)).text,
  })
  const read_history = tool({
    name: 'read_history',
    description: READ_HISTORY_TOOL_DESCRIPTION,
    parameters: jsonSchema(readHistoryInputSchema),
    strict: false,
    execute: async (input: unknown) => (await handleReadHistory(recall, input, options)).text,
  })
  const pin_message = tool({
    name: 'pin_message',
    description: PIN_MESSAGE_TOOL_DESCRIPTION,
    parameters: jsonSchema(pinMessageInputSchema),
    strict: false,
    execute: async (input: unknown) => runPin(port, targetOf(await shown()), input),
  })
  return { search_history, read_history, pin_message, all: [search_history, read_history, pin_message] }
}
