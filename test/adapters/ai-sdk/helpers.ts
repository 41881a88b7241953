/** Helpers of the AI SDK adapter tests: scripted `MockLanguageModelV4`s driven by the real SDK calls. */
import { streamText, type ToolSet, type UIMessage } from 'ai'
import type { MockLanguageModelV4 } from 'ai/test'
import { expect } from 'vitest'
import { ContextLedgerError } from '../../../src/errors.js'
import { scriptedModel } from '../../../examples/ai-sdk-chat-model.js'

type Result = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>
type Prompt = Parameters<MockLanguageModelV4['doGenerate']>[0]['prompt']

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
}

/** Roughly the tokens of a prompt: four characters a token of its JSON. */
export function promptTokens(prompt: Prompt): number {
  return Math.ceil(JSON.stringify(prompt).length / 4)
}

/**
 * A model that calls `tool` with `{ n }` on each of its first `calls` steps, then answers `text`; with
 * `maxPromptTokens` it throws, as a provider refuses, when a prompt is larger.
 */
export function toolLoopModel(
  options: { calls: number; tool: string; text?: string; maxPromptTokens?: number },
  prompts: Prompt[] = [],
): MockLanguageModelV4 {
  let step = 0
  const next = (prompt: Prompt): Result => {
    prompts.push(prompt)
    if (options.maxPromptTokens !== undefined && promptTokens(prompt) > options.maxPromptTokens)
      throw new Error(`prompt too long: ${promptTokens(prompt)} tokens`)
    step++
    const calls = step <= options.calls
    const content: Result['content'] = calls
      ? [
          {
            type: 'tool-call',
            toolCallId: `call-${step}`,
            toolName: options.tool,
            input: JSON.stringify({ n: step }),
          },
        ]
      : [{ type: 'text', text: options.text ?? 'done' }]
    return {
      content,
      finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: undefined },
      usage,
      warnings: [],
    }
  }
  return scriptedModel(next)
}

/** A model that answers every call with `text`. */
export function textModel(text: string, prompts: Prompt[] = []): MockLanguageModelV4 {
  return toolLoopModel({ calls: 0, tool: 'none', text }, prompts)
}

/** The `INVALID_MESSAGE` error a call rejects with; a test failure when it resolves. */
export async function refusal(call: Promise<unknown>): Promise<ContextLedgerError> {
  try {
    await call
  } catch (error) {
    expect(error).toBeInstanceOf(ContextLedgerError)
    expect((error as ContextLedgerError).code).toBe('INVALID_MESSAGE')
    return error as ContextLedgerError
  }
  throw new Error('the call was accepted')
}

/** What a `useChat` route needs of a session (either backend's). */
interface ChatSession {
  saveUIMessages(messages: readonly UIMessage[]): Promise<unknown>
  window(): Promise<Parameters<typeof streamText>[0]['messages']>
}

/**
 * One POST of a `useChat` route: save the request, stream the model's answer over the window through
 * the real `toUIMessageStreamResponse`, save what `onFinish` hands over.
 *
 * @returns what `onFinish` handed over
 */
export async function chatRound(
  session: ChatSession,
  messages: UIMessage[],
  model: MockLanguageModelV4,
  id: string,
  tools?: ToolSet,
): Promise<UIMessage[]> {
  await session.saveUIMessages(messages)
  const result = streamText({ model, messages: (await session.window()) ?? [], ...(tools ? { tools } : {}) })
  let finished: UIMessage[] = []
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the route the issue and the AI SDK 7 docs show
  const response = result.toUIMessageStreamResponse({
    originalMessages: messages,
    generateMessageId: () => id,
    onFinish: async ({ messages: all }) => {
      finished = all
      await session.saveUIMessages(all)
    },
  })
  await response.text()
  // onFinish runs as the stream ends; wait for its save to land (calls of a session are queued).
  await session.window()
  return finished
}
