/**
 * The message formats a session can hold, by name (docs/design.md, "Message formats"). A session's format
 * is fixed by its first append and stored on its row (null there means `'strands'`).
 */
import { ContextLedgerError } from '../errors.js'
import { describeValue } from '../messages/limits.js'
import { countTokens, estimateTokens, type TokenCounter } from '../messages/tokens.js'
import type { StoredMessageData } from '../messages/types.js'
import { aiSdkModelFormat } from './ai-sdk-model/index.js'
import { aiSdkUiFormat } from './ai-sdk-ui/index.js'
import { claudeAgentFormat } from './claude-agent/index.js'
import { langchainFormat } from './langchain/index.js'
import { openaiAgentsFormat } from './openai-agents/index.js'
import { strandsFormat } from './strands/index.js'
import { MESSAGE_FORMATS, type MessageFormat, type MessageFormatName } from './types.js'

export { MESSAGE_FORMATS, type MessageFormat, type MessageFormatName } from './types.js'
export type { LedgerNotes, LateToolResult, MessageFacts, ToolResultFact, ToolUseFact } from './types.js'

/**
 * A format as the store holds it. The store types every body as a Strands message (its API's type for
 * messages); for a session of another format the body is that format's JSON, and the store reads it only
 * through the format's methods, never by its fields.
 */
export type BodyFormat = MessageFormat<StoredMessageData>

// The other formats' bodies are their own JSON; the store reads them only through their methods.
const FORMATS = new Map<MessageFormatName, BodyFormat>([
  ['strands', strandsFormat],
  ['ai-sdk/model', aiSdkModelFormat as unknown as BodyFormat],
  ['ai-sdk/ui', aiSdkUiFormat as unknown as BodyFormat],
  ['openai-agents', openaiAgentsFormat as unknown as BodyFormat],
  ['langchain', langchainFormat as unknown as BodyFormat],
  ['claude-agent', claudeAgentFormat as unknown as BodyFormat],
])

/**
 * The format module of a session.
 *
 * @param name - the name stored on the session row (null or undefined: `'strands'`)
 * @returns its module
 */
export function formatNamed(name: string | null | undefined): BodyFormat {
  const format = FORMATS.get((name ?? 'strands') as MessageFormatName)
  // The row was written by the store from a checked name; another value is damage.
  if (format === undefined)
    throw new ContextLedgerError(
      'CORRUPT_DATABASE',
      `Unknown message format ${JSON.stringify(name)} on a session row`,
    )
  return format
}

/**
 * Checks a format a caller named.
 *
 * @param value - the caller's value
 * @param path - the option's name, for the error
 * @returns the name
 * @throws ContextLedgerError `INVALID_OPTIONS` for anything but a known format's name
 */
export function checkFormatName(value: unknown, path = 'format'): MessageFormatName {
  if (typeof value === 'string' && (MESSAGE_FORMATS as readonly string[]).includes(value))
    return value as MessageFormatName
  throw new ContextLedgerError(
    'INVALID_OPTIONS',
    `Invalid ${path}: expected one of ${MESSAGE_FORMATS.map((f) => `'${f}'`).join(', ')}, got ${describeValue(value)}`,
    { path },
  )
}

/**
 * The name stored on a session row for a format (null for the default, `'strands'`).
 *
 * @param name - the format
 * @returns the column's value
 */
export function storedFormatName(name: MessageFormatName): string | null {
  return name === 'strands' ? null : name
}

/**
 * A message's tokens: the caller's counter, or — when it is the built-in `estimateTokens` (the default) —
 * the format's own estimate, which reads that format's shape.
 *
 * @param counter - the configured counter
 * @param format - the message's format
 * @param message - the message
 * @returns a non-negative integer
 * @throws ContextLedgerError `INVALID_TOKEN_COUNT` when the counter throws or returns anything else
 */
export function countFormatTokens(
  counter: TokenCounter,
  format: BodyFormat,
  message: StoredMessageData,
): number {
  return counter === estimateTokens && format.name !== 'strands'
    ? countTokens(() => format.estimateTokens(message), message)
    : countTokens(counter, message)
}

/**
 * The searchable text stored with a message: null for a Strands message (the view `search_text` derives
 * it from the body), the format's text for the others, a NUL (U+0000) as a space — as search shows a
 * NUL of any body, and because PostgreSQL's text cannot hold one (the body, JSON, holds it escaped).
 *
 * @param format - the message's format
 * @param message - the message
 * @returns the text for the `text` column
 */
export function storedText(format: BodyFormat, message: StoredMessageData): string | null {
  return format.name === 'strands' ? null : format.text(message).replaceAll('\u0000', ' ')
}
