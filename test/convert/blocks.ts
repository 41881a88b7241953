/**
 * Blocks and messages the converter tests share: one of every kind a user or assistant message can hold.
 */
import type { ContentBlockData, JsonValue, MessageData, ToolResultContentData } from '../../src/index.js'

/** Base64 of a tiny PNG header. */
export const PNG = 'iVBORw0KGgo='
/** Base64 of `%PDF-`. */
export const PDF = 'JVBERi0='
/** Base64 of `a,b`. */
export const CSV = Buffer.from('a,b').toString('base64')

/** A user message holding the given blocks. */
export const user = (...content: ContentBlockData[]): MessageData => ({ role: 'user', content })
/** An assistant message holding the given blocks. */
export const assistant = (...content: ContentBlockData[]): MessageData => ({ role: 'assistant', content })
/** A tool call block. */
export const call = (id: string, input: JsonValue = { q: id }): ContentBlockData => ({
  toolUse: { toolUseId: id, name: 'lookup', input },
})
/** A tool result block. */
export const result = (
  id: string,
  content: ToolResultContentData[] = [{ text: `result ${id}` }],
  status: 'success' | 'error' = 'success',
): ContentBlockData => ({ toolResult: { toolUseId: id, status, content } })

/** Blocks no converter can send: each must be refused, or replaced by a placeholder. */
export const UNSENDABLE: [string, ContentBlockData][] = [
  ['video', { video: { format: 'mp4', source: { bytes: 'AAAA' } } }],
  ['image', { image: { format: 'png', source: { location: { type: 's3', uri: 's3://b/k' } } } }],
  ['image', { image: { format: 'bmp', source: { bytes: 'Qk0=' } } }],
  ['document', { document: { name: 'sheet', format: 'xlsx', source: { bytes: 'UEsDBA==' } } }],
  [
    'document',
    { document: { name: 'far', format: 'pdf', source: { location: { type: 's3', uri: 's3://b/d' } } } },
  ],
]
