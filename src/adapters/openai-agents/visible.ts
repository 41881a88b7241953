/**
 * What a session's model sees, from its window rows: the ledger's window, minus what the conversation
 * withdrew (`popItem`, `clearSession`, a history transaction's replaced suffix — each recorded by a
 * withdrawal marker row, never by deleting), with the library's notes taken off, a repair row answering
 * several calls shown as one result item per call, and nothing a provider refuses: a tool result whose
 * call is not shown (a call withdrawn before its repair row was written), a call whose result was
 * withdrawn or that a prompt follows without it (a call still waiting — for an approval, with another
 * writer's items after it — stays), or a reasoning item not followed at once by the output item it
 * belongs to. When a compaction
 * item is shown, what the model is handed starts there, as the runner's replay does: the compaction item
 * stands for everything before it.
 */
import { expandRepair, withdrawalOf } from '../../formats/openai-agents/index.js'
import type { PortWindowEntry } from '../port.js'
import type { AgentItem } from './items.js'

/** An item the model sees, with the row it comes from (`seq` undefined for the summary). */
export interface VisibleItem {
  /** The row's seq, or undefined for the summary. */
  readonly seq: number | undefined
  /** Whether the row is pinned. */
  readonly pinned: boolean
  /** The item as the model sees it (no library notes). */
  readonly item: AgentItem
}

/** The item types that answer a call (by `callId`). */
export const RESULT_TYPES: ReadonlySet<string> = new Set([
  'function_call_result',
  'computer_call_result',
  'shell_call_output',
  'apply_patch_call_output',
  'program_output',
])
/** The item types that call a tool and wait for a result (by `callId`). */
export const CALL_TYPES: ReadonlySet<string> = new Set([
  'function_call',
  'computer_call',
  'shell_call',
  'apply_patch_call',
  'program',
])

/** Whether the seq lies in one of the half-open ranges. */
const within = (seq: number, ranges: readonly (readonly [number, number])[]): boolean =>
  ranges.some(([from, to]) => seq >= from && seq < to)

/** An item of the model's own output, which a reasoning item may precede. */
const isOutput = (item: AgentItem): boolean =>
  item.type !== 'reasoning' &&
  (item.type === 'message' || item.type === undefined
    ? item.role === 'assistant'
    : !RESULT_TYPES.has(item.type))

/**
 * The shown items: withdrawn rows and markers left out, repairs expanded, notes off, unpaired results and
 * stray reasoning dropped.
 *
 * @param entries - the window rows, in window order
 * @returns what the model sees, in order
 */
export function visibleItems(entries: readonly PortWindowEntry[]): VisibleItem[] {
  let shown: VisibleItem[] = []
  // Calls whose result a marker withdrew: shown again only with a result.
  const withdrawnResults = new Set<string>()
  for (const entry of entries) {
    const item = entry.message as unknown as AgentItem
    const withdrawal = withdrawalOf(item)
    if (withdrawal !== undefined) {
      const w = withdrawal.withdraw
      const gone = (v: VisibleItem): boolean =>
        'before' in w || (v.seq !== undefined && within(v.seq, w.seqs))
      for (const v of shown)
        if (gone(v) && RESULT_TYPES.has(String(v.item.type)) && typeof v.item.callId === 'string')
          withdrawnResults.add(v.item.callId)
      shown = shown.filter((v) => !gone(v))
      continue
    }
    const expanded = expandRepair(item as never) as unknown as AgentItem[]
    for (const one of expanded) shown.push({ seq: entry.seq, pinned: entry.pinned, item: one })
  }
  const compaction = shown.findLastIndex((v) => v.item.type === 'compaction')
  return paired(compaction > 0 ? shown.slice(compaction) : shown, withdrawnResults)
}

/** Whether the item is a prompt: a user message. */
const isPrompt = (item: AgentItem): boolean =>
  (item.type === 'message' || item.type === undefined) && item.role === 'user'

/**
 * Drops results whose call is not shown before them, calls whose result was withdrawn or that a prompt
 * follows without their result, and reasoning not followed at once by its output item.
 */
function paired(items: readonly VisibleItem[], withdrawnResults: ReadonlySet<string>): VisibleItem[] {
  const calls = new Set<string>()
  const answered = new Set<string>()
  const kept: VisibleItem[] = []
  for (const v of items) {
    const type = String(v.item.type)
    const callId = v.item.callId
    if (CALL_TYPES.has(type) && typeof callId === 'string') calls.add(callId)
    if (RESULT_TYPES.has(type)) {
      if (typeof callId !== 'string' || !calls.has(callId)) continue
      answered.add(callId)
    }
    kept.push(v)
  }
  // A call without a shown result may still be waiting for it (an approval, another writer's items in
  // between): it stays unless its result was withdrawn, or a prompt follows it.
  const lastPrompt = kept.findLastIndex((v) => isPrompt(v.item))
  const out = kept.filter((v, i) => {
    const callId = v.item.callId
    if (!CALL_TYPES.has(String(v.item.type)) || typeof callId !== 'string' || answered.has(callId))
      return true
    return !withdrawnResults.has(callId) && i > lastPrompt
  })
  // A reasoning item goes with the output item right after it; without one, a provider refuses it.
  return out.filter((v, i) => {
    if (v.item.type !== 'reasoning') return true
    const next = out[i + 1]
    return next !== undefined && isOutput(next.item)
  })
}
