/**
 * Summaries written by a Strands `Model`, the way Strands' `SummarizingConversationManager` writes them
 * (`generateSummary` in its `context-compression.js`): the messages to fold, then the request, go to
 * `model.streamAggregated` with the summarization system prompt and no tool specs; the reply's text (text
 * blocks, and the text of citations blocks) becomes a user-role message. A summarizer model therefore
 * sees the same input, and gives the same summary, under either manager.
 */
import { Message, TextBlock } from '@strands-agents/sdk'
import type { Model } from '@strands-agents/sdk'
import type { MessageData } from '../../messages/types.js'
import { DEFAULT_SUMMARIZATION_PROMPT } from '../../summaries/prompt.js'
import type { Summarizer } from '../../summaries/summarize.js'
import { fromLedgerMessage, toLedgerMessage } from './convert.js'

export { DEFAULT_SUMMARIZATION_PROMPT }

/**
 * Asks a Strands model for a summary, exactly as Strands 1.19's `generateSummary` does, except that the
 * request closing the conversation is already among `messages` (the ledger appends
 * `'Please summarize this conversation.'`, the text Strands sends, before calling a summarizer).
 *
 * @param messages - the messages to summarize, ending with the request (ledger JSON or Strands messages)
 * @param model - the model that writes the summary
 * @param systemPrompt - the summarizer's system prompt; default {@link DEFAULT_SUMMARIZATION_PROMPT}
 * @returns a user-role message holding the reply's text blocks and the text of its citations blocks
 * @throws Error `Failed to generate summary: no response from model` when the stream ends without a
 *   result, `Failed to generate summary: model response contained no text` when the reply has no text
 *   (Strands' messages); and whatever the model throws
 *
 * @example
 * ```ts
 * const summary = await generateSummary(
 *   [...messages, { role: 'user', content: [{ text: SUMMARY_REQUEST }] }],
 *   model,
 * )
 * ```
 */
export async function generateSummary(
  messages: readonly (MessageData | Message)[],
  model: Model,
  systemPrompt: string = DEFAULT_SUMMARIZATION_PROMPT,
): Promise<Message> {
  const input = messages.map((m) => (m instanceof Message ? m : fromLedgerMessage(m)))
  const stream = model.streamAggregated(input, { systemPrompt })
  let result: IteratorResult<unknown, { message: Message } | undefined> | undefined
  for (;;) {
    result = await stream.next()
    if (result.done === true) break
  }
  if (result.value === undefined) throw new Error('Failed to generate summary: no response from model')
  return asUserSummary(result.value.message)
}

/**
 * The summarizer's reply as the user-role summary message: its text blocks, and the text of each
 * citations block's content (a URL citation may carry none). Reasoning and tool calls are dropped:
 * providers refuse them in a user message.
 *
 * @param reply - the model's reply
 * @returns the summary message
 * @throws Error when the reply carries no text
 */
function asUserSummary(reply: Message): Message {
  const texts: TextBlock[] = []
  for (const block of reply.content) {
    if (block.type === 'textBlock') texts.push(new TextBlock(block.text))
    else if (block.type === 'citationsBlock')
      for (const cited of block.content) if (cited.text) texts.push(new TextBlock(cited.text))
  }
  if (texts.length === 0) throw new Error('Failed to generate summary: model response contained no text')
  return new Message({ role: 'user', content: texts })
}

/**
 * The model's id (`getConfig().modelId`), recorded with the summaries it writes; undefined when it has
 * none or cannot say.
 *
 * @param model - a Strands model
 * @returns its id, or undefined
 */
function modelIdOf(model: Model): string | undefined {
  try {
    const id: unknown = model.getConfig().modelId
    return typeof id === 'string' && id.length > 0 ? id : undefined
  } catch {
    return undefined
  }
}

/**
 * A ledger {@link Summarizer} that asks a Strands model, through {@link generateSummary}, and records the
 * model's id with the summary. The Strands manager builds one for each fold; use it for the core
 * manager's own calls — `manager.ledger.resummarize(id, modelSummarizer(betterModel))`.
 *
 * @param model - the model that writes summaries
 * @returns the summarizer
 *
 * @example
 * ```ts
 * const [current] = manager.ledger.summaries()
 * if (current?.current) await manager.ledger.resummarize(current.id, modelSummarizer(model))
 * ```
 */
export function modelSummarizer(model: Model): Summarizer {
  return async (messages, request) => {
    const summary = await generateSummary(messages, model, request.systemPrompt)
    return { content: toLedgerMessage(summary).content, model: modelIdOf(model) }
  }
}
