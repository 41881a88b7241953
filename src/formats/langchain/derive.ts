/**
 * What the ledger derives from a `langchain` message: the window facts, the searchable text and the
 * token estimate. An `AIMessage` makes the calls in its `tool_calls` (`tool_use` / `tool_call` blocks in
 * its content are the provider's view of the same calls, not more of them); a `ToolMessage` answers one
 * call by `tool_call_id`, and parallel calls are answered by several `ToolMessage`s in a row, so a
 * `ToolMessage` defers the calls it leaves waiting (as an AI SDK tool message does). A human or system
 * message, or an `AIMessage`, after calls still waiting gets a repair row before it.
 */
import {
  PER_MESSAGE_TOKENS,
  TOOL_PART_TOKENS,
  isJsonObject,
  mediaTokens,
  textTokens,
  type JsonObject,
} from '../ai-sdk-common.js'
import type { MessageFacts } from '../types.js'
import type { LangChainMessageData, MessageContentData, ToolMessageData } from './types.js'

/** The key, inside `data.additional_kwargs`, that holds the ledger's notes. */
export const LC_NOTES_KEY = 'context_ledger'

/** The repair note's value. */
export const REPAIR = 'missing-tool-result'

const REPAIR_PATH = `data.additional_kwargs.${LC_NOTES_KEY}.results`

/**
 * The ledger's notes object of a message, as stored (not read for meaning).
 *
 * @param message - a stored message
 * @returns `data.additional_kwargs.context_ledger` when it is an object
 */
export function rawNotes(message: LangChainMessageData): JsonObject | undefined {
  const notes = message.data.additional_kwargs?.[LC_NOTES_KEY]
  return isJsonObject(notes) ? notes : undefined
}

/**
 * The `ToolMessage`s a repair container holds (see `rewrite.ts`), or undefined for any other message.
 *
 * @param message - a stored message
 * @returns the results it answers with
 */
export function repairResults(message: LangChainMessageData): ToolMessageData[] | undefined {
  if (message.type !== 'tool') return undefined
  const notes = rawNotes(message)
  if (notes?.repair !== REPAIR || !Array.isArray(notes.results)) return undefined
  return notes.results as unknown as ToolMessageData[]
}

/**
 * Whether a tool message reports a failure.
 *
 * @param message - a `ToolMessage`
 * @returns `'error'` for `status: 'error'`, else `'success'`
 */
export function toolStatus(message: ToolMessageData): 'success' | 'error' {
  return message.data.status === 'error' ? 'error' : 'success'
}

/**
 * Which side a `ChatMessage`'s free-form role speaks for.
 *
 * @param role - its `data.role`
 * @returns `assistant`, `system` or `user`
 */
export function chatSpeaker(role: string): 'assistant' | 'system' | 'user' {
  if (role === 'assistant' || role === 'ai' || role === 'model') return 'assistant'
  return role === 'system' || role === 'developer' ? 'system' : 'user'
}

const NONE = { toolUses: [], toolResults: [], pinned: false } as const

function prompt(speaker: 'user' | 'system'): MessageFacts {
  return { ...NONE, role: 'user', speaker, plainUser: true, defersCalls: false }
}

/**
 * The facts the window rules use (see the module comment).
 *
 * @param message - a stored message
 * @returns its facts; `pinned` is always false (the format has no pin flag)
 */
