/** The `ai-sdk/model` format on the messages the real AI SDK loop produces (`generateText` with `MockLanguageModelV4`). */
import { describe, expect, it } from 'vitest'
import { generateText, isStepCount, tool } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { z } from 'zod'
import { DEFAULT_MESSAGE_LIMITS } from '../../src/messages/limits.js'
import { aiSdkModelFormat as format } from '../../src/formats/ai-sdk-model/index.js'
import { must } from './helpers.js'

const snap = (m: unknown) => format.snapshot(m, DEFAULT_MESSAGE_LIMITS)

type Content = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>['content']

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
}

/** A model whose first call returns `first` (tool calls), and every later call `text`. */
function scriptedModel(first: Content, text: string): MockLanguageModelV4 {
  let step = 0
  return new MockLanguageModelV4({
    doGenerate: () => {
      const calls = ++step === 1
      return Promise.resolve({
        content: calls ? first : [{ type: 'text', text }],
        finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: undefined },
        usage,
        warnings: [],
      })
    },
  })
}

const call = (toolCallId: string, toolName: string, city: string) =>
  ({ type: 'tool-call', toolCallId, toolName, input: JSON.stringify({ city }) }) as const

describe('ai-sdk/model with the real generateText loop', () => {
  it('response messages store exactly, and the facts pair each call with its result', async () => {
    const weather = tool({
      inputSchema: z.object({ city: z.string() }),
      execute: ({ city }) => {
        if (city === 'Oslo') throw new Error('no data')
        return { temp: 20 }
      },
    })
    const model = scriptedModel(
      [
        { type: 'reasoning', text: 'two cities' },
        call('c1', 'weather', 'Paris'),
        call('c2', 'weather', 'Oslo'),
      ],
      'Paris is warm; Oslo unknown.',
    )
    const result = await generateText({
      model,
      prompt: 'weather?',
      tools: { weather },
      stopWhen: isStepCount(3),
    })
    const stored = result.responseMessages.map((m) => snap(m))
    expect(stored).toEqual(JSON.parse(JSON.stringify(result.responseMessages)))
    const facts = stored.map((m) => format.facts(m))
    expect(facts.map((f) => f.speaker)).toEqual(['assistant', 'tool', 'assistant'])
    expect(must(facts[0]).toolUses.map((u) => u.id)).toEqual(['c1', 'c2'])
    expect(must(facts[1]).toolResults.map((r) => [r.id, r.status])).toEqual([
      ['c1', 'success'],
      ['c2', 'error'],
    ])
    expect(format.text(must(stored[1]))).toContain('no data')
    // What the ledger stored is what the SDK takes back as a prompt.
    const again = await generateText({
      model: scriptedModel([{ type: 'text', text: 'ok' }], 'ok'),
      messages: [{ role: 'user', content: 'weather?' }, ...stored],
    })
    expect(again.text).toBe('ok')
  })

  it('an approval round stores the request, a deferring response, then the result', async () => {
    const guarded = tool({ inputSchema: z.object({ city: z.string() }), execute: () => ({ temp: 5 }) })
    const model = scriptedModel([call('c7', 'guarded', 'Rome')], 'done')
    const settings = {
      tools: { guarded },
      toolApproval: { guarded: 'user-approval' as const },
      stopWhen: isStepCount(3),
    }
    const first = await generateText({ model, prompt: 'go', ...settings })
    const asked = first.responseMessages.map((m) => snap(m))
    const request = (must(asked[0]).content as { type: string; approvalId?: string }[]).find(
      (p) => p.type === 'tool-approval-request',
    )
    expect(request?.approvalId).toEqual(expect.any(String))
    expect(format.facts(must(asked[0])).toolUses.map((u) => u.id)).toEqual(['c7'])
    const response = snap({
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: must(request).approvalId, approved: true }],
    })
    expect(format.facts(response).defersCalls).toBe(true)
    const second = await generateText({
      model,
      messages: [{ role: 'user', content: 'go' }, ...asked, response],
      ...settings,
    })
    const after = second.responseMessages.map((m) => snap(m))
    expect(after.flatMap((m) => format.facts(m).toolResults.map((r) => r.id))).toEqual(['c7'])
  })
})
