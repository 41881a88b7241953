/**
 * The store's reads: the window, the archive, one message, session summaries, the pin log, pinned
 * messages and the edit log. Each runs as one statement or in one read transaction, so it sees a
 * committed state; a failure — of SQLite or of decoding a stored row — becomes a typed error.
 */
import { toReadError } from '../db/sqlite-errors.js'
import { formatNamed, type BodyFormat } from '../formats/index.js'
import type { StoredMessageData } from '../messages/types.js'
import { alternateRefused, alternateRoles } from '../window/alternate-roles.js'
import {
  checkHistoryOptions,
  checkMessageRef,
  checkPinnedMessagesOptions,
  checkSessionId,
  checkWindowReadOptions,
  type MessageRef,
} from './check-args.js'
import { parseBody, toEntry, toMessageEdit, toPinEvent, toPinnedMessage, toWindowEntry } from './entries.js'
import type { Ledger } from './ledger.js'
import { findMessage } from './lookup.js'
import { toSessionSummary } from './session-summary.js'
import type {
  LedgerEntry,
  MessageEdit,
  PinEvent,
  PinnedMessage,
  SessionSummary,
  WindowEntry,
} from './store-types.js'

/**
 * The messages the model should see, in order; see `ContextStore.window`.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param options - the window read options (unchecked: checked here)
 * @returns the window (empty for an unknown session)
 */
export function readWindow(ledger: Ledger, sessionId: string, options: unknown): StoredMessageData[] {
  const alternate = checkWindowReadOptions(options)
  ledger.ensureOpen()
  checkSessionId(sessionId)
  const entries = windowRows(ledger, sessionId, (format) => {
    if (alternate && format.name !== 'strands') throw alternateRefused(sessionId, format.name)
  })
  const out = entries.map((e) => e.message)
  return alternate ? alternateRoles(out) : out
}

/**
 * The window with each row's seq and pin; see `ContextStore.windowEntries`.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @returns the window's rows in order (empty for an unknown session)
 */
export function readWindowEntries(ledger: Ledger, sessionId: string): WindowEntry[] {
  ledger.ensureOpen()
  checkSessionId(sessionId)
  return windowRows(ledger, sessionId)
}

/**
 * The window's rows, shown in the session's format: one statement, so no read transaction; the session
 * lookup and the decoding are mapped to typed errors here.
 */
function windowRows(ledger: Ledger, sessionId: string, check?: (format: BodyFormat) => void): WindowEntry[] {
  const st = ledger.st
  try {
    let pk = ledger.keys.pk(sessionId)
    if (pk === undefined) return []
    let rows = st.window.all({ s: pk })
    if (rows.length === 0) {
      // The cached key may name a session another connection deleted (and perhaps created again).
      const fresh = ledger.keys.recheck(sessionId, pk)
      if (fresh === undefined) return []
      pk = fresh
      rows = st.window.all({ s: pk })
    }
    // The format of the session those rows are of, not one cached for an earlier session of this id.
    const format = formatNamed(ledger.keys.formatOf(sessionId, pk))
    check?.(format)
    return rows.map((row) => toWindowEntry(format, row.seq, parseBody(row.body), row.pinned === 1))
  } catch (error) {
    throw toReadError(error, `read the window of session "${sessionId}"`, sessionId)
  }
}

/**
 * The archive in seq order; see `ContextStore.history`.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param options - `fromSeq` and `limit` (unchecked: checked here)
 * @returns entries, oldest first
 */
export function readHistory(ledger: Ledger, sessionId: string, options: unknown): LedgerEntry[] {
  ledger.ensureOpen()
  checkSessionId(sessionId)
  const { fromSeq, limit } = checkHistoryOptions(options)
  return ledger.read(
    () => {
      const session = ledger.keys.sessionRow(sessionId)
      if (session === undefined) return []
      return ledger.st.history.all(session.pk, fromSeq, limit).map((r) => toEntry(session, r))
    },
    `read the history of session "${sessionId}"`,
    sessionId,
  )
}

