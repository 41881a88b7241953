/**
 * A session's branch calls: regenerate an answer, replace (edit) a message, list the tree, list a
 * message's alternatives. A regeneration or an edit rewinds the session (`store.rewind`): what followed
 * leaves the conversation as an abandoned branch — moved, never copied or destroyed, searchable and
 * listed by `branches()` — and the session keeps its id, so a chat's `useChat({ id })` goes on as before.
 */
import type { ModelMessage, UIMessage } from 'ai'
import type { BranchInfo, LedgerEntry } from '../../store/context-store.js'
import type { LedgerPort } from '../port.js'
import { alternativesOf, type MessageAlternative } from './alternatives.js'
import type { Archive } from './archive.js'
import type { BranchPort } from './branch-port.js'
import { shownVersion } from './continuation.js'
import { replaceFirst } from './first-message.js'
import { checkTarget, locate, regeneratePoint, type MessageTarget } from './rewind-points.js'
import { isReplaced } from './ui-messages.js'
import { checkModelMessages, checkUIMessages, invalidMessage } from './validate.js'

/** What a regeneration or an edit did to the conversation. */
export interface BranchChange {
  /** The branch now holding the messages that left the conversation; undefined when none did. */
  readonly abandoned: BranchInfo | undefined
  /** How many messages left the conversation. */
  readonly left: number
  /**
   * What was appended: the edited message — none for a regeneration, an edit that changed nothing, or an
   * edit of the first message (shown in place of the original: see `replaceMessage`).
   */
  readonly entries: LedgerEntry[]
}

/** How the branch calls reach the session. */
export interface BranchContext {
  readonly sessionId: string
  readonly format: 'model' | 'ui'
  readonly port: LedgerPort
  readonly branches: BranchPort
  readonly archive: Archive
  /** Refuses a session of another format. */
  readonly checkFormat: () => Promise<void>
  /** Brings the window within its limits. */
  readonly enforce: () => Promise<unknown>
}

/** The branch calls of a session (see `LedgerSession`). */
export interface BranchCalls {
  regenerate(target?: MessageTarget): Promise<BranchChange>
  replaceMessage(target: MessageTarget, message: ModelMessage | UIMessage): Promise<BranchChange>
  branches(): Promise<BranchInfo[]>
  alternatives(target: MessageTarget): Promise<MessageAlternative<ModelMessage | UIMessage>[]>
}

const NOTHING: BranchChange = { abandoned: undefined, left: 0, entries: [] }

const named = (t: MessageTarget | undefined): string =>
  t === undefined ? 'the newest answer' : 'seq' in t ? `seq ${t.seq}` : `"${t.messageId}"`

/**
 * Rewinds the session to `toSeq` unless nothing follows it.
 *
 * @returns the branch holding what left, and how many left
 */
async function rewindTo(c: BranchContext, toSeq: number, reason: string): Promise<BranchChange> {
  if (toSeq >= (await c.port.messageCount()) - 1) return NOTHING
  const r = await c.branches.rewind({ toSeq, actor: 'user', reason })
  return { abandoned: r.abandoned, left: r.left, entries: [] }
}

/** The message an edit writes, checked by the SDK's validators; a UI message without an id takes the old one's. */
async function checkedReplacement(c: BranchContext, old: LedgerEntry, message: unknown): Promise<unknown> {
  if (c.format === 'model') return checkModelMessages([message])[0]
  const m = message as Partial<UIMessage> | null
  const given =
    typeof m === 'object' && m !== null && (m.id === undefined || m.id === '')
      ? { ...m, id: old.trackingId }
      : m
  return (await checkUIMessages([given]))[0]
}

/** What the window's retry rule compares of a message: its role and content (parts for a UI message). */
const sameMessage = (format: 'model' | 'ui', a: unknown, b: unknown): boolean => {
  const pick = (m: unknown) => {
    const o = m as { role?: unknown; content?: unknown; parts?: unknown }
    return JSON.stringify([o.role, format === 'ui' ? o.parts : o.content])
  }
  return pick(a) === pick(b)
}

/** How a stored entry is shown: a UI message's newest version, a ModelMessage as stored. */
const shownOf = (format: 'model' | 'ui', e: LedgerEntry): ModelMessage | UIMessage =>
  format === 'ui' && !isReplaced(e) ? shownVersion(e) : (e.message as unknown as ModelMessage | UIMessage)

/** Replaces the message `target` names (see `LedgerSession.replaceMessage`). Call inside the session's queue. */
async function replace(c: BranchContext, target: MessageTarget, message: unknown): Promise<BranchChange> {
  const old = await locate(c.port, c.sessionId, target)
  const fresh = await checkedReplacement(c, old, message)
  const same = sameMessage(c.format, shownOf(c.format, old), fresh)
  const toSeq = same ? old.seq : old.seq - 1
  if (c.format === 'ui') {
    // An id a message that stays already has would be refused by the append after the rewind.
    const id = (fresh as UIMessage).id
    const taken = id === old.trackingId ? undefined : await c.port.byTrackingId(id)
    if (taken !== undefined && taken.seq <= toSeq)
      throw invalidMessage(
        '[0].id',
        `message id "${id}" is already stored (seq ${taken.seq}); the new message needs a new id`,
      )
  }
  if (toSeq < 0) {
    const first = await replaceFirst(c.port, c.branches, fresh, `edit ${named(target)}`)
    c.archive.remember([message, fresh])
    await c.enforce()
    return { ...first, entries: [] }
  }
  const change = await rewindTo(c, toSeq, `edit ${named(target)}`)
  if (same) return change
  const entries = await c.port.append([fresh])
  c.archive.remember([message, fresh])
  await c.enforce()
  return { ...change, entries }
}

/**
 * The branch calls of a session.
 *
 * @param c - the session
 * @returns its calls, each queued with the session's other calls
 */
export function branchCalls(c: BranchContext): BranchCalls {
  return {
    regenerate: (target) =>
      c.archive.serial(async () => {
        await c.checkFormat()
        const t = target === undefined ? undefined : checkTarget(target, 'target')
        return rewindTo(c, await regeneratePoint(c.port, c.sessionId, t), `regenerate ${named(t)}`)
      }),
    replaceMessage: (target, message) =>
      c.archive.serial(async () => {
        await c.checkFormat()
        return replace(c, checkTarget(target, 'target'), message)
      }),
    branches: () =>
      c.archive.serial(async () => {
        await c.checkFormat()
        // A chat not written yet has no tree (the store refuses a session it does not have).
        return (await c.port.storedFormat()) === undefined ? [] : c.branches.branches()
      }),
    alternatives: (target) =>
      c.archive.serial(async () => {
        await c.checkFormat()
        const t = checkTarget(target, 'target')
        return alternativesOf(c.port, c.branches, c.sessionId, t, (e) => shownOf(c.format, e))
      }),
  }
}
