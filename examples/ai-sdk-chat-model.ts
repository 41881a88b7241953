/**
 * The scripted model of examples/ai-sdk-chat-branches.ts: an AI SDK `LanguageModel` (the SDK's own
 * `MockLanguageModelV4` from `ai/test`) that reads only its prompt, as a real model does. Given a user
 * message last, it calls `lookup_runbook` with the question; given the tool's result last, it answers
 * from it, numbering its answers ("Take 3: …") so a regenerated answer differs from the one it
 * replaces. Streams (`streamText`, a chat route) and generates (`generateText`, an agent loop):
 * {@link scriptedModel} answers both kinds of call from one reply function.
 */
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test'

type Prompt = Parameters<MockLanguageModelV4['doGenerate']>[0]['prompt']
type Result = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>
type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
}

/** The text of a prompt message's text parts, or of its tool results. */
function textOf(message: Prompt[number] | undefined): string {
  if (message === undefined) return ''
  if (typeof message.content === 'string') return message.content
  return message.content
    .map((p) => {
      if (p.type === 'text') return p.text
      if (p.type === 'tool-result' && p.output.type === 'text') return p.output.value
      return ''
    })
    .join(' ')
}

/** The model and every prompt it got. */
export interface RunbookModel {
  /** Pass as `model` to `streamText` / `generateText`. */
  readonly model: MockLanguageModelV4
  /** Every prompt, in order. */
  readonly prompts: Prompt[]
}

/**
 * A model that looks every question up in the runbook, then answers from what it found.
 *
 * @returns the model and its prompts
 */
export function runbookModel(): RunbookModel {
  const prompts: Prompt[] = []
  let takes = 0
  let calls = 0
  const reply = (prompt: Prompt): Result => {
    prompts.push(prompt)
    const last = prompt.at(-1)
    const content: Result['content'] =
      last?.role === 'user'
        ? [
            {
              type: 'tool-call',
              toolCallId: `lookup-${++calls}`,
              toolName: 'lookup_runbook',
              input: JSON.stringify({ question: textOf(last) }),
            },
          ]
        : [{ type: 'text', text: `Take ${++takes}: ${textOf(last)}` }]
    const calling = content[0]?.type === 'tool-call'
    return {
      content,
      finishReason: { unified: calling ? 'tool-calls' : 'stop', raw: undefined },
      usage,
      warnings: [],
    }
  }
  return { model: scriptedModel(reply), prompts }
}

/**
 * A `MockLanguageModelV4` whose every call — `generateText`'s or `streamText`'s — is answered by
 * `reply`; a stream gives the same content as text deltas and tool calls.
 *
 * @param reply - the answer to a prompt
 * @returns the model
 */
export function scriptedModel(reply: (prompt: Prompt) => Result): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: (call) => Promise.resolve().then(() => reply(call.prompt)),
    doStream: (call) =>
      Promise.resolve().then(() => {
        const r = reply(call.prompt)
        const parts = r.content.flatMap((c): StreamPart[] =>
          c.type === 'text'
            ? [
                { type: 'text-start', id: 't' },
                { type: 'text-delta', id: 't', delta: c.text },
                { type: 'text-end', id: 't' },
              ]
            : [c as StreamPart],
        )
        parts.push({ type: 'finish', finishReason: r.finishReason, usage })
        return { stream: convertArrayToReadableStream(parts) }
      }),
  })
}
