/**
 * What the two AI SDK formats (`ai-sdk/model`, `ai-sdk/ui`) share: where the ledger's notes sit in an
 * object, the token arithmetic, and running a zod schema so its first issue becomes an
 * `INVALID_MESSAGE` error with a path. Pure; imports no framework.
 */
import type { z } from 'zod'
import { invalidMessage, type Path } from '../messages/json-snapshot.js'
import type { JsonValue } from '../messages/types.js'
import type { LedgerNotes } from './types.js'

/** The key, inside `providerOptions` (model) or `metadata` (UI), that holds the ledger's notes. */
export const NOTES_KEY = 'contextLedger'

/** A plain JSON object. */
export type JsonObject = { [key: string]: JsonValue }

/**
 * Whether a JSON value is an object (not an array, not null).
 *
 * @param value - a JSON value
 * @returns true for an object
 */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The ledger's notes in `holder[key]`: only the fields and values the library writes count.
 *
 * @param holder - `providerOptions` or `metadata`, or anything else (then there are none)
 * @param key - the key of the notes in it (`context_ledger` in a LangChain message's `additional_kwargs`)
 * @returns the notes, or undefined when there are none
 */
export function readNotes(holder: unknown, key: string = NOTES_KEY): LedgerNotes | undefined {
  if (!isJsonObject(holder)) return undefined
  const raw = holder[key]
  if (!isJsonObject(raw)) return undefined
  const notes: { repair?: 'missing-tool-result'; pruned?: true; summary?: true } = {}
  if (raw.repair === 'missing-tool-result') notes.repair = 'missing-tool-result'
  if (raw.pruned === true) notes.pruned = true
  if (raw.summary === true) notes.summary = true
  return Object.keys(notes).length > 0 ? notes : undefined
}

/**
 * `holder` without its notes (at {@link NOTES_KEY}, or `key`); undefined when nothing else is left in it.
 *
 * @param holder - an object (not changed)
 * @param key - the key of the notes
 * @returns a copy without the notes, `holder` itself when it has none, or undefined when it empties
 */
export function withoutNotes(holder: JsonObject, key: string = NOTES_KEY): JsonObject | undefined {
  if (!Object.hasOwn(holder, key)) return holder
  const { [key]: _notes, ...rest } = holder
  return Object.keys(rest).length > 0 ? rest : undefined
}

/**
 * The notes a redacted or pruned message keeps: the repair note, and `pruned` when asked.
 *
 * @param notes - the message's notes
 * @param pruned - whether retention erased it
 * @returns the notes object to store, or undefined when it would be empty
 */
export function keptNotes(notes: LedgerNotes | undefined, pruned: boolean): JsonObject | undefined {
  const out: JsonObject = {}
  if (notes?.repair !== undefined) out.repair = notes.repair
  if (pruned) out.pruned = true
  return Object.keys(out).length > 0 ? out : undefined
}

// The same figures as the Strands estimate (src/messages/tokens.ts).
/** Tokens every message costs beside its content. */
export const PER_MESSAGE_TOKENS = 4
/** Tokens a tool call or a tool result costs beside its content. */
export const TOOL_PART_TOKENS = 8
const IMAGE = 1600
const VIDEO = 4000
const AUDIO = 1000

/**
 * About four characters a token.
 *
 * @param chars - a length in UTF-16 code units
 * @returns the tokens
 */
export function textTokens(chars: number): number {
  return Math.ceil(chars / 4)
}

/**
 * The fixed cost of a media part by its media type (`image/png`, `video`, …): anything else, such as a
 * PDF whose bytes are elsewhere, costs as much as an image.
 *
 * @param mediaType - an IANA media type or its top-level segment
 * @returns the tokens
 */
export function mediaTokens(mediaType: unknown): number {
  const top = typeof mediaType === 'string' ? mediaType.split('/')[0] : ''
  if (top === 'video') return VIDEO
  if (top === 'audio') return AUDIO
  return IMAGE
}

/**
 * A JSON value as text: a string as it is, anything else as JSON (undefined as nothing).
 *
 * @param value - any JSON value, or undefined
 * @returns the text
 */
export function jsonText(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === undefined) return ''
  return JSON.stringify(value)
}

/**
 * Runs `schema` on `value`; its first issue becomes an `INVALID_MESSAGE` error at `base` + the issue's
 * path.
 *
 * @param schema - a zod schema
 * @param value - a plain JSON copy
 * @param base - where `value` sits in the message
 * @throws ContextLedgerError `INVALID_MESSAGE`
 */
export function checkWith(schema: z.ZodType, value: unknown, base: Path): void {
  const result = schema.safeParse(value)
  if (result.success) return
  const issue = result.error.issues[0]
  const at = (issue?.path ?? []).filter((k): k is string | number => typeof k !== 'symbol')
  throw invalidMessage([...base, ...at], issue?.message ?? 'invalid value', result.error)
}

/**
 * The first repeated id: its index, for the path of the second occurrence.
 *
 * @param ids - `[index, id]` pairs in order
 * @returns the index of the first id seen before, or undefined
 */
export function firstDuplicate(ids: readonly (readonly [number, string])[]): number | undefined {
  const seen = new Set<string>()
  for (const [index, id] of ids) {
    if (seen.has(id)) return index
    seen.add(id)
  }
  return undefined
}

/** The refusal of a `system` message, the same in both AI SDK formats. */
export const SYSTEM_REFUSED =
  'a system message is not stored: pass the system prompt as `system` / `instructions` to generateText, ' +
  'streamText or ToolLoopAgent instead (the ledger keeps the conversation, not the instructions)'

/**
 * A value as an error message shows it.
 *
 * @param value - a JSON value or undefined
 * @returns its JSON, or `nothing` when it is absent
 */
export function shown(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value)
}
