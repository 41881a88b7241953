/**
 * Turning what a summarizer returned into the summary message the window shows: a user message of the
 * reply's text (text blocks, and the text of citations blocks; reasoning and tool calls are dropped, as
 * Strands does — providers refuse them in a user message), validated like any message, with a minted
 * trackingId and the ledger's marker, counted with the session's token counter.
 */
import { ContextLedgerError } from '../errors.js'
import { describeValue } from '../messages/limits.js'
import type { MessageLimits } from '../messages/schema.js'
import { snapshotMessage } from '../messages/schema.js'
import { countTokens, type TokenCounter } from '../messages/tokens.js'
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

/** The metadata a summary message carries, so whoever reads a window can tell it from the messages. */
export const SUMMARY_MARKER = Object.freeze({ custom: { contextLedger: { summary: true } } })

/**
 * Whether a window message is a summary the ledger made.
 *
 * @param message - a window message
 * @returns true for a summary message
 */
export function isSummaryMessage(message: { metadata?: unknown }): boolean {
  const m = message.metadata as { custom?: { contextLedger?: { summary?: unknown } } } | undefined
  return m?.custom?.contextLedger?.summary === true
}

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
  },
): MadeSummary {
  const { sessionId } = context
  let texts: string[]
  let model = context.model
  if (typeof output === 'string') texts = [output]
  else if (
    typeof output === 'object' &&
    output !== null &&
    'text' in output &&
    typeof output.text === 'string'
  )
    texts = [output.text]
  else if (
    typeof output === 'object' &&
    output !== null &&
    'content' in output &&
    Array.isArray(output.content)
  )
    texts = textsOf(output.content as unknown[])
  else
    throw failed(
      sessionId,
      `returned ${describeValue(output)}, not a string, { text } or a message with text content`,
    )
  if (typeof output === 'object' && 'model' in output) {
    const named: unknown = output.model
    // A name as the `model` option takes it (1–256 characters, well-formed); anything else keeps the option's.
    if (typeof named === 'string' && named.length > 0 && named.length <= 256 && named.isWellFormed())
      model = named
  }
  // A lone surrogate (half of a character a model cut off) becomes U+FFFD, as repair does for messages.
  const kept = texts.map((t) => t.toWellFormed()).filter((t) => t.trim().length > 0)
  if (kept.length === 0) throw failed(sessionId, 'returned no text')
  let message: StoredMessageData
  try {
    const valid = snapshotMessage(
      { role: 'user', content: kept.map((text) => ({ text })), metadata: SUMMARY_MARKER },
      context.limits,
    )
    message = { ...valid, trackingId: mintTrackingId() }
  } catch (error) {
    throw failed(sessionId, `returned text the store refuses (${describeThrown(error)})`, error)
  }
  return {
    message,
    tokens: countTokens(context.tokenCounter, message),
    model,
    promptHash: context.promptHash,
  }
}
