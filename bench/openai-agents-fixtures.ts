/**
 * Deterministic OpenAI Agents SDK items for bench/openai-agents.ts: one turn is what the runner writes to
 * its session at the end of a run with one tool call — the user's message, a reasoning item, a
 * `function_call`, its `function_call_result` (~1 KB of output) and the final assistant message, about
 * 1.6 KB of JSON together. Seeded prose (bench/ai-sdk-fixtures.ts), so every side and every run gets the
 * same bytes; the shapes are the SDK's protocol items as its Responses model and runner produce them
 * (ids `rs_`, `fc_`, `msg_`, call ids `call_`), and its `protocol.ModelItem` schema accepts them (checked
 * when the bench starts).
 */
import type { AgentInputItem } from '@openai/agents'
import { Prose } from './ai-sdk-fixtures.js'

/** Items in one turn. */
export const ITEMS_PER_TURN = 5

/** Characters of each text in a turn (the tool's output is the ~1 KB of it). */
const CHARS = { user: 80, reasoning: 50, query: 24, output: 900, answer: 60 } as const

/** Builds turns of agent items with unique ids. */
export class AgentTurns {
  private k = 0
  private readonly prose: Prose

  /** @param seed - the prose's seed */
  constructor(seed = 7) {
    this.prose = new Prose(seed)
  }

  /**
   * One turn: user message, reasoning, function call, its result, final assistant message.
   *
   * @returns five fresh items
   */
  turn(): AgentInputItem[] {
    const k = this.k++
    const hex = k.toString(16).padStart(8, '0')
    const callId = `call_${hex}`
    return [
      { type: 'message', role: 'user', content: this.prose.text(CHARS.user) },
      {
        type: 'reasoning',
        id: `rs_${hex}`,
        content: [{ type: 'input_text', text: this.prose.text(CHARS.reasoning) }],
      },
      {
        type: 'function_call',
        id: `fc_${hex}`,
        callId,
        name: 'search_docs',
        arguments: JSON.stringify({ query: this.prose.text(CHARS.query), limit: 5 }),
        status: 'completed',
      },
      {
        type: 'function_call_result',
        name: 'search_docs',
        callId,
        status: 'completed',
        output: { type: 'text', text: this.prose.text(CHARS.output) },
      },
      {
        type: 'message',
        id: `msg_${hex}`,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: this.prose.text(CHARS.answer) }],
      },
    ]
  }

  /**
   * Whole turns, oldest first.
   *
   * @param items - how many items (whole turns: rounded up to a multiple of {@link ITEMS_PER_TURN})
   * @returns the items
   */
  items(items: number): AgentInputItem[] {
    const out: AgentInputItem[] = []
    while (out.length < items) out.push(...this.turn())
    return out
  }
}
