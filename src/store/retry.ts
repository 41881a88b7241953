/**
 * Recognising a retried append: a batch whose first messages are already the session's newest ones (a
 * caller that did not see the first attempt's answer sends it again). Those messages are not written
 * again; their existing entries are returned.
 */
import type { MessageRow, NewestRow, Statements } from '../db/statements.js'
import type { BodyFormat } from '../formats/index.js'
import { isRepairRow, parseBody } from './entries.js'
import type { PreparedMessage } from './prepare-message.js'

/** How much of a batch is a retry. */
export interface RetriedPrefix {
  /** How many of the batch's first messages are already stored. */
  readonly count: number
  /** Per message of the batch, its stored row when it is part of the retried prefix. */
  readonly entries: readonly (MessageRow | undefined)[]
  /** The seq of the session's newest message (repair rows aside), if any. */
  readonly newest: number | undefined
}

/** The result for a batch that is not a retry of anything. */
export const NOT_RETRIED: RetriedPrefix = Object.freeze({ count: 0, entries: [], newest: undefined })

/**
 * The longest prefix of a batch that is already the session's newest messages, in order, with the same
 * role and content (a message sent again counts under the trackingId it was sent with). Repair rows the
 * store wrote are skipped. Decided once, before the batch writes anything, from at most twice the batch's
 * length of rows.
 *
 * @param st - the connection's statements (inside the write transaction)
 * @param pk - the session's key
 * @param prepared - the batch
 * @param format - the session's message format
 * @returns the retried prefix
 */
export function retriedPrefix(
  st: Statements,
  pk: number,
  prepared: readonly PreparedMessage[],
  format: BodyFormat,
): RetriedPrefix {
  const rows = st.newestRows.all(pk, 2 * prepared.length + 1).filter((r) => !isRepairRow(r.body, format))
  const newest = rows[0]?.seq
  const matches = (m: PreparedMessage | undefined, r: NewestRow | undefined): boolean =>
    m !== undefined &&
    r !== undefined &&
    !m.minted &&
    (r.uid === m.uid || r.sent_as === m.uid) &&
    format.contentKey(parseBody(r.body)) === format.contentKey(m.message)
  for (let j = Math.min(prepared.length, rows.length); j > 0; j--) {
    // batch[0..j) against the j newest rows, oldest of them first.
    let all = true
    for (let i = 0; all && i < j; i++) all = matches(prepared[i], rows[j - 1 - i])
    if (all)
      return { count: j, entries: prepared.map((_, i) => (i < j ? rows[j - 1 - i] : undefined)), newest }
  }
  return { count: 0, entries: [], newest }
}
