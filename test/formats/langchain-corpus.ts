/**
 * LangChain messages of every type the `langchain` format stores, serialized by LangChain itself
 * (`mapChatMessagesToStoredMessages`, `@langchain/core` 1.x), and stored messages it refuses with the
 * path the format names (each one LangChain cannot revive, or revives with calls or content the ledger
 * would not see).
 */
import {
  AIMessage,
  AIMessageChunk,
  ChatMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  mapChatMessagesToStoredMessages,
  type BaseMessage,
} from '@langchain/core/messages'

/** The provider's own calls, which @langchain/openai keeps in `additional_kwargs` (a field LangChain deprecates). */
const OPENAI_RAW_CALLS: Record<string, unknown> = {
  tool_calls: [
    { id: 'call_4', type: 'function', function: { name: 'search', arguments: '{"q":"gliders"}' } },
  ],
}

/** LangChain messages of each type, with ids, metadata, content blocks, calls and results. */
export function corpusMessages(): BaseMessage[] {
  return [
    new SystemMessage({ content: 'Answer briefly.', id: 'sys-1' }),
    new HumanMessage({ content: 'What is the weather in Paris?', id: 'h-1', name: 'ada' }),
    new HumanMessage({
      id: 'h-2',
      content: [
        { type: 'text', text: 'Look at this chart' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR', detail: 'low' } },
        { type: 'image', url: 'https://x.test/y.png' },
        { type: 'file', data: 'JVBERi0', mimeType: 'application/pdf' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      ],
      additional_kwargs: { source: 'upload' },
    }),
    new AIMessage({
      id: 'ai-1',
      content: [
        { type: 'thinking', thinking: 'I should look it up in two places.', signature: 'sig' },
        { type: 'text', text: 'Checking both.' },
        { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } },
      ],
      tool_calls: [
        { id: 'call_1', name: 'weather', args: { city: 'Paris' }, type: 'tool_call' },
        { id: 'call_2', name: 'weather', args: { city: 'Lyon' } },
      ],
      invalid_tool_calls: [{ id: 'bad_1', name: 'weather', args: '{"city":', error: 'truncated JSON' }],
      usage_metadata: {
        input_tokens: 12,
        output_tokens: 30,
        total_tokens: 42,
        input_token_details: { cache_read: 4 },
      },
      response_metadata: { model_name: 'fake-model', finish_reason: 'tool_calls' },
      additional_kwargs: { provider: { trace: 'x1' } },
      // LangChain's field types, under exactOptionalPropertyTypes, refuse usage_metadata here.
    } as unknown as ConstructorParameters<typeof AIMessage>[0]),
    new ToolMessage({ id: 'tool-1', content: 'sunny, 24°C', tool_call_id: 'call_1', name: 'weather' }),
    new ToolMessage({
      id: 'tool-2',
      content: [{ type: 'text', text: 'rain expected' }],
      tool_call_id: 'call_2',
      name: 'weather',
      status: 'error',
      artifact: { raw: { mm: 3 } },
    }),
    new AIMessage({
      id: 'ai-2',
      content: 'Sunny in Paris; rain in Lyon.',
      response_metadata: { model_name: 'fake-model' },
    }),
    new ChatMessage({ content: 'A note from the critic.', role: 'critic', id: 'chat-1' }),
    new AIMessageChunk({
      id: 'ai-3',
      content: 'Let me check zeppelins.',
      tool_call_chunks: [{ id: 'call_3', name: 'search', args: '{"q":"zeppelins"}', index: 0 }],
    }),
    new ToolMessage({ content: 'found zeppelins', tool_call_id: 'call_3' }),
    new AIMessage({
      content: [
        { type: 'reasoning', reasoning: 'raw thoughts' },
        { type: 'text', text: 'Done.' },
      ],
      response_metadata: { output_version: 'v1' },
    }),
    // As @langchain/openai writes it: the provider's raw calls beside the parsed ones.
    new AIMessage({
      id: 'ai-4',
      content: '',
      tool_calls: [{ id: 'call_4', name: 'search', args: { q: 'gliders' } }],
      additional_kwargs: OPENAI_RAW_CALLS,
    }),
    new ToolMessage({ content: 'found gliders', tool_call_id: 'call_4' }),
    // v1 content: the call is a block as well as a tool call.
    new AIMessage({
      id: 'ai-5',
      content: [
        { type: 'text', text: 'One more search.' },
        { type: 'tool_call', id: 'call_5', name: 'search', args: { q: 'kites' } },
      ],
      tool_calls: [{ id: 'call_5', name: 'search', args: { q: 'kites' } }],
      response_metadata: { output_version: 'v1' },
    }),
    new ToolMessage({ content: 'found kites', tool_call_id: 'call_5', status: 'success' }),
  ]
}

/** The corpus as LangChain serializes it (one `StoredMessage` each), as plain JSON. */
export function corpusStored(): Record<string, unknown>[] {
  return JSON.parse(JSON.stringify(mapChatMessagesToStoredMessages(corpusMessages()))) as Record<
    string,
    unknown
  >[]
}

const data = (fields: object) => ({ content: 'x', additional_kwargs: {}, response_metadata: {}, ...fields })

/** Stored messages the format refuses, with the path it names. */
export const INVALID_LANGCHAIN_MESSAGES: readonly { message: unknown; path: string }[] = [
  { message: 'hello', path: '(message)' },
  { message: { type: 'user', data: data({}) }, path: 'type' },
  { message: { type: 'function', data: data({ name: 'f' }) }, path: 'type' },
  { message: { type: 'remove', data: data({ id: 'x' }) }, path: 'type' },
  { message: { type: 'human', role: 'user', text: 'V1 form' }, path: 'role' },
  { message: { type: 'human' }, path: 'data' },
  { message: { type: 'human', data: [] }, path: 'data' },
  { message: { type: 'human', data: { additional_kwargs: {} } }, path: 'data.content' },
  { message: { type: 'human', data: data({ content: 7 }) }, path: 'data.content' },
  { message: { type: 'human', data: data({ content: ['x'] }) }, path: 'data.content[0]' },
  { message: { type: 'human', data: data({ content: [{ text: 'x' }] }) }, path: 'data.content[0].type' },
  {
    message: { type: 'human', data: data({ content: [{ type: 'text', text: 3 }] }) },
    path: 'data.content[0].text',
  },
  {
    message: { type: 'human', data: data({ content: [{ type: 'image_url', image_url: { link: 'x' } }] }) },
    path: 'data.content[0].image_url',
  },
  { message: { type: 'human', data: data({ id: 5 }) }, path: 'data.id' },
  { message: { type: 'human', data: data({ additional_kwargs: [] }) }, path: 'data.additional_kwargs' },
  {
    message: { type: 'ai', data: data({ tool_calls: [{ name: 'f', args: {} }] }) },
    path: 'data.tool_calls[0].id',
  },
  {
    message: { type: 'ai', data: data({ tool_calls: [{ id: '', name: 'f', args: {} }] }) },
    path: 'data.tool_calls[0].id',
  },
  {
    message: {
      type: 'ai',
      data: data({
        tool_calls: [
          { id: 'a', name: 'f', args: {} },
          { id: 'a', name: 'g', args: {} },
        ],
      }),
    },
    path: 'data.tool_calls[1].id',
  },
  {
    message: { type: 'ai', data: data({ tool_calls: [{ id: 'a', name: 'f', args: 'x' }] }) },
    path: 'data.tool_calls[0].args',
  },
  { message: { type: 'ai', data: data({ tool_calls: ['a'] }) }, path: 'data.tool_calls[0]' },
  {
    message: { type: 'ai', data: data({ usage_metadata: { input_tokens: 1 } }) },
    path: 'data.usage_metadata.output_tokens',
  },
  {
    // LangChain parses these into tool_calls on revival: the ledger would not see the call.
    message: {
      type: 'ai',
      data: data({
        additional_kwargs: {
          tool_calls: [{ id: 'k', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
      }),
    },
    path: 'data.tool_calls',
  },
  {
    message: {
      type: 'ai',
      data: data({
        content: [{ type: 'tool_call', id: 'z', name: 'q', args: {} }],
        response_metadata: { output_version: 'v1' },
        tool_calls: [],
      }),
    },
    path: 'data.content[0]',
  },
  { message: { type: 'tool', data: data({}) }, path: 'data.tool_call_id' },
  { message: { type: 'tool', data: data({ tool_call_id: '' }) }, path: 'data.tool_call_id' },
  { message: { type: 'tool', data: data({ tool_call_id: 'c', status: 'failed' }) }, path: 'data.status' },
  { message: { type: 'generic', data: data({}) }, path: 'data.role' },
  { message: { type: 'generic', data: data({ role: 'tool' }) }, path: 'data.role' },
]
