/**
 * One save of a `'ui'` session: where the `useChat` request rewinds the session to (an edit, a
 * regeneration: rewind-points.ts), the plan made against the session as it will be after the rewind
 * (ui-messages.ts), then the writes — all checks before the first write. Another writer on the same
 * chat (two requests at once, two servers) is met by planning again (see {@link saveUIRequest}).
 */
import type { UIMessage } from 'ai'
import { isContextLedgerError } from '../../errors.js'
import type { LedgerEntry } from '../../store/store-types.js'
import type { LedgerPort } from '../port.js'
import type { BranchPort } from './branch-port.js'
import { replaceFirst } from './first-message.js'
import { requestPoint, type ChatRequest } from './rewind-points.js'
import { planSave, writeSave } from './ui-messages.js'
import { invalidMessage } from './validate.js'

/** What a save reaches. */
export interface SaveContext {
  readonly port: LedgerPort
  readonly branches: BranchPort
  readonly sessionId: string
  /** Brings the window within its limits. */
  readonly enforce: () => Promise<unknown>
}

/** The reason a `useChat` request's rewind records. */
const rewindReason = (r: ChatRequest): string =>
  r.trigger === 'submit-message'
    ? `edit "${r.messageId ?? ''}"`
    : `regenerate${r.messageId === undefined ? '' : ` "${r.messageId}"`}`

/** How many times a save is planned again when another writer changed the session under it. */
const ATTEMPTS = 4

/**
 * Whether a save failed because another writer (another request, process or server) changed the session
 * between its plan and its writes: the append's `expectCount` no longer holds, or the message the plan
 * rewinds to has left the conversation. Planned again on the session as it is now, the save either
 * holds (a regeneration rewinds the other writer's answer into a branch) or is refused for what it is.
 */
const raced = (error: unknown): boolean =>
  isContextLedgerError(error, 'APPEND_CONFLICT') ||
  (isContextLedgerError(error, 'MESSAGE_NOT_FOUND') && error.path === 'toSeq')

/**
 * Saves a request's (or `onEnd`'s) messages. Call inside the session's queue. A save that raced another
 * writer is planned again (at most {@link ATTEMPTS} times; then its `APPEND_CONFLICT` is the answer).
 *
 * @param c - the session
 * @param messages - the messages, checked
 * @param regenerate - whether a list without the newest answer may regenerate it
 * @param request - the request's `trigger` and `messageId`, checked
 * @returns the new entries
 * @throws ContextLedgerError as {@link saveOnce}; `APPEND_CONFLICT` when other writers kept winning
 */
export async function saveUIRequest(
  c: SaveContext,
  messages: readonly UIMessage[],
  regenerate: boolean,
  request: ChatRequest,
): Promise<LedgerEntry[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await saveOnce(c, messages, regenerate, request)
    } catch (error) {
      if (attempt >= ATTEMPTS || !raced(error)) throw error
    }
  }
}

/**
 * One attempt of a save: every check against the session as read, then the writes, the append only onto
 * the messages the plan was made against (`expectCount`).
 *
 * @param c - the session
 * @param messages - the messages, checked
 * @param regenerate - whether a list without the newest answer may regenerate it
 * @param request - the request's `trigger` and `messageId`, checked
 * @returns the new entries
 */
async function saveOnce(
  c: SaveContext,
  messages: readonly UIMessage[],
  regenerate: boolean,
  request: ChatRequest,
): Promise<LedgerEntry[]> {
  // Read first: a write another writer makes after this read fails the append's expectCount.
  const count = await c.port.messageCount()
  const point = await requestPoint(c.port, c.branches, c.sessionId, messages, request)
  if (point === -1) {
    // An edit of the chat's first message: nothing can come before it in the list.
    const [edited, ...rest] = messages
    if (edited === undefined || rest.length > 0)
      throw invalidMessage(
        '[0].id',
        `the chat's first message is edited, so it must be the list's only message`,
      )
    await replaceFirst(c.port, c.branches, edited, rewindReason(request))
    await c.enforce()
    return []
  }
  const rewind = point === undefined ? undefined : { toSeq: point, reason: rewindReason(request) }
  const plan = await planSave(c.port, messages, regenerate, rewind)
  // Nothing after the point: no rewind to write.
  const keep = plan.rewind !== undefined && plan.rewind.toSeq < count - 1
  return writeSave(c.port, c.branches, keep ? plan : { ...plan, rewind: undefined }, c.enforce, count)
}
