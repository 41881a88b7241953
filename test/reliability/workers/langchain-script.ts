/**
 * The agent the LangChain process and PostgreSQL tests run: a scripted model (the adapter tests'
 * `ScriptedChatModel`) whose turns are three model calls — two parallel `lookup` calls, then one, then an
 * answer — with ids prefixed by a tag, so no other writer reuses one; and the `lookup` tool, whose calls
 * a test can watch or hold up. `test/reliability/langchain-support.ts` has the keys of what such a turn
 * writes.
 */
import { tool } from '@langchain/core/tools'
import { z } from 'zod'
import type { BaseMessage } from '@langchain/core/messages'
import {
  conversation,
  inputTokens,
  pairingProblems,
  ScriptedChatModel,
} from '../../adapters/langchain/helpers.js'

/** What the scripted model accepts, as a provider's context limit. */
export const MODEL_TOKEN_LIMIT = 3000

/**
 * The model of a turn of three calls (see the module comment).
 *
 * @param tag - the prefix of its ids (`ai-<tag>.<n>`, `call-<tag>.<n>-<k>`)
 * @param pin - make its first call pin the message it sees at position 0 in place of the second lookup
 * @returns the model
 */
export function turnModel(tag: string, pin = false): ScriptedChatModel {
  return new ScriptedChatModel({
    plan: [],
    prefix: `${tag}.`,
    maxInputTokens: MODEL_TOKEN_LIMIT,
    calls: (n) => {
      const step = n % 3
      if (step === 2) return []
      const calls = Array.from({ length: 2 - step }, (_, k) => ({ name: 'lookup', args: { n, k } }))
      if (pin && n === 0) calls[1] = { name: 'pin_message', args: { index: 0 } as never }
      return calls
    },
  })
}

/**
 * The `lookup` tool: answers `result <tag>.<n>.<k>` and some filler, after `onCall` settles.
 *
 * @param tag - put in its answers
 * @param onCall - called at each call before it answers (to report it, wait, or cut the database)
 * @returns the tool
 */
export function lookupTool(tag: string, onCall: (n: number, k: number) => Promise<void>) {
  return tool(
    async ({ n, k }) => {
      await onCall(n, k)
      return `result ${tag}.${n}.${k} ${'lorem ipsum '.repeat(10)}`
    },
    { name: 'lookup', description: 'Looks a number up', schema: z.object({ n: z.number(), k: z.number() }) },
  )
}

/**
 * What a provider would refuse in a model input: a call without its results right after it, a result not
 * right after its call, an input over the model's token limit.
 *
 * @param input - what the model was given
 * @returns the problems (empty when valid)
 */
export function inputProblems(input: readonly BaseMessage[]): string[] {
  const problems = pairingProblems(conversation(input))
  if (inputTokens(input) > MODEL_TOKEN_LIMIT) problems.push(`input of ${inputTokens(input)} tokens`)
  return problems
}
