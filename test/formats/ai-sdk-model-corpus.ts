/**
 * AI SDK `ModelMessage` corpora for the `ai-sdk/model` format tests: messages the SDK's own
 * `modelMessageSchema` accepts (every part kind, provider options, unknown keys) and ones it refuses.
 */
export const VALID_MODEL_MESSAGES: readonly unknown[] = [
  { role: 'user', content: 'hello' },
  { role: 'user', content: '' },
  { role: 'user', content: [] },
  { role: 'user', content: [{ type: 'text', text: '' }] },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'look', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
      { type: 'image', image: 'aGVsbG8=', mediaType: 'image/png' },
      { type: 'image', image: { openai: 'file-1' } },
      { type: 'file', data: 'aGVsbG8=', mediaType: 'application/pdf', filename: 'a.pdf' },
      { type: 'file', data: { type: 'data', data: 'aGVsbG8=' }, mediaType: 'image/png' },
      { type: 'file', data: { type: 'text', text: 'notes' }, mediaType: 'text/plain', filename: 'n.txt' },
      { type: 'file', data: { type: 'reference', reference: { openai: 'file-2' } }, mediaType: 'image' },
    ],
    providerOptions: { openai: { user: 'u1' } },
  },
  { role: 'assistant', content: 'plain answer', providerOptions: { openai: { itemId: 'msg_1' } } },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'thinking', providerOptions: { anthropic: { signature: 'sig' } } },
      { type: 'reasoning-file', data: 'aGVsbG8=', mediaType: 'image/png' },
      { type: 'text', text: 'calling' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Paris' } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'search', input: { q: 'x' }, providerExecuted: true },
      {
        type: 'tool-result',
        toolCallId: 'c2',
        toolName: 'search',
        output: { type: 'json', value: { hits: [1, 2] } },
      },
      { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1', reason: 'costly' },
      { type: 'custom', kind: 'openai.compaction', providerOptions: { openai: { id: 'cmp_1' } } },
      { type: 'file', data: 'aGVsbG8=', mediaType: 'image/png' },
    ],
  },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c9', toolName: 'noArgs', input: {} }] },
  { role: 'assistant', content: [], extraKey: 'kept' },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'weather',
        output: { type: 'text', value: 'sunny' },
      },
      {
        type: 'tool-result',
        toolCallId: 'c3',
        toolName: 'weather',
        output: { type: 'error-text', value: 'x' },
      },
      {
        type: 'tool-result',
        toolCallId: 'c4',
        toolName: 'weather',
        output: { type: 'error-json', value: null },
      },
      {
        type: 'tool-result',
        toolCallId: 'c5',
        toolName: 'weather',
        output: { type: 'execution-denied', reason: 'no' },
      },
      {
        type: 'tool-result',
        toolCallId: 'c6',
        toolName: 'shot',
        output: {
          type: 'content',
          value: [
            { type: 'text', text: 'screenshot' },
            {
              type: 'file',
              data: { type: 'data', data: 'aGVsbG8=' },
              mediaType: 'image/png',
              filename: 's.png',
            },
            { type: 'image-url', url: 'https://x/y.png' },
            { type: 'file-id', fileId: { openai: 'f' } },
            { type: 'custom', providerOptions: { x: { y: 1 } } },
          ],
        },
        providerOptions: { openai: { a: 1 } },
      },
    ],
    providerOptions: { anthropic: { b: true } },
  },
  {
    role: 'tool',
    content: [{ type: 'tool-approval-response', approvalId: 'a1', approved: true, reason: 'ok' }],
  },
  {
    role: 'tool',
    content: [{ type: 'tool-approval-response', approvalId: 'a1', approved: false, providerExecuted: true }],
  },
]

/** Refused by `modelMessageSchema`; each names the path our snapshot must name too. */
export const INVALID_MODEL_MESSAGES: readonly { message: unknown; path: string }[] = [
  {
    message: { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c9', toolName: 'noInput' }] },
    path: 'content[0].input',
  },
  { message: { role: 'robot', content: 'x' }, path: 'role' },
  { message: { content: 'x' }, path: 'role' },
  { message: { role: 'user' }, path: 'content' },
  { message: { role: 'user', content: 5 }, path: 'content' },
  { message: { role: 'tool', content: 'x' }, path: 'content' },
  { message: { role: 'user', content: [{ type: 'text' }] }, path: 'content[0].text' },
  { message: { role: 'user', content: [{ type: 'reasoning', text: 'x' }] }, path: 'content[0].type' },
  {
    message: { role: 'user', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't', input: {} }] },
    path: 'content[0].type',
  },
  {
    message: { role: 'assistant', content: [{ type: 'text', text: 'a' }, { type: 'video' }] },
    path: 'content[1].type',
  },
  {
    message: { role: 'assistant', content: [{ type: 'tool-call', toolName: 't' }] },
    path: 'content[0].toolCallId',
  },
  {
    message: {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't', input: {}, providerExecuted: 'yes' }],
    },
    path: 'content[0].providerExecuted',
  },
  {
    message: {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c', toolName: 't', output: 'sunny' }],
    },
    path: 'content[0].output',
  },
  {
    message: {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'text', value: 5 } }],
    },
    path: 'content[0].output.value',
  },
  {
    message: {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'json' } }],
    },
    path: 'content[0].output.value',
  },
  {
    message: { role: 'tool', content: [{ type: 'text', text: 'late' }] },
    path: 'content[0].type',
  },
  {
    message: { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a' }] },
    path: 'content[0].approved',
  },
  { message: { role: 'user', content: 'x', providerOptions: { openai: 5 } }, path: 'providerOptions.openai' },
  {
    message: { role: 'user', content: 'x', providerOptions: { contextLedger: 'x' } },
    path: 'providerOptions.contextLedger',
  },
  { message: { role: 'user', content: [{ type: 'file', data: 'x' }] }, path: 'content[0].mediaType' },
  {
    message: {
      role: 'user',
      content: [{ type: 'file', data: { type: 'url', url: 5 }, mediaType: 'image' }],
    },
    path: 'content[0].data',
  },
  { message: { role: 'assistant', content: [{ type: 'custom' }] }, path: 'content[0].kind' },
  { message: 'hello', path: '(message)' },
  { message: null, path: '(message)' },
]
