/**
 * The SDK's copy made the same every time. The SDK's `forkSession` gives the copied messages fresh random
 * uuids (and the new session a random id); every reference to them — `parentUuid`, `logicalParentUuid`,
 * a compaction's preserved segment, an attachment's `source_uuid` — names those random ids. Here each
 * random id is replaced by the fork's rule (fork-ids.ts): a copied message's by the uuid its source gets
 * in the fork (the source being what `forkedFrom.messageUuid` names), the minted session id by the fork's
 * session id, and one minted for an entry the copy left out (a `progress` entry the SDK still maps) by a
 * UUID of its place among such. A string is taken for a minted id when it has a UUID's shape and appears
 * nowhere in what the SDK was given, so the rule needs no knowledge of which fields the SDK rewrites.
 */
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { isRecord } from '../../store/check-args.js'
import { droppedRefUuid, forkedUuid, isUuidShaped } from './fork-ids.js'

/** A message of the SDK's copy: it names the entry it was copied from. */
export interface CopiedMessage extends SessionStoreEntry {
  /** The new uuid. */
  readonly uuid: string
  /** The source session and message. */
  readonly forkedFrom: { readonly sessionId: string; readonly messageUuid: string }
}

/**
 * Whether an entry of the SDK's fork is a copied message (the rest are the fork's own entries: its title,
 * the parent's content replacements and such).
 *
 * @param entry - an entry the SDK's fork wrote
 * @returns true when it carries `forkedFrom.messageUuid` and a `uuid`
 */
export function isCopiedMessage(entry: SessionStoreEntry): entry is CopiedMessage {
  const from: unknown = (entry as { forkedFrom?: unknown }).forkedFrom
  return typeof entry.uuid === 'string' && isRecord(from) && typeof from.messageUuid === 'string'
}

/** Every UUID-shaped string in a value. */
function uuidsIn(value: unknown, into: Set<string>): Set<string> {
  if (typeof value === 'string') {
    if (isUuidShaped(value)) into.add(value)
  } else if (Array.isArray(value)) for (const item of value) uuidsIn(item, into)
  else if (isRecord(value)) for (const item of Object.values(value)) uuidsIn(item, into)
  return into
}

/** A value with each string replaced by `map`'s answer (keys kept, order kept). */
function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value)
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map))
  if (!isRecord(value)) return value
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) out[key] = mapStrings(item, map)
  return out
}

/**
 * The SDK's copied messages with the fork's ids in place of the random ones.
 *
 * @param messages - the copied messages of one SDK fork, in order
 * @param given - what the SDK was given to copy
 * @param mintedSessionId - the session id the SDK minted for that fork
 * @param forkSessionId - the fork's session id
 * @returns the messages, each a new object
 */
export function settleCopy(
  messages: readonly CopiedMessage[],
  given: readonly SessionStoreEntry[],
  mintedSessionId: string,
  forkSessionId: string,
): SessionStoreEntry[] {
  const known = new Map<string, string>([[mintedSessionId, forkSessionId]])
  for (const m of messages) known.set(m.uuid, forkedUuid(m.forkedFrom.messageUuid, forkSessionId))
  const seen = uuidsIn(given, new Set())
  let dropped = 0
  const settle = (text: string): string => {
    const mapped = known.get(text)
    if (mapped !== undefined) return mapped
    if (!isUuidShaped(text) || seen.has(text)) return text
    const id = droppedRefUuid(forkSessionId, dropped++)
    known.set(text, id)
    return id
  }
  return messages.map((m) => mapStrings(m, settle) as SessionStoreEntry)
}
