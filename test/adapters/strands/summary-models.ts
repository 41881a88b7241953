/**
 * Scripted models for the summary tests: a main model that answers a small prompt language (plain
 * prompts, tool rounds) and refuses input over a message or character threshold with
 * `ContextWindowOverflowError`; and a summarizer model whose reply is derived from everything it was
 * given (a hash of the messages and the system prompt, and their count), so a summary made from different
 * input shows up as a different text. Both record what they were handed. Deterministic: two agents fed
 * the same prompts get the same replies, tool ids included.
 */
import { createHash } from 'node:crypto'
import { ContextWindowOverflowError, tool } from '@strands-agents/sdk'
import type { Message, ModelStreamEvent, StreamOptions, Tool } from '@strands-agents/sdk'
import { z } from 'zod'
import { ScriptedModel, type ScriptedReply } from '../../../examples/strands-scripted-model.js'

/** A message as compared between two agents: role and content, as JSON. */
export interface Shown {
  readonly role: string
  readonly content: unknown
}

/**
 * Role and content of each message (trackingIds and metadata differ by design between two managers).
 *
 * @param messages - Strands messages
 * @returns their role and content JSON
 */
export function shown(messages: readonly Message[]): Shown[] {
  return messages.map((m) => {
    const data = m.toJSON() as { role: string; content: unknown }
    return { role: data.role, content: data.content }
  })
}

/** Characters of the messages' JSON content: what the main model's character threshold counts. */
function chars(messages: readonly Message[]): number {
  return messages.reduce((sum, m) => sum + JSON.stringify(m.toJSON().content).length, 0)
}

function textOf(message: Message | undefined): string {
  const block = message?.content.find((b) => b.type === 'textBlock')
  return block !== undefined && 'text' in block ? block.text : ''
}

/** When the main model refuses its input. */
export interface Threshold {
  /** More messages than this overflow. */
  readonly messages: number
  /** More characters of content JSON than this overflow. */
  readonly chars: number
}

/** One call of the main model: its input, and whether it refused it. */
export interface MainCall {
  readonly input: Shown[]
  overflow: boolean
}

/** Overflows in one invocation after which the main model gives up (Strands would retry forever). */
export const OVERFLOW_LOOP_LIMIT = 25

/**
 * The main model's reply. Prompts: `ask <q> <rounds> <size>` calls `lookup` `rounds` times (each result
 * `size` characters) before answering `Answer <q>`; `pin <k>` calls `pin_message` on the message at
 * `k` modulo the number of messages it sees, then answers `Pinned`; anything else gets `Noted: <prompt>`.
 * Tool ids count the calls this model made (`call-1`, `call-2`, …).
 */
function mainReply(messages: readonly Message[], counter: { toolCalls: number }): ScriptedReply {
  // The prompt of the current turn: the latest user message with no tool result.
  let rounds = 0
  let prompt = ''
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Message
    if (m.role !== 'user') continue
    if (m.content.some((b) => b.type === 'toolResultBlock')) {
      rounds++
      continue
    }
    prompt = textOf(m)
    break
  }
  const pin = /^pin (\d+)$/.exec(prompt)
  if (pin !== null) {
    if (rounds > 0) return 'Pinned'
    counter.toolCalls++
    const index = Number(pin[1]) % messages.length
    return [{ toolUse: { toolUseId: `call-${counter.toolCalls}`, name: 'pin_message', input: { index } } }]
  }
  const ask = /^ask (\S+) (\d+) (\d+)$/.exec(prompt)
  if (ask === null) return `Noted: ${prompt.slice(0, 60)}`
  const [, q = '', wanted, size] = ask
  if (rounds >= Number(wanted)) return `Answer ${q}`
  counter.toolCalls++
  return [
    {
      toolUse: { toolUseId: `call-${counter.toolCalls}`, name: 'lookup', input: { q, size: Number(size) } },
    },
  ]
}

