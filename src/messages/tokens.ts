/**
 * Token counting. The default estimator is deliberately simple and stable (a tokenizer would tie the
 * ledger to one model family): about four characters per token for text and JSON, fixed costs for media,
 * and a small per-message overhead. Pass your own `tokenCounter` for exact counts.
 */
import { ContextLedgerError } from '../errors.js'
import type { ContentBlockData, DocumentBlockData, MessageData, ToolResultContentData } from './types.js'

/**
 * Counts the tokens a message costs in a model's context. Must return a non-negative integer.
 *
 * @example
 * ```ts
 * // Counts from your model's tokenizer instead of the built-in estimate:
 * const tokenCounter: TokenCounter = (m) => tokenize(JSON.stringify(m.content)).length
 * new PersistentConversationManager({ store, sessionId: 's', tokenCounter })
 * ```
 */
export type TokenCounter = (message: MessageData) => number

const PER_MESSAGE = 4
const IMAGE = 1600
const VIDEO = 4000
const AUDIO = 1000

function textTokens(chars: number): number {
  return Math.ceil(chars / 4)
}

/** Documents count by their text (or decoded bytes); one in S3 costs as much as an image. */
function documentTokens(source: DocumentBlockData['source']): number {
  if ('text' in source) return textTokens(source.text.length)
  if ('content' in source) return source.content.reduce((n, c) => n + textTokens(c.text.length), 0)
  if ('bytes' in source) return textTokens((source.bytes.length * 3) / 4)
  return IMAGE
}

function resultItemTokens(item: ToolResultContentData): number {
  if ('text' in item) return textTokens(item.text.length)
  if ('json' in item) return textTokens(JSON.stringify(item.json).length)
  if ('image' in item) return IMAGE
  if ('video' in item) return VIDEO
  return documentTokens(item.document.source)
}

function blockTokens(block: ContentBlockData): number {
  if ('text' in block) return textTokens(block.text.length)
  if ('toolUse' in block)
    return textTokens(block.toolUse.name.length + JSON.stringify(block.toolUse.input).length) + 8
  if ('toolResult' in block) return block.toolResult.content.reduce((n, c) => n + resultItemTokens(c), 8)
  if ('reasoning' in block) return textTokens(block.reasoning.text?.length ?? 0)
  if ('cachePoint' in block) return 0
  if ('guardContent' in block)
    return block.guardContent.text ? textTokens(block.guardContent.text.text.length) : IMAGE
  if ('image' in block) return IMAGE
  if ('video' in block) return VIDEO
  if ('audio' in block) return AUDIO
  if ('document' in block) return documentTokens(block.document.source)
  return block.citations.content.reduce((n, c) => n + textTokens(c.text.length), 0)
}

/**
 * The default estimator: ~4 characters per token for text, tool inputs and JSON; 1,600 per image,
 * 4,000 per video, 1,000 per audio clip; plus 4 per message.
 *
 * @param message - a validated message
 * @returns an estimated token count
 */
export const estimateTokens: TokenCounter = (message) =>
  message.content.reduce((n, block) => n + blockTokens(block), PER_MESSAGE)

/**
 * Runs a counter and checks what it returned.
 *
 * @param counter - the configured counter
 * @param message - the message to count
 * @returns a non-negative integer
 * @throws ContextLedgerError `INVALID_TOKEN_COUNT` when the counter throws or returns anything else
 */
export function countTokens(counter: TokenCounter, message: MessageData): number {
  let value: unknown
  try {
    value = counter(message)
  } catch (cause) {
    throw new ContextLedgerError('INVALID_TOKEN_COUNT', 'The tokenCounter threw while counting a message', {
      cause,
    })
  }
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new ContextLedgerError(
      'INVALID_TOKEN_COUNT',
      `The tokenCounter must return a non-negative integer, got ${String(value)}`,
    )
  return value
}
