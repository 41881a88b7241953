/**
 * Turning stored rows into what the store returns: entries, window entries, pinned messages, pin and edit
 * log entries.
 * Bodies are parsed from the JSON the store wrote; flags become booleans, times Dates, nulls undefined.
 */
import type { BodyFormat } from '../formats/index.js'
import type { EditRow, MessageRow, PinEventRow, PinnedRow, SessionRow } from '../db/statements.js'
import { strandsFormat } from '../formats/strands/index.js'
import type { StoredMessageData } from '../messages/types.js'
import { MISSING_TOOL_RESULT_REPAIR } from '../messages/ledger-notes.js'
import type { LedgerEntry, MessageEdit, PinEvent, PinnedMessage, WindowEntry } from './store-types.js'

/**
 * Parses a body the store wrote.
 *
 * @param body - the stored JSON
 * @returns the message
 */
export function parseBody(body: string): StoredMessageData {
  // The store wrote it from a validated message; a row changed behind its back fails later, as damage.
  return JSON.parse(body) as StoredMessageData
}

/**
 * An entry for a message row.
 *
 * @param session - its session's row
 * @param row - the message's row
 * @returns the entry
 */
export function toEntry(session: SessionRow, row: MessageRow): LedgerEntry {
  return {
    sessionId: session.id,
    seq: row.seq,
    trackingId: row.uid,
    message: parseBody(row.body),
    tokens: row.tokens,
    pinned: row.pinned === 1,
    inWindow: row.seq >= session.boundary || row.kept === 1,
    createdAt: new Date(row.created_at),
    windowMessage: row.window_body === null ? undefined : parseBody(row.window_body),
    repeatOf: row.repeat_of ?? undefined,
    late: row.late === 1,
  }
}

/**
 * A pinned message for its row.
 *
 * @param r - the row
 * @param format - its session's message format (default: Strands)
 * @returns the pinned message, shown as pinned (Strands: with the pin flag)
 */
export function toPinnedMessage(r: PinnedRow, format: BodyFormat = strandsFormat): PinnedMessage {
  return {
    sessionId: r.session_id,
    seq: r.seq,
    trackingId: r.uid,
    message: format.show(parseBody(r.body), true),
    inWindow: r.seq >= r.boundary || r.kept === 1,
    pinnedAt: new Date(r.at ?? 0),
    actor: r.actor ?? 'append',
    reason: r.reason ?? undefined,
  }
}

/**
 * A pin log entry for its row.
 *
 * @param r - the row
 * @returns the entry
 */
export function toPinEvent(r: PinEventRow): PinEvent {
  return {
    sessionId: r.session_id,
    seq: r.seq,
    trackingId: r.uid,
    action: r.action,
    actor: r.actor,
    reason: r.reason ?? undefined,
    at: new Date(r.at),
  }
}

/**
 * An edit log entry for its row.
 *
 * @param sessionId - the session
 * @param r - the row
 * @returns the entry
 */
export function toMessageEdit(sessionId: string, r: EditRow): MessageEdit {
  return {
    sessionId,
    seq: r.seq,
    trackingId: r.uid,
    kind: r.kind,
    actor: r.actor,
    reason: r.reason ?? undefined,
    at: new Date(r.at),
    message: r.body === null ? undefined : parseBody(r.body),
  }
}

/**
 * Whether a stored body is a repair row the store wrote (see interrupted-tool-results.ts).
 *
 * @param body - the stored JSON
 * @param format - the session's message format
 * @returns true for a repair row
 */
export function isRepairRow(body: string, format: BodyFormat): boolean {
  if (!body.includes(MISSING_TOOL_RESULT_REPAIR)) return false
  return format.notesOf(parseBody(body))?.repair === MISSING_TOOL_RESULT_REPAIR
}

/**
 * A window row as returned: the summary's (sorted at `boundary - 0.5`, the one seq that is not an
 * integer) has no seq.
 *
 * @param format - the session's format (what shows the body)
 * @param k - the row's sort key: its seq, or the summary's `boundary - 0.5`
 * @param body - the parsed body
 * @param pinned - whether it is pinned
 * @returns the entry
 */
export function toWindowEntry(
  format: BodyFormat,
  k: number,
  body: StoredMessageData,
  pinned: boolean,
): WindowEntry {
  return { seq: Number.isInteger(k) ? k : undefined, message: format.show(body, pinned), pinned }
}
