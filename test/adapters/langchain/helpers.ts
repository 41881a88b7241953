/**
 * A scripted LangChain chat model of our own (a `BaseChatModel`): it answers from a plan — each model
 * call either makes `k` parallel tool calls or answers — with ids that never repeat (a prefix keeps
 * models of several processes apart), records every input it was given, and refuses an input over a
 * token limit as a provider does. Plus the checks the tests make of a model input.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models'
import {
  AIMessage,
  HumanMessage,
  ToolMessage,
  type BaseMessage,
  type AIMessageFields,
  type StoredMessage,
} from '@langchain/core/messages'
import type { ChatResult } from '@langchain/core/outputs'
import { tool } from '@langchain/core/tools'
import type { BaseCheckpointSaver } from '@langchain/langgraph'
import { createAgent, createMiddleware, type ReactAgent } from 'langchain'
import { z } from 'zod'
import {
  ledgerMiddleware,
  type LedgerLangChainStore,
  type LedgerMiddleware,
  type LedgerMiddlewareOptions,
} from '../../../src/adapters/langchain/index.js'

/** What a provider says when the input does not fit. */
export class ContextLengthExceeded extends Error {
  readonly code = 'context_length_exceeded'
}

/** About four characters a token, as the ledger's built-in estimate. */
export const inputTokens = (messages: readonly BaseMessage[]): number =>
  Math.ceil(JSON.stringify(messages.map((m) => m.toDict())).length / 4)

/**
 * The plan of a conversation: per turn, the number of parallel calls of each step before the answer.
 *
 * @param turns - e.g. `[[2, 1], []]`: a turn of two steps (2 calls, then 1), then a turn answered at once
 * @returns one entry per model call: the number of calls it makes (0: it answers)
 */
export const planOf = (turns: readonly (readonly number[])[]): number[] => turns.flatMap((t) => [...t, 0])

/** Options of {@link ScriptedChatModel}. */
export interface ScriptedOptions {
  /** Per model call, how many parallel tool calls it makes (0: it answers); answers once past the end. */
  readonly plan: readonly number[]
  /** The tool it calls (its input is `{ n, k }`). */
  readonly tool?: string
  /** Refuse inputs over this many tokens. */
  readonly maxInputTokens?: number
  /** Put before every id, so models of several processes never reuse one. */
  readonly prefix?: string
  /** Tool calls of a step, in place of `plan`'s (e.g. to call the recall tools). */
  readonly calls?: (call: number) => { name: string; args: Record<string, unknown> }[] | undefined
}

/** A scripted chat model (see the module comment). */
export class ScriptedChatModel extends BaseChatModel {
  /** Every input it was given, in order (the system prompt included). */
  readonly inputs: BaseMessage[][] = []
  /** Every message it answered with, in order. */
  readonly outputs: AIMessage[] = []
  private next = 0

  constructor(private readonly script: ScriptedOptions) {
    super({})
  }

  _llmType(): string {
    return 'scripted'
  }

  // createAgent binds the agent's tools; the script decides the calls.
  override bindTools(): this {
    return this
  }

  _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.inputs.push([...messages])
    const max = this.script.maxInputTokens
    if (max !== undefined && inputTokens(messages) > max)
      return Promise.reject(
        new ContextLengthExceeded(`input of ${inputTokens(messages)} tokens is over the limit of ${max}`),
      )
    const n = this.next++
    const id = `${this.script.prefix ?? ''}${n}`
    const planned = this.script.calls?.(n)
    const count = this.script.plan[n] ?? 0
    const calls =
      planned ??
      Array.from({ length: count }, (_, k) => ({ name: this.script.tool ?? 'lookup', args: { n, k } }))
    const fields: AIMessageFields = {
      id: `ai-${id}`,
      content: calls.length === 0 ? `done ${id}` : '',
      tool_calls: calls.map((c, k) => ({ ...c, id: `call-${id}-${k}`, type: 'tool_call' as const })),
    }
    const message = new AIMessage(fields)
    this.outputs.push(message)
    return Promise.resolve({ generations: [{ text: message.text, message }] })
  }
}

