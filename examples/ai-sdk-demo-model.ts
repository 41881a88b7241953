/**
 * The scripted model of `npm run demo -- --ai-sdk`: an AI SDK `LanguageModel` (the SDK's own
 * `MockLanguageModelV4` from `ai/test`) playing an on-call ops agent — no network, no API key, the same
 * replies on every run. It reads only the prompt it is given, as a real model does: it calls a tool for
 * each host the newest request names, answers from the results, and when asked about something no longer
 * in its prompt it calls `search_history`, `read_history`, then `pin_message` on what it read.
 *
 * It counts every prompt it gets (with {@link jsonTokens}, the count the session's `tokenCounter` makes)
 * and refuses one over its context limit, as a provider does. Asked with the ledger's summarization
 * prompt, it writes a summary: the hosts' last known status, nothing else.
 */
import { MockLanguageModelV4 } from 'ai/test'
// In your project: import { DEFAULT_SUMMARIZATION_PROMPT } from 'context-ledger/ai-sdk'
import { DEFAULT_SUMMARIZATION_PROMPT } from '../src/adapters/ai-sdk/index.js'

type Prompt = Parameters<MockLanguageModelV4['doGenerate']>[0]['prompt']
type PromptMessage = Prompt[number]
type Result = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>
type Reply = Result['content'][number]

/** The first line of every summary this model writes. */
export const SUMMARY_HEAD = 'Hosts as last seen (earlier turns summarized):'

/**
 * The demo's token: four characters of a message's JSON. The session counts its window with it
 * (`tokenCounter`) and the model counts its prompt with it, so the two numbers can be compared.
 *
 * @param message - any message
 * @returns its tokens
 */
export function jsonTokens(message: unknown): number {
  return Math.ceil(JSON.stringify(message).length / 4)
}

/** One call the model answered: who asked, and how big the prompt was. */
export interface ModelCall {
  /** `'agent'` for a step of the agent loop, `'summary'` for a summary the ledger asked for. */
  readonly kind: 'agent' | 'summary'
  /** Messages in the prompt. */
  readonly messages: number
  /** Its tokens ({@link jsonTokens} of each message, summed). */
  readonly tokens: number
}

/** The model and what it saw. */
export interface OpsModel {
  /** Pass as `model` to `generateText`, and as `summarize: { model }`. */
  readonly model: MockLanguageModelV4
  /** Every call, in order. */
  readonly calls: ModelCall[]
  /** Prompts it refused (over `contextLimit`). */
  readonly refused: number[]
}

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
}

function textOf(message: PromptMessage | undefined): string {
  if (message === undefined) return ''
  if (typeof message.content === 'string') return message.content
  return message.content.map((p) => (p.type === 'text' ? p.text : '')).join('')
}

/** The tool results of a message: tool name and text output. */
function resultsOf(message: PromptMessage | undefined): { tool: string; text: string }[] {
  if (message?.role !== 'tool') return []
  return message.content.flatMap((p) =>
    p.type === 'tool-result'
      ? [{ tool: p.toolName, text: p.output.type === 'text' ? p.output.value : '' }]
      : [],
  )
}

const HOST = /\b(?:web|api|db)-\d\d\b/gu

/** The tool a request calls for each host it names. */
function toolFor(request: string): string | undefined {
  if (request.startsWith('Check ')) return 'check_host'
  if (request.startsWith('Fetch the logs')) return 'fetch_logs'
  if (request.startsWith('Patch ')) return 'patch_host'
  return undefined
}

