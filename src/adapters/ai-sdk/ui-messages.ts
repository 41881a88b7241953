/**
 * The chat-UI side of a `'ui'` session: saving what `toUIMessageStreamResponse`'s `onEnd` hands over
 * (idempotent by message id), a regeneration or an edit rewinding the session, and loading the whole
 * `UIMessage[]` for the screen, a page at a time.
 *
 * A regeneration — the newest stored message is an assistant message the list no longer holds, and the
 * list ends with the message it answered (the request `useChat`'s `regenerate()` sends), or goes on from
 * there with a new assistant message (what `onEnd` hands over) — rewinds the session to the message the
 * old answer followed (`store.rewind`): the old answer leaves the conversation as an abandoned branch,
 * searchable and listed by `branches()`, and the new one, if any, is appended. The `useChat` request's
 * `trigger` and `messageId` ({@link ChatRequest}) say so explicitly, and also name an edit or the
 * regeneration of an earlier answer (see rewind-points.ts). Sessions written before branches existed may
 * hold an answer replaced the old way (its window form an assistant message with no parts): it stays
 * out of the window and the screen.
 */
import type { UIMessage } from 'ai'
import type { LedgerEntry } from '../../store/store-types.js'
import { AI_SDK_ACTOR, CONTINUED_REASON, continues, shownVersion } from './continuation.js'
import { invalidMessage } from './validate.js'
import type { LedgerPort } from '../port.js'
import type { BranchPort } from './branch-port.js'

/** Options of {@link LedgerSession.loadUIMessages}. */
export interface LoadUIMessagesOptions {
  /** At most this many messages, the newest ones (default: all). */
  readonly limit?: number | undefined
  /** Only messages before the message with this id (the oldest one the screen shows), for the page before. */
  readonly before?: string | undefined
}

const PAGE = 100

const key = (m: UIMessage): string => JSON.stringify([m.role, m.parts])

/**
 * Whether an entry is an assistant message replaced the way regenerations were before branches (its
 * window form has no parts).
 *
 * @param e - an entry of a `'ui'` session
 * @returns true when it was replaced
 */
export function isReplaced(e: LedgerEntry): boolean {
  const shown = e.windowMessage as unknown as UIMessage | undefined
  const original = e.message as unknown as UIMessage
  return shown !== undefined && shown.parts.length === 0 && original.parts.length > 0
}

/** The newest stored message that was not replaced, and the one before it (both undefined when none). */
async function newestTwo(port: LedgerPort): Promise<[LedgerEntry | undefined, LedgerEntry | undefined]> {
  const found: LedgerEntry[] = []
  let end = await port.messageCount()
  while (end > 0 && found.length < 2) {
    const from = Math.max(0, end - PAGE)
    const page = await port.history(from, end - from)
    for (const e of page.reverse()) if (!isReplaced(e) && found.length < 2) found.push(e)
    end = from
  }
  return [found[0], found[1]]
}

/**
 * What a save will do: the seq it rewinds the session to first (the last that stays), the message
 * continued, the messages to append.
 */
export interface SavePlan {
  readonly rewind: { readonly toSeq: number; readonly reason: string } | undefined
  readonly continued: { readonly entry: LedgerEntry; readonly message: UIMessage } | undefined
  readonly fresh: UIMessage[]
}

/**
 * The session as it will be after a rewind to `toSeq`: lookups and pages see only the messages that stay.
 *
 * @param port - the session
 * @param toSeq - the last seq that stays
 * @returns the view
 */
export function truncated(port: LedgerPort, toSeq: number): LedgerPort {
  return {
    ...port,
    byTrackingId: async (id) => {
      const e = await port.byTrackingId(id)
      return e !== undefined && e.seq <= toSeq ? e : undefined
    },
    messageCount: async () => Math.min(await port.messageCount(), toSeq + 1),
    history: async (from, limit) =>
      from > toSeq ? [] : port.history(from, Math.min(limit, toSeq + 1 - from)),
  }
}

/** The error for an id the session holds with other content. */
function reused(i: number, m: UIMessage, stored: LedgerEntry): Error {
  return invalidMessage(
    `[${i}].id`,
    `message id "${m.id}" is already stored (seq ${stored.seq}) with other content; a new message needs a new id (only the newest assistant message may be continued, with the same parts and more; to edit a message, pass the request's { trigger, messageId } to saveUIMessages)`,
  )
}

/**
 * Plans a save: messages whose id is stored with equal content (its newest version, or an earlier version
 * of it) are skipped; the newest stored message, an assistant message, sent with its parts moved on is
 * continued; any other message whose id is stored with other content is refused; the rest are new. With
 * `rewind` (an edit or a regeneration a `useChat` request names), the plan is made against the session
 * as it will be after the rewind; without it, a list that regenerates the newest answer rewinds to the
 * message that answer followed.
 *
 * @param port - the session
 * @param messages - checked UI messages
 * @param regenerate - whether a list without the newest answer may regenerate it
 * @param rewind - the rewind the request asks for, if any
 * @returns the plan
 * @throws ContextLedgerError `INVALID_MESSAGE` at `[i].id` for an id reused with other content, or new
 *   messages that do not follow the session's newest message
 */
