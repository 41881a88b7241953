/**
 * Summaries written by a LangChain chat model: the core's summarizer contract (src/summaries/) over
 * `model.invoke`, given the ledger's summarization prompt as a `SystemMessage`, then the messages to fold
 * as the model would see them (repairs one `ToolMessage` per call, notes off, nothing from before a
 * cleared conversation) and the request that closes them. The summary's text is the reply's `text`.
 */
import { SystemMessage, type BaseMessage } from '@langchain/core/messages'
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import type { MessageData } from '../../messages/types.js'
import type { Summarizer } from '../../summaries/summarize.js'
import type { LedgerSummarizeConfig } from './options.js'
import { afterClear, messagesOfRow } from './window.js'

/**
 * The messages a summarizer is given, as a LangChain model reads them.
 *
 * @param messages - the bodies to fold (the window's forms), then the request
 * @returns the LangChain messages
 */
export function summarizerInput(messages: readonly MessageData[]): BaseMessage[] {
  // Ids do not matter to a summarizer; each body keeps its own (a row of its own, here).
  return afterClear(messages, (m) => m).flatMap((m, i) => messagesOfRow(i, m, false))
}

/** The summary of folded messages that were all cleared from the conversation. */
const CLEARED_SUMMARY =
  'The conversation before this point was cleared; it stays in the archive (search_history, read_history).'

/** A chat model's name as recorded with a summary, when it has one (`model`, or `modelName`). */
function modelName(model: BaseChatModel): string | undefined {
  const m = model as unknown as { model?: unknown; modelName?: unknown }
  const name = m.model ?? m.modelName
  return typeof name === 'string' && name !== '' ? name : undefined
}

/**
 * The core summarizer for a `summarize` option.
 *
 * @param config - a chat model (and prompt), or a summarizer function used as it is
 * @returns the summarizer
 */
export function langchainSummarizer(config: LedgerSummarizeConfig): Summarizer {
  if (typeof config === 'function') return config
  const { model } = config
  return async (messages, request) => {
    const input = summarizerInput(messages)
    // Everything to fold was cleared away (only the request is left): nothing for a model to read.
    if (input.length <= 1) return { text: CLEARED_SUMMARY, model: 'context-ledger' }
    const system = new SystemMessage(config.systemPrompt ?? request.systemPrompt)
    const reply = await model.invoke([system, ...input])
    const text = reply.text
    const name = modelName(model)
    return name === undefined ? text : { text, model: name }
  }
}