/** The reply to a step of the agent loop. */
function agentReply(prompt: Prompt, id: () => string): Reply {
  const call = (toolName: string, input: unknown): Reply => ({
    type: 'tool-call',
    toolCallId: id(),
    toolName,
    input: JSON.stringify(input),
  })
  const text = (t: string): Reply => ({ type: 'text', text: t })
  const at = prompt.findLastIndex((m) => m.role === 'user')
  const request = textOf(prompt[at])
  const since = prompt.slice(at + 1).flatMap(resultsOf)
  const last = since.at(-1)
  // Recall: search, read the best hit it cannot see, pin what it read, answer from it.
  if (last?.tool === 'search_history') {
    const hit = /^- seq (\d+) \([a-z]+, no longer in your context/mu.exec(last.text)
    if (hit === null) return text('I could not find that in our conversation.')
    return call('read_history', { fromSeq: Number(hit[1]), toSeq: Number(hit[1]) })
  }
  if (last?.tool === 'read_history') {
    const seq = /\[seq (\d+)\]/u.exec(last.text)?.[1] ?? '?'
    return call('pin_message', {
      index: prompt.length - 1,
      reason: `change ticket, recalled from seq ${seq}`,
    })
  }
  const read = since.find((r) => r.tool === 'read_history')
  if (last?.tool === 'pin_message' && read !== undefined) {
    const fact = /change ticket for tonight is (CHG-\d+), approved by ([^;]+);/u.exec(read.text)
    const seq = /\[seq (\d+)\]/u.exec(read.text)?.[1]
    return text(
      `It is ${fact?.[1] ?? '?'}, approved by ${fact?.[2] ?? '?'} (seq ${seq}; recalled and pinned).`,
    )
  }
  if (last?.tool === 'pin_message') return text('Task pinned; starting with the first hosts.')
  if (request.startsWith("Tonight's job")) return call('pin_message', { index: at, reason: 'the task' })
  if (request.endsWith('?')) {
    const seen = /change ticket for tonight is (CHG-\d+), approved by ([^;]+);/u.exec(JSON.stringify(prompt))
    if (seen === null) return call('search_history', { query: 'change ticket approved' })
    return text(`It is ${seen[1]}, approved by ${seen[2]}.`)
  }
  const tool = toolFor(request)
  if (tool === undefined) return text('Noted.')
  const hosts = request.match(HOST) ?? []
  const done = since.filter((r) => r.tool === tool).length
  const next = hosts[done]
  if (next !== undefined) return call(tool, { host: next })
  return text(since.map((r) => r.text.split('\n')[0]).join('; '))
}

/** A summary: the status lines of the previous summary, updated by the results of the folded messages. */
function summaryReply(prompt: Prompt): string {
  const status = new Map<string, string>()
  for (const m of prompt) {
    const lines = textOf(m).startsWith(SUMMARY_HEAD) ? textOf(m).split('\n').slice(1) : []
    for (const r of resultsOf(m)) if (r.tool !== 'pin_message') lines.push(`- ${r.text.split('\n')[0]}`)
    for (const line of lines) {
      const host = /^- ((?:web|api|db)-\d\d): /u.exec(line)?.[1]
      if (host !== undefined) status.set(host, line)
    }
  }
  return [SUMMARY_HEAD, ...[...status.keys()].sort().map((h) => status.get(h))].join('\n')
}

/**
 * The ops agent's model.
 *
 * @param options - `contextLimit`: prompts over this many tokens are refused; `idPrefix`: its tool call
 *   ids start with it (a model made after a restart uses another)
 * @returns the model and the log of its calls
 */
export function opsModel(options: { contextLimit: number; idPrefix: string }): OpsModel {
  const calls: ModelCall[] = []
  const refused: number[] = []
  let ids = 0
  const id = () => `${options.idPrefix}-${++ids}`
  const answer = (prompt: Prompt): Result => {
    const summary = prompt[0]?.role === 'system' && textOf(prompt[0]) === DEFAULT_SUMMARIZATION_PROMPT
    const tokens = prompt.reduce((n, m) => n + jsonTokens(m), 0)
    calls.push({ kind: summary ? 'summary' : 'agent', messages: prompt.length, tokens })
    if (!summary && tokens > options.contextLimit) {
      refused.push(tokens)
      throw new Error(`prompt too long: ${tokens} tokens, the limit is ${options.contextLimit}`)
    }
    const reply: Reply = summary ? { type: 'text', text: summaryReply(prompt) } : agentReply(prompt, id)
    const finish = reply.type === 'tool-call' ? 'tool-calls' : 'stop'
    return { content: [reply], finishReason: { unified: finish, raw: undefined }, usage, warnings: [] }
  }
  const model = new MockLanguageModelV4({
    modelId: 'scripted-ops',
    doGenerate: ({ prompt }) => Promise.resolve().then(() => answer(prompt)),
  })
  return { model, calls, refused }
}
