/**
 * What each provider checks of the conversation it is handed, over the converters' output: tool calls
 * answered exactly once by what follows them, no empty message or text, and (Anthropic) alternating roles
 * with tool results first. Each returns the first problem, or undefined when the provider would take it.
 */
import type { AnthropicMessage, OpenAIChatMessage, OpenAIResponsesInputItem } from '../../src/index.js'

/**
 * Why OpenAI Chat Completions would refuse `messages`.
 *
 * @param messages - converted messages
 * @returns the problem, or undefined
 */
export function chatProblem(messages: readonly OpenAIChatMessage[]): string | undefined {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as OpenAIChatMessage
    if (
      m.role === 'user' &&
      (m.content.length === 0 || m.content.some((p) => p.type === 'text' && p.text === ''))
    )
      return `user message ${i} is empty or holds empty text`
    if (m.role === 'tool') {
      if (m.content === '') return `tool message ${i} is empty`
      let j = i - 1
      while (messages[j]?.role === 'tool') j--
      const owner = messages[j]
      const ids = owner?.role === 'assistant' ? (owner.tool_calls ?? []).map((c) => c.id) : []
      if (!ids.includes(m.tool_call_id)) return `tool message ${i} answers no call of the assistant before it`
    }
    if (m.role !== 'assistant') continue
    const calls = m.tool_calls ?? []
    if (m.content === '' || (m.content === null && calls.length === 0))
      return `assistant message ${i} is empty`
    let k = i + 1
    const answers: string[] = []
    for (let next = messages[k]; next?.role === 'tool'; next = messages[++k]) answers.push(next.tool_call_id)
    const wanted = calls.map((c) => c.id).sort()
    if (JSON.stringify(answers.sort()) !== JSON.stringify(wanted))
      return `assistant message ${i} calls ${wanted.join(',')}, answered by ${answers.join(',')}`
  }
  return undefined
}

/**
 * Why the OpenAI Responses API would refuse `items`.
 *
 * @param items - converted input items
 * @returns the problem, or undefined
 */
export function responsesProblem(items: readonly OpenAIResponsesInputItem[]): string | undefined {
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as OpenAIResponsesInputItem
    if (item.type === 'message') {
      const empty =
        item.role === 'assistant'
          ? item.content === ''
          : item.content.length === 0 || item.content.some((p) => p.type === 'input_text' && p.text === '')
      if (empty) return `message ${i} is empty or holds empty text`
    }
    if (item.type === 'function_call_output') {
      if (item.output === '' || item.output.length === 0) return `output ${i} is empty`
      const calls = items.slice(0, i).filter((c) => c.type === 'function_call' && c.call_id === item.call_id)
      if (calls.length !== 1) return `output ${i} answers ${calls.length} earlier calls`
    }
    if (item.type !== 'function_call') continue
    const outputs = items.flatMap((o, j) =>
      o.type === 'function_call_output' && o.call_id === item.call_id ? [j] : [],
    )
    if (outputs.length !== 1 || (outputs[0] as number) < i) return `call ${i} has ${outputs.length} outputs`
    const between = items.slice(i + 1, outputs[0])
    if (between.some((b) => b.type === 'message' && b.role === 'user'))
      return `call ${i} is answered after a user message`
  }
  return undefined
}

/**
 * Why the Anthropic Messages API would refuse `messages`.
 *
 * @param messages - converted messages
 * @returns the problem, or undefined
 */
export function anthropicProblem(messages: readonly AnthropicMessage[]): string | undefined {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as AnthropicMessage
    if (i > 0 && messages[i - 1]?.role === m.role)
      return `messages ${i - 1} and ${i} share the role ${m.role}`
    if (m.content.length === 0) return `message ${i} is empty`
    if (m.content.some((b) => b.type === 'text' && b.text === '')) return `message ${i} holds empty text`
    const results = m.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []))
    if (m.content.slice(0, results.length).some((b) => b.type !== 'tool_result'))
      return `message ${i} has tool results after other blocks`
    const previous = messages[i - 1]
    const uses = (previous?.content ?? []).flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))
    if (m.role === 'user' && JSON.stringify([...results].sort()) !== JSON.stringify([...uses].sort()))
      return `message ${i} answers ${results.join(',')}, the message before it calls ${uses.join(',')}`
  }
  const last = messages.at(-1)
  if (last?.role === 'assistant' && last.content.some((b) => b.type === 'tool_use'))
    return 'the last call is unanswered'
  return undefined
}
