/**
 * The scripted agent of bench/langchain.ts: every turn's texts (seeded prose, bench/ai-sdk-fixtures.ts, so
 * every side and every run gets the same bytes), a chat model that follows the script — a tool call when
 * the newest message it is given is not a tool result, the answer when it is — and the one tool it calls.
 *
 * A turn through `createAgent` is then 4 messages: the human prompt (200–400 characters), an `AIMessage`
 * with a short text and a `search_docs` call, the `ToolMessage` the tool node makes (800–2,000 characters
 * of output), and the final `AIMessage` (500–1,500 characters); the AI messages carry the provider fields
 * a real chat model fills (`response_metadata`, `usage_metadata`, an id). The history a side is seeded
 * with is made of the same messages as those turns would have made (`historyOf`), so a seeded history and
 * a played one look alike to every side.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models'
import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type AIMessageFields,
  type BaseMessage,
  type UsageMetadata,
} from '@langchain/core/messages'
import type { ChatResult } from '@langchain/core/outputs'
import { tool } from 'langchain'
import { z } from 'zod'
import { Prose } from './ai-sdk-fixtures.js'

/** Messages in one turn: prompt, call, result, answer. */
export const MESSAGES_PER_TURN = 4
/** The tool's name. */
export const TOOL_NAME = 'search_docs'
/** The name `createAgent` gives the AI messages of its model node. */
const AGENT_NAME = 'model'

/** One turn's script: what the user asks, what the model and the tool say. */
export interface TurnScript {
  /** The turn's number from 0. */
  readonly k: number
  /** The human prompt. */
  readonly prompt: string
  /** The text beside the tool call. */
  readonly preamble: string
  /** The tool call's query. */
  readonly query: string
  /** What the tool returns. */
  readonly output: string
  /** The final answer. */
  readonly answer: string
}

/**
 * Every turn's script, made once and read by index (so the order the sides ask in cannot change a text).
 *
 * @param turns - how many turns
 * @param seed - the prose's seed
 * @returns the scripts, turn 0 first
 */
export function scripts(turns: number, seed = 24): TurnScript[] {
  const prose = new Prose(seed)
  return Array.from({ length: turns }, (_, k) => ({
    k,
    prompt: prose.text(prose.between(200, 400)),
    preamble: prose.text(prose.between(40, 120)),
    query: prose.text(prose.between(24, 60)),
    output: prose.text(prose.between(800, 2_000)),
    answer: prose.text(prose.between(500, 1_500)),
  }))
}

const hex = (k: number, width = 8): string => k.toString(16).padStart(width, '0')

/** A uuid-shaped id, as LangGraph's messages reducer gives an id-less message. */
function uuidOf(k: number, kind: number): string {
  return `${hex(k)}-0000-4000-8${hex(kind, 3)}-${hex(k, 12)}`
}

/** Tokens as the providers count them, about: 4 characters a token. */
function tokens(chars: number): number {
  return Math.ceil(chars / 4)
}

/**
 * The model's first message of a turn: a text and one call of the tool.
 *
 * @param s - the turn
 * @param inputTokens - the input's size, for `usage_metadata`
 * @returns the message
 */
export function callMessage(s: TurnScript, inputTokens: number): AIMessage {
  const output = tokens(s.preamble.length + s.query.length + 30)
  const fields: AIMessageFields = {
    id: `chatcmpl-${hex(s.k)}-call`,
    name: AGENT_NAME,
    content: s.preamble,
    tool_calls: [
      { id: `call_${hex(s.k)}`, name: TOOL_NAME, args: { query: s.query, limit: 5 }, type: 'tool_call' },
    ],
    response_metadata: metadata('tool_calls'),
  }
  return withUsage(new AIMessage(fields), inputTokens, output)
}

/**
 * The model's last message of a turn: the answer.
 *
 * @param s - the turn
 * @param inputTokens - the input's size, for `usage_metadata`
 * @returns the message
 */
export function answerMessage(s: TurnScript, inputTokens: number): AIMessage {
  const output = tokens(s.answer.length)
  const fields: AIMessageFields = {
    id: `chatcmpl-${hex(s.k)}-answer`,
    name: AGENT_NAME,
    content: s.answer,
    response_metadata: metadata('stop'),
  }
  return withUsage(new AIMessage(fields), inputTokens, output)
}

