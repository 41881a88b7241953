/**
 * The check reads a session of another format than Strands through its facts: each message becomes a
 * Strands-shaped skeleton holding only what the rules read — its side, its tool ids (calls and answers),
 * a text block, and the summary note of a summary — so the window, link and bookkeeping rules run
 * unchanged on every format. The body itself is checked against its own format's validator first.
 */
import type { BodyFormat, MessageFacts } from '../formats/index.js'
import { SUMMARY_MARKER } from '../messages/ledger-notes.js'
import type { ContentBlockData, StoredMessageData } from '../messages/types.js'
import type { BodyProblem } from './message-rules.js'
import { CARRIES, NOT_PLAIN } from './archive-facts.js'
import { ContextLedgerError } from '../errors.js'
import type { MessageLimits } from '../messages/limits.js'

/**
 * The skeleton of a message of `format`.
 *
 * @param format - the session's format (not Strands)
 * @param message - the stored body
 * @param uid - its trackingId
 * @returns a Strands message with the same side, tool ids and summary note
 */
export function skeletonOf(format: BodyFormat, message: StoredMessageData, uid: string): StoredMessageData {
  const facts = factsOf(format, message)
  // A body its format cannot read (the validator names it): a plain prompt holding no call.
  if (facts === undefined) return { role: 'user', content: [{ text: '(unreadable)' }], trackingId: uid }
  const content: ContentBlockData[] = [
    ...facts.toolResults.map((r): ContentBlockData => ({
      toolResult: { toolUseId: r.id, status: r.status, content: [{ text: 'result' }] },
    })),
    { text: format.text(message).trim() === '' ? '(no text)' : 'text' },
    ...facts.toolUses.map((u): ContentBlockData => ({
      toolUse: { toolUseId: u.id, name: u.name, input: {} },
    })),
  ]
  const summary = format.notesOf(message)?.summary === true
  const notPlain =
    facts.role === 'user' && !facts.plainUser && facts.toolUses.length === 0 && facts.toolResults.length === 0
  return {
    role: facts.role,
    content: summary ? [{ text: 'summary' }] : content,
    trackingId: uid,
    ...(summary ? { metadata: SUMMARY_MARKER } : {}),
    ...(notPlain ? { [NOT_PLAIN]: true } : {}),
    ...(facts.defersCalls ? { [CARRIES]: true } : {}),
  }
}

/**
 * The facts of a body of `format`, or undefined when the format cannot read it (a body its validator
 * refuses, which the check reports as such): the check reads damaged rows without throwing.
 *
 * @param format - the session's format
 * @param message - the stored body
 * @returns its facts, or undefined
 */
export function factsOf(format: BodyFormat, message: StoredMessageData): MessageFacts | undefined {
  try {
    const facts = format.facts(message)
    format.text(message)
    return facts
  } catch {
    return undefined
  }
}

/**
 * Why `append` would refuse a body of `format`, as {@link BodyProblem}.
 *
 * @param format - the session's format
 * @param body - the stored body
 * @param limits - the widest limits a store accepts
 * @returns the problem, or undefined when the format's validator accepts it
 */
export function formatBodyProblem(
  format: BodyFormat,
  body: unknown,
  limits: MessageLimits,
): BodyProblem | undefined {
  try {
    if (format.snapshotStored === undefined) format.snapshot(body, limits)
    else format.snapshotStored(body, limits)
    return undefined
  } catch (error) {
    if (!(error instanceof ContextLedgerError)) throw error
    const path = error.path === undefined || error.path === '(message)' ? '' : error.path
    return { path, reason: error.message.replace(/^Invalid message at [^:]*: /, '') }
  }
}
