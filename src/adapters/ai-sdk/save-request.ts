/**
 * One save of a `'ui'` session: where the `useChat` request rewinds the session to (an edit, a
 * regeneration: rewind-points.ts), the plan made against the session as it will be after the rewind
 * (ui-messages.ts), then the writes — all checks before the first write.
 */
import type { UIMessage } from 'ai'
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

/**
 * Saves a request's (or `onEnd`'s) messages. Call inside the session's queue.
 *
 * @param c - the session
 * @param messages - the messages, checked
 * @param regenerate - whether a list without the newest answer may regenerate it
 * @param request - the request's `trigger` and `messageId`, checked
 * @returns the new entries
 */
export async function saveUIRequest(
  c: SaveContext,
  messages: readonly UIMessage[],
  regenerate: boolean,
  request: ChatRequest,
): Promise<LedgerEntry[]> {
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
  const keep = plan.rewind !== undefined && plan.rewind.toSeq < (await c.port.messageCount()) - 1
  return writeSave(c.port, c.branches, keep ? plan : { ...plan, rewind: undefined }, c.enforce)
}
