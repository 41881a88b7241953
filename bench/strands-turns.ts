/**
 * The agent turn the Strands benchmarks run: a prompt, one lookup tool call, its result and an answer, four
 * messages stored as about 1.1 KB of JSON together; and a history of such turns, as a long-running session
 * holds it.
 */
import { tool } from '@strands-agents/sdk'
import { z } from 'zod'
import type { MessageData } from '../src/index.js'
import type { ScriptedCall, ScriptedReply } from '../examples/strands-scripted-model.js'

/** Characters in each tool result. */
export const RESULT_CHARS = 300

/** `ask <topic>` → a lookup call; a tool result → a short answer. */
export function script(call: ScriptedCall): ScriptedReply {
  const last = call.messages.at(-1)
  if (last?.content.some((b) => b.type === 'toolResultBlock')) return `Here is what I found (${call.index}).`
  const prompt = last?.content[0]
  const topic = prompt !== undefined && prompt.type === 'textBlock' ? prompt.text.slice(4) : 'x'
  return [{ toolUse: { name: 'lookup', input: { topic } } }]
}

/** The `lookup` tool the script calls: returns the topic and RESULT_CHARS characters. */
export const lookup = tool({
  name: 'lookup',
  description: 'Looks a topic up',
  inputSchema: z.object({ topic: z.string() }),
  callback: ({ topic }) => `${topic}: ${'r'.repeat(RESULT_CHARS)}`,
})

/** A history of `n` messages in turns of four, as an existing session would hold it. */
export function history(n: number): MessageData[] {
  const out: MessageData[] = []
  for (let i = 0; out.length < n; i++) {
    const id = `seed-${i}`
    out.push(
      { role: 'user', content: [{ text: `ask topic ${i}` }] },
      {
        role: 'assistant',
        content: [{ toolUse: { name: 'lookup', toolUseId: id, input: { topic: `topic ${i}` } } }],
      },
      {
        role: 'user',
        content: [
          {
            toolResult: {
              toolUseId: id,
              status: 'success',
              content: [{ text: `topic ${i}: ${'r'.repeat(RESULT_CHARS)}` }],
            },
          },
        ],
      },
      { role: 'assistant', content: [{ text: `Here is what I found (${i}).` }] },
    )
  }
  return out.slice(0, n)
}