export async function planSave(
  port: LedgerPort,
  messages: readonly UIMessage[],
  regenerate: boolean,
  rewind?: SavePlan['rewind'],
): Promise<SavePlan> {
  const view = rewind === undefined ? port : truncated(port, rewind.toSeq)
  const fresh: UIMessage[] = []
  let continued: SavePlan['continued']
  let firstFresh = -1
  let newest: Promise<[LedgerEntry | undefined, LedgerEntry | undefined]> | undefined
  for (const [i, m] of messages.entries()) {
    const stored = await view.byTrackingId(m.id)
    if (stored === undefined) {
      if (firstFresh < 0) firstFresh = i
      fresh.push(m)
      continue
    }
    const shown = shownVersion(stored)
    // The stored version, or an earlier one it continues (a client a step behind): nothing to write.
    if (key(shown) === key(m) || continues(m, shown)) continue
    newest ??= newestTwo(view)
    const [last] = await newest
    if (firstFresh >= 0 || last?.seq !== stored.seq || isReplaced(stored) || !continues(shown, m))
      throw reused(i, m, stored)
    continued = { entry: stored, message: m }
  }
  const heuristic = regenerate && rewind === undefined
  if (firstFresh <= 0 && (!heuristic || continued !== undefined || messages.length === 0))
    return { rewind, continued, fresh }
  const [last, before] = await (newest ?? newestTwo(view))
  // The list's message the new answer follows: the one before the first new message, or its last.
  const at = firstFresh < 0 ? messages.length : firstFresh
  const next = messages[at]
  const regenerated =
    heuristic &&
    continued === undefined &&
    last !== undefined &&
    before !== undefined &&
    (last.message as unknown as UIMessage).role === 'assistant' &&
    (next === undefined || next.role === 'assistant') &&
    !messages.some((m) => m.id === last.trackingId) &&
    at > 0 &&
    messages[at - 1]?.id === before.trackingId
  if (firstFresh > 0) checkFollows(messages, firstFresh, regenerated ? before : last)
  return {
    rewind: regenerated ? { toSeq: before.seq, reason: `regenerate "${last.trackingId}"` } : rewind,
    continued,
    fresh,
  }
}

/**
 * Refuses new messages that do not follow the session's newest message: the list's message before the
 * first new one must be it (or, in a regeneration, the message the replaced answer followed). A list that
 * forks the history — an edit or a "regenerate" of an answer that is not the newest sent without the
 * request's `trigger` and `messageId`, messages reordered, a tab whose history is behind — would
 * otherwise have its new messages appended after messages the client no longer shows, and the model
 * would read them out of their context.
 *
 * @param messages - the list
 * @param firstFresh - the index of its first new message (> 0)
 * @param follows - the stored message the new ones must follow
 * @throws ContextLedgerError `INVALID_MESSAGE` at `[firstFresh].id`
 */
function checkFollows(
  messages: readonly UIMessage[],
  firstFresh: number,
  follows: LedgerEntry | undefined,
): void {
  const previous = messages[firstFresh - 1]?.id
  if (previous === follows?.trackingId) return
  throw invalidMessage(
    `[${firstFresh}].id`,
    `new message "${messages[firstFresh]?.id ?? ''}" follows "${previous ?? ''}" in the list, but the session's newest message is "${follows?.trackingId ?? ''}": new messages must follow it (send the session's messages as loadUIMessages() gives them; for an edit or the regeneration of an earlier answer, pass the request's { trigger, messageId } to saveUIMessages)`,
  )
}

/**
 * Carries out a plan: the rewind first (what follows the kept message leaves the conversation as an
 * abandoned branch), then the continued message's new version (an edit), then the new messages.
 *
 * @param port - the session
 * @param branches - its tree
 * @param plan - what {@link planSave} returned
 * @param enforce - brings the window within its limits
 * @returns the new entries
 */
export async function writeSave(
  port: LedgerPort,
  branches: BranchPort,
  plan: SavePlan,
  enforce: () => Promise<unknown>,
): Promise<LedgerEntry[]> {
  if (plan.continued === undefined && plan.fresh.length === 0 && plan.rewind === undefined) return []
  if (plan.rewind !== undefined)
    await branches.rewind({ toSeq: plan.rewind.toSeq, actor: 'user', reason: plan.rewind.reason })
  if (plan.continued !== undefined)
    await port.edit({ seq: plan.continued.entry.seq }, plan.continued.message, {
      actor: AI_SDK_ACTOR,
      reason: CONTINUED_REASON,
    })
  const entries = plan.fresh.length === 0 ? [] : await port.append(plan.fresh)
  await enforce()
  return entries
}

/**
 * The session's UI messages for the screen, oldest first, ids kept, replaced answers left out, a
 * continued message in its newest version.
 *
 * @param port - the session
 * @param options - `limit` (the newest N), `before` (an id: only older messages)
 * @returns the messages
 */
export async function loadUIMessages(port: LedgerPort, options: LoadUIMessagesOptions): Promise<UIMessage[]> {
  let end = await port.messageCount()
  if (options.before !== undefined) {
    const at = await port.byTrackingId(options.before)
    if (at === undefined) return []
    end = at.seq
  }
  const limit = options.limit ?? Infinity
  const out: UIMessage[][] = []
  let count = 0
  while (end > 0 && count < limit) {
    const from = Math.max(0, end - PAGE)
    const page = (await port.history(from, end - from)).filter((e) => !isReplaced(e))
    const kept = page.slice(Math.max(0, page.length - (limit - count)))
    out.unshift(kept.map(shownVersion))
    count += kept.length
    end = from
  }
  return out.flat()
}
