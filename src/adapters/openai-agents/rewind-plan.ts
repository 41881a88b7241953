/**
 * Where `popItem` and a `replace_suffix` rewind a session to, decided from what the model sees (pure: no
 * store). What leaves is everything from the first row that goes to the newest row — the popped item or
 * the replaced suffix, and the rows after it the model did not see (markers, a stray reasoning item) —
 * and becomes the abandoned branch the core's rewind writes.
 *
 * Two rules keep what the model sees after the rewind exactly what it saw minus what left:
 * - **A popped result takes its call with it** (as the withdrawal markers did): a call left without its
 *   result is refused by a provider, so the rewind starts at the first call whose result would leave.
 *   A replaced suffix does not: its replacement may answer the call (the runner's accepted output does);
 *   a call it leaves unanswered is withdrawn by the operation's marker instead (`danglingCalls`).
 * - **Markers that leave hand their work on.** A session written before branches holds withdrawal
 *   markers; one that leaves with the rewind withdrew items that stay. The ranges it withdrew below the
 *   rewind point are withdrawn again by the row the rewind appends (never by editing a stored row) — and
 *   so is a call that stays while the result the marker withdrew leaves (the model did not see that
 *   call: a call whose result was withdrawn is hidden with it).
 */
import { expandRepair, withdrawalOf } from '../../formats/openai-agents/index.js'
import type { PortWindowEntry } from '../port.js'
import type { AgentItem } from './items.js'
import { CALL_TYPES, RESULT_TYPES, type VisibleItem } from './visible.js'

/** A stored row as `history()` gives it: its seq and its message. */
export interface StoredRow {
  /** Its seq. */
  readonly seq: number
  /** The stored item. */
  readonly message: unknown
}

/** Half-open seq ranges, ascending and disjoint. */
export type SeqRanges = [number, number][]

/** What leaving markers withdrew from rows that stay: to be withdrawn again after the rewind. */
export interface Carried {
  /** The ranges, below the rewind point (empty when nothing is carried). */
  readonly seqs: SeqRanges
  /** Whether a leaving marker was pinned (it outlived pinned items it withdrew): the new one is too. */
  readonly pinned: boolean
}

/**
 * Merges half-open ranges into ascending, disjoint ones (touching ranges joined).
 *
 * @param ranges - any ranges, empty ones ignored
 * @returns the merged ranges
 */
export function mergeRanges(ranges: readonly (readonly [number, number])[]): SeqRanges {
  const sorted = ranges.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0])
  const out: SeqRanges = []
  for (const [from, to] of sorted) {
    const last = out.at(-1)
    if (last !== undefined && from <= last[1]) last[1] = Math.max(last[1], to)
    else out.push([from, to])
  }
  return out
}

/**
 * The first seq that leaves when the newest shown item is popped: its own, moved back to the first
 * shown call whose result would leave (and again, for a call answered after an earlier call's result).
 *
 * @param shown - what the model sees, in order
 * @param seq - the popped item's seq
 * @returns the first seq that leaves
 */
export function popStart(shown: readonly VisibleItem[], seq: number): number {
  const callAt = new Map<string, number>()
  for (const v of shown)
    if (v.seq !== undefined && CALL_TYPES.has(String(v.item.type)) && typeof v.item.callId === 'string')
      callAt.set(v.item.callId, Math.min(callAt.get(v.item.callId) ?? v.seq, v.seq))
  let from = seq
  for (let moved = true; moved;) {
    moved = false
    for (const v of shown) {
      if (v.seq === undefined || v.seq < from || !RESULT_TYPES.has(String(v.item.type))) continue
      const call = typeof v.item.callId === 'string' ? callAt.get(v.item.callId) : undefined
      if (call !== undefined && call < from) {
        from = call
        moved = true
      }
    }
  }
  return from
}

/**
 * The seq of each call among the window's rows, by callId (the first, if one were repeated).
 *
 * @param entries - the window's rows
 * @returns callId → seq
 */
export function callSeqs(entries: readonly PortWindowEntry[]): Map<string, number> {
  const seqs = new Map<string, number>()
  for (const e of entries) {
    const item = e.message as unknown as AgentItem
    if (e.seq !== undefined && CALL_TYPES.has(String(item.type)) && typeof item.callId === 'string')
      if (!seqs.has(item.callId)) seqs.set(item.callId, e.seq)
  }
  return seqs
}

/** The calls, below `from`, that the withdrawn rows among `leaving` answered. */
function callsOfLeaving(
  leaving: ReadonlyMap<number, unknown>,
  ranges: readonly (readonly [number, number])[],
  from: number,
  calls: ReadonlyMap<string, number>,
): [number, number][] {
  const out: [number, number][] = []
  for (const [seq, message] of leaving) {
    if (seq < from || !ranges.some(([a, b]) => seq >= a && seq < b)) continue
    for (const item of expandRepair(message as never) as unknown as AgentItem[]) {
      const call = typeof item.callId === 'string' ? calls.get(item.callId) : undefined
      if (RESULT_TYPES.has(String(item.type)) && call !== undefined && call < from) out.push([call, call + 1])
    }
  }
  return out
}

/**
 * The calls that stay while a result of theirs the model saw leaves, and that `answered` does not answer:
 * withdrawn with the rewind, so no call is shown without its result.
 *
 * @param shown - what the model sees
 * @param from - the first seq that leaves
 * @param calls - where each call of the window is (`callSeqs`)
 * @param answered - the callIds the rows appended after the rewind answer
 * @returns their seqs as ranges
 */
export function danglingCalls(
  shown: readonly VisibleItem[],
  from: number,
  calls: ReadonlyMap<string, number>,
  answered: ReadonlySet<string>,
): SeqRanges {
  const out: [number, number][] = []
  for (const v of shown) {
    const callId = v.item.callId
    if (v.seq === undefined || v.seq < from || typeof callId !== 'string') continue
    if (!RESULT_TYPES.has(String(v.item.type)) || answered.has(callId)) continue
    const call = calls.get(callId)
    if (call !== undefined && call < from) out.push([call, call + 1])
  }
  return mergeRanges(out)
}

/**
 * What the markers among the leaving rows withdrew from rows that stay.
 *
 * @param rows - the rows from `from` on (others are ignored)
 * @param from - the first seq that leaves
 * @param calls - where each call of the window is (`callSeqs`)
 * @returns the ranges to withdraw again, and whether that marker is pinned
 */
export function carriedOver(
  rows: readonly StoredRow[],
  from: number,
  calls: ReadonlyMap<string, number> = new Map(),
): Carried {
  const leaving = new Map(rows.filter((r) => r.seq >= from).map((r) => [r.seq, r.message]))
  const ranges: [number, number][] = []
  let pinned = false
  for (const [seq, message] of leaving) {
    const note = withdrawalOf(message)
    if (note === undefined) continue
    const w = note.withdraw
    // `{ before }` hid everything shown before the marker's own row: the seqs below it.
    const hid: readonly (readonly [number, number])[] = 'before' in w ? [[0, seq]] : w.seqs
    const kept = [
      ...hid.map(([a, b]): [number, number] => [a, Math.min(b, from)]).filter(([a, b]) => b > a),
      ...callsOfLeaving(leaving, hid, from, calls),
    ]
    if (kept.length === 0) continue
    ranges.push(...kept)
    pinned ||= note.pinned === true
  }
  return { seqs: mergeRanges(ranges), pinned }
}
