/**
 * Summarizers for tests: deterministic and synchronous, recording every call (its messages and request),
 * so a test can count the calls and compare what each was given with what the store should have sent.
 */
import type { MessageData, Summarizer, SummaryRequest } from '../../src/index.js'
import { SUMMARY_REQUEST } from '../../src/index.js'

/** One call a recording summarizer answered. */
export interface SummarizerCall {
  /** The messages it was given, the closing request excluded. */
  readonly input: readonly MessageData[]
  /** What it was told besides the messages. */
  readonly request: SummaryRequest
  /** The text it answered. */
  readonly text: string
}

/** A summarizer that answers from its input alone, and the calls it answered. */
export interface RecordingSummarizer {
  /** The summarizer. */
  readonly summarize: Summarizer
  /** Its calls, oldest first. */
  readonly calls: SummarizerCall[]
}

/**
 * The text a {@link recordingSummarizer} answers for `input`: the trackingIds it was given (or the first
 * text of messages without one), so equal inputs give equal summaries.
 *
 * @param input - the messages to summarize, the request excluded
 * @returns the summary text
 */
export function summaryText(input: readonly MessageData[]): string {
  const ids = input.map((m) => {
    if (m.trackingId !== undefined) return m.trackingId
    const block = m.content[0]
    return block !== undefined && 'text' in block ? block.text.slice(0, 20) : '?'
  })
  return `Summary of ${input.length}: ${ids.join(' ')}`
}

/**
 * A deterministic, synchronous summarizer that records its calls. It checks that the store closed the
 * messages with the summary request, as Strands does.
 *
 * @param before - runs first on every call (e.g. another writer's write, or a throw)
 * @returns the summarizer and its calls
 */
export function recordingSummarizer(
  before?: (call: number, input: readonly MessageData[]) => void,
): RecordingSummarizer {
  const calls: SummarizerCall[] = []
  const summarize: Summarizer = (messages, request) => {
    const last = messages.at(-1)
    const closing = last?.content[0]
    if (
      last?.role !== 'user' ||
      closing === undefined ||
      !('text' in closing) ||
      closing.text !== SUMMARY_REQUEST
    )
      throw new Error(`the summarizer was not asked for a summary: ${JSON.stringify(last)}`)
    const input = messages.slice(0, -1)
    before?.(calls.length, input)
    const text = summaryText(input)
    calls.push({ input, request, text })
    return text
  }
  return { summarize, calls }
}
