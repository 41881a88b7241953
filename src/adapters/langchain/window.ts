/**
 * What the model sees, as LangChain messages: the session's window rows (pins kept, tool pairs whole, as
 * the core computes them), a repair row answering several calls shown as one `ToolMessage` per call, the
 * ledger's notes taken off — minus what a cleared conversation hides (`LedgerChatMessageHistory.clear()`
 * appends a marker row; what the window held before it stays in the archive, and out of sight).
 *
 * Ids: a row shown exactly as stored keeps its own id (LangGraph's reducer and the next sync know it by
 * that id). A row the ledger made or shows rewritten — the summary, a repair, a late or truncated form, a
 * message stored without an id — gets an id starting `context-ledger:`, so nothing mistakes it for the
 * caller's message under that id, and it is never appended again.
 */
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import { formatNamed } from '../../formats/index.js'
import { expandRepair } from '../../formats/langchain/index.js'
import type { MessageData } from '../../messages/types.js'
import type { LedgerEntry } from '../../store/store-types.js'
import type { LedgerPort, PortWindowEntry } from '../port.js'
import { fromBody, isLedgerId, LEDGER_ID_PREFIX, type LangChainBody } from './messages.js'

/** A message the model sees, with the row it comes from (`seq` undefined for the summary). */
export interface ShownMessage {
  /** The row's seq, or undefined for the summary. */
  readonly seq: number | undefined
  /** Whether the row is pinned. */
  readonly pinned: boolean
  /** The message as the model sees it. */
  readonly message: BaseMessage
}

/** The id prefix of the marker rows `clear()` appends. */
export const CLEAR_ID_PREFIX = `${LEDGER_ID_PREFIX}clear:`

/** The text of a clear marker, as history and search show it. */
export const CLEAR_TEXT =
  'The conversation was cleared here (LedgerChatMessageHistory.clear()): what came before stays in the archive, out of the window.'

/**
 * The marker row that hides what the window holds before it.
 *
 * @param id - a fresh id after {@link CLEAR_ID_PREFIX}
 * @returns its body
 */
export const clearMarker = (id: string): LangChainBody => ({
  type: 'system',
  data: { content: CLEAR_TEXT, id: `${CLEAR_ID_PREFIX}${id}` },
})

/**
 * Whether a body is a clear marker.
 *
 * @param body - a stored body
 * @returns true for one
 */
export function isClearMarker(body: unknown): boolean {
  const id = (body as Partial<LangChainBody> | undefined)?.data?.id
  return typeof id === 'string' && id.startsWith(CLEAR_ID_PREFIX)
}

/**
 * The part of a list of window rows (or bodies) after the newest clear marker.
 *
 * @param rows - rows in window order
 * @param bodyOf - a row's body
 * @returns the rows the model may see
 */
export function afterClear<T>(rows: readonly T[], bodyOf: (row: T) => unknown): readonly T[] {
  const marker = rows.findLastIndex((r) => isClearMarker(bodyOf(r)))
  return marker < 0 ? rows : rows.slice(marker + 1)
}

/** The id the adapter gives a message the ledger made or rewrote. */
function ledgerIdOf(seq: number | undefined, index: number, count: number): string {
  if (seq === undefined) return `${LEDGER_ID_PREFIX}summary${count > 1 ? `:${index}` : ''}`
  return `${LEDGER_ID_PREFIX}seq:${seq}${count > 1 ? `:${index}` : ''}`
}

/**
 * The LangChain messages that stand for one row: a repair's result per call, notes off; its own id when
 * it is shown exactly as stored, the ledger's otherwise.
 *
 * @param seq - the row's seq (undefined for the summary)
 * @param body - the body shown
 * @param rewritten - whether the window shows it otherwise than stored (a late or truncated form)
 * @returns the messages
 */
export function messagesOfRow(seq: number | undefined, body: MessageData, rewritten: boolean): BaseMessage[] {
  const own = (body as unknown as LangChainBody).data.id
  const keepsId =
    seq !== undefined &&
    !rewritten &&
    typeof own === 'string' &&
    !isLedgerId(own) &&
    formatNamed('langchain').notesOf(body as never) === undefined
  const bodies = expandRepair(body as never) as unknown as LangChainBody[]
  return bodies.map((b, i) => fromBody(b, keepsId ? own : ledgerIdOf(seq, i, bodies.length)))
}

