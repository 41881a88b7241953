/**
 * Validation of a `claude-agent` entry. The SDK's `SessionStoreEntry` is any JSON object with a string
 * `type` (the CLI adds entry types from release to release), so the format checks only what the ledger
 * reads for identity: a non-empty `type`, and `uuid`, when present, a non-empty string. Everything else is
 * stored exactly as given, so nothing can be stripped from it: an entry carrying the ledger's own notes key
 * (`contextLedger`) is refused rather than changed.
 *
 * The ledger's own bodies (a pruned entry, a summary) carry that key; {@link snapshotStoredEntry} accepts
 * them in exactly the form the ledger writes them, and nothing else (the check and a summary's validation
 * use it).
 */
import { isDeepStrictEqual } from 'node:util'
import { describeType, invalidMessage, snapshotJson } from '../../messages/json-snapshot.js'
import type { MessageLimits } from '../../messages/limits.js'
import { REDACTED_TEXT } from '../../messages/redact.js'
import { isJsonObject, shown } from '../ai-sdk-common.js'
import { claudeRedact, claudeSummary } from './rewrite.js'
import { CLAUDE_NOTES_KEY, type ClaudeEntryData } from './types.js'

function checkEntry(value: unknown): asserts value is ClaudeEntryData {
  if (!isJsonObject(value))
    throw invalidMessage(
      ['type'],
      `expected a transcript entry (an object with a string type), got ${describeType(value)}`,
    )
  const type = value.type
  if (typeof type !== 'string' || type === '')
    throw invalidMessage(['type'], `expected the entry's type as a non-empty string, got ${shown(type)}`)
  if (Object.hasOwn(value, 'uuid') && (typeof value.uuid !== 'string' || value.uuid === ''))
    throw invalidMessage(['uuid'], `expected a non-empty string or nothing, got ${shown(value.uuid)}`)
}

/**
 * Validates a caller's transcript entry and returns the plain copy to store (the one read of it).
 *
 * @param input - the caller's entry
 * @param limits - the structural limits of the copy
 * @returns the copy
 * @throws ContextLedgerError `INVALID_MESSAGE` naming the path of the first bad field (`type`, `uuid`,
 *   `contextLedger`)
 */
export function snapshotClaudeEntry(input: unknown, limits: MessageLimits): ClaudeEntryData {
  const copy: unknown = snapshotJson(input, limits, true)
  checkEntry(copy)
  if (Object.hasOwn(copy, CLAUDE_NOTES_KEY))
    throw invalidMessage(
      [CLAUDE_NOTES_KEY],
      `"${CLAUDE_NOTES_KEY}" holds the ledger's own notes in this format; an entry is stored exactly, so one carrying it is refused`,
    )
  return copy
}

/**
 * Whether an entry carrying the ledger's notes is exactly one the ledger writes: retention's pruned form
 * of itself, or a summary.
 */
function isOwnForm(entry: ClaudeEntryData): boolean {
  const content = isJsonObject(entry.message) ? entry.message.content : undefined
  return (
    isDeepStrictEqual(entry, claudeRedact(entry, REDACTED_TEXT, true)) ||
    (typeof content === 'string' && isDeepStrictEqual(entry, claudeSummary([content])))
  )
}

/**
 * Validates a body the ledger holds or wrote: a caller's entry as {@link snapshotClaudeEntry} accepts it,
 * or one carrying the ledger's notes in exactly the form the ledger writes (a pruned entry, a summary).
 *
 * @param input - the body
 * @param limits - the structural limits of the copy
 * @returns the copy
 * @throws ContextLedgerError `INVALID_MESSAGE` naming the path of the first bad field
 */
export function snapshotStoredEntry(input: unknown, limits: MessageLimits): ClaudeEntryData {
  const copy: unknown = snapshotJson(input, limits, true)
  checkEntry(copy)
  if (Object.hasOwn(copy, CLAUDE_NOTES_KEY) && !isOwnForm(copy))
    throw invalidMessage(
      [CLAUDE_NOTES_KEY],
      "the ledger's notes on an entry it did not write in that form (only a pruned entry and a summary carry them)",
    )
  return copy
}
