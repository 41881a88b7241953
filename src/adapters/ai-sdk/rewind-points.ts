/**
 * Where a regeneration or an edit rewinds a session to: the last message that stays. Read-only — the
 * caller plans everything else before it writes. The rules are `useChat`'s own (`ai` 7's
 * `AbstractChat`): `regenerate({ messageId })` keeps a user message and drops an assistant message, and
 * everything after either; `sendMessage({ messageId })` replaces a message and drops everything after it.
 * The request a `useChat` transport sends (`trigger`, `messageId`, `messages`) is resolved the same way.
 */
import type { UIMessage } from 'ai'
import { z } from 'zod'
import { ContextLedgerError } from '../../errors.js'
import { invalidOption } from '../../store/check-args.js'
import type { LedgerEntry } from '../../store/store-types.js'
import { optionsError } from '../../window/window-options.js'
import type { LedgerPort } from '../port.js'
import type { BranchPort } from './branch-port.js'
import { shownVersion } from './continuation.js'

/** A message of the session's conversation: by its id (a UIMessage's `id`, or the ledger's trackingId) or seq. */
export type MessageTarget = { readonly messageId: string } | { readonly seq: number }

/** What a `useChat` transport sends besides the messages (`DefaultChatTransport`'s request body). */
export interface ChatRequest {
  /** `'submit-message'` (a new message, or with `messageId` an edited one) or `'regenerate-message'`. */
  readonly trigger?: 'submit-message' | 'regenerate-message' | undefined
  /** The message edited (`submit-message`) or regenerated (`regenerate-message`); none for a new message. */
  readonly messageId?: string | undefined
}

const targetSchema = z.union([
  z.strictObject({ messageId: z.string().min(1) }),
  z.strictObject({ seq: z.number().int().min(0) }),
])

const requestSchema = z.strictObject({
  trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
  messageId: z.string().min(1).optional(),
})

/**
 * Checks a message target.
 *
 * @param target - what the caller passed
 * @param what - the call, for the error
 * @returns it, typed
 * @throws ContextLedgerError `INVALID_OPTIONS`
 */
export function checkTarget(target: unknown, what: string): MessageTarget {
  const parsed = targetSchema.safeParse(target)
  if (!parsed.success)
    throw invalidOption(what, 'name a message by exactly one of { messageId } or { seq } (an integer ≥ 0)')
  return parsed.data
}

/**
 * Checks what a `useChat` request carries besides its messages.
 *
 * @param request - `{ trigger, messageId }` (undefined for none)
 * @returns it, typed
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the field
 */
export function checkRequest(request: unknown): ChatRequest {
  if (request === undefined) return {}
  const parsed = requestSchema.safeParse(request)
  if (!parsed.success) throw optionsError(parsed.error, 'saveUIMessages')
  return parsed.data
}

const roleOf = (e: LedgerEntry): unknown => (e.message as { role?: unknown }).role

const describe = (t: MessageTarget): string => ('seq' in t ? `at seq ${t.seq}` : `"${t.messageId}"`)

/**
 * The message a target names in the session's conversation.
 *
 * @param port - the session
 * @param sessionId - its id, for the error
 * @param target - the message
 * @returns its entry
 * @throws ContextLedgerError `MESSAGE_NOT_FOUND` (path `messageId` or `seq`) when the conversation lacks it
 */
export async function locate(
  port: LedgerPort,
  sessionId: string,
  target: MessageTarget,
): Promise<LedgerEntry> {
  const entry =
    'seq' in target
      ? (await port.history(target.seq, 1)).find((e) => e.seq === target.seq)
      : await port.byTrackingId(target.messageId)
  if (entry !== undefined) return entry
  throw new ContextLedgerError(
    'MESSAGE_NOT_FOUND',
    `Session "${sessionId}" has no message ${describe(target)} in its conversation`,
    { path: 'seq' in target ? 'seq' : 'messageId', sessionId },
  )
}

/** A message found in a session of the tree other than the one asked: the session whose conversation has it, and its entry. */
export interface FoundInTree {
  /** The first session of the tree (root first, depth first) whose conversation has the message. */
  readonly sessionId: string
  /** Its entry there. */
  readonly entry: LedgerEntry
}

/**
 * Where another session of the tree holds a message with this id: one a rewind took out of the
 * conversation (a retried request names it; a chat UI showing an old version names it).
 *
 * @param branches - the session's tree
 * @param sessionId - the session (already looked in)
 * @param messageId - the id
 * @returns the first session of the tree (root first) whose conversation has it, or undefined
 */
export async function findInTree(
  branches: BranchPort,
  sessionId: string,
  messageId: string,
): Promise<FoundInTree | undefined> {
  for (const b of await branches.branches()) {
    if (b.sessionId === sessionId) continue
    const entry = await branches.messageIn(b.sessionId, { trackingId: messageId })
    if (entry !== undefined) return { sessionId: b.sessionId, entry }
  }
  return undefined
}

