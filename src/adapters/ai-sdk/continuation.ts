/**
 * An assistant message `useChat` continues under the same id. With client-side tools (`addToolOutput`)
 * or tool approvals (`addToolApprovalResponse`), `useChat` sends the newest assistant message again with
 * the same id and a tool part moved on (`input-available` → `output-available`, `approval-requested` →
 * `approval-responded`), and the server's `onFinish` hands it back with more parts. Each such version
 * is an edit of the stored message (`editMessage`, actor `ai-sdk`, reason `continued`): the window shows
 * the newest version, the edit log keeps every later version and the row keeps the first. Only the
 * newest stored message may be continued, and only forward: the same parts in the same order (equal,
 * but for a tool part, whose state may move on and never back), then new ones.
 */
import type { UIMessage } from 'ai'
import type { LedgerEntry } from '../../store/store-types.js'

/** The actor recorded on the edits a continuation and a regeneration make. */
export const AI_SDK_ACTOR = 'ai-sdk'

/** The reason recorded on a continuation's edit. */
export const CONTINUED_REASON = 'continued'

/** Where a tool part's state stands: a continuation never moves one back. */
const STATE_RANK: Readonly<Record<string, number>> = {
  'input-streaming': 0,
  'input-available': 1,
  'approval-requested': 2,
  'approval-responded': 3,
  'output-available': 4,
  'output-error': 4,
  'output-denied': 4,
}

type Part = UIMessage['parts'][number]

const toolCallOf = (p: Part): unknown => (p as { toolCallId?: unknown }).toolCallId
const stateOf = (p: Part): number => STATE_RANK[(p as { state?: string }).state ?? ''] ?? -1

/** Whether `next` is `old` or, for a tool part, `old` moved on: the same call, its state not going back. */
function partContinues(old: Part, next: Part): boolean {
  if (toolCallOf(old) === undefined) return JSON.stringify(old) === JSON.stringify(next)
  return old.type === next.type && toolCallOf(old) === toolCallOf(next) && stateOf(next) >= stateOf(old)
}

/**
 * Whether `next` continues `old`: both assistant messages, `next` holding `old`'s parts in order (equal,
 * tool parts possibly further on) and maybe more.
 *
 * @param old - the stored version
 * @param next - the version sent
 * @returns true for a continuation
 */
export function continues(old: UIMessage, next: UIMessage): boolean {
  if (old.role !== 'assistant' || next.role !== 'assistant') return false
  if (next.parts.length < old.parts.length) return false
  return old.parts.every((p, i) => {
    const n = next.parts[i]
    return n !== undefined && partContinues(p, n)
  })
}

/**
 * The version of a stored UI message the session shows: its window form when an edit (a continuation)
 * set one, else the message as appended.
 *
 * @param e - an entry of a `'ui'` session that was not replaced by a regeneration
 * @returns the message
 */
export function shownVersion(e: LedgerEntry): UIMessage {
  return (e.windowMessage ?? e.message) as unknown as UIMessage
}