/** A tool answering with a long text, so windows fill up. */
export const lookup = tool(({ n, k }) => `result ${n}.${k}: ${'lorem ipsum '.repeat(40)}`, {
  name: 'lookup',
  description: 'Looks a number up',
  schema: z.object({ n: z.number(), k: z.number() }),
})

/**
 * What a provider refuses in a model input: a `ToolMessage` not in the run of tool messages right after
 * the `AIMessage` that made its call, and a call whose answer is not in that run.
 *
 * @param input - what the model was given
 * @returns the problems found (empty when valid)
 */
export function pairingProblems(input: readonly BaseMessage[]): string[] {
  const problems: string[] = []
  let open: Set<string> | undefined
  let openAt = -1
  const close = () => {
    if (open !== undefined && open.size > 0)
      problems.push(`calls ${[...open].join(', ')} of message ${openAt} have no result`)
    open = undefined
  }
  input.forEach((m, i) => {
    if (ToolMessage.isInstance(m)) {
      if (open === undefined || !open.delete(m.tool_call_id))
        problems.push(`result ${m.tool_call_id} at ${i} does not follow its call`)
      return
    }
    close()
    if (AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0) {
      open = new Set((m.tool_calls ?? []).map((c) => c.id ?? ''))
      openAt = i
    }
  })
  close()
  return problems
}

/** Messages as the JSON LangChain stores them, to compare. */
export const dicts = (messages: readonly BaseMessage[]): StoredMessage[] =>
  JSON.parse(JSON.stringify(messages.map((m) => m.toDict()))) as StoredMessage[]

/** The model input without the system prompt. */
export const conversation = (input: readonly BaseMessage[]): BaseMessage[] =>
  input.filter((m) => m.type !== 'system')

/** An agent on the ledger, its scripted model, and the windows the session showed at each model call. */
export interface AgentRun {
  /** The scripted model. */
  readonly model: ScriptedChatModel
  /** The ledger middleware. */
  readonly mw: LedgerMiddleware<LedgerLangChainStore>
  /** At each model call, the session's window as application code read it just before. */
  readonly windows: BaseMessage[][]
  /** The agent. */
  readonly agent: ReactAgent
}

/** Options of {@link agentOn}: the middleware's, and a checkpointer for the agent. */
export type AgentRunOptions = Omit<LedgerMiddlewareOptions<LedgerLangChainStore>, 'store'> & {
  readonly checkpointer?: BaseCheckpointSaver | undefined
}

/**
 * `createAgent` with the scripted model, the `lookup` tool, `ledgerMiddleware` first, and a middleware
 * after it that records the session's window at each model call.
 *
 * @param store - the ledger
 * @param script - the model's plan
 * @param options - the middleware's options and a checkpointer
 * @returns the run
 */
export function agentOn(
  store: LedgerLangChainStore,
  script: ScriptedOptions,
  options: AgentRunOptions = {},
): AgentRun {
  const { checkpointer, ...middleware } = options
  const model = new ScriptedChatModel(script)
  const mw = ledgerMiddleware({ store, ...middleware })
  const windows: BaseMessage[][] = []
  const spy = createMiddleware({
    name: 'WindowSpy',
    wrapModelCall: async (request, handler) => {
      windows.push(await mw.session(String(request.runtime.configurable?.thread_id)).window())
      return handler(request)
    },
  })
  const agent = createAgent({
    model,
    tools: [lookup],
    middleware: [mw, spy],
    ...(checkpointer === undefined ? {} : { checkpointer }),
  }) as unknown as ReactAgent
  return { model, mw, windows, agent }
}

/**
 * One turn: a human message (id `human-<thread>-<text>`) on a thread.
 *
 * @param run - the agent
 * @param text - the prompt
 * @param thread - the thread id (default `t`)
 * @returns the final state
 */
export const ask = (run: AgentRun, text: string, thread = 't'): Promise<{ messages: BaseMessage[] }> =>
  run.agent.invoke(
    { messages: [new HumanMessage({ content: text, id: `human-${thread}-${text}` })] },
    { configurable: { thread_id: thread } },
  ) as Promise<{ messages: BaseMessage[] }>
