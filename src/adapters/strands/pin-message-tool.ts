/**
 * `pinMessageTool`: the `pin_message` tool as a Strands tool. `index` is a position in the messages the
 * agent currently sees (`agent.messages`). With the ledger's conversation manager the pin is recorded in
 * the store (actor `'agent'`, the model's reason) and set as Strands' flag; on an agent without it, the
 * tool falls back to Strands' own contract and sets the flag only, which Strands' managers honour.
 *
 * A bad index, malformed input or unpinning a message that is not pinned gives the model an error tool
 * result to read; the tool never throws into the agent loop.
 */
import { TextBlock, Tool, ToolResultBlock } from '@strands-agents/sdk'
import type {
  InvokableTool,
  LocalAgent,
  Message,
  ToolContext,
  ToolSpec,
  ToolStreamGenerator,
} from '@strands-agents/sdk'
import { z } from 'zod'
import {
  checkPinMessageInput,
  describePinOutcome,
  PIN_MESSAGE_TOOL_DESCRIPTION,
  PIN_MESSAGE_TOOL_NAME,
  pinMessageInputSchema,
  type PinMessageToolResult,
} from '../../tools/pin-message-tool.js'
import { hasStrandsPin, setStrandsPin } from './convert.js'
import { ledgerManagerOf } from './registry.js'

/** Without the ledger's manager: Strands' own contract, the flag on `agent.messages[index]`. */
function pinByFlag(agent: LocalAgent, input: unknown): PinMessageToolResult {
  const checked = checkPinMessageInput(input, agent.messages.length)
  if (!checked.ok) return checked.result
  const { index, action } = checked.input
  const message = agent.messages[index] as Message
  const was = hasStrandsPin(message)
  setStrandsPin(message, action === 'pin')
  return describePinOutcome(index, action, was !== (action === 'pin'))
}

/**
 * Runs `pin_message` for an agent.
 *
 * @param agent - the agent whose `messages` the index refers to
 * @param input - the tool input as the model sent it
 * @returns the status and the text for the model
 */
export function runPinMessage(
  agent: LocalAgent,
  input: unknown,
): PinMessageToolResult | Promise<PinMessageToolResult> {
  const manager = ledgerManagerOf(agent)
  return manager === undefined ? pinByFlag(agent, input) : manager.runPinMessageTool(agent, input)
}

const toolSpec: ToolSpec = {
  name: PIN_MESSAGE_TOOL_NAME,
  description: PIN_MESSAGE_TOOL_DESCRIPTION,
  // Input mode, so `action` (which has a default) is optional for the model.
  inputSchema: (({ $schema: _schema, ...schema }) => schema)(
    z.toJSONSchema(pinMessageInputSchema, { io: 'input' }),
  ) as NonNullable<ToolSpec['inputSchema']>,
}

/** The Strands tool class behind {@link pinMessageTool}. */
export class PinMessageTool extends Tool implements InvokableTool<unknown, string> {
  /** `'pin_message'`. */
  readonly name = PIN_MESSAGE_TOOL_NAME
  /** What the model reads about the tool. */
  readonly description = PIN_MESSAGE_TOOL_DESCRIPTION
  /** Name, description and the JSON schema of `{ index, action?, reason? }`. */
  readonly toolSpec = toolSpec

  /**
   * Runs the tool inside the agent loop.
   *
   * @param context - the tool use and the agent
   * @returns a generator that yields nothing and returns the tool result (status `error` for bad input)
   */
  // Strands' Tool contract is an async generator; this tool streams nothing (on SQLite its work is
  // synchronous, on PostgreSQL awaited).
  // eslint-disable-next-line require-yield -- see above
  async *stream(context: ToolContext): ToolStreamGenerator {
    const result = await runPinMessage(context.agent, context.toolUse.input)
    return new ToolResultBlock({
      toolUseId: context.toolUse.toolUseId,
      status: result.status,
      content: [new TextBlock(result.text)],
    })
  }

  /**
   * Calls the tool directly (outside a model turn).
   *
   * @param input - `{ index, action?, reason? }`
   * @param context - must carry the agent; without it the call returns an error text
   * @returns the text a model would read
   */
  async invoke(input: unknown, context?: ToolContext): Promise<string> {
    if (context === undefined)
      return `${PIN_MESSAGE_TOOL_NAME} needs the agent; call it through agent.tool or a model turn.`
    return (await runPinMessage(context.agent, input)).text
  }
}

/**
 * The `pin_message` tool for Strands agents: add it to `tools`. The model pins a message it sees by its
 * index (`{ index, action: 'pin' | 'unpin', reason? }`); the pin survives eviction and restarts, and
 * `store.pinnedMessages()` reports actor `'agent'` with the reason.
 */
export const pinMessageTool: PinMessageTool = new PinMessageTool()
