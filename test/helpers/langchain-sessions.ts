/**
 * A `langchain` session built through the core API for tests of the checker and the CLI: LangChain's
 * own messages (serialized by `mapChatMessagesToStoredMessages`) with parallel tool calls, and every kind
 * of row the library writes for that format.
 */
import {
  AIMessage,
  HumanMessage,
  ToolMessage,
  mapChatMessagesToStoredMessages,
  type BaseMessage,
} from '@langchain/core/messages'
import { PersistentConversationManager, type ContextStore, type MessageData } from '../../src/index.js'

/** Messages as LangChain serializes them, as plain JSON. */
export function storedOf(messages: readonly BaseMessage[]): MessageData[] {
  return JSON.parse(JSON.stringify(mapChatMessagesToStoredMessages([...messages]))) as MessageData[]
}

/** One weather turn as an agent writes it: a question, two parallel calls, their results, an answer. */
export function langchainTurn(i: number): MessageData[] {
  const calls = ['a', 'b'].map((k) => ({ id: `c${i}${k}`, name: 'weather', args: { city: `city ${i}${k}` } }))
  return storedOf([
    new HumanMessage({ id: `h${i}`, content: `question ${i} about the weather in city ${i}` }),
    new AIMessage({
      id: `a${i}`,
      content: '',
      tool_calls: calls,
      additional_kwargs: { trace: `step ${i}` },
    }),
    ...calls.map(
      (c) =>
        new ToolMessage({
          id: `t${c.id}`,
          content: `drizzle in ${c.args.city}`,
          tool_call_id: c.id,
          name: 'weather',
        }),
    ),
    new AIMessage({
      id: `r${i}`,
      content: `answer ${i}: drizzle`,
      response_metadata: { model_name: 'fake' },
    }),
  ])
}

/**
 * A `langchain` session with parallel calls, a repair container, a late result, a pin, a redaction, a
 * summary and evictions.
 *
 * @param store - the store
 * @param sessionId - the session to build
 * @throws when a kind of row is missing (the builder itself would be wrong)
 */
export async function buildLangChainSession(store: ContextStore, sessionId = 'langchain'): Promise<void> {
  const m = new PersistentConversationManager({ store, sessionId, windowSize: 12, format: 'langchain' })
  for (let i = 0; i < 6; i++) {
    m.append(langchainTurn(i))
    m.applyWindow()
  }
  // Two calls left unanswered: the next message gets one repair row answering both (a container).
  m.append(
    storedOf([
      new AIMessage({
        id: 'lost',
        content: '',
        tool_calls: [
          { id: 'lost1', name: 'weather', args: {} },
          { id: 'lost2', name: 'forecast', args: {} },
        ],
      }),
      new HumanMessage({ id: 'never', content: 'never mind the drizzle' }),
    ]),
  )
  // One of them answers after all: a late result, shown as text.
  m.append(storedOf([new ToolMessage({ content: 'late drizzle', tool_call_id: 'lost1', name: 'weather' })]))
  m.applyWindow()
  m.pin({ seq: 0 }, { actor: 'ops', reason: 'the first question' })
  m.redact({ seq: 2 }, { actor: 'dpo', reason: 'erasure request' })
  const folded = await m.summarize(() => 'They asked about drizzle in six cities.', {
    summaryRatio: 0.5,
    preserveRecentMessages: 2,
    model: 'test-model',
  })
  if (folded.summarized === 0) throw new Error('the summary folded nothing')
  const history = store.history(sessionId, { limit: 1000 })
  const container = history.some((e) => JSON.stringify(e.message).includes('"results"'))
  const late = history.some((e) => e.late)
  if (!container || !late || store.edits(sessionId).length === 0 || store.evictions(sessionId).length === 0)
    throw new Error('the langchain session lacks a repair container, a late result, an edit or an eviction')
}
