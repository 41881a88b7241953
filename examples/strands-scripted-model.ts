/**
 * A scripted Strands `Model`: it replays replies (text and tool calls) instead of calling a provider, and
 * refuses input over its context window with `ContextWindowOverflowError`, as a real provider would. The
 * demo, the benchmark and the tests drive a real `Agent` with it — no network, fully repeatable. Copy it
 * to test your own agents.
 */
import { randomUUID } from 'node:crypto'
import { ContextWindowOverflowError, Model } from '@strands-agents/sdk'
import type {
  BaseModelConfig,
  JSONValue,
  Message,
  ModelStreamEvent,
  StreamOptions,
} from '@strands-agents/sdk'

/** One block of a scripted reply: text, or a tool call (`toolUseId` is random when omitted). */
export type ScriptedBlock =
  { text: string } | { toolUse: { name: string; input: JSONValue; toolUseId?: string } }

/** A reply: plain text, or blocks. A reply with a tool call stops with `toolUse`, otherwise `endTurn`. */
export type ScriptedReply = string | readonly ScriptedBlock[]

/** What a script function is told about the call it answers. */
export interface ScriptedCall {
  /** Successful calls so far (refused calls do not count). */
  readonly index: number
  /** The messages the model was given. */
  readonly messages: readonly Message[]
  /** Their token count, when the model counts (it does when it has a context window limit). */
  readonly inputTokens: number | undefined
}

/** Replies in order, or a function choosing each reply from the call. */
export type Script = readonly ScriptedReply[] | ((call: ScriptedCall) => ScriptedReply)

/** Options of {@link ScriptedModel}. */
export interface ScriptedModelOptions {
  /** The replies. An array runs out with an error; a function never does. */
  script: Script
  /** Input tokens above which calls fail with `ContextWindowOverflowError`; no limit when omitted. */
  contextWindowLimit?: number
  /** Reported model id. Default `'scripted'`. */
  modelId?: string
}

/**
 * A `Model` that replays a script.
 *
 * @example
 * ```ts
 * const model = new ScriptedModel({
 *   script: [[{ toolUse: { name: 'lookup', input: { q: 'x' } } }], 'Done.'],
 *   contextWindowLimit: 2_000,
 * })
 * const agent = new Agent({ model, tools: [lookup], printer: false })
 * ```
 */
export class ScriptedModel extends Model {
  /** Successful calls. */
  calls = 0
  /** Calls refused with `ContextWindowOverflowError`. */
  overflows = 0
  /** Token count of the last input, when counted. */
  lastInputTokens: number | undefined = undefined
  /** Message count of the last input the model accepted. */
  lastInputMessages = 0
  private config: BaseModelConfig
  private readonly script: Script

  /** @param options - the script, and optionally a context window limit and a model id */
  constructor(options: ScriptedModelOptions) {
    super()
    this.script = options.script
    this.config = {
      modelId: options.modelId ?? 'scripted',
      ...(options.contextWindowLimit === undefined ? {} : { contextWindowLimit: options.contextWindowLimit }),
    }
  }

  /** @param modelConfig - settings merged into the current ones */
  updateConfig(modelConfig: BaseModelConfig): void {
    this.config = { ...this.config, ...modelConfig }
  }

  /** @returns the current settings */
  getConfig(): BaseModelConfig {
    return this.config
  }

  /**
   * Refuses input over the limit, otherwise streams the next scripted reply as a provider would.
   *
   * @param messages - the conversation the agent sends
   * @param options - system prompt and tool specs (counted with the messages)
   * @returns the reply's stream events
   */
  async *stream(messages: Message[], options?: StreamOptions): AsyncIterable<ModelStreamEvent> {
    const limit = this.config.contextWindowLimit
    // Counting reads every message; only a model with a limit pays for it.
    const inputTokens =
      limit === undefined
        ? undefined
        : await this.countTokens(messages, {
            ...(options?.systemPrompt === undefined ? {} : { systemPrompt: options.systemPrompt }),
            ...(options?.toolSpecs === undefined ? {} : { toolSpecs: options.toolSpecs }),
          })
    this.lastInputTokens = inputTokens
    if (limit !== undefined && inputTokens !== undefined && inputTokens > limit) {
      this.overflows++
      throw new ContextWindowOverflowError(
        `Input is ${inputTokens} tokens, over the ${limit}-token context window`,
      )
    }
    const reply = this.next({ index: this.calls, messages, inputTokens })
    this.calls++
    this.lastInputMessages = messages.length
    const blocks: readonly ScriptedBlock[] = typeof reply === 'string' ? [{ text: reply }] : reply
    yield { type: 'modelMessageStartEvent', role: 'assistant' }
    let outputChars = 0
    let toolUse = false
    for (const block of blocks) {
      if ('text' in block) {
        yield { type: 'modelContentBlockStartEvent' }
        yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'textDelta', text: block.text } }
        outputChars += block.text.length
      } else {
        const input = JSON.stringify(block.toolUse.input)
        const toolUseId = block.toolUse.toolUseId ?? `tooluse_${randomUUID()}`
        yield {
          type: 'modelContentBlockStartEvent',
          start: { type: 'toolUseStart', name: block.toolUse.name, toolUseId },
        }
        yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'toolUseInputDelta', input } }
        outputChars += input.length
        toolUse = true
      }
      yield { type: 'modelContentBlockStopEvent' }
    }
    yield { type: 'modelMessageStopEvent', stopReason: toolUse ? 'toolUse' : 'endTurn' }
    const outputTokens = Math.ceil(outputChars / 4)
    const input = inputTokens ?? 0
    yield {
      type: 'modelMetadataEvent',
      usage: { inputTokens: input, outputTokens, totalTokens: input + outputTokens },
    }
  }

  private next(call: ScriptedCall): ScriptedReply {
    if (typeof this.script === 'function') return this.script(call)
    const reply = this.script[call.index]
    if (reply === undefined)
      throw new Error(
        `ScriptedModel: the script has ${this.script.length} replies, call ${call.index + 1} has none`,
      )
    return reply
  }
}
