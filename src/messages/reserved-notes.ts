/**
 * The library's own notes in a message body live under `metadata.custom.contextLedger`. Some of them the
 * library acts on when it reads a body back: `pruned` (retention's marker), `repair` (a repair row the
 * store wrote for an interrupted call: a retried append looks past it), `summary` (the summary message a
 * window shows: the Strands adapter does not append it back), `mergedFrom` (the trackingIds an
 * alternating window's merged message holds: the adapter maps it back by them). A caller could forge any
 * of them, so they are stripped from every body a caller gives — an append, a window replacement, a
 * redaction's replacement — and only the library writes them. The informational notes `repaired` and
 * `repairsOmitted` (what `repairMessage`, which the caller runs, changed) decide nothing and stay as given.
 */
import type { JsonValue, MessageData } from './types.js'

/** The notes under `metadata.custom.contextLedger` only the library writes (docs/api.md, "Reserved metadata"). */
export const RESERVED_NOTES: readonly string[] = Object.freeze(['pruned', 'repair', 'summary', 'mergedFrom'])

const isRecord = (v: unknown): v is Record<string, JsonValue> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * A copy of `message` without the reserved notes: `contextLedger` goes when nothing else is left in it,
 * then `custom` and `metadata` the same way (as Strands' `unpinMessage` drops an emptied `custom`).
 *
 * @param message - a validated message (not changed)
 * @returns the message without them; the same object when it carries none
 */
export function withoutReservedNotes<M extends MessageData>(message: M): M {
  const custom = message.metadata?.custom
  const notes = custom?.contextLedger
  if (!isRecord(notes) || !RESERVED_NOTES.some((k) => k in notes)) return message
  const kept = Object.fromEntries(Object.entries(notes).filter(([k]) => !RESERVED_NOTES.includes(k)))
  const { contextLedger: _notes, ...otherCustom } = custom ?? {}
  const nextCustom = Object.keys(kept).length > 0 ? { ...otherCustom, contextLedger: kept } : otherCustom
  const { custom: _custom, ...otherMeta } = message.metadata ?? {}
  const metadata = Object.keys(nextCustom).length > 0 ? { ...otherMeta, custom: nextCustom } : otherMeta
  const { metadata: _metadata, ...rest } = message
  return (Object.keys(metadata).length > 0 ? { ...rest, metadata } : rest) as unknown as M
}

/**
 * Whether a body carries retention's `pruned` note (as a stored body only does when retention erased it:
 * a caller's is stripped on the way in).
 *
 * @param message - a stored body
 * @returns true when `metadata.custom.contextLedger.pruned` is there
 */
export function hasPrunedNote(message: MessageData): boolean {
  const notes = message.metadata?.custom?.contextLedger
  return isRecord(notes) && 'pruned' in notes
}
