/**
 * What a provider checks of the conversation it is handed, for tests that record every model call of a
 * real Strands `Agent`: it starts with a user message carrying no toolResult, every toolResult answers a
 * toolUse of the message right before it, and every toolUse is answered by the message right after it.
 */
import type { Message } from '@strands-agents/sdk'

function ids(message: Message | undefined, type: 'toolUseBlock' | 'toolResultBlock'): string[] {
  return (message?.content ?? []).flatMap((b) =>
    b.type === type ? [(b as { toolUseId: string }).toolUseId] : [],
  )
}

/**
 * Why a provider would refuse `messages`.
 *
 * @param messages - the conversation a model call was given
 * @returns the reason, or undefined when a provider would take it
 */
export function invalidity(messages: readonly Message[]): string | undefined {
  if (messages[0]?.role !== 'user' || ids(messages[0], 'toolResultBlock').length > 0) return 'bad start'
  for (let i = 1; i < messages.length; i++) {
    const uses = new Set(ids(messages[i - 1], 'toolUseBlock'))
    const results = ids(messages[i], 'toolResultBlock')
    for (const id of results)
      if (!uses.has(id)) return `message ${i} answers ${id}, not a call of the message before it`
    for (const id of uses)
      if (!results.includes(id)) return `message ${i - 1} calls ${id}, not answered by the message after it`
  }
  return undefined
}