/**
 * One archived message; see `ContextStore.message`.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param ref - which message
 * @returns its entry
 */
export function readMessage(ledger: Ledger, sessionId: string, ref: MessageRef): LedgerEntry {
  ledger.ensureOpen()
  checkSessionId(sessionId)
  checkMessageRef(ref)
  return ledger.read(
    () => {
      const { session, row } = findMessage(ledger, sessionId, ref)
      return toEntry(session, row)
    },
    `read a message of session "${sessionId}"`,
    sessionId,
  )
}

/**
 * Every session's summary, ordered by id.
 *
 * @param ledger - the open ledger
 * @returns the summaries
 */
export function readSessions(ledger: Ledger): SessionSummary[] {
  ledger.ensureOpen()
  const st = ledger.st
  return ledger.read(() => {
    const rows = st.allSessions.all()
    const ids = new Map(rows.map((r) => [r.pk, r.id]))
    return rows.map((s) => toSessionSummary(st, s, s.parent === null ? null : (ids.get(s.parent) ?? null)))
  }, 'list the sessions')
}

/**
 * One session's summary.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @returns its summary, or undefined when it does not exist
 */
export function readSession(ledger: Ledger, sessionId: string): SessionSummary | undefined {
  ledger.ensureOpen()
  checkSessionId(sessionId)
  return ledger.read(
    () => {
      const row = ledger.keys.sessionRow(sessionId)
      if (row === undefined) return undefined
      const parent = row.parent === null ? undefined : ledger.st.sessionByPk.get(row.parent)
      return toSessionSummary(ledger.st, row, parent?.id ?? null)
    },
    `read session "${sessionId}"`,
    sessionId,
  )
}

/**
 * Pinned messages with who pinned them, when and why; see `ContextStore.pinnedMessages`.
 *
 * @param ledger - the open ledger
 * @param options - `sessionId` (unchecked: checked here)
 * @returns pinned messages ordered by session and seq
 */
export function readPinnedMessages(ledger: Ledger, options: unknown): PinnedMessage[] {
  ledger.ensureOpen()
  const { sessionId, filters } = checkPinnedMessagesOptions(options)
  return ledger.read(
    () => {
      if (filters !== undefined) {
        const session = sessionId === undefined ? null : (ledger.keys.sessionRow(sessionId)?.pk ?? -1)
        return ledger.st.pinnedFiltered
          .all({ session, ...filters })
          .map((r) => toPinnedMessage(r, formatNamed(r.format)))
      }
      if (sessionId === undefined)
        return ledger.st.allPinnedMessages.all().map((r) => toPinnedMessage(r, formatNamed(r.format)))
      const pk = ledger.keys.sessionRow(sessionId)?.pk
      return pk === undefined
        ? []
        : ledger.st.pinnedMessages.all(pk).map((r) => toPinnedMessage(r, formatNamed(r.format)))
    },
    'read the pinned messages',
    sessionId,
  )
}

/**
 * A session's pin log, oldest first.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @returns every pin and unpin
 */
export function readPinEvents(ledger: Ledger, sessionId: string): PinEvent[] {
  ledger.ensureOpen()
  checkSessionId(sessionId)
  return ledger.read(
    () => {
      const pk = ledger.keys.sessionRow(sessionId)?.pk
      return pk === undefined ? [] : ledger.st.pinEvents.all(pk).map(toPinEvent)
    },
    `read the pin log of session "${sessionId}"`,
    sessionId,
  )
}

/**
 * A session's edit log, oldest first.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @returns the edits (empty for an unknown session)
 */
export function readEdits(ledger: Ledger, sessionId: string): MessageEdit[] {
  ledger.ensureOpen()
  checkSessionId(sessionId)
  return ledger.read(() => {
    // sessionRow(), not the cached key alone: another connection may have deleted and recreated it.
    const pk = ledger.keys.sessionRow(sessionId)?.pk
    return pk === undefined ? [] : ledger.st.edits.all(pk).map((r) => toMessageEdit(sessionId, r))
  })
}