/** The archive's entries at `seqs`, read a run of consecutive seqs at a time. */
async function entriesAt(port: LedgerPort, seqs: readonly number[]): Promise<Map<number, LedgerEntry>> {
  const sorted = [...new Set(seqs)].sort((a, b) => a - b)
  const found = new Map<number, LedgerEntry>()
  for (let i = 0; i < sorted.length;) {
    const from = sorted[i] as number
    let to = from + 1
    while (sorted[i + to - from] === to) to++
    for (const e of await port.history(from, to - from)) found.set(e.seq, e)
    i += to - from
  }
  return found
}

/**
 * What the model sees now (see the module comment).
 *
 * @param port - the session
 * @returns the messages, in order, with their rows
 */
export async function shownMessages(port: LedgerPort): Promise<ShownMessage[]> {
  const rows = afterClear(await port.windowEntries(), (e: PortWindowEntry) => e.message)
  const stored = await entriesAt(
    port,
    rows.flatMap((r) => (r.seq === undefined ? [] : [r.seq])),
  )
  return rows.flatMap((r) => {
    const rewritten = r.seq !== undefined && stored.get(r.seq)?.windowMessage !== undefined
    return messagesOfRow(r.seq, r.message, rewritten).map((message) => ({
      seq: r.seq,
      pinned: r.pinned,
      message,
    }))
  })
}

/**
 * Archive entries as LangChain messages, each as stored (a repair's results one per call, notes off).
 *
 * @param entries - entries of the archive
 * @returns the messages
 */
export const archivedMessages = (entries: readonly LedgerEntry[]): BaseMessage[] =>
  entries.flatMap((e) => messagesOfRow(e.seq, e.message, false))

/**
 * What a model call of `ledgerMiddleware` is given: the shown messages without a trailing `AIMessage`
 * whose calls are not all answered after it (nor the results after it). At a model call the run's own
 * calls are answered — their results were stored first — so such calls are another writer's on the same
 * thread, its tools still running: a provider refuses a call without its results, and the model sees them
 * once they are answered (or repaired, when this call's answer is stored after them). Nothing is dropped
 * from the ledger or from `window()`, where a chat history's caller may be about to add the results.
 *
 * @param shown - what the window shows, in order
 * @param after - messages that follow the window, not stored yet (`keepStateToWindow`'s `beforeModel`:
 *   the run's own tool results, which answer its calls)
 * @returns the model's input
 */
export function withoutCallsInFlight(
  shown: readonly ShownMessage[],
  after: readonly BaseMessage[] = [],
): readonly ShownMessage[] {
  const last = shown.findLastIndex((s) => AIMessage.isInstance(s.message))
  const ai = shown[last]?.message
  if (ai === undefined || !AIMessage.isInstance(ai) || (ai.tool_calls ?? []).length === 0) return shown
  const answered = new Set<string>()
  for (const m of after) if (ToolMessage.isInstance(m)) answered.add(m.tool_call_id)
  for (const s of shown.slice(last + 1)) {
    if (!ToolMessage.isInstance(s.message)) return shown
    answered.add(s.message.tool_call_id)
  }
  return (ai.tool_calls ?? []).every((c) => c.id !== undefined && answered.has(c.id))
    ? shown
    : shown.slice(0, last)
}

/**
 * The graph state `keepStateToWindow`'s `afterModel` leaves: the window up to the row of the model's
 * message it just stored (`seq`), that message last. Another writer on the thread may have stored rows
 * since (its messages, or the ledger's repair of this message's calls on that writer's message coming):
 * they stay in the ledger and come back with the next window, but at the end of the state they would
 * steer the run — `createAgent` routes on the state's last message and its last `AIMessage`, so it would
 * run the other writer's calls as this run's (their results stored twice, under this run's tool) and
 * end this run with its own calls never made.
 *
 * @param shown - what the window shows, in order
 * @param seq - the row of the model's message, when it is known
 * @param reply - the model's message, as the state holds it (last, should the window not show its row)
 * @returns the messages of the state, in order
 */
export function shownThrough(
  shown: readonly ShownMessage[],
  seq: number | undefined,
  reply: BaseMessage | undefined,
): readonly ShownMessage[] {
  if (seq === undefined || reply === undefined) return shown
  const kept = shown.filter((s) => s.seq === undefined || s.seq <= seq)
  return kept.at(-1)?.seq === seq ? kept : [...kept, { seq, pinned: false, message: reply }]
}
