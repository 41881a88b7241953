/**
 * `searchHistoryTool` and `readHistoryTool`: the recall tools (`src/tools/recall-tools.ts`) as Strands
 * tools. They work through the agent's ledger conversation manager — its core manager: on SQLite it first
 * writes the messages held for the invocation, so the model can read back even what it saw a moment ago;
 * on PostgreSQL every message is written as it is added, and the tools await the store.
 * On an agent without the ledger's manager they answer with an error result; bad input is an error
 * result too: the tools never throw into the agent loop.
 */
import { TextBlock, Tool, ToolResultBlock } from '@strands-agents/sdk'
import type {
  InvokableTool,
  LocalAgent,
  ToolContext,
  ToolSpec,
  ToolStreamGenerator,
} from '@strands-agents/sdk'
import { z } from 'zod'
import {
  handleReadHistory,
  handleSearchHistory,
  READ_HISTORY_TOOL_DESCRIPTION,
  READ_HISTORY_TOOL_NAME,
  readHistoryInputSchema,
  SEARCH_HISTORY_TOOL_DESCRIPTION,
  SEARCH_HISTORY_TOOL_NAME,
  searchHistoryInputSchema,
  type RecallToolResult,
} from '../../tools/recall-tools.js'
import { PersistentConversationManager } from '../../manager/persistent-conversation-manager.js'
import { ledgerManagerOf } from './registry.js'

type Handler = typeof handleSearchHistory

function specOf(name: string, description: string, schema: z.ZodType): ToolSpec {
  return {
    name,
    description,
    inputSchema: (({ $schema: _schema, ...rest }) => rest)(
      z.toJSONSchema(schema, { io: 'input' }),
    ) as NonNullable<ToolSpec['inputSchema']>,
  }
}

/**
 * Runs a recall tool for an agent.
 *
 * @param agent - the agent whose conversation is searched or read
 * @param name - the tool's name, for the error without a ledger manager
 * @param handler - the framework-neutral handler
 * @param input - the tool input as the model sent it
 * @returns the status and the text for the model (a Promise of them on PostgreSQL)
 */
export function runRecallTool(
  agent: LocalAgent,
  name: string,
  handler: Handler,
  input: unknown,
): RecallToolResult | Promise<RecallToolResult> {
  const manager = ledgerManagerOf(agent)
  if (manager === undefined)
    return {
      status: 'error',
      text: `${name} needs the context-ledger conversation manager on this agent; no history can be searched.`,
    }
  const ledger = manager.ledger
  return ledger instanceof PersistentConversationManager ? handler(ledger, input) : handler(ledger, input)
}

/** A recall tool as a Strands tool. */
export class RecallTool extends Tool implements InvokableTool<unknown, string> {
  /** The tool's name. */
  readonly name: string
  /** What the model reads about the tool. */
  readonly description: string
  /** Name, description and the JSON schema of the input. */
  readonly toolSpec: ToolSpec

  /**
   * @param name - `search_history` or `read_history`
   * @param description - what the model reads
   * @param schema - the zod input schema
   * @param handler - the framework-neutral handler
   */
  constructor(
    name: string,
    description: string,
    schema: z.ZodType,
    private readonly handler: Handler,
  ) {
    super()
    this.name = name
    this.description = description
    this.toolSpec = specOf(name, description, schema)
  }

  /**
   * Runs the tool inside the agent loop.
   *
   * @param context - the tool use and the agent
   * @returns a generator that yields nothing and returns the tool result (status `error` for bad input)
   */
  // Strands' Tool contract is an async generator; this tool streams nothing.
  // eslint-disable-next-line require-yield -- see above
  async *stream(context: ToolContext): ToolStreamGenerator {
    const result = await runRecallTool(context.agent, this.name, this.handler, context.toolUse.input)
    return new ToolResultBlock({
      toolUseId: context.toolUse.toolUseId,
      status: result.status,
      content: [new TextBlock(result.text)],
    })
  }

  /**
   * Calls the tool directly (outside a model turn).
   *
   * @param input - the tool input
   * @param context - must carry the agent; without it the call returns an error text
   * @returns the text a model would read
   */
  async invoke(input: unknown, context?: ToolContext): Promise<string> {
    if (context === undefined)
      return `${this.name} needs the agent; call it through agent.tool or a model turn.`
    return (await runRecallTool(context.agent, this.name, this.handler, input)).text
  }
}

/**
 * The `search_history` tool for Strands agents: `{ query, limit? }` → ranked hits of the whole
 * conversation, evicted messages included, each with its seq and a snippet.
 */
export const searchHistoryTool: RecallTool = new RecallTool(
  SEARCH_HISTORY_TOOL_NAME,
  SEARCH_HISTORY_TOOL_DESCRIPTION,
  searchHistoryInputSchema,
  handleSearchHistory,
)

/**
 * The `read_history` tool for Strands agents: `{ fromSeq, toSeq }` → those messages as text (roles, text,
 * tool calls and results), never splitting a tool pair, cut at a token cap with a note saying where to
 * read on.
 */
export const readHistoryTool: RecallTool = new RecallTool(
  READ_HISTORY_TOOL_NAME,
  READ_HISTORY_TOOL_DESCRIPTION,
  readHistoryInputSchema,
  handleReadHistory,
)
