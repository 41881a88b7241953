/**
 * The control notes of the `openai-agents` format: withdrawal markers. A marker is an item of exactly
 * `{ type: 'unknown', providerData: { contextLedger: { withdraw, operation?, pinned? } } }` that the
 * Agents adapter appends for `popItem`, `clearSession` and history transactions: it hides earlier items
 * from the conversation while the archive keeps them. Unlike the library's other notes (repair, pruned,
 * summary), a caller's control note is not stripped: it is checked strictly and kept, so the adapter can
 * write markers through the ordinary append. Anything that tries to be a control note and is not exactly
 * one is refused (`INVALID_MESSAGE` at the bad field), never silently turned into a plain item.
 */
import { invalidMessage, describeType, type Path } from '../../messages/json-snapshot.js'
import { isJsonObject, NOTES_KEY, shown } from '../ai-sdk-common.js'
import type { WithdrawData, WithdrawalMarkerData, WithdrawalNote, MarkerOperationData } from './types.js'

const NOTE_PATH: Path = ['providerData', NOTES_KEY]
const HEX64 = /^[0-9a-f]{64}$/i

/** The keys that make a `contextLedger` object a control note. */
const CONTROL_KEYS = ['withdraw', 'operation'] as const

/**
 * Whether a caller's `contextLedger` object tries to be a control note.
 *
 * @param notes - the object under `providerData.contextLedger`
 * @returns true when it holds `withdraw` or `operation`
 */
export function isControlAttempt(notes: Record<string, unknown>): boolean {
  return CONTROL_KEYS.some((key) => Object.hasOwn(notes, key))
}

function seqAt(value: unknown, path: Path): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw invalidMessage(path, `expected a non-negative safe integer, got ${shown(value)}`)
  return value
}

function onlyKeys(value: Record<string, unknown>, keys: readonly string[], path: Path): void {
  const extra = Object.keys(value).find((key) => !keys.includes(key))
  if (extra !== undefined) throw invalidMessage([...path, extra], 'not a field of a withdrawal marker')
}

function checkWithdraw(value: unknown, path: Path): WithdrawData {
  if (!isJsonObject(value))
    throw invalidMessage(path, `expected { before } or { seqs }, got ${describeType(value)}`)
  if (Object.hasOwn(value, 'before')) {
    onlyKeys(value, ['before'], path)
    return { before: seqAt(value.before, [...path, 'before']) }
  }
  onlyKeys(value, ['seqs'], path)
  if (!Array.isArray(value.seqs))
    throw invalidMessage(
      [...path, 'seqs'],
      `expected an array of [from, to] ranges, got ${describeType(value.seqs)}`,
    )
  let end = 0
  const seqs = value.seqs.map((range, i): [number, number] => {
    const at: Path = [...path, 'seqs', i]
    if (!Array.isArray(range) || range.length !== 2)
      throw invalidMessage(at, 'expected a [from, to] pair (half-open)')
    const from = seqAt(range[0], [...at, 0])
    const to = seqAt(range[1], [...at, 1])
    if (to <= from) throw invalidMessage([...at, 1], `an empty range: ${to} is not after ${from}`)
    if (i > 0 && from < end) throw invalidMessage([...at, 0], 'ranges must be ascending and must not overlap')
    end = to
    return [from, to]
  })
  return { seqs }
}

function checkOperation(value: unknown, path: Path): MarkerOperationData {
  if (!isJsonObject(value)) throw invalidMessage(path, `expected { id, digest }, got ${describeType(value)}`)
  onlyKeys(value, ['id', 'digest'], path)
  const { id, digest } = value
  if (typeof id !== 'string' || id.length === 0 || id.length > 256)
    throw invalidMessage([...path, 'id'], 'expected a string of 1 to 256 characters')
  if (typeof digest !== 'string' || !HEX64.test(digest))
    throw invalidMessage([...path, 'digest'], 'expected 64 hexadecimal characters')
  return { id, digest }
}

/**
 * Checks an item whose `contextLedger` tries to be a control note: it must be a marker, exactly.
 *
 * @param item - the caller's plain copy
 * @returns the parsed note
 * @throws ContextLedgerError `INVALID_MESSAGE` at the first field that is not a marker's
 */
export function checkMarker(item: Record<string, unknown>): WithdrawalNote {
  if (item.type !== 'unknown')
    throw invalidMessage(['type'], 'a withdrawal marker (a withdraw/operation note) must be a "unknown" item')
  onlyKeys(item, ['type', 'providerData'], [])
  const data = item.providerData as Record<string, unknown>
  onlyKeys(data, [NOTES_KEY], ['providerData'])
  const notes = data[NOTES_KEY] as Record<string, unknown>
  onlyKeys(notes, ['withdraw', 'operation', 'pinned'], NOTE_PATH)
  if (!Object.hasOwn(notes, 'withdraw'))
    throw invalidMessage([...NOTE_PATH, 'withdraw'], 'a marker must withdraw')
  const note: WithdrawalNote = { withdraw: checkWithdraw(notes.withdraw, [...NOTE_PATH, 'withdraw']) }
  if (Object.hasOwn(notes, 'operation'))
    note.operation = checkOperation(notes.operation, [...NOTE_PATH, 'operation'])
  if (Object.hasOwn(notes, 'pinned')) {
    if (notes.pinned !== true) throw invalidMessage([...NOTE_PATH, 'pinned'], 'expected true or nothing')
    note.pinned = true
  }
  return note
}

/**
 * The withdrawal note of an item, when it is a marker.
 *
 * @param item - a stored item (or anything)
 * @returns the parsed note, or undefined for any other item
 */
export function withdrawalOf(item: unknown): WithdrawalNote | undefined {
  if (!isJsonObject(item) || item.type !== 'unknown' || !isJsonObject(item.providerData)) return undefined
  const notes = item.providerData[NOTES_KEY]
  if (!isJsonObject(notes) || !isControlAttempt(notes)) return undefined
  try {
    return checkMarker(item)
  } catch {
    return undefined
  }
}

/**
 * Builds a withdrawal marker.
 *
 * @param withdraw - what it hides: `{ before: seq }` or `{ seqs: [[from, to), …] }`
 * @param operation - the history transaction it records, if any
 * @param pinned - whether it arrives pinned
 * @returns the marker item
 * @throws ContextLedgerError `INVALID_MESSAGE` when `withdraw` or `operation` is malformed
 */
export function withdrawalMarker(
  withdraw: WithdrawData,
  operation?: MarkerOperationData,
  pinned?: boolean,
): WithdrawalMarkerData {
  const note: WithdrawalNote = {
    withdraw,
    ...(operation === undefined ? {} : { operation }),
    ...(pinned === true ? { pinned: true as const } : {}),
  }
  const marker: WithdrawalMarkerData = { type: 'unknown', providerData: { [NOTES_KEY]: note } }
  checkMarker(JSON.parse(JSON.stringify(marker)) as Record<string, unknown>)
  return marker
}

/**
 * How a marker reads: `[withdrew seqs 4–6]`, `[withdrew everything before seq 9]`.
 *
 * @param note - a marker's note
 * @returns the text
 */
export function markerText(note: WithdrawalNote): string {
  const what =
    'before' in note.withdraw
      ? `everything before seq ${note.withdraw.before}`
      : note.withdraw.seqs.length === 0
        ? 'nothing'
        : `seqs ${note.withdraw.seqs.map(([from, to]) => (to - from === 1 ? `${from}` : `${from}–${to - 1}`)).join(', ')}`
  return `[withdrew ${what}${note.operation === undefined ? '' : ` (operation ${note.operation.id})`}]`
}
