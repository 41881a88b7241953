/**
 * fast-check arbitraries for realistic conversations: user turns, single and parallel tool calls,
 * assistant replies, with stable trackingIds so windows can be compared by id.
 */
import fc from 'fast-check'
import type { MessageData, StoredMessageData } from '../../src/index.js'

/** One turn's shape: how many tool rounds, how many parallel calls each, and text sizes. */
export interface TurnShape {
  rounds: number[]
  replyChars: number
  userChars: number
  /** The assistant reply is missing (the turn ends on a tool result or the user message). */
  noReply: boolean
}

/** Arbitrary turn shapes. */
export const turnShape: fc.Arbitrary<TurnShape> = fc.record({
  rounds: fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 3 }),
  replyChars: fc.integer({ min: 1, max: 400 }),
  userChars: fc.integer({ min: 1, max: 400 }),
  noReply: fc.boolean(),
})

/**
 * Builds the messages of a conversation from turn shapes.
 *
 * @param turns - the shapes
 * @param prefix - trackingId prefix
 * @returns messages with trackingIds `${prefix}${index}`
 */
export function buildConversation(turns: readonly TurnShape[], prefix = 'm'): StoredMessageData[] {
  const out: MessageData[] = []
  let call = 0
  turns.forEach((t, ti) => {
    out.push({ role: 'user', content: [{ text: `q${ti} ${'x'.repeat(t.userChars)}` }] })
    for (const parallel of t.rounds) {
      const ids = Array.from({ length: parallel }, () => `call-${call++}`)
      out.push({
        role: 'assistant',
        content: ids.map((id) => ({ toolUse: { name: 'lookup', toolUseId: id, input: { q: id } } })),
      })
      out.push({
        role: 'user',
        content: ids.map((id) => ({
          toolResult: { toolUseId: id, status: 'success' as const, content: [{ text: `result ${id}` }] },
        })),
      })
    }
    if (!t.noReply || ti === turns.length - 1)
      out.push({ role: 'assistant', content: [{ text: `a${ti} ${'y'.repeat(t.replyChars)}` }] })
  })
  return out.map((m, i) => ({ ...m, trackingId: `${prefix}${i}` }))
}

/** Arbitrary conversations of 1..maxTurns turns; some open with an assistant greeting before the first user message. */
export function conversation(
  maxTurns = 25,
  options: { greetings?: boolean } = {},
): fc.Arbitrary<StoredMessageData[]> {
  return fc
    .tuple(fc.array(turnShape, { minLength: 1, maxLength: maxTurns }), fc.integer({ min: 0, max: 5 }))
    .map(([t, greeting]) => {
      const messages = buildConversation(t)
      if (greeting !== 0 || options.greetings === false) return messages
      return [
        { role: 'assistant' as const, content: [{ text: 'Hi! How can I help?' }], trackingId: 'greeting' },
        ...messages,
      ]
    })
}

/**
 * Where a window can start at the earliest: the first plain user message (a user message without
 * toolResult). A pin before it is refused: no window can show it (docs/design.md, "Validity before
 * protection").
 *
 * @param archive - a session's messages in seq order
 * @returns its seq, or the archive's length when there is none
 */
export function firstPlainUser(archive: readonly MessageData[]): number {
  const i = archive.findIndex((x) => x.role === 'user' && !x.content.some((b) => 'toolResult' in b))
  return i < 0 ? archive.length : i
}
