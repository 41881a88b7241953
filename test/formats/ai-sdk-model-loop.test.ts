/** The `ai-sdk/model` format on the messages the real AI SDK loop produces (`generateText` with `MockLanguageModelV4`). */
import { describe, expect, it } from 'vitest'
import { generateText, isStepCount, tool } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { z } from 'zod'
import { DEFAULT_MESSAGE_LIMITS } from '../../src/messages/limits.js'
import { aiSdkModelFormat as format } from '../../src/formats/ai-sdk-model/index.js'
import { must } from './helpers.js'

const snap = (m: unknown) => format.snapshot(m, DEFAULT_MESSAGE_LIMITS)

describe('ai-sdk/model with the real generateText loop', () => {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  }
  const weather = tool({
    inputSchema: z.object({ city: z.string() }),
    execute: ({ city }) => {
      if (city === 'Oslo') throw new Error('no data')
      return { temp: 20 }
    },
  })

  it('response messages store exactly, and the facts pair each call with its result', async () => {
    let step = 0
    const model = new MockLanguageModelV4({
      doGenerate: () => {
        step++
        const content =
          step === 1
            ? [
                { type: 'reasoning' as const, text: 'two cities' },
                {
                  type: 'tool-call' as const,
                  toolCallId: 'c1',
                  toolName: 'weather',
                  input: '{"city":"Paris"}',
                },
                {
                  type: 'tool-call' as const,
                  toolCallId: 'c2',
                  toolName: 'weather',
                  input: '{"city":"Oslo"}',
                },
              ]
            : [{ type: 'text' as const, text: 'Paris is warm; Oslo unknown.' }]
        return Promise.resolve({
          content,
          finishReason: { unified: step === 1 ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
          usage,
          warnings: [],
        })
      },
    })
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
      model: new MockLanguageModelV4({
        doGenerate: {
          content: [{ type: 'text', text: 'ok' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        },
      }),
      messages: [{ role: 'user', content: 'weather?' }, ...stored],
    })
    expect(again.text).toBe('ok')
  })

  it('an approval round stores the request, a deferring response, then the result', async () => {
    const guarded = tool({
      inputSchema: z.object({ city: z.string() }),
      execute: () => ({ temp: 5 }),
    })
    let step = 0
    const model = new MockLanguageModelV4({
      doGenerate: () => {
        step++
        const content =
          step === 1
            ? [
                {
                  type: 'tool-call' as const,
                  toolCallId: 'c7',
                  toolName: 'guarded',
                  input: '{"city":"Rome"}',
                },
              ]
            : [{ type: 'text' as const, text: 'done' }]
        return Promise.resolve({
          content,
          finishReason: { unified: step === 1 ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
          usage,
          warnings: [],
        })
      },
    })
    const first = await generateText({
      model,
      prompt: 'go',
      tools: { guarded },
      toolApproval: { guarded: 'user-approval' },
      stopWhen: isStepCount(3),
    })
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
      tools: { guarded },
      toolApproval: { guarded: 'user-approval' },
      stopWhen: isStepCount(3),
    })
    const after = second.responseMessages.map((m) => snap(m))
    const answered = after.flatMap((m) => format.facts(m).toolResults.map((r) => r.id))
    expect(answered).toEqual(['c7'])
  })
})
