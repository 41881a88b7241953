/**
 * The scripted model of `npm run demo -- --openai-agents`: an Agents `Model` of our own (the SDK's `Model`
 * interface, no network) playing a support agent. It reads the newest user message of its input and the
 * tool results after it: an order number asked about is looked up with `lookup_order`, a question about
 * something said long ago is searched with `search_history`, then it answers from what the tools
 * returned. It records the size of every input it is given and refuses one over its context limit, as a
 * provider does.
 */
import { Usage, type AgentInputItem, type Model, type ModelRequest, type ModelResponse } from '@openai/agents'

/** About four characters a token: the ledger's built-in estimate, and the model's here. */
export const tokensOf = (value: unknown): number => Math.ceil(JSON.stringify(value).length / 4)

/** One model call: how many items and tokens it was given. */
export interface ModelCall {
  readonly items: number
  readonly tokens: number
}

type Item = { type?: string; role?: string; content?: unknown; output?: unknown; name?: string }

/** The text of a user message (a string, or its `input_text` parts). */
function textOf(item: Item): string {
  if (typeof item.content === 'string') return item.content
  if (!Array.isArray(item.content)) return ''
  return (item.content as { text?: unknown }[])
    .map((p) => (typeof p.text === 'string' ? p.text : ''))
    .join(' ')
}

const isUser = (i: Item): boolean => (i.type === undefined || i.type === 'message') && i.role === 'user'

/** The scripted support model. */
export class SupportModel implements Model {
  /** Every call, in order. */
  readonly calls: ModelCall[] = []
  /** Inputs refused for being over the limit. */
  refused = 0
  private next = 0

  /** @param contextLimit - the most tokens of input it takes */
  constructor(private readonly contextLimit: number) {}

  getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input = (
      typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input
    ) as Item[]
    const tokens = tokensOf(input)
    this.calls.push({ items: input.length, tokens })
    if (tokens > this.contextLimit) {
      this.refused++
      return Promise.reject(new Error(`context_length_exceeded: ${tokens} tokens`))
    }
    const at = input.findLastIndex(isUser)
    const prompt = at === -1 ? '' : textOf(input[at] ?? {})
    const results = input.slice(at + 1).filter((i) => i.type === 'function_call_result')
    const output = this.reply(prompt, JSON.stringify(results), results.length)
    return Promise.resolve({ usage: new Usage(), output, responseId: `resp_${this.next}` })
  }

  getStreamedResponse(): AsyncIterable<never> {
    throw new Error('SupportModel answers getResponse only (the demo runs the non-streamed loop)')
  }

  private reply(prompt: string, results: string, answered: number): AgentInputItem[] {
    const id = this.next++
    const call = (name: string, args: unknown): AgentInputItem[] => [
      {
        type: 'function_call',
        id: `fc_${id}`,
        callId: `call_${id}`,
        name,
        status: 'completed',
        arguments: JSON.stringify(args),
      },
    ]
    const say = (text: string): AgentInputItem[] => [
      {
        type: 'message',
        role: 'assistant',
        id: `msg_${id}`,
        status: 'completed',
        content: [{ type: 'output_text', text }],
      },
    ]
    if (/refund code/iu.test(prompt) && /\?$/u.test(prompt.trim())) {
      if (answered === 0) return call('search_history', { query: 'refund code' })
      const code = /RF-\d{4}/u.exec(results)?.[0]
      return say(code === undefined ? 'I could not find it.' : `Your refund code is ${code}.`)
    }
    const order = /A-\d{4}/u.exec(prompt)?.[0]
    if (order === undefined) return say('Noted.')
    if (answered === 0) return call('lookup_order', { order })
    const status = /status: ([a-z ]+)/u.exec(results)?.[1] ?? 'unknown'
    return say(`Order ${order} is ${status}.`)
  }
}
