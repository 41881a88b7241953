/**
 * Checks messages with the AI SDK's own validators before the ledger sees them: `modelMessageSchema`
 * for `ModelMessage`s, `safeValidateUIMessages` for `UIMessage`s. A refusal is `INVALID_MESSAGE` naming
 * the path of the first bad field (`[2].parts[0].type`), and nothing is written. A `role: 'system'`
 * message is refused with a message saying to pass `system` / `instructions` instead: the window is the
 * conversation, and a system prompt that could be evicted or summarized would be a silent bug.
 */
import { generateId, modelMessageSchema, safeValidateUIMessages } from 'ai'
import type { ModelMessage, UIMessage } from 'ai'
import { ContextLedgerError } from '../../errors.js'
import { DEFAULT_MESSAGE_LIMITS, describeValue } from '../../messages/limits.js'
import { formatNamed } from '../../formats/index.js'

type PathKey = PropertyKey | { readonly key: PropertyKey }

/** `[2].parts[0].type` from a message index and an issue's path. */
function pathOf(index: number, path: readonly PathKey[] = []): string {
  const keys = path.map((p) => (typeof p === 'object' ? p.key : p))
  return `[${index}]${keys.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('')}`
}

/** The error for message `index`, refused at `path`. */
export function invalidMessage(path: string, problem: string, cause?: unknown): ContextLedgerError {
  return new ContextLedgerError('INVALID_MESSAGE', `Invalid message at ${path}: ${problem}`, {
    path,
    ...(cause === undefined ? {} : { cause }),
  })
}

/** Where and why the `ai-sdk/model` format refuses a message, or undefined when it accepts it. */
function formatProblem(message: unknown): { path: string; problem: string } | undefined {
  try {
    formatNamed('ai-sdk/model').snapshot(message, DEFAULT_MESSAGE_LIMITS)
    return undefined
  } catch (error) {
    if (!(error instanceof ContextLedgerError) || error.path === undefined) return undefined
    const path = error.path === '(message)' ? '' : error.path.startsWith('[') ? error.path : `.${error.path}`
    return { path, problem: error.message.replace(/^Invalid message at [^:]*: /, '') }
  }
}

function systemRefusal(index: number): ContextLedgerError {
  return invalidMessage(
    pathOf(index, ['role']),
    "a 'system' message is not kept in the ledger; pass it as `instructions` (or `system`) of generateText, streamText or ToolLoopAgent so it is never evicted",
  )
}

/**
 * The messages as an array, refusing anything else.
 *
 * @param messages - what the caller passed
 * @returns the array
 */
export function messageArray(messages: unknown): readonly unknown[] {
  if (!Array.isArray(messages))
    throw invalidMessage('messages', `expected an array of messages, got ${describeValue(messages)}`)
  return messages
}

/**
 * Checks `ModelMessage`s with the SDK's `modelMessageSchema`.
 *
 * @param messages - what the caller passed
 * @returns them, typed
 * @throws ContextLedgerError `INVALID_MESSAGE` with the path of the first bad field
 */
export function checkModelMessages(messages: unknown): ModelMessage[] {
  const list = messageArray(messages)
  list.forEach((m, i) => {
    const parsed = modelMessageSchema.safeParse(m)
    if (!parsed.success) {
      // The SDK's schema is a union: its first issue is often "Invalid input" at the message itself.
      // The format's own check names the field (`content[0].type`, with the part types it knows).
      const ours = formatProblem(m)
      if (ours !== undefined) throw invalidMessage(`[${i}]${ours.path}`, ours.problem, parsed.error)
      const issue = parsed.error.issues[0]
      throw invalidMessage(pathOf(i, issue?.path), issue?.message ?? 'not a ModelMessage', parsed.error)
    }
    if (parsed.data.role === 'system') throw systemRefusal(i)
  })
  return list as ModelMessage[]
}

/**
 * Checks `UIMessage`s with the SDK's `safeValidateUIMessages`, one at a time (so the path names the
 * message), and gives a message with an empty id one (`generateId`).
 *
 * @param messages - what the caller passed
 * @returns them, typed, ids filled in (a filled-in message is a copy)
 * @throws ContextLedgerError `INVALID_MESSAGE` with the path of the first bad field
 */
export async function checkUIMessages(messages: unknown): Promise<UIMessage[]> {
  const list = messageArray(messages)
  const out: UIMessage[] = []
  for (const [i, m] of list.entries()) {
    const result = await safeValidateUIMessages({ messages: [m] })
    if (!result.success) {
      const cause = (result.error as { cause?: { issues?: { path?: PathKey[]; message?: string }[] } }).cause
      const issue = cause?.issues?.[0]
      // The validator's path starts at the one-element list it was given.
      throw invalidMessage(
        pathOf(i, issue?.path?.slice(1)),
        issue?.message ?? result.error.message,
        result.error,
      )
    }
    const message = m as UIMessage
    if ((message.role as string) === 'system') throw systemRefusal(i)
    out.push(message.id === '' ? { ...message, id: generateId() } : message)
  }
  return out
}