/**
 * The error for an id neither the conversation nor any branch of it has.
 *
 * @param sessionId - the session asked
 * @param messageId - the id
 * @returns `MESSAGE_NOT_FOUND` at `messageId`, naming both
 */
export function unknownId(sessionId: string, messageId: string): ContextLedgerError {
  return new ContextLedgerError(
    'MESSAGE_NOT_FOUND',
    `Session "${sessionId}" has no message "${messageId}" in its conversation or any of its branches`,
    { path: 'messageId', sessionId },
  )
}

/** The newest user message of the conversation, or undefined. */
async function newestUser(port: LedgerPort): Promise<LedgerEntry | undefined> {
  const PAGE = 100
  for (let end = await port.messageCount(); end > 0; end -= PAGE) {
    const from = Math.max(0, end - PAGE)
    const page = await port.history(from, end - from)
    const user = page.reverse().find((e) => roleOf(e) === 'user')
    if (user !== undefined) return user
  }
  return undefined
}

/**
 * Where regenerating rewinds to: a user message stays (its answer goes), an assistant message goes with
 * everything after it — `useChat`'s `regenerate({ messageId })`. Without a target, the answer to the
 * newest user message is regenerated.
 *
 * @param port - the session
 * @param sessionId - its id
 * @param target - the message (default: the newest user message)
 * @returns the last seq that stays
 * @throws ContextLedgerError `MESSAGE_NOT_FOUND` when the conversation lacks it (or has no user message);
 *   `INVALID_OPTIONS` for a tool message (regenerate the assistant message that called the tool)
 */
export async function regeneratePoint(
  port: LedgerPort,
  sessionId: string,
  target: MessageTarget | undefined,
): Promise<number> {
  if (target === undefined) {
    const user = await newestUser(port)
    if (user === undefined)
      throw new ContextLedgerError(
        'MESSAGE_NOT_FOUND',
        `Session "${sessionId}" has no user message whose answer could be regenerated`,
        { path: 'messageId', sessionId },
      )
    return user.seq
  }
  const entry = await locate(port, sessionId, target)
  const role = roleOf(entry)
  if (role === 'user') return entry.seq
  if (role === 'assistant') return entry.seq - 1
  throw invalidOption(
    'seq' in target ? 'seq' : 'messageId',
    `message ${describe(target)} is a '${String(role)}' message: regenerate the assistant message that called the tool, or the user message it answers`,
  )
}

/** Whether two UI messages are the same message to the session (role and parts, as a save compares them). */
const sameUI = (a: UIMessage, b: UIMessage): boolean =>
  JSON.stringify([a.role, a.parts]) === JSON.stringify([b.role, b.parts])

/**
 * Where a `useChat` request rewinds the session to, or undefined when it does not: an edit
 * (`submit-message` with `messageId`, the edited message last in the list) rewinds to before the
 * message (to the message itself when sent unchanged: its answer is regenerated); `regenerate-message`
 * rewinds to the list's last message. A `messageId` the conversation no longer has but a branch of it
 * does (a retried request) leaves the plain save to decide; one the tree does not have is refused.
 *
 * @param port - the session
 * @param branches - its tree
 * @param sessionId - its id
 * @param messages - the request's messages (checked)
 * @param request - `trigger` and `messageId`
 * @returns the last seq that stays, or undefined for no rewind
 * @throws ContextLedgerError `MESSAGE_NOT_FOUND` at `messageId`; `INVALID_OPTIONS` at `messageId` when
 *   the list does not say what the request does
 */
export async function requestPoint(
  port: LedgerPort,
  branches: BranchPort,
  sessionId: string,
  messages: readonly UIMessage[],
  request: ChatRequest,
): Promise<number | undefined> {
  const { trigger, messageId } = request
  if (trigger === undefined || (trigger === 'submit-message' && messageId === undefined)) return undefined
  const last = messages.at(-1)
  const named = messageId === undefined ? undefined : await port.byTrackingId(messageId)
  if (messageId !== undefined && named === undefined) {
    if ((await findInTree(branches, sessionId, messageId)) !== undefined) return undefined
    throw unknownId(sessionId, messageId)
  }
  if (trigger === 'submit-message') {
    if (last === undefined || last.id !== messageId || named === undefined)
      throw invalidOption('messageId', `the edited message "${messageId}" must be the list's last message`)
    return sameUI(shownVersion(named), last) ? named.seq : named.seq - 1
  }
  if (last === undefined) throw invalidOption('messages', 'a regeneration needs the message to answer')
  const anchor = await port.byTrackingId(last.id)
  if (anchor === undefined) return undefined
  if (named !== undefined && named.seq !== anchor.seq && named.seq !== anchor.seq + 1)
    throw invalidOption(
      'messageId',
      `regenerating "${messageId}" (seq ${named.seq}), but the list ends with "${last.id}" (seq ${anchor.seq}), not next to it`,
    )
  return anchor.seq
}
