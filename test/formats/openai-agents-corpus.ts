/**
 * `AgentInputItem`s of every type the `openai-agents` format stores, each accepted by the SDK's own
 * schema (`ModelItem` of `@openai/agents-core`, checked in the format's tests), and items it refuses with
 * the path the format names.
 */

/** One item of each type (and the variants of content and output). */
export const VALID_AGENT_ITEMS: readonly Record<string, unknown>[] = [
  { role: 'user', content: 'What is the weather in Paris?' },
  {
    type: 'message',
    role: 'user',
    content: [
      { type: 'input_text', text: 'Look at this', promptCacheBreakpoint: { mode: 'explicit' } },
      { type: 'input_image', image: 'https://x/y.png', detail: 'low' },
      { type: 'input_file', file: { id: 'file_1' }, filename: 'notes.pdf' },
      { type: 'audio', audio: 'AAAA', format: 'wav', transcript: 'hello there' },
    ],
    providerData: { custom: 1 },
  },
  { role: 'system', content: 'Answer briefly.' },
  {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    status: 'completed',
    phase: 'final_answer',
    content: [
      { type: 'output_text', text: 'It is sunny.', providerData: { annotations: [] } },
      { type: 'refusal', refusal: 'No.' },
      { type: 'image', image: 'iVBOR' },
    ],
  },
  {
    type: 'function_call',
    id: 'fc_1',
    callId: 'call_1',
    name: 'weather',
    arguments: '{"city":"Paris"}',
    status: 'completed',
  },
  { type: 'function_call_result', callId: 'call_1', name: 'weather', status: 'completed', output: 'sunny' },
  {
    type: 'function_call_result',
    callId: 'call_2',
    name: 'weather',
    status: 'completed',
    output: { type: 'text', text: 'rain' },
  },
  {
    type: 'function_call_result',
    callId: 'call_3',
    name: 'chart',
    status: 'incomplete',
    output: [
      { type: 'input_text', text: 'a chart' },
      { type: 'input_image', image: { id: 'file_2' } },
    ],
  },
  {
    type: 'computer_call',
    callId: 'cc_1',
    status: 'completed',
    action: { type: 'click', x: 1, y: 2, button: 'left' },
  },
  {
    type: 'computer_call_result',
    callId: 'cc_1',
    output: { type: 'computer_screenshot', data: 'data:image/png;base64,AAAA' },
  },
  {
    type: 'shell_call',
    callId: 'sh_1',
    status: 'completed',
    action: { commands: ['ls -la', 'pwd'], timeoutMs: 1000 },
  },
  {
    type: 'shell_call_output',
    callId: 'sh_1',
    output: [{ stdout: 'README.md', stderr: 'warning: x', outcome: { type: 'exit', exitCode: 0 } }],
  },
  {
    type: 'apply_patch_call',
    callId: 'ap_1',
    status: 'completed',
    operation: { type: 'update_file', path: 'src/a.ts', diff: '-old\n+new' },
  },
  { type: 'apply_patch_call_output', callId: 'ap_1', status: 'failed', output: 'conflict' },
  { type: 'program', callId: 'pg_1', code: 'print(1)', fingerprint: 'f1' },
  { type: 'program_output', callId: 'pg_1', output: '1', status: 'completed' },
  {
    type: 'hosted_tool_call',
    id: 'ws_1',
    name: 'web_search_call',
    arguments: '{"q":"zeppelins"}',
    status: 'completed',
    output: 'found zeppelins',
    providerData: { raw: { x: 1 } },
  },
  { type: 'tool_search_call', callId: 'ts_1', arguments: { query: 'calendar' }, execution: 'server' },
  {
    type: 'tool_search_output',
    callId: 'ts_1',
    tools: [{ type: 'tool_reference', functionName: 'calendar_add' }],
  },
  {
    type: 'reasoning',
    id: 'rs_1',
    content: [{ type: 'input_text', text: 'Thinking about the weather.' }],
    rawContent: [{ type: 'reasoning_text', text: 'raw thoughts' }],
    providerData: { encryptedContent: 'xyz' },
  },
  { type: 'compaction', encrypted_content: 'opaque', created_by: 'openai' },
  { type: 'unknown', id: 'u_1', providerData: { something: true } },
  // The SDK's schemas are not strict: keys they do not know are kept.
  { role: 'user', content: 'extra', someFutureKey: { a: [1, 2] } },
]

/** Items the format refuses, with the path it names. */
export const INVALID_AGENT_ITEMS: readonly { item: unknown; path: string }[] = [
  { item: 'hello', path: '(message)' },
  { item: { role: 'robot', content: 'x' }, path: 'role' },
  { item: { type: 'teleport' }, path: 'type' },
  { item: { type: 'function_call', name: 'f', arguments: '{}' }, path: 'callId' },
  { item: { type: 'function_call', callId: 'c', name: 'f', arguments: {} }, path: 'arguments' },
  {
    item: {
      role: 'user',
      content: [
        { type: 'input_text', text: 'a' },
        { type: 'output_text', text: 'b' },
      ],
    },
    path: 'content[1].type',
  },
  { item: { role: 'assistant', content: [{ type: 'output_text', text: 'b' }] }, path: 'status' },
  { item: { role: 'assistant', status: 'completed', content: 'b' }, path: 'content' },
  { item: { role: 'system', content: [{ type: 'input_text', text: 'b' }] }, path: 'content' },
  {
    item: { type: 'function_call_result', callId: 'c', name: 'f', status: 'done', output: 'x' },
    path: 'status',
  },
  { item: { type: 'function_call_result', callId: 'c', name: 'f', status: 'completed' }, path: 'output' },
  { item: { type: 'computer_call', callId: 'c', status: 'completed' }, path: 'action' },
  { item: { type: 'shell_call', callId: 'c', action: { commands: [1] } }, path: 'action.commands[0]' },
  { item: { type: 'apply_patch_call_output', callId: 'c', status: 'ok' }, path: 'status' },
  { item: { type: 'reasoning', content: [{ type: 'output_text', text: 'x' }] }, path: 'content[0].type' },
  { item: { type: 'compaction' }, path: 'encrypted_content' },
  { item: { type: 'unknown', providerData: 'x' }, path: 'providerData' },
]
