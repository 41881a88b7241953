/**
 * Turning what a summarizer returned into the summary message the window shows: a user message of the
 * reply's text (text blocks, and the text of citations blocks; reasoning and tool calls are dropped, as
 * Strands does — providers refuse them in a user message), validated like any message, with a minted
 * trackingId and the ledger's marker, counted with the session's token counter.
 */
import { ContextLedgerError } from '../errors.js'
import { SUMMARY_MARKER } from '../messages/ledger-notes.js'
import { describeValue } from '../messages/limits.js'
import type { MessageLimits } from '../messages/schema.js'
import { snapshotMessage } from '../messages/schema.js'
import type { TokenCounter } from '../messages/tokens.js'
import { countFormatTokens, formatNamed, storedText, type MessageFormatName } from '../formats/index.js'
import { mintTrackingId } from '../messages/tracking-id.js'
import type { ContentBlockData, StoredMessageData } from '../messages/types.js'
import type { MadeSummary } from '../store/context-store.js'

/**
 * What a summarizer may return: the summary's text; the text and the summarizer's identity; or a model's
 * reply (its text blocks and the text of its citations blocks are kept).
 */
export type SummarizerOutput =
  | string
  | { readonly text: string; readonly model?: string | undefined }
  | {
      readonly content: readonly ContentBlockData[]
      readonly role?: string | undefined
      readonly model?: string | undefined
    }

/**
 * What was thrown, as text for a message: an `Error`'s message, anything else as `String()` gives it —
 * and a placeholder when even that throws (an object whose `toString` or `message` getter throws, one
 * with no prototype), so describing a caller's error never fails in turn.
 *
 * @param thrown - anything thrown
 * @returns a description
 */
export function describeThrown(thrown: unknown): string {
  try {
    return thrown instanceof Error ? thrown.message : String(thrown)
  } catch {
    return 'a value that cannot be shown as text'
  }
}

export { SUMMARY_MARKER, isSummaryMessage } from '../messages/ledger-notes.js'

function failed(sessionId: string, what: string, cause?: unknown): ContextLedgerError<'SUMMARIZER_FAILED'> {
  return new ContextLedgerError(
    'SUMMARIZER_FAILED',
    `The summarizer for session "${sessionId}" ${what}; nothing was written`,
    { sessionId, cause },
  )
}

/** The texts of a reply: its text blocks, and the text its citations blocks carry. */
function textsOf(content: readonly unknown[]): string[] {
  const texts: string[] = []
  for (const block of content) {
    if (typeof block !== 'object' || block === null) continue
    if ('text' in block && typeof block.text === 'string') texts.push(block.text)
    else if ('citations' in block) {
      const cited = (block as { citations?: { content?: unknown } }).citations?.content
      if (Array.isArray(cited))
        for (const c of cited as unknown[])
          if (typeof c === 'object' && c !== null && 'text' in c && typeof c.text === 'string')
            texts.push(c.text)
    }
  }
  return texts
}

/**
 * Reads a summarizer's output once, into plain values: every property access on the caller's object
 * (which may be a getter or a Proxy that throws) happens here, so the caller of this function can guard
 * them all at once.
 *
 * @param output - what the summarizer returned
 * @param sessionId - the session, for the error
 * @returns the texts found, and the `model` it names (unchecked)
 * @throws ContextLedgerError `SUMMARIZER_FAILED` for output of no known shape; whatever a getter throws
 */
function readOutput(output: unknown, sessionId: string): { texts: string[]; model: unknown } {
  if (typeof output === 'string') return { texts: [output], model: undefined }
  if (typeof output === 'object' && output !== null) {
    const text: unknown = 'text' in output ? output.text : undefined
    const content: unknown = typeof text === 'string' || !('content' in output) ? undefined : output.content
    const model: unknown = 'model' in output ? output.model : undefined
    if (typeof text === 'string') return { texts: [text], model }
    if (Array.isArray(content)) return { texts: textsOf(content as unknown[]), model }
  }
  throw failed(
    sessionId,
    `returned ${describeValue(output)}, not a string, { text } or a message with text content`,
  )
}

/**
 * Builds the summary message from a summarizer's output.
 *
 * @param output - what the summarizer returned
 * @param context - the session, the identity recorded when the output names none, the prompt hash, the
 *   validation limits and the token counter
 * @returns the summary, ready to write
 * @throws ContextLedgerError `SUMMARIZER_FAILED` for output with no text, or text the store would refuse
 *   (the validation error is its `cause`), `INVALID_TOKEN_COUNT` from the token counter
 */
export function summaryFromOutput(
  output: unknown,
  context: {
    readonly sessionId: string
    readonly model: string | undefined
    readonly promptHash: string
    readonly limits: MessageLimits
    readonly tokenCounter: TokenCounter
    /** The session's message format (default: Strands): the summary is a message of it. */
    readonly format?: MessageFormatName | undefined
  },
): MadeSummary {
  const { sessionId } = context
  let read: { texts: string[]; model: unknown }
  try {
    read = readOutput(output, sessionId)
  } catch (error) {
    // A getter, a Proxy trap or an array's elements can throw: reading the caller's object is its failure.
    if (error instanceof ContextLedgerError) throw error
    throw failed(sessionId, `returned a value that threw when read (${describeThrown(error)})`, error)
  }
  const { texts } = read
  let model = context.model
  const named = read.model
  // A name as the `model` option takes it (1–256 characters, well-formed); anything else keeps the option's.
  if (typeof named === 'string' && named.length > 0 && named.length <= 256 && named.isWellFormed())
    model = named
  // A lone surrogate (half of a character a model cut off) becomes U+FFFD, as repair does for messages.
  const kept = texts.map((t) => t.toWellFormed()).filter((t) => t.trim().length > 0)
  if (kept.length === 0) throw failed(sessionId, 'returned no text')
  const format = formatNamed(context.format)
  let message: StoredMessageData
  let uid: string
  try {
    if (format.name === 'strands') {
      const valid = snapshotMessage(
        { role: 'user', content: kept.map((text) => ({ text })), metadata: SUMMARY_MARKER },
        context.limits,
      )
      uid = mintTrackingId()
      message = { ...valid, trackingId: uid }
    } else {
      // Built by the format from the kept texts, validated as any message of the session would be (the
      // snapshot would strip the summary note the format put on it: the built message is the one stored;
      // a format that refuses its notes in a caller's message checks it as a body the ledger holds).
      const built = format.summary(kept)
      if (format.snapshotStored === undefined) format.snapshot(built, context.limits)
      else format.snapshotStored(built, context.limits)
      uid = format.idOf(built) ?? mintTrackingId()
      message = format.withId(built, uid)
    }
  } catch (error) {
    throw failed(sessionId, `returned text the store refuses (${describeThrown(error)})`, error)
  }
  return {
    message,
    uid,
    text: storedText(format, message),
    tokens: countFormatTokens(context.tokenCounter, format, message),
    model,
    promptHash: context.promptHash,
  }
}
