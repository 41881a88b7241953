/**
 * Late tool results. A toolResult can arrive for a call that is no longer waiting: the conversation moved
 * on first (another writer's message, a restart), so the store answered the call with a repair row, or an
 * earlier result answered it. Refusing such a result would lose an acknowledged message and wedge the
 * writer that sent it; linking it would break the window (a toolResult must follow its toolUse). So it is
 * archived exactly as sent and the window shows each late result as a text block in its place: the model
 * still reads what the tool returned, and every provider accepts the window.
 */
import { truncateLongText } from '../messages/truncate-tool-results.js'
import type { ContentBlockData, StoredMessageData, ToolResultContentData } from '../messages/types.js'

/** One late result block: its position in the message and the call it answers. */
export interface LateResult {
  /** Index of the toolResult block in the message's content. */
  readonly block: number
  /** The toolUseId it answers. */
  readonly id: string
  /** The tool's name, from the call the session recorded. */
  readonly name: string
}

function itemText(item: ToolResultContentData): string {
  if ('text' in item) return item.text
  if ('json' in item) return JSON.stringify(item.json)
  if ('image' in item) return `[image: ${item.image.format}]`
  if ('video' in item) return `[video: ${item.video.format}]`
  return `[document: ${item.document.name}, ${item.document.format}]`
}

/**
 * The window form of a message holding late results: each late toolResult block becomes a text block
 * naming the call, its status and its content; every other block, the role, trackingId and metadata stay.
 *
 * @param message - the message as archived
 * @param late - its late result blocks
 * @returns the message the window shows
 */
export function lateResultsWindowForm(
  message: StoredMessageData,
  late: readonly LateResult[],
): StoredMessageData {
  const byBlock = new Map(late.map((l) => [l.block, l]))
  const content = message.content.map((block, i): ContentBlockData => {
    const l = byBlock.get(i)
    if (l === undefined || !('toolResult' in block)) return block
    const r = block.toolResult
    const body = r.content.map(itemText).join('\n')
    return {
      text:
        `[Late tool result] The call ${JSON.stringify(l.id)} to ${l.name} returned after the conversation had ` +
        `moved on (status: ${r.status}):\n${body}`,
    }
  })
  return { ...message, content }
}

/**
 * A late message's window form with each late result's text truncated by the rule tool results are
 * truncated by (`truncateLongText`: the first and last 200 characters around a `<truncated chars="K"/>`
 * marker, so the header naming the call stays), for overflow recovery: a late result in the newest turn
 * cannot be evicted, so truncation is the only way to make room for it. Late results are found through the
 * archive, never by their text (a user could type the same words): block i is one when the archived
 * message holds a toolResult at i and the window shows a text block there ({@link lateResultsWindowForm}
 * keeps every block in its place). Call it only for an entry the store marked `late`.
 *
 * @param shown - the message as the window shows it
 * @param archived - the message as archived
 * @returns a new message when a late result's text was long enough to truncate, otherwise `shown`
 *   itself (compare with `===`); truncating twice changes nothing
 */
export function truncateLateResults(
  shown: StoredMessageData,
  archived: StoredMessageData,
): StoredMessageData {
  let content: ContentBlockData[] | undefined
  shown.content.forEach((block, i) => {
    const original = archived.content[i]
    if (original === undefined || !('toolResult' in original) || !('text' in block)) return
    const text = truncateLongText(block.text)
    if (text === undefined) return
    content ??= shown.content.slice()
    content[i] = { ...block, text }
  })
  return content === undefined ? shown : { ...shown, content }
}
