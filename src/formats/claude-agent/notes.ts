/**
 * The ledger's notes on a `claude-agent` entry (its top-level `contextLedger`), in the only forms the
 * ledger writes them:
 *
 * - `{ pruned: true }` on retention's pruned form of the entry (`claudeRedact(entry, …, true)`);
 * - `{ summary: true }` on a summary (`claudeSummary`), which lives in the summaries table, never in a
 *   transcript;
 * - `{ repaired: [...], repairsOmitted? }` on an entry the CLI wrote with values the store's limits could
 *   not hold as they were (a tool's output cut inside an emoji, a string over `maxStringLength`, JSON nested
 *   past `maxDepth`): the entry is stored repaired, as `repairMessage` repairs a Strands message, and says
 *   where — a mirror must not refuse what the CLI wrote, since the SDK drops a refused batch for good.
 *
 * `load` gives such entries back, and the SDK copies them into new transcripts (`forkSession`, a resume
 * with `forkSession: true`), so a caller's entry may carry the first and last forms too: a repair record
 * as it is; a pruned entry as retention's pruned form of it, when it holds nothing that form does not —
 * the SDK's copy adds ids (`forkedFrom`, `requestSessionId`, an attachment's `source_uuid`), which the
 * stored form leaves out, as pruning would. Any other use of the key (a "pruned" entry still holding its
 * text, a summary) is refused.
 */
import { isDeepStrictEqual } from 'node:util'
import { MAX_RECORDED_REPAIRS, type MessageRepair } from '../../messages/repair-message.js'
import { REDACTED_TEXT } from '../../messages/redact.js'
import { isJsonObject, type JsonObject } from '../ai-sdk-common.js'
import { claudeRedact, claudeSummary } from './rewrite.js'
import { CLAUDE_NOTES_KEY, type ClaudeEntryData } from './types.js'

/** The longest path a repair record keeps (a path through huge keys is cut). */
const RECORDED_PATH_MAX = 1024

/** The repairs `repairJson` makes, as recorded. */
const PROBLEMS: ReadonlySet<string> = new Set<MessageRepair['problem']>([
  'lone-surrogate',
  'lone-surrogate-key',
  'string-too-long',
  'media-too-large',
  'too-deep',
  'not-json',
  'prototype-key',
  'empty-text',
  'empty-content',
])

const RECORD_KEYS = new Set(['path', 'problem', 'originalLength'])

function isRecordItem(item: unknown): boolean {
  if (!isJsonObject(item) || Object.keys(item).some((k) => !RECORD_KEYS.has(k))) return false
  const { path, problem, originalLength } = item
  return (
    typeof path === 'string' &&
    typeof problem === 'string' &&
    PROBLEMS.has(problem) &&
    (originalLength === undefined ||
      (typeof originalLength === 'number' && Number.isSafeInteger(originalLength) && originalLength >= 0))
  )
}

/** Whether the repair record (`repaired`, `repairsOmitted`) of a notes object is the form written here. */
function isRepairRecord(notes: JsonObject): boolean {
  const { repaired, repairsOmitted } = notes
  if (!Array.isArray(repaired) || repaired.length === 0 || repaired.length > MAX_RECORDED_REPAIRS)
    return false
  if (!repaired.every(isRecordItem)) return false
  return (
    repairsOmitted === undefined ||
    (typeof repairsOmitted === 'number' && Number.isSafeInteger(repairsOmitted) && repairsOmitted > 0)
  )
}

/**
 * Why an entry's notes are not in a form the ledger writes them, if they are not.
 *
 * @param entry - an entry carrying `contextLedger`
 * @param summary - whether a summary's notes are accepted (a body the ledger holds; never a caller's)
 * @returns the problem, or undefined when the notes are the ledger's own
 */
