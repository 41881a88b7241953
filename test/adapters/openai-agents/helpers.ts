/**
 * A scripted Agents `Model` of our own (the SDK's `Model` interface): each run, it calls a tool a given
 * number of times (each call after a reasoning item, when asked), then answers `done <n>`; it records
 * every input it was given and refuses an input over a token limit, as a provider does.
 */
import { ContextStore } from '../../../src/index.js'
import { Usage, type AgentInputItem, type Model, type ModelRequest, type ModelResponse } from '@openai/agents'

/** About four characters a token, as the ledger's built-in estimate. */
export const inputTokens = (input: string | AgentInputItem[]): number =>
  Math.ceil(JSON.stringify(input).length / 4)

/** What a provider says when the input does not fit (OpenAI's code). */
export class ContextLengthExceeded extends Error {
  readonly code = 'context_length_exceeded'
}

/** Options of {@link ToolLoopModel}. */
export interface ToolLoopOptions {
  /** Tool calls per run before the answer. */
  readonly calls: number
  /** The function tool to call (its input is `{ n }`). */
  readonly tool: string
  /** Refuse inputs over this many tokens. */
  readonly maxInputTokens?: number
  /** Emit a reasoning item before each call and before the answer. */
  readonly reasoning?: boolean
  /**
   * Put before every id and answer (`fc_<prefix>3`, `done <prefix>3`), so models in several processes
   * sharing a session never reuse a call id (the session refuses one reused with other content).
   */
  readonly prefix?: string
}

/** The items after the input's last user message. */
function sinceLastUser(input: AgentInputItem[]): AgentInputItem[] {
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i] as { type?: string; role?: string }
    if ((item.type === undefined || item.type === 'message') && item.role === 'user')
      return input.slice(i + 1)
  }
  return input
}

/** A scripted model: `calls` tool calls a run, then `done`. */
export class ToolLoopModel implements Model {
  /** Every input the model was given, in order. */
  readonly inputs: AgentInputItem[][] = []
  private next = 0

  constructor(private readonly options: ToolLoopOptions) {}

  getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input =
      typeof request.input === 'string'
        ? [{ role: 'user', content: request.input } as AgentInputItem]
        : request.input
    this.inputs.push(structuredClone(input))
    const max = this.options.maxInputTokens
    if (max !== undefined && inputTokens(input) > max)
      return Promise.reject(
        new ContextLengthExceeded(`input of ${inputTokens(input)} tokens is over the limit of ${max}`),
      )
    const done = sinceLastUser(input).filter(
      (i) => (i as { type?: string }).type === 'function_call_result',
    ).length
    const n = this.next++
    const id = `${this.options.prefix ?? ''}${n}`
    const reasoning: AgentInputItem[] = this.options.reasoning
      ? [{ type: 'reasoning', id: `rs_${id}`, content: [{ type: 'input_text', text: `thinking ${id}` }] }]
      : []
    const output: AgentInputItem[] =
      done < this.options.calls
        ? [
            ...reasoning,
            {
              type: 'function_call',
              id: `fc_${id}`,
              callId: `call_${id}`,
              name: this.options.tool,
              status: 'completed',
              arguments: JSON.stringify({ n }),
            },
          ]
        : [
            ...reasoning,
            {
              type: 'message',
              role: 'assistant',
              id: `msg_${id}`,
              status: 'completed',
              content: [{ type: 'output_text', text: `done ${id}` }],
            },
          ]
    return Promise.resolve({ usage: new Usage(), output, responseId: `resp_${id}` })
  }

  getStreamedResponse(): AsyncIterable<never> {
    throw new Error('ToolLoopModel answers getResponse only (the tests run the non-streamed loop)')
  }
}

/**
 * Checks a model input the way a provider would: every call has its result after it and every result its
 * call before it (by `callId`), and every reasoning item is followed by an output item.
 *
 * @param input - what the model was given
 * @returns the problems found (empty when valid)
 */
export function providerProblems(input: readonly AgentInputItem[]): string[] {
  const problems: string[] = []
  const items = input as { type?: string; role?: string; callId?: string }[]
  items.forEach((item, i) => {
    if (
      item.type === 'function_call' &&
      !items.slice(i + 1).some((r) => r.type === 'function_call_result' && r.callId === item.callId)
    )
      problems.push(`call ${item.callId} at ${i} has no result`)
    if (
      item.type === 'function_call_result' &&
      !items.slice(0, i).some((c) => c.type === 'function_call' && c.callId === item.callId)
    )
      problems.push(`result ${item.callId} at ${i} has no call`)
    if (item.type === 'reasoning') {
      const next = items[i + 1]
      if (
        next === undefined ||
        !(next.type === 'function_call' || (next.type === 'message' && next.role === 'assistant'))
      )
        problems.push(`reasoning at ${i} is not followed by its item`)
    }
  })
  return problems
}

/** The plain-JSON form of items (what the ledger keeps: keys with undefined values are dropped). */
export const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

/**
 * Whether popItem and replace_suffix rewind on this store (what leaves becomes an abandoned branch):
 * the SQLite store, and a PostgreSQL store with `rewindAndAppend`; on any other store they withdraw what
 * leaves with a marker row, the items staying in the session's history.
 *
 * @param store - the store the session is on
 */
export const rewinds = (store: object): boolean =>
  store instanceof ContextStore ||
  typeof (store as { rewindAndAppend?: unknown }).rewindAndAppend === 'function'
