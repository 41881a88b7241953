/**
 * Validation of a `claude-agent` entry. The SDK's `SessionStoreEntry` is any JSON object with a string
 * `type` (the CLI adds entry types from release to release), so the format checks only what the ledger
 * reads for identity: a non-empty `type`, and `uuid`, when present, a non-empty string. Everything else is
 * stored exactly as given, so nothing can be stripped from it: an entry carrying the ledger's own notes key
 * (`contextLedger`) is refused rather than changed — unless its notes are in a form the ledger writes
 * (see notes.ts: `load` gives pruned and repaired entries back, and the SDK copies them into forks).
 *
 * An entry is what the CLI wrote, and the SDK drops a batch the store refuses: so what the store's
 * structural limits cannot hold (a lone surrogate where a tool's output was cut inside an emoji, a string
 * over `maxStringLength`, JSON nested past `maxDepth`) is repaired as `repairMessage` repairs it, and the
 * entry records where in its notes (`contextLedger.repaired`) instead of being refused.
 *
 * The ledger's own bodies (a pruned entry, a summary) carry that key; {@link snapshotStoredEntry} accepts
 * them in exactly the form the ledger writes them, and nothing else (the check and a summary's validation
 * use it).
 */
import { isContextLedgerError } from '../../errors.js'
import { describeType, invalidMessage, snapshotJson } from '../../messages/json-snapshot.js'
import type { MessageLimits } from '../../messages/limits.js'
import { repairJson, type MessageRepair } from '../../messages/repair-message.js'
import type { JsonValue } from '../../messages/types.js'
import { isJsonObject, shown } from '../ai-sdk-common.js'
import { fromCaller, notesProblem, withRepairs } from './notes.js'
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
 * The one plain copy of a caller's entry: as given when the limits hold it, else repaired (see the module
 * comment) with what was repaired. A value the repair cannot make plain JSON keeps the first refusal.
 */
function plainCopy(
  input: unknown,
  limits: MessageLimits,
): { copy: JsonValue; repairs: readonly MessageRepair[] } {
  try {
    return { copy: snapshotJson(input, limits, true), repairs: [] }
  } catch (error) {
    if (!isContextLedgerError(error, 'INVALID_MESSAGE')) throw error
    let repaired: ReturnType<typeof repairJson>
    try {
      repaired = repairJson(input, limits)
    } catch {
      // A getter or a Proxy that throws: the refusal already names where.
      throw error
    }
    if (repaired.repairs.length === 0) throw error
    return { copy: snapshotJson(repaired.value, limits, true), repairs: repaired.repairs }
  }
}

/**
 * Validates a caller's transcript entry and returns the plain copy to store (repaired where the limits
 * could not hold it, and saying so).
 *
 * @param input - the caller's entry
 * @param limits - the structural limits of the copy
 * @returns the copy
 * @throws ContextLedgerError `INVALID_MESSAGE` naming the path of the first bad field (`type`, `uuid`,
 *   `contextLedger`)
 */
export function snapshotClaudeEntry(input: unknown, limits: MessageLimits): ClaudeEntryData {
  const { copy, repairs } = plainCopy(input, limits)
  checkEntry(copy)
  let entry: ClaudeEntryData = copy
  if (Object.hasOwn(copy, CLAUDE_NOTES_KEY)) {
    const accepted = fromCaller(copy)
    if ('problem' in accepted)
      throw invalidMessage(
        [CLAUDE_NOTES_KEY],
        `"${CLAUDE_NOTES_KEY}" holds the ledger's own notes in this format, and an entry is stored exactly, so one carrying them is refused: ${accepted.problem}`,
      )
    entry = accepted.entry
  }
  return repairs.length === 0 ? entry : withRepairs(entry, repairs)
}

/**
 * Validates a body the ledger holds or wrote: a caller's entry as {@link snapshotClaudeEntry} accepts it,
 * or one carrying the ledger's notes in exactly the form the ledger writes (a pruned entry, a repaired
 * one, a summary).
 *
 * @param input - the body
 * @param limits - the structural limits of the copy
 * @returns the copy
 * @throws ContextLedgerError `INVALID_MESSAGE` naming the path of the first bad field
 */
export function snapshotStoredEntry(input: unknown, limits: MessageLimits): ClaudeEntryData {
  const copy: unknown = snapshotJson(input, limits, true)
  checkEntry(copy)
  if (Object.hasOwn(copy, CLAUDE_NOTES_KEY)) {
    const problem = notesProblem(copy, true)
    if (problem !== undefined)
      throw invalidMessage(
        [CLAUDE_NOTES_KEY],
        `the ledger's notes on an entry it did not write in that form: ${problem}`,
      )
  }
  return copy
}
