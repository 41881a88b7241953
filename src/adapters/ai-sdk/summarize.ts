/**
 * Summaries written by an AI SDK `LanguageModel`: the core's summarizer contract (src/summaries/) over
 * `generateText`, given the messages to fold (converted from UIMessages in a `'ui'` session), the request
 * that closes them, and the ledger's summarization prompt as `system`.
 */
import { generateText } from 'ai'
import type { LanguageModel, ModelMessage, UIMessage } from 'ai'
import type { Summarizer } from '../../summaries/summarize.js'

/** How a session's summaries are written. */
export interface LedgerSummarizeConfig {
  /** The model that writes them. */
  readonly model: LanguageModel
  /** The system prompt (default `DEFAULT_SUMMARIZATION_PROMPT`). */
  readonly systemPrompt?: string | undefined
  /** Most output tokens of one summary. */
  readonly maxOutputTokens?: number | undefined
}

/** The model's id, as recorded with a summary. */
function modelId(model: LanguageModel): string | undefined {
  return typeof model === 'string' ? model : model.modelId
}

/**
 * A core {@link Summarizer} calling `generateText` on the configured model.
 *
 * @param config - the model and its settings
 * @param format - the session's format: UI messages are converted first
 * @param toModel - the session's conversion of UI messages (`convertToModelMessages` with its tools)
 * @returns the summarizer
 */
export function aiSdkSummarizer(
  config: LedgerSummarizeConfig,
  format: 'model' | 'ui',
  toModel: (messages: UIMessage[]) => Promise<ModelMessage[]>,
): Summarizer {
  return async (messages, request) => {
    const input =
      format === 'ui'
        ? await toModel(messages as unknown as UIMessage[])
        : (messages as unknown as ModelMessage[])
    const result = await generateText({
      model: config.model,
      instructions: request.systemPrompt,
      messages: input,
      ...(config.maxOutputTokens === undefined ? {} : { maxOutputTokens: config.maxOutputTokens }),
    })
    const model = modelId(config.model)
    return model === undefined ? result.text : { text: result.text, model }
  }
}