/**
 * Sets `usage_metadata` as a provider's model does. Set after construction: under this project's
 * `exactOptionalPropertyTypes` LangChain's type of the constructor's field resolves to `undefined`.
 */
function withUsage(message: AIMessage, input: number, output: number): AIMessage {
  const usage: UsageMetadata = { input_tokens: input, output_tokens: output, total_tokens: input + output }
  return Object.assign(message, { usage_metadata: usage })
}

function metadata(finish: string): Record<string, unknown> {
  return {
    model_provider: 'openai',
    model_name: 'gpt-4o-mini-2024-07-18',
    finish_reason: finish,
    system_fingerprint: 'fp_0ba0d124f1',
  }
}

/**
 * The 4 messages turn `s` leaves in the state (ids as the reducer and the scripted model give them).
 *
 * @param s - the turn
 * @returns prompt, call, result, answer
 */
export function turnMessages(s: TurnScript): BaseMessage[] {
  const input = tokens(s.prompt.length) + 40 * 300
  return [
    new HumanMessage({ id: uuidOf(s.k, 1), content: s.prompt }),
    callMessage(s, input),
    new ToolMessage({
      id: uuidOf(s.k, 3),
      name: TOOL_NAME,
      status: 'success',
      tool_call_id: `call_${hex(s.k)}`,
      content: s.output,
    }),
    answerMessage(s, input + 600),
  ]
}

/**
 * The history before turn `turns`: the messages of turns 0 … turns − 1.
 *
 * @param all - the scripts
 * @param turns - how many turns of history
 * @returns the messages, oldest first
 */
export function historyOf(all: readonly TurnScript[], turns: number): BaseMessage[] {
  return all.slice(0, turns).flatMap(turnMessages)
}

/** What a side's model was given, call by call. */
export interface ModelCall {
  /** Messages in the request, the system prompt apart. */
  readonly messages: number
  /** Their text's characters. */
  readonly chars: number
}

/** The turn a side is playing: its model and its tool read it. */
export class Stage {
  /** The turn being played. */
  script: TurnScript | undefined
  /** Every model call so far. */
  readonly calls: ModelCall[] = []

  /** @returns the turn being played (an error outside a turn) */
  current(): TurnScript {
    if (this.script === undefined) throw new Error('no turn is being played')
    return this.script
  }
}

function charsOf(messages: readonly BaseMessage[]): number {
  let n = 0
  for (const m of messages)
    n += typeof m.content === 'string' ? m.content.length : JSON.stringify(m.content).length
  return n
}

/**
 * A chat model that plays the stage's script: a tool call when the newest message it is given is not a
 * tool result, the answer when it is. `bindTools` keeps it (the tool is the script's).
 */
export class ScriptedChatModel extends BaseChatModel {
  /** @param stage - the turn it plays */
  constructor(private readonly stage: Stage) {
    super({})
  }

  /** @returns the model's type name */
  _llmType(): string {
    return 'scripted'
  }

  /** @returns this model: the script decides the calls */
  override bindTools(): this {
    return this
  }

  /**
   * One reply, by the script.
   *
   * @param messages - the request's messages
   * @returns the reply
   */
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const s = this.stage.current()
    const chars = charsOf(messages)
    const system = messages.filter((m) => SystemMessage.isInstance(m)).length
    this.stage.calls.push({ messages: messages.length - system, chars })
    const last = messages[messages.length - 1]
    const message = ToolMessage.isInstance(last)
      ? answerMessage(s, tokens(chars))
      : callMessage(s, tokens(chars))
    return Promise.resolve({ generations: [{ text: '', message }] })
  }
}

/**
 * The tool the script calls: returns the turn's output.
 *
 * @param stage - the turn it answers for
 * @returns the tool
 */
export function searchTool(stage: Stage) {
  return tool(() => stage.current().output, {
    name: TOOL_NAME,
    description: 'Searches the documentation and returns the best passages.',
    schema: z.object({ query: z.string(), limit: z.number().int().optional() }),
  })
}
