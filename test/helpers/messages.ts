/**
 * Message builders shared by the tests: plain text turns, tool calls and their results, in the
 * Strands / Bedrock `MessageData` JSON form the ledger stores.
 */
import type { MessageData, StoredMessageData } from '../../src/index.js'

/**
 * A user message with one text block.
 *
 * @param text - the text
 * @param trackingId - an id to send it under; none by default
 * @returns the message
 */
export function user(text: string, trackingId?: string): MessageData {
  return { role: 'user', content: [{ text }], ...(trackingId === undefined ? {} : { trackingId }) }
}

/**
 * An assistant message with one text block.
 *
 * @param text - the text
 * @returns the message
 */
export function assistant(text: string): MessageData {
  return { role: 'assistant', content: [{ text }] }
}

/**
 * An assistant message calling the `lookup` tool once per id (parallel calls when there are several),
 * each with `{ id }` as its input.
 *
 * @param ids - the toolUseIds
 * @returns the message
 */
export function toolUse(...ids: string[]): MessageData {
  return callTool('lookup', ...ids)
}

/**
 * An assistant message calling the tool `name` once per id, each with `{ id }` as its input.
 *
 * @param name - the tool's name
 * @param ids - the toolUseIds
 * @returns the message
 */
export function callTool(name: string, ...ids: string[]): MessageData {
  return {
    role: 'assistant',
    content: ids.map((id) => ({ toolUse: { toolUseId: id, name, input: { id } } })),
  }
}

/**
 * A user message answering one call successfully.
 *
 * @param id - the toolUseId it answers
 * @param text - the result's text
 * @returns the message
 */
export function toolResult(id: string, text = `result of ${id}`): MessageData {
  return toolResults([id], text)
}

/**
 * A user message answering several calls successfully, with the same text for each.
 *
 * @param ids - the toolUseIds it answers
 * @param text - each result's text
 * @returns the message
 */
export function toolResults(ids: readonly string[], text?: string): MessageData {
  return {
    role: 'user',
    content: ids.map((id) => ({
      toolResult: {
        toolUseId: id,
        status: 'success' as const,
        content: [{ text: text ?? `result of ${id}` }],
      },
    })),
  }
}

/**
 * Text turns: `q<i>` from the user, `a<i>` from the assistant.
 *
 * @param n - how many turns
 * @param from - the number of the first turn
 * @returns `2 * n` messages
 */
export function turns(n: number, from = 0): MessageData[] {
  return Array.from({ length: n }, (_, i) => [user(`q${from + i}`), assistant(`a${from + i}`)]).flat()
}

/**
 * A short readable form of each message, by its first block: its text, `use <id>` or `result <id>`.
 *
 * @param messages - the messages, e.g. a window
 * @returns one string per message
 */
export function texts(messages: readonly (MessageData | StoredMessageData)[]): string[] {
  return messages.map((m) => {
    const block = m.content[0]
    if (block === undefined) return ''
    if ('text' in block) return block.text
    if ('toolUse' in block) return `use ${block.toolUse.toolUseId}`
    if ('toolResult' in block) return `result ${block.toolResult.toolUseId}`
    return Object.keys(block).join(',')
  })
}
