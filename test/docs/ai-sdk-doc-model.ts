/** The scripted model docs/ai-sdk.md's quick starts run with: `lookup` for each `dbN` asked about, then an answer. */
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test'

type LanguageModelV4Prompt = Parameters<MockLanguageModelV4['doGenerate']>[0]['prompt']

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
}

/** The next reply: a `lookup` call for the first host asked about that has no result yet, else text. */
function reply(prompt: LanguageModelV4Prompt) {
  const text = JSON.stringify(prompt)
  const asked = [...new Set(text.match(/db\d/gu) ?? [])]
  const answered = new Set([...text.matchAll(/"value":"(db\d): up"/gu)].map((m) => m[1]))
  const host = asked.find((h) => !answered.has(h))
  return host === undefined
    ? { type: 'text' as const, text: `All checked: ${asked.join(', ')} up.` }
    : {
        type: 'tool-call' as const,
        toolCallId: `c-${host}`,
        toolName: 'lookup',
        input: JSON.stringify({ host }),
      }
}

/**
 * @returns a mock model for both quick starts (generate and stream)
 */
export function scriptedDocModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: ({ prompt }) => {
      const part = reply(prompt)
      const finishReason = {
        unified: part.type === 'text' ? ('stop' as const) : ('tool-calls' as const),
        raw: undefined,
      }
      return Promise.resolve({ content: [part], finishReason, usage, warnings: [] })
    },
    doStream: ({ prompt }) => {
      const part = reply(prompt)
      const text = part.type === 'text' ? part.text : 'checking'
      return Promise.resolve({
        stream: convertArrayToReadableStream([
          { type: 'text-start' as const, id: 't' },
          { type: 'text-delta' as const, id: 't', delta: text },
          { type: 'text-end' as const, id: 't' },
          { type: 'finish' as const, finishReason: { unified: 'stop' as const, raw: undefined }, usage },
        ]),
      })
    },
  })
}
