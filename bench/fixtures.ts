/**
 * Deterministic message fixtures for the benchmarks: one "agent turn" is four messages — a user
 * request, an assistant toolUse, the user's toolResult and the assistant's answer — each about 500 bytes
 * of JSON, like the reference measurements in `perf-anchors.md`.
 */
import type { MessageData, PersistentConversationManager } from '../src/index.js'
import { prng } from '../examples/demo-shared.js'

/** The demo's seeded PRNG (mulberry32), so every run stores the same bytes. */
export { prng }

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz     ,.ABCDEFGHIJ0123456789'

/**
 * Generates pseudo-random prose of fixed lengths from a seed. Texts are slices of one flat pool: built by
 * `+=` one character at a time they would be rope strings, and flattening those would inflate whatever
 * first serializes them (an artifact that is not the store's cost).
 */
export class TextSource {
  private readonly next: () => number
  private readonly pool: string

  /** @param seed - the PRNG seed */
  constructor(seed = 42) {
    this.next = prng(seed)
    const chars = new Array<string>(1 << 16)
    for (let i = 0; i < chars.length; i++)
      chars[i] = ALPHABET[Math.floor(this.next() * ALPHABET.length)] as string
    this.pool = chars.join('')
  }

  /**
   * A string of `length` characters (at most 65,536) drawn from a small alphabet.
   *
   * @param length - characters to produce
   * @returns the text
   */
  text(length: number): string {
    const at = Math.floor(this.next() * (this.pool.length - length))
    return this.pool.slice(at, at + length)
  }
}

/** Builds agent turns with unique toolUseIds. */
export class TurnFactory {
  private k = 0
  private readonly texts: TextSource

  /**
   * @param prefix - makes toolUseIds unique across factories sharing a session
   * @param seed - text seed
   */
  constructor(
    private readonly prefix: string,
    seed = 42,
  ) {
    this.texts = new TextSource(seed)
  }

  /**
   * One agent turn: user text, assistant toolUse, user toolResult, assistant text (~500 B each).
   *
   * @returns four fresh message objects without trackingIds
   */
  turn(): MessageData[] {
    const id = `${this.prefix}-${this.k++}`
    return [
      { role: 'user', content: [{ text: this.texts.text(440) }] },
      {
        role: 'assistant',
        content: [
          { text: this.texts.text(300) },
          {
            toolUse: { toolUseId: id, name: 'search_docs', input: { query: this.texts.text(80), limit: 5 } },
          },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: id, status: 'success', content: [{ text: this.texts.text(420) }] } },
        ],
      },
      { role: 'assistant', content: [{ text: this.texts.text(440) }] },
    ]
  }

  /**
   * Several turns as one flat array, oldest first.
   *
   * @param turns - how many turns
   * @returns `4 * turns` messages
   */
  turns(turns: number): MessageData[] {
    const out: MessageData[] = []
    for (let i = 0; i < turns; i++) out.push(...this.turn())
    return out
  }
}

/** Turns per `append()` call when filling a session: 1,000 messages, one transaction. */
export const FILL_BATCH_TURNS = 250

/**
 * Fills a session with `messages` messages in batches of 1,000, applying the window after each batch.
 *
 * @param manager - the session's manager
 * @param factory - where the turns come from
 * @param messages - how many (a multiple of 4)
 * @returns elapsed milliseconds
 */
export function fill(manager: PersistentConversationManager, factory: TurnFactory, messages: number): number {
  const t0 = performance.now()
  for (let done = 0; done < messages; done += FILL_BATCH_TURNS * 4) {
    manager.append(factory.turns(Math.min(FILL_BATCH_TURNS, (messages - done) / 4)))
    manager.applyWindow()
  }
  return performance.now() - t0
}
