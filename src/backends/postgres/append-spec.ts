/**
 * What the snapshot of an append must read, from the messages before they are validated: the ids they
 * name (their own ids, the tool calls they make and answer), and the planner's part when one arrives
 * pinned. A Strands message's are read from its raw shape; a message of another format is read through
 * its format module (`snapshot`, `facts`, `idOf`), which refuses what it cannot read — then it names
 * nothing here, and `append` reports the message as it always does (`INVALID_MESSAGE`).
 */
import { formatNamed, MESSAGE_FORMATS, type BodyFormat, type MessageFormatName } from '../../formats/index.js'
import type { MessageLimits } from '../../messages/limits.js'
import { arrivesPinned } from '../../store/showable-pins.js'
import type { SnapshotParams } from './snapshot-query.js'

/** What an append reads besides the session: ids, the newest rows, the planner's part. */
export type AppendSpec = Pick<SnapshotParams, 'uids' | 'toolIds' | 'newest' | 'plan' | 'keptK'>

/** The ids one message names. */
interface Named {
  readonly uid?: string | undefined
  readonly toolIds: readonly string[]
  readonly pinned: boolean
}

/**
 * The snapshot spec of an append.
 *
 * @param messages - the caller's messages (one or an array), unvalidated
 * @param format - the session's format, or the one the append names; undefined when neither is known
 *   (the ids each registered format would read are all read: more rows read, never fewer)
 * @param limits - the store's validation limits
 * @returns the spec
 */
export function appendSpec(
  messages: unknown,
  format: MessageFormatName | undefined,
  limits: MessageLimits,
): AppendSpec {
  const list: unknown[] = Array.isArray(messages) ? messages : [messages]
  const readers = format === undefined ? registeredFormats() : [formatNamed(format)]
  const uids: string[] = []
  const toolIds: string[] = []
  let pinned = false
  for (const m of list)
    for (const reader of readers) {
      const named = reader.name === 'strands' ? strandsNamed(m) : namedBy(reader, m, limits)
      if (named === undefined) continue
      if (named.uid !== undefined) uids.push(named.uid)
      toolIds.push(...named.toolIds)
      pinned ||= named.pinned
    }
  return { uids, toolIds, newest: 2 * list.length + 1, plan: pinned ? 2 : 1, keptK: 1 }
}

/** Every format a session can hold that this build has a module for. */
function registeredFormats(): BodyFormat[] {
  const out: BodyFormat[] = []
  for (const name of MESSAGE_FORMATS) {
    try {
      out.push(formatNamed(name))
    } catch {
      // A format named but not built in yet: no session can hold it.
    }
  }
  return out
}

/** A Strands message's ids, from its raw shape (cheap; whatever is not a string is left to validation). */
function strandsNamed(m: unknown): Named | undefined {
  if (typeof m !== 'object' || m === null) return undefined
  const { trackingId, content } = m as { trackingId?: unknown; content?: unknown }
  const toolIds: string[] = []
  if (Array.isArray(content))
    for (const block of content as unknown[]) {
      if (typeof block !== 'object' || block === null) continue
      const { toolUse, toolResult } = block as { toolUse?: unknown; toolResult?: unknown }
      for (const t of [toolUse, toolResult]) {
        const id = (t as { toolUseId?: unknown } | null | undefined)?.toolUseId
        if (typeof id === 'string') toolIds.push(id)
      }
    }
  return { uid: typeof trackingId === 'string' ? trackingId : undefined, toolIds, pinned: arrivesPinned(m) }
}

/** A message's ids as its format reads them, or undefined when the format refuses it. */
function namedBy(format: BodyFormat, m: unknown, limits: MessageLimits): Named | undefined {
  try {
    const message = format.snapshot(m, limits)
    const facts = format.facts(message)
    const id = format.idOf(message)
    return {
      uid: id === '' ? undefined : id,
      toolIds: [...facts.toolUses.map((u) => u.id), ...facts.toolResults.map((r) => r.id)],
      pinned: facts.pinned,
    }
  } catch {
    // Invalid in this format: `append` validates it again and reports it (or it is another format's).
    return undefined
  }
}
