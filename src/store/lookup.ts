/**
 * Finding a message from a {@link MessageRef}: by seq, by trackingId, or by its position in the current
 * window (kept rows first, then the tail after the boundary).
 */
import { ContextLedgerError } from '../errors.js'
import type {
  KeptTotalsRow,
  MessageRow,
  SessionForAppendRow,
  SessionRow,
  Statements,
} from '../db/statements.js'
import type { MessageRef } from './check-args.js'
import type { Ledger } from './ledger.js'

/**
 * The session and the row of the message `ref` names.
 *
 * @param ledger - the open ledger (inside a transaction)
 * @param sessionId - the session
 * @param ref - a checked reference
 * @returns the session's row and the message's
 * @throws ContextLedgerError `MESSAGE_NOT_FOUND` when either is missing
 */
export function findMessage(
  ledger: Ledger,
  sessionId: string,
  ref: MessageRef,
): { session: SessionForAppendRow; row: MessageRow } {
  const session = ledger.keys.sessionRow(sessionId)
  const seq = session === undefined ? undefined : resolveSeq(ledger.st, session, ref)
  const row =
    session === undefined || seq === undefined ? undefined : ledger.st.messageBySeq.get(session.pk, seq)
  if (session === undefined || row === undefined)
    throw new ContextLedgerError(
      'MESSAGE_NOT_FOUND',
      `No message ${JSON.stringify(ref)} in session "${sessionId}"`,
      {
        sessionId,
      },
    )
  return { session, row }
}

function resolveSeq(st: Statements, session: SessionRow, ref: MessageRef): number | undefined {
  if ('seq' in ref) return Number.isSafeInteger(ref.seq) && ref.seq >= 0 ? ref.seq : undefined
  if ('trackingId' in ref) return st.messageByUid.get(session.pk, ref.trackingId)?.seq
  const i = ref.windowIndex
  if (!Number.isSafeInteger(i) || i < 0) return undefined
  const keptCount = keptTotals(st, session).count
  if (i < keptCount) return st.keptAt.get(session.pk, i)
  // The summary the window shows sits between the kept rows and the tail: it is no message of the archive.
  const summary = session.summary === null ? 0 : 1
  if (i < keptCount + summary) return undefined
  const seq = session.boundary + i - keptCount - summary
  return seq < session.message_count ? seq : undefined
}

/**
 * The kept rows' count and window tokens: the session's totals, counted for a session from before them.
 *
 * @param st - the connection's statements
 * @param session - the session's row
 * @returns the count and tokens
 */
export function keptTotals(st: Pick<Statements, 'keptTotals'>, session: SessionRow): KeptTotalsRow {
  if (session.kept_count !== null && session.kept_tokens !== null)
    return { count: session.kept_count, tokens: session.kept_tokens }
  return st.keptTotals.get(session.pk) ?? { count: 0, tokens: 0 }
}
