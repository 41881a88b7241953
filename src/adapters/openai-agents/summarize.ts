/**
 * Summaries written by an Agents `Model`: the core's summarizer contract (src/summaries/) over
 * `model.getResponse`, given the items to fold as the model would see them (markers out, notes off) and
 * the ledger's summarization prompt as the system instructions.
 */
import type { AgentInputItem, Model } from '@openai/agents'
import type { MessageData, StoredMessageData } from '../../messages/types.js'
import type { Summarizer } from '../../summaries/summarize.js'
import type { LedgerSummarizeConfig } from './options.js'
import { visibleItems } from './visible.js'
import { asInput } from './items.js'

/** The text of a model response: its assistant messages' `output_text` parts. */
function outputText(output: readonly unknown[]): string {
  const texts: string[] = []
  for (const item of output as { type?: string; role?: string; content?: unknown }[]) {
    if (item.role !== 'assistant' || !Array.isArray(item.content)) continue
    for (const part of item.content as { type?: string; text?: unknown }[])
      if (part.type === 'output_text' && typeof part.text === 'string') texts.push(part.text)
  }
  return texts.join('\n')
}

/** The items a summarizer is given, as the model reads them. */
export function summarizerInput(messages: readonly MessageData[]): AgentInputItem[] {
  const entries = messages.map((message) => ({
    seq: undefined,
    message: message as StoredMessageData,
    pinned: false,
  }))
  return visibleItems(entries).map((v) => asInput(v.item))
}

/** A model's name as recorded with a summary, when it has one. */
function modelName(model: Model): string | undefined {
  const name =
    (model as { model?: unknown; modelId?: unknown }).model ?? (model as { modelId?: unknown }).modelId
  return typeof name === 'string' ? name : undefined
}

/**
 * The core summarizer for a session's `summarize` option.
 *
 * @param config - an Agents model (and prompt), or a summarizer function used as it is
 * @returns the summarizer
 */
export function agentsSummarizer(config: LedgerSummarizeConfig): Summarizer {
  if (typeof config === 'function') return config
  const { model } = config
  return async (messages, request) => {
    const response = await model.getResponse({
      systemInstructions: config.systemPrompt ?? request.systemPrompt,
      input: summarizerInput(messages),
      modelSettings: {},
      tools: [],
      outputType: 'text',
      handoffs: [],
      tracing: false,
    })
    const text = outputText(response.output)
    const name = modelName(model)
    return name === undefined ? text : { text, model: name }
  }
}