export function langchainFacts(message: LangChainMessageData): MessageFacts {
  const results = repairResults(message)
  const answers = (list: readonly ToolMessageData[], path: (i: number) => string): MessageFacts => ({
    ...NONE,
    role: 'user',
    speaker: 'tool',
    toolResults: list.map((r, i) => ({ id: r.data.tool_call_id, status: toolStatus(r), path: path(i) })),
    plainUser: false,
    // Parallel calls are answered by one ToolMessage each: the calls it leaves open wait for the next.
    defersCalls: true,
  })
  if (results !== undefined) return answers(results, (i) => `${REPAIR_PATH}[${i}].data.tool_call_id`)
  switch (message.type) {
    case 'ai':
      return {
        ...NONE,
        role: 'assistant',
        speaker: 'assistant',
        toolUses: (message.data.tool_calls ?? []).map((c, i) => ({
          id: c.id,
          name: c.name,
          path: `data.tool_calls[${i}].id`,
        })),
        plainUser: false,
        defersCalls: false,
      }
    case 'tool':
      return answers([message], () => 'data.tool_call_id')
    case 'system':
      return prompt('system')
    case 'generic': {
      const speaker = chatSpeaker(message.data.role)
      if (speaker !== 'assistant') return prompt(speaker)
      return { ...NONE, role: 'assistant', speaker, plainUser: false, defersCalls: false }
    }
    default:
      return prompt('user')
  }
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '')

const lines = (texts: readonly string[]): string => texts.filter((t) => t !== '').join('\n')

/** The text of a content block: its text, reasoning, thinking or refusal ('' for media and calls). */
function blockText(b: unknown): string {
  if (!isJsonObject(b)) return ''
  switch (b.type) {
    case 'text':
    case 'text-plain':
      return str(b.text)
    case 'reasoning':
      // OpenAI's Responses API puts reasoning summaries in `summary` parts.
      return lines([
        str(b.reasoning),
        ...(Array.isArray(b.summary) ? b.summary.map((s) => (isJsonObject(s) ? str(s.text) : '')) : []),
      ])
    case 'thinking':
      return str(b.thinking)
    case 'refusal':
      return str(b.refusal)
    default:
      return ''
  }
}

/**
 * A message content's text: a string as it is, the blocks' texts one a line.
 *
 * @param content - `data.content`
 * @returns the text
 */
export function contentText(content: MessageContentData): string {
  return typeof content === 'string' ? content : lines(content.map(blockText))
}

/**
 * The searchable text: the content's texts, reasoning and thinking, each tool call's name and JSON
 * args (and an invalid call's name and raw args), a tool's output.
 *
 * @param message - a stored message
 * @returns the text, one piece a line
 */
export function langchainText(message: LangChainMessageData): string {
  const results = repairResults(message)
  if (results !== undefined) return lines(results.map(langchainText))
  const text = contentText(message.data.content)
  if (message.type !== 'ai') return text
  return lines([
    text,
    ...(message.data.tool_calls ?? []).map((c) => `${c.name} ${JSON.stringify(c.args)}`),
    ...(message.data.invalid_tool_calls ?? []).map((c) => `${str(c.name)} ${str(c.args)}`.trim()),
  ])
}

/** The fixed cost of a media block (images, audio, video, files; 0 for anything else). */
function blockMedia(b: unknown): number {
  if (!isJsonObject(b)) return 0
  switch (b.type) {
    case 'image_url':
    case 'image':
      return mediaTokens('image')
    case 'audio':
    case 'input_audio':
      return mediaTokens('audio')
    case 'video':
      return mediaTokens('video')
    case 'file':
      return mediaTokens(str(b.mimeType) || str(b.mime_type))
    default:
      return 0
  }
}

/**
 * The built-in estimate: about four characters a token for the text (tool args as JSON), the Strands
 * estimate's fixed costs for images, audio, video and files, a few tokens a message, a tool call and a
 * tool result.
 *
 * @param message - a stored message
 * @returns a non-negative integer
 */
export function langchainTokens(message: LangChainMessageData): number {
  const results = repairResults(message)
  if (results !== undefined) return results.reduce((n, r) => n + langchainTokens(r), 0)
  const content = message.data.content
  let n = PER_MESSAGE_TOKENS + textTokens(langchainText(message).length)
  if (Array.isArray(content)) n += content.reduce((sum: number, b) => sum + blockMedia(b), 0)
  if (message.type === 'ai') n += TOOL_PART_TOKENS * (message.data.tool_calls ?? []).length
  if (message.type === 'tool') n += TOOL_PART_TOKENS
  return n
}
