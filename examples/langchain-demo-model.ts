/**
 * The scripted model of `npm run demo -- --langchain`: a LangChain chat model of our own (a
 * `BaseChatModel`, no network) playing a support agent. It reads the newest human message of its input
 * and the tool results after it: the orders asked about are looked up with `lookup_order`, in parallel
 * when there are several; a question about something said long ago is searched with `search_history`;
 * then it answers from what the tools returned. It records the size of every input it is given and
 * refuses one over its context limit, as a provider does. The docs tests give it to the snippets of
 * docs/langchain.md and the README as their `model`.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import type { ChatResult } from '@langchain/core/outputs'

/** About four characters a token of the messages as LangChain serializes them. */
export const tokensOf = (messages: readonly BaseMessage[]): number =>
  Math.ceil(JSON.stringify(messages.map((m) => m.toDict())).length / 4)

/** One model call: what it was given. */
export interface ModelCall {
  /** Messages in the input, the system prompt included. */
  readonly messages: number
  /** Their tokens ({@link tokensOf}). */
  readonly tokens: number
  /** The input as text, to look for what the model saw. */
  readonly text: string
}

/** Options of {@link SupportModel}. */
export interface SupportModelOptions {
  /** Refuse an input over this many tokens (default: no limit). */
  readonly contextLimit?: number
  /** Put before every message and call id, so two processes' models never reuse one. */
  readonly idPrefix?: string
}

const STATUS = /shipped|in transit|delivered|held at customs/u
const ORDER = /A-\d{4}/gu

interface Call {
  readonly name: string
  readonly args: Record<string, string>
}

/** The scripted support model (see the module comment). */
export class SupportModel extends BaseChatModel {
  /** Every call, in order. */
  readonly calls: ModelCall[] = []
  /** Inputs refused for being over the limit. */
  refused = 0
  private next = 0

  /** @param options - its context limit and id prefix */
  constructor(private readonly options: SupportModelOptions = {}) {
    super({})
  }

  _llmType(): string {
    return 'scripted-support'
  }

  // createAgent binds the agent's tools to the model; the script decides which it calls.
  override bindTools(): this {
    return this
  }

  _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const tokens = tokensOf(messages)
    this.calls.push({ messages: messages.length, tokens, text: messages.map((m) => m.text).join('\n') })
    const limit = this.options.contextLimit
    if (limit !== undefined && tokens > limit) {
      this.refused++
      return Promise.reject(new Error(`context_length_exceeded: ${tokens} tokens, the limit is ${limit}`))
    }
    const at = messages.findLastIndex((m) => m.type === 'human')
    const prompt = messages[at]?.text ?? ''
    const results = messages.slice(at + 1).filter((m) => ToolMessage.isInstance(m))
    const id = `${this.options.idPrefix ?? ''}${this.next++}`
    const { text, calls } = this.reply(prompt, results)
    const message = new AIMessage({
      id: `ai-${id}`,
      content: text,
      tool_calls: calls.map((c, k) => ({ ...c, id: `call-${id}-${k}`, type: 'tool_call' as const })),
      usage_metadata: { input_tokens: tokens, output_tokens: 12, total_tokens: tokens + 12 },
      response_metadata: { model_name: 'scripted-support' },
      // LangChain's field types, under exactOptionalPropertyTypes, refuse usage_metadata here.
    } as unknown as ConstructorParameters<typeof AIMessage>[0])
    return Promise.resolve({ generations: [{ text, message }] })
  }

  /** What to say (or call) for a prompt and the results that came after it. */
  private reply(prompt: string, results: readonly ToolMessage[]): { text: string; calls: Call[] } {
    if (/refund code/iu.test(prompt) && prompt.trim().endsWith('?')) {
      if (results.length === 0)
        return { text: '', calls: [{ name: 'search_history', args: { query: 'refund code' } }] }
      const code = /RF-\d{4}/u.exec(results.map((r) => r.text).join('\n'))?.[0]
      return { text: code === undefined ? 'I could not find it.' : `Your refund code is ${code}.`, calls: [] }
    }
    const orders = [...new Set(prompt.match(ORDER) ?? [])]
    if (orders.length === 0) return { text: 'Noted.', calls: [] }
    if (results.length === 0)
      return { text: '', calls: orders.map((order) => ({ name: 'lookup_order', args: { order } })) }
    const said = orders.map((order) => {
      const result = results.find((r) => r.text.includes(order))?.text ?? ''
      return `Order ${order} is ${STATUS.exec(result)?.[0] ?? 'unknown'}.`
    })
    return { text: said.join(' '), calls: [] }
  }
}
