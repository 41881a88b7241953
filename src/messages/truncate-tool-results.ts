/**
 * Tool-result truncation in Strands' format (`@strands-agents/sdk` 1.19, sliding window): long text keeps
 * its first and last 200 characters around a `<truncated chars="K"/>` marker; images, videos and binary
 * or remote documents become one-line placeholders; large JSON becomes `[json: N chars]`. Unlike Strands,
 * the message's metadata survives (usage, custom keys, the pin flag), a cut never splits a surrogate pair
 * (Strands' can, and leaves text the store refuses), and the function is pure: it works on the JSON form
 * and never changes its input.
 */
import { headOf, tailOf } from './text-cut.js'
import type {
  DocumentBlockData,
  MediaBlockData,
  MessageData,
  ToolResultContentData,
  ToolResultData,
} from './types.js'

/** Characters kept at each end of a truncated text. */
export const TRUNCATION_PRESERVE_CHARS = 200

/**
 * Texts up to this many UTF-16 code units are left alone: 2 × 200 kept characters plus 50 for the
 * marker. A truncated text (about 430 units) falls under it, so truncating twice changes nothing.
 */
export const TRUNCATION_THRESHOLD = 2 * TRUNCATION_PRESERVE_CHARS + 50

/**
 * Head/tail-truncates a text longer than {@link TRUNCATION_THRESHOLD} UTF-16 code units. Like Strands, it
 * keeps 200 code units at each end; unlike Strands, a cut that would split a surrogate pair keeps one unit
 * fewer on that side, so the result is always well-formed (lone surrogates already in the input become
 * U+FFFD) and the store accepts it.
 *
 * @param text - any text
 * @returns the first 200 (or 199) units, `\n<truncated chars="K"/>\n` with K the units removed, the last
 *   200 (or 199) units; undefined when the text is short enough to keep
 */
export function truncateLongText(text: string): string | undefined {
  if (text.length <= TRUNCATION_THRESHOLD) return undefined
  const head = headOf(text, TRUNCATION_PRESERVE_CHARS)
  const tail = tailOf(text, TRUNCATION_PRESERVE_CHARS)
  const removed = text.length - head.length - tail.length
  return `${head.toWellFormed()}\n<truncated chars="${removed}"/>\n${tail.toWellFormed()}`
}

/**
 * `items` with `change` applied, or undefined when `change` left every item as it is (returned
 * undefined): the callers keep their input object when nothing changed.
 */
function mapChanged<T>(items: readonly T[], change: (item: T) => T | undefined): T[] | undefined {
  let out: T[] | undefined
  for (const [i, item] of items.entries()) {
    const next = change(item)
    if (next === undefined) continue
    out ??= items.slice()
    out[i] = next
  }
  return out
}

/** Decoded size of canonical base64 without decoding it (Strands reports the byte length). */
function base64Bytes(b64: string): number {
  const clean = b64.replace(/[^A-Za-z0-9+/=_-]/g, '')
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0
  return Math.floor((clean.length * 3) / 4) - padding
}

function mediaPlaceholder(kind: 'image' | 'video', media: MediaBlockData): string {
  const source = media.source
  if ('bytes' in source)
    return `[${kind}: ${media.format}, source: bytes, ${base64Bytes(source.bytes)} bytes]`
  if ('url' in source) return `[${kind}: ${media.format}, source: url]`
  return `[${kind}: ${media.format}, source: s3]`
}

function truncateDocument(document: DocumentBlockData): ToolResultContentData | undefined {
  const source = document.source
  if ('bytes' in source)
    return {
      text: `[document: ${document.name}, ${document.format}, source: bytes, ${base64Bytes(source.bytes)} bytes]`,
    }
  if ('location' in source) return { text: `[document: ${document.name}, ${document.format}, source: s3]` }
  if ('text' in source) {
    const text = truncateLongText(source.text)
    return text === undefined ? undefined : { document: { ...document, source: { text } } }
  }
  const content = mapChanged(source.content, (nested) => {
    const text = truncateLongText(nested.text)
    return text === undefined ? undefined : { ...nested, text }
  })
  return content === undefined ? undefined : { document: { ...document, source: { content } } }
}

/** The truncated form of one tool-result item, or undefined when it stays as it is. */
function truncateItem(item: ToolResultContentData): ToolResultContentData | undefined {
  if ('text' in item) {
    const text = truncateLongText(item.text)
    return text === undefined ? undefined : { text }
  }
  if ('json' in item) {
    // Cutting JSON mid-structure would leave invalid JSON, so a large value is replaced whole.
    const length = JSON.stringify(item.json).length
    return length > TRUNCATION_THRESHOLD ? { text: `[json: ${length} chars]` } : undefined
  }
  if ('image' in item) return { text: mediaPlaceholder('image', item.image) }
  if ('video' in item) return { text: mediaPlaceholder('video', item.video) }
  return truncateDocument(item.document)
}

function truncateResult(result: ToolResultData): ToolResultData | undefined {
  const content = mapChanged(result.content, truncateItem)
  return content === undefined ? undefined : { ...result, content }
}

/**
 * Truncates every oversized item in a message's tool results, in Strands' format (see the module
 * comment). Role, trackingId, metadata, toolUseIds and statuses are kept; blocks that are not tool
 * results are untouched.
 *
 * @param message - a message in JSON form
 * @returns a new message when anything changed, otherwise the same object (compare with `===`)
 *
 * @example
 * ```ts
 * const shown = truncateToolResults(message)
 * if (shown !== message) store.setWindowContent(sessionId, { trackingId: message.trackingId }, shown)
 * ```
 */
export function truncateToolResults<M extends MessageData>(message: M): M {
  const content = mapChanged(message.content, (block) => {
    if (!('toolResult' in block)) return undefined
    const toolResult = truncateResult(block.toolResult)
    return toolResult === undefined ? undefined : { ...block, toolResult }
  })
  return content === undefined ? message : { ...message, content }
}

/**
 * Whether {@link truncateToolResults} would change the message.
 *
 * @param message - a message in JSON form
 * @returns true when it holds a tool result with an oversized or binary item
 */
export function hasTruncatableToolResults(message: MessageData): boolean {
  return message.content.some(
    (block) => 'toolResult' in block && truncateResult(block.toolResult) !== undefined,
  )
}