export function notesProblem(entry: ClaudeEntryData, summary: boolean): string | undefined {
  const notes = entry[CLAUDE_NOTES_KEY]
  if (!isJsonObject(notes)) return 'the notes are not an object'
  const { repaired, repairsOmitted, ...rest } = notes
  if ((repaired !== undefined || repairsOmitted !== undefined) && !isRepairRecord(notes))
    return 'the repair record is not the one the ledger writes (repaired: 1–100 { path, problem, originalLength? })'
  if (Object.keys(rest).length === 0) return repaired === undefined ? 'the notes are empty' : undefined
  const plain = { ...entry, [CLAUDE_NOTES_KEY]: rest }
  if (isDeepStrictEqual(plain, claudeRedact(plain, REDACTED_TEXT, true))) return undefined
  const content = isJsonObject(entry.message) ? entry.message.content : undefined
  if (summary && repaired === undefined && typeof content === 'string')
    if (isDeepStrictEqual(entry, claudeSummary([content]))) return undefined
  return 'only a pruned entry, a repaired one and a summary carry them, each in the form the ledger writes'
}

/** Whether every field of `part` is in `whole`, equal (objects: `whole` may have more keys). */
function within(part: unknown, whole: unknown): boolean {
  if (Array.isArray(part))
    return Array.isArray(whole) && part.length === whole.length && part.every((p, i) => within(p, whole[i]))
  if (isJsonObject(part))
    return (
      isJsonObject(whole) &&
      Object.entries(part).every(([k, v]) => Object.hasOwn(whole, k) && within(v, whole[k]))
    )
  return part === whole
}

/**
 * What a caller's entry carrying the ledger's notes is stored as: itself with a repair record; the
 * pruned form with the pruned note, when the entry holds everything that form keeps as it keeps it.
 *
 * @param entry - a caller's entry carrying `contextLedger`
 * @returns the entry to store, or the problem
 */
export function fromCaller(entry: ClaudeEntryData): { entry: ClaudeEntryData } | { problem: string } {
  const notes = entry[CLAUDE_NOTES_KEY]
  if (!isJsonObject(notes)) return { problem: 'the notes are not an object' }
  const { repaired, repairsOmitted, ...rest } = notes
  const keys = Object.keys(rest)
  if (keys.length === 0 || (keys.length === 1 && rest.pruned === true)) {
    if ((repaired !== undefined || repairsOmitted !== undefined) && !isRepairRecord(notes))
      return { problem: 'the repair record is not the one the ledger writes' }
    if (keys.length === 0) return repaired === undefined ? { problem: 'the notes are empty' } : { entry }
    const pruned = claudeRedact({ ...entry, [CLAUDE_NOTES_KEY]: rest }, REDACTED_TEXT, true)
    if (within(pruned, entry)) return { entry: pruned }
  }
  return {
    problem:
      'only a pruned entry (holding nothing but what its pruned form keeps) and a repair record come from the ledger',
  }
}

/**
 * The entry with its repairs recorded in its notes (after any it already carried), at most
 * {@link MAX_RECORDED_REPAIRS}, the rest counted.
 *
 * @param entry - the repaired entry
 * @param repairs - what was repaired, paths from the entry
 * @returns a new entry
 */
export function withRepairs(entry: ClaudeEntryData, repairs: readonly MessageRepair[]): ClaudeEntryData {
  const notes = isJsonObject(entry[CLAUDE_NOTES_KEY]) ? entry[CLAUDE_NOTES_KEY] : {}
  const before = Array.isArray(notes.repaired) ? notes.repaired : []
  const all = [
    ...before,
    ...repairs.map((r) => ({
      ...r,
      path:
        r.path.length > RECORDED_PATH_MAX ? `${r.path.slice(0, RECORDED_PATH_MAX)}…`.toWellFormed() : r.path,
    })),
  ]
  const omitted =
    (typeof notes.repairsOmitted === 'number' ? notes.repairsOmitted : 0) +
    Math.max(0, all.length - MAX_RECORDED_REPAIRS)
  const { repairsOmitted: _omitted, ...rest } = notes
  return {
    ...entry,
    [CLAUDE_NOTES_KEY]: {
      ...rest,
      repaired: all.slice(0, MAX_RECORDED_REPAIRS),
      ...(omitted > 0 ? { repairsOmitted: omitted } : {}),
    },
  }
}