/** The main model (see {@link mainReply}), refusing input over its {@link Threshold}. */
export class MainModel extends ScriptedModel {
  /** Every call, refused ones included. */
  readonly log: MainCall[] = []
  /** Overflows since {@link startInvocation}. */
  private overflowsNow = 0

  /**
   * @param threshold - when input overflows
   * @param counter - the tool calls made so far (for tool ids)
   */
  constructor(
    /** When input overflows (a test may change it between invocations). */
    public threshold: Threshold,
    counter = { toolCalls: 0 },
  ) {
    super({ script: (call) => mainReply(call.messages, counter) })
  }

  /** Resets the per-invocation overflow count (call before each invoke). */
  startInvocation(): void {
    this.overflowsNow = 0
  }

  override async *stream(messages: Message[], options?: StreamOptions): AsyncIterable<ModelStreamEvent> {
    const size = chars(messages)
    const call = { input: shown(messages), overflow: false }
    this.log.push(call)
    try {
      if (messages.length > this.threshold.messages || size > this.threshold.chars)
        throw new ContextWindowOverflowError(
          `scripted model: ${messages.length} messages, ${size} characters`,
        )
      // With a contextWindowLimit, the scripted model also refuses input over it (in tokens).
      yield* super.stream(messages, options)
    } catch (error) {
      if (!(error instanceof ContextWindowOverflowError)) throw error
      call.overflow = true
      this.overflowsNow++
      if (this.overflowsNow > OVERFLOW_LOOP_LIMIT)
        throw new Error(`scripted model: ${OVERFLOW_LOOP_LIMIT} overflows in one invocation`)
      throw error
    }
  }
}

/** `lookup`: `size` characters for `q`. */
export function sizedLookup(): Tool {
  return tool({
    name: 'lookup',
    description: 'Look something up',
    inputSchema: z.object({ q: z.string(), size: z.number() }),
    callback: ({ q, size }) => `${q}: ${'r'.repeat(Math.max(0, size - q.length - 2))}`,
  })
}

/** One call of the summarizer model. */
export interface SummarizerCall {
  readonly input: Shown[]
  readonly systemPrompt: unknown
}

/** How the summarizer model fails, on which of its calls (1-based). */
export interface SummarizerFailure {
  readonly at: number
  /** Throw an `Error`, throw a string, or reply with no text. */
  readonly kind: 'error' | 'string' | 'no-text'
}

/**
 * The summarizer model: its reply is `Summary <hash> of <n> messages`, the hash over the role and content
 * of every message it got and its system prompt.
 */
export class SummarizerModel extends ScriptedModel {
  /** Every call. */
  readonly log: SummarizerCall[] = []

  /** @param failures - calls that fail, and how */
  constructor(private readonly failures: readonly SummarizerFailure[] = []) {
    super({ script: () => '', modelId: 'scripted-summarizer' })
  }

  override async *stream(messages: Message[], options?: StreamOptions): AsyncIterable<ModelStreamEvent> {
    // A provider answers later, not within the call.
    await Promise.resolve()
    const input = shown(messages)
    const systemPrompt: unknown = options?.systemPrompt
    this.log.push({ input, systemPrompt })
    const failure = this.failures.find((f) => f.at === this.log.length)
    if (failure?.kind === 'error') throw new Error(`summarizer failed on call ${failure.at}`)
    // Strands normalizes a thrown string into an Error: both managers must do the same.
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    if (failure?.kind === 'string') throw `summarizer threw a string on call ${failure.at}`
    const hash = createHash('sha256')
      .update(JSON.stringify([input, systemPrompt]))
      .digest('hex')
      .slice(0, 12)
    const text = failure?.kind === 'no-text' ? undefined : `Summary ${hash} of ${input.length} messages`
    yield { type: 'modelMessageStartEvent', role: 'assistant' }
    if (text !== undefined) {
      yield { type: 'modelContentBlockStartEvent' }
      yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'textDelta', text } }
      yield { type: 'modelContentBlockStopEvent' }
    }
    yield { type: 'modelMessageStopEvent', stopReason: 'endTurn' }
  }
}
