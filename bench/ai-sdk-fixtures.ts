/**
 * Deterministic AI SDK messages for the AI SDK benchmarks: a chat of realistic `UIMessage` turns (what
 * `useChat` hands a route's `onFinish`) and the 4-message `ModelMessage` agent turn of row a's size.
 * Seeded, so every run and every side of a comparison gets the same bytes. Types are written here rather
 * than imported from `ai`, so the fixtures load without the SDK; they are the SDK's shapes, and
 * `safeValidateUIMessages` / the ledger's formats accept them (checked when the chat bench starts).
 */
import { prng } from './fixtures.js'

const WORDS = (
  'the a an and or but if then because while after before when where which that this these those it its ' +
  'we you they our your their I me my is are was were be been being have has had do does did can could ' +
  'should would will may might must not no yes more most less least very quite rather just only also even ' +
  'still already again soon later now today tomorrow yesterday here there every each some any many few ' +
  'data table query index page file cache window message session user model agent tool result call error ' +
  'request response server client browser database migration schema column row record field value key ' +
  'deploy release build test bench report figure chart trend budget cost price invoice customer order ' +
  'team project plan meeting review draft summary note question answer idea reason example detail step ' +
  'run check fix change update move copy read write send receive open close start stop wait retry keep ' +
  'small large fast slow new old first last next previous simple clear careful honest useful likely ' +
  'weather city river mountain garden kitchen coffee morning evening weekend travel flight hotel ticket ' +
  'about across around between through during without within against toward under over into onto from with'
).split(' ')

/** Seeded English-like prose: sentences of common words, capitalized, with commas and full stops. */
export class Prose {
  private readonly next: () => number

  /** @param seed - the PRNG seed */
  constructor(seed: number) {
    this.next = prng(seed)
  }

  /**
   * A whole number in `[lo, hi]`.
   *
   * @param lo - the least
   * @param hi - the most
   * @returns the number
   */
  between(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }

  /**
   * Whether an event of probability `p` happens.
   *
   * @param p - the probability
   * @returns true with probability `p`
   */
  chance(p: number): boolean {
    return this.next() < p
  }

  /**
   * Prose of about `length` characters (whole sentences; the last may be cut at a word).
   *
   * @param length - target characters
   * @returns the text
   */
  text(length: number): string {
    const out: string[] = []
    let size = 0
    while (size < length) {
      const n = this.between(6, 18)
      const words: string[] = []
      for (let i = 0; i < n; i++) words.push(WORDS[Math.floor(this.next() * WORDS.length)] as string)
      if (n > 10) {
        const at = this.between(3, n - 4)
        words[at] = `${words[at] as string},`
      }
      const first = words[0] as string
      words[0] = first.charAt(0).toUpperCase() + first.slice(1)
      const sentence = `${words.join(' ')}.`
      out.push(sentence)
      size += sentence.length + 1
    }
    return out.join(' ').slice(0, length)
  }
}

/** A UI message part of the chat (the SDK's `UIMessagePart` shapes this bench uses). */
export type ChatPart =
  | { type: 'text'; text: string; state?: 'done' }
  | { type: 'reasoning'; text: string; state?: 'done' }
  | { type: 'step-start' }
  | {
      type: `tool-${string}`
      toolCallId: string
      state: 'output-available'
      input: unknown
      output: unknown
    }

/** A `UIMessage` of the chat. */
export interface ChatMessage {
  id: string
  role: 'user' | 'assistant'
  parts: ChatPart[]
}

/** A JSON tool output of about `bytes` bytes: search hits with titles, URLs, snippets and scores. */
function toolOutput(prose: Prose, bytes: number): { query: string; hits: object[] } {
  const hits: object[] = []
  let size = 0
  while (size < bytes) {
    const hit = {
      title: prose.text(prose.between(30, 70)),
      url: `https://docs.example.com/${prose.between(1, 999)}/${prose.between(1000, 9999)}`,
      snippet: prose.text(prose.between(120, 260)),
      score: Math.round(prose.between(100, 999)) / 1000,
    }
    size += JSON.stringify(hit).length + 1
    hits.push(hit)
  }
  return { query: prose.text(40), hits }
}

