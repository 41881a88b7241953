/**
 * Window replacements and logged edits in the branch reference (test/helpers/branch-model.ts): what the
 * window shows of a message instead of its archived form. A branch's replacement or edit of a row it
 * inherits stays in the branch, and one its parent makes after the fork never reaches it — the reference
 * gets both for free, every branch holding its own copy of each row's window form.
 */
import type { ContentBlockData, StoredMessageData } from '../../src/index.js'
import type { BranchState } from './branch-model.js'

/**
 * The message with every text and tool result of `size` characters: what a window replacement may be
 * (the same role, trackingId and tool ids).
 *
 * @param message - the archived message
 * @param size - characters of each text
 * @returns the replacement
 */
export function replacement(message: StoredMessageData, size: number): StoredMessageData {
  const content = message.content.map((block): ContentBlockData => {
    if ('text' in block) return { text: 'r'.repeat(size) }
    if ('toolResult' in block)
      return { toolResult: { ...block.toolResult, content: [{ text: 'r'.repeat(size) }] } }
    return block
  })
  return { ...message, content }
}

/** The form to store: none when it is the archived message itself. */
function formOf(
  b: BranchState,
  seq: number,
  message: StoredMessageData | null,
): StoredMessageData | undefined {
  return message === null || JSON.stringify(message) === JSON.stringify(b.archive[seq]) ? undefined : message
}

/**
 * `setWindowContent(seq, message)`: the window shows `message` (null: the archived form again).
 *
 * @param b - the branch
 * @param seq - the message
 * @param message - the replacement, or null
 */
export function replaceModel(b: BranchState, seq: number, message: StoredMessageData | null): void {
  b.forms[seq] = formOf(b, seq, message)
}

/**
 * `editMessage(seq, message)`: as a replacement, logged — unless it is what the window shows already.
 *
 * @param b - the branch
 * @param seq - the message
 * @param message - the new form
 */
export function editModel(b: BranchState, seq: number, message: StoredMessageData): void {
  if (JSON.stringify(message) === JSON.stringify(b.forms[seq] ?? b.archive[seq])) return
  b.forms[seq] = formOf(b, seq, message)
  b.editLog.push({ seq, kind: 'edit' })
}

/**
 * The rows a command may replace: the run's own messages (not a repair row, whose reserved note a caller
 * cannot give) that hold no late result.
 *
 * @param b - the branch
 * @param prefix - the run's trackingId prefix
 * @returns their seqs
 */
export function replaceable(b: BranchState, prefix: string): number[] {
  return b.archive.flatMap((m, seq) => (m.trackingId.startsWith(prefix) && b.late[seq] !== true ? [seq] : []))
}
