/** AI SDK `UIMessage` corpora for the `ai-sdk/ui` format tests: messages `validateUIMessages` accepts and refuses. */
import type { UIMessageData } from '../../src/formats/ai-sdk-ui/index.js'

export const VALID_UI_MESSAGES: readonly UIMessageData[] = [
  { id: 'u1', role: 'user', parts: [{ type: 'text', text: '' }] },
  {
    id: 'u2',
    role: 'user',
    metadata: { createdAt: 1, author: { name: 'ann' } },
    parts: [
      { type: 'text', text: 'see file', providerMetadata: { openai: { a: 1 } } },
      { type: 'file', mediaType: 'image/png', filename: 'cat.png', url: 'data:image/png;base64,aGVsbG8=' },
    ],
  },
  { id: 'a0', role: 'assistant', parts: [] },
  {
    id: 'a1',
    role: 'assistant',
    metadata: 'free-form',
    parts: [
      { type: 'step-start' },
      { type: 'reasoning', text: 'hmm', state: 'done', providerMetadata: { anthropic: { signature: 's' } } },
      { type: 'text', text: 'Checking the weather', state: 'done' },
      { type: 'tool-weather', toolCallId: 'c1', state: 'input-streaming', input: { ci: 1 } },
      { type: 'tool-weather', toolCallId: 'c2', state: 'input-available', input: { city: 'Rome' } },
      {
        type: 'tool-weather',
        toolCallId: 'c3',
        state: 'approval-requested',
        input: { city: 'Oslo' },
        approval: { id: 'ap1', requestReason: 'costly' },
      },
      {
        type: 'tool-weather',
        toolCallId: 'c4',
        state: 'approval-responded',
        input: { city: 'Oslo' },
        approval: { id: 'ap2', approved: true, reason: 'fine' },
      },
      {
        type: 'tool-weather',
        toolCallId: 'c5',
        state: 'output-available',
        input: { city: 'Paris' },
        output: { temp: 20 },
        callProviderMetadata: { x: { y: 1 } },
      },
      {
        type: 'tool-weather',
        toolCallId: 'c6',
        state: 'output-error',
        input: { city: 'Lima' },
        errorText: 'down',
      },
      {
        type: 'tool-weather',
        toolCallId: 'c7',
        state: 'output-denied',
        input: { city: 'Kyiv' },
        approval: { id: 'ap3', approved: false, reason: 'no' },
      },
      {
        type: 'dynamic-tool',
        toolName: 'mcpSearch',
        toolCallId: 'c8',
        state: 'output-available',
        input: { q: 'z' },
        output: 'found',
      },
      { type: 'source-url', sourceId: 's1', url: 'https://example.com', title: 'Example' },
      {
        type: 'source-document',
        sourceId: 's2',
        mediaType: 'application/pdf',
        title: 'Report',
        filename: 'r.pdf',
      },
      { type: 'data-weather', id: 'd1', data: { city: 'Paris', status: 'done' } },
      { type: 'reasoning-file', mediaType: 'image/png', url: 'https://x/y.png' },
      { type: 'custom', kind: 'openai.compaction' },
      { type: 'steering-message', id: 'st1', parts: [{ type: 'text', text: 'faster please' }] },
    ],
  },
]

export const INVALID_UI_MESSAGES: readonly { message: unknown; path: string }[] = [
  { message: { role: 'user', parts: [{ type: 'text', text: 'x' }] }, path: 'id' },
  { message: { id: 'x', role: 'bot', parts: [] }, path: 'role' },
  { message: { id: 'x', role: 'user', parts: [] }, path: 'parts' },
  { message: { id: 'x', role: 'user' }, path: 'parts' },
  { message: { id: 'x', role: 'user', parts: [{ type: 'text' }] }, path: 'parts[0].text' },
  { message: { id: 'x', role: 'user', parts: [{ type: 'image', url: 'u' }] }, path: 'parts[0].type' },
  { message: { id: 'x', role: 'assistant', parts: ['text'] }, path: 'parts[0]' },
  {
    message: {
      id: 'x',
      role: 'assistant',
      parts: [{ type: 'tool-a', toolCallId: 'c', state: 'done', input: {} }],
    },
    path: 'parts[0].state',
  },
  {
    message: {
      id: 'x',
      role: 'assistant',
      parts: [{ type: 'tool-a', toolCallId: 'c', state: 'output-error', input: {} }],
    },
    path: 'parts[0].errorText',
  },
  {
    message: {
      id: 'x',
      role: 'assistant',
      parts: [{ type: 'tool-a', toolCallId: 'c', state: 'input-available', input: {}, output: 1 }],
    },
    path: 'parts[0].output',
  },
  {
    message: {
      id: 'x',
      role: 'assistant',
      parts: [
        {
          type: 'tool-a',
          toolCallId: 'c',
          state: 'output-denied',
          input: {},
          approval: { id: 'a', approved: true },
        },
      ],
    },
    path: 'parts[0].approval.approved',
  },
  {
    message: {
      id: 'x',
      role: 'assistant',
      parts: [{ type: 'dynamic-tool', toolCallId: 'c', state: 'input-available', input: {} }],
    },
    path: 'parts[0].toolName',
  },
  {
    message: { id: 'x', role: 'assistant', parts: [{ type: 'source-url', url: 'u' }] },
    path: 'parts[0].sourceId',
  },
  {
    message: { id: 'x', role: 'assistant', parts: [{ type: 'data-x', id: 5, data: 1 }] },
    path: 'parts[0].id',
  },
  {
    message: { id: 'x', role: 'assistant', parts: [{ type: 'text', text: 'a', providerMetadata: { a: 1 } }] },
    path: 'parts[0].providerMetadata.a',
  },
]