/**
 * The chat's turns: a user text of 200–400 characters, then an assistant message that opens with a
 * `step-start`, has a reasoning part in about one turn of three, a `tool-search_docs` part in state
 * `output-available` with a 1–4 KB JSON output in about one turn of three (then a second `step-start`,
 * as the SDK writes a new step), and a text of 500–1,500 characters.
 */
export class UIChat {
  private readonly prose: Prose
  private t = 0

  /** @param seed - the PRNG seed */
  constructor(seed = 22) {
    this.prose = new Prose(seed)
  }

  /**
   * The next turn.
   *
   * @returns the user message and the assistant message, fresh objects
   */
  turn(): [ChatMessage, ChatMessage] {
    const p = this.prose
    const t = this.t++
    const user: ChatMessage = {
      id: `u${t}`,
      role: 'user',
      parts: [{ type: 'text', text: p.text(p.between(200, 400)) }],
    }
    const parts: ChatPart[] = [{ type: 'step-start' }]
    if (p.chance(0.35)) parts.push({ type: 'reasoning', text: p.text(p.between(150, 600)), state: 'done' })
    if (p.chance(0.34)) {
      parts.push({
        type: 'tool-search_docs',
        toolCallId: `call-${t}`,
        state: 'output-available',
        input: { query: p.text(p.between(20, 80)), limit: 5 },
        output: toolOutput(p, p.between(1024, 4096)),
      })
      parts.push({ type: 'step-start' })
    }
    parts.push({ type: 'text', text: p.text(p.between(500, 1500)), state: 'done' })
    return [user, { id: `a${t}`, role: 'assistant', parts }]
  }

  /**
   * Several turns, flat, oldest first.
   *
   * @param turns - how many
   * @returns `2 * turns` messages
   */
  turns(turns: number): ChatMessage[] {
    const out: ChatMessage[] = []
    for (let i = 0; i < turns; i++) out.push(...this.turn())
    return out
  }
}

/** An AI SDK `ModelMessage` of the agent turn (the SDK's shapes this bench uses). */
export type ModelTurnMessage =
  | { role: 'user'; content: { type: 'text'; text: string }[] }
  | {
      role: 'assistant'
      content: (
        | { type: 'text'; text: string }
        | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
      )[]
    }
  | {
      role: 'tool'
      content: {
        type: 'tool-result'
        toolCallId: string
        toolName: string
        output: { type: 'text'; value: string }
      }[]
    }

/**
 * Row a's agent turn as AI SDK `ModelMessage`s: user text (440 characters), assistant text (300) with a
 * `search_docs` tool call (an 80-character query), the tool message with its result (420), assistant text
 * (440) — the same text lengths as `TurnFactory`'s Strands turn, drawn from the same kind of source.
 */
export class ModelTurnFactory {
  private k = 0
  private readonly text: (length: number) => string

  /**
   * @param prefix - makes tool call ids unique across factories sharing a session
   * @param text - where the texts come from (row a's `TextSource`, so both formats carry the same text)
   */
  constructor(
    private readonly prefix: string,
    text: (length: number) => string,
  ) {
    this.text = text
  }

  /**
   * One turn.
   *
   * @returns four fresh messages
   */
  turn(): ModelTurnMessage[] {
    const id = `${this.prefix}-${this.k++}`
    const toolName = 'search_docs'
    return [
      { role: 'user', content: [{ type: 'text', text: this.text(440) }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: this.text(300) },
          { type: 'tool-call', toolCallId: id, toolName, input: { query: this.text(80), limit: 5 } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: id, toolName, output: { type: 'text', value: this.text(420) } },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: this.text(440) }] },
    ]
  }

  /**
   * Several turns as one flat array, oldest first.
   *
   * @param turns - how many turns
   * @returns `4 * turns` messages
   */
  turns(turns: number): ModelTurnMessage[] {
    const out: ModelTurnMessage[] = []
    for (let i = 0; i < turns; i++) out.push(...this.turn())
    return out
  }
}
