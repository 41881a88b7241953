/**
 * A message holding every block kind of the Strands / Bedrock MessageData JSON, for round-trip tests.
 */
import type { StoredMessageData } from '../../src/index.js'

/** Every content block kind, with nested tool-result items of every kind. */
export const everyBlockMessage: StoredMessageData = {
  role: 'assistant',
  content: [
    { text: 'héllo — ✓ 🚀' },
    { toolUse: { name: 'search', toolUseId: 'tu-1', input: { q: 'x', n: 3, deep: { a: [1, null, true] } } } },
    { reasoning: { text: 'thinking', signature: 'sig', redactedContent: 'CQg=' } },
    { cachePoint: { cacheType: 'default', ttl: '5m' } },
    { guardContent: { text: { text: 'guarded', qualifiers: ['query'] } } },
    { guardContent: { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } } },
    { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } },
    { image: { format: 'jpeg', source: { url: 'https://example.com/a.jpg' } } },
    { image: { format: 'png', source: { location: { type: 's3', uri: 's3://b/k', bucketOwner: '123' } } } },
    { video: { format: 'mp4', source: { bytes: 'AAAA' } } },
    { audio: { format: 'mp3', source: { location: { type: 's3', uri: 's3://b/a.mp3' } } } },
    { document: { name: 'doc', format: 'pdf', source: { bytes: 'JVBERi0=' }, citations: { enabled: true } } },
    { document: { name: 'notes', format: 'txt', source: { text: 'plain text' }, context: 'ctx' } },
    { document: { name: 'parts', format: 'txt', source: { content: [{ text: 'a' }, { text: 'b' }] } } },
    {
      citations: {
        citations: [
          {
            location: { type: 'documentChar', documentIndex: 0, start: 1, end: 5 },
            source: 'doc',
            sourceContent: [{ text: 'ello' }],
            title: 'Doc',
          },
        ],
        content: [{ text: 'cited' }],
      },
    },
  ],
  trackingId: '5f0c3e36-7a1e-4e5c-9a55-1e0d0f2b6c11',
  metadata: {
    usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, cacheReadInputTokens: 2 },
    metrics: { latencyMs: 120, timeToFirstByteMs: 30 },
    custom: { source: 'test', nested: { list: [1, 2] } },
  },
}

/** A user message answering `tu-1` with every tool-result item kind. */
export const everyToolResultMessage: StoredMessageData = {
  role: 'user',
  content: [
    {
      toolResult: {
        toolUseId: 'tu-1',
        status: 'error',
        content: [
          { text: 'partial' },
          { json: { rows: [{ id: 1 }], ok: false } },
          { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } },
          { video: { format: 'mp4', source: { location: { type: 's3', uri: 's3://b/v.mp4' } } } },
          { document: { name: 'r', format: 'csv', source: { text: 'a,b' } } },
        ],
      },
    },
  ],
  trackingId: '0b5e5c3e-2f6c-4f0e-8d7c-3a1d2c4b5e6f',
}
