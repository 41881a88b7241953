/**
 * AI SDK sessions built through the core API for tests of the checker and the CLI: ModelMessage turns
 * with tool calls, and a session that holds every kind of row the library writes for that format.
 */
import { PersistentConversationManager, type ContextStore } from '../../src/index.js'

/** One weather turn as the AI SDK writes it: a question, a call, its result, an answer. */
export function modelTurn(i: number): unknown[] {
  return [
    { role: 'user', content: `question ${i} about the weather in city ${i}` },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: `c${i}`, toolName: 'weather', input: { city: `city ${i}` } },
      ],
      providerOptions: { openai: { itemId: `item-${i}` } },
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `c${i}`,
          toolName: 'weather',
          output: { type: 'json', value: { forecast: `drizzle in city ${i}` } },
        },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: `answer ${i}: drizzle` }] },
  ]
}

/**
 * An `ai-sdk/model` session with tool calls, a repair row, a pin, a redaction, a summary and evictions.
 *
 * @param store - the store
 * @param sessionId - the session to build
 * @throws when a kind of row is missing (the builder itself would be wrong)
 */
export async function buildModelSession(store: ContextStore, sessionId = 'model'): Promise<void> {
  const m = new PersistentConversationManager({ store, sessionId, windowSize: 12, format: 'ai-sdk/model' })
  for (let i = 0; i < 6; i++) {
    m.append(modelTurn(i) as never)
    m.applyWindow()
  }
  // A call left unanswered: the next user message gets a repair row in the session's format.
  m.append([
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'lost', toolName: 'weather', input: {} }],
    },
    { role: 'user', content: 'never mind the drizzle' },
  ] as never)
  m.applyWindow()
  m.pin({ seq: 0 }, { actor: 'ops', reason: 'the first question' })
  m.redact({ seq: 2 }, { actor: 'dpo', reason: 'erasure request' })
  const folded = await m.summarize(() => 'They asked about drizzle in six cities.', {
    summaryRatio: 0.5,
    preserveRecentMessages: 2,
    model: 'test-model',
  })
  if (folded.summarized === 0) throw new Error('the summary folded nothing')
  const repaired = store
    .history(sessionId, { limit: 1000 })
    .some((e) => JSON.stringify(e.message).includes('missing-tool-result'))
  if (!repaired || store.edits(sessionId).length === 0 || store.evictions(sessionId).length === 0)
    throw new Error('the model session lacks a repair row, an edit or an eviction')
}
