/**
 * Appending messages to a session: validation and token counting before the write lock
 * (`prepare-message.ts`), the rows written in one transaction (`append-rows.ts`), and the start of a
 * window that is empty or holds only kept rows kept valid for a provider.
 */
import { appendFormat, checkAppendCount, checkAppendOptions, formatMismatch } from './append-format.js'
import { protectedToRestore } from '../window/plan-cut.js'
import { applyKeptChanges, PINS_ONLY } from './apply-window.js'
import { recordEvictions, tailRuns } from './eviction-log.js'
import { appendRows } from './append-rows.js'
import { STALE_FORMAT, formatChanged, prepareIn, sameFormat, withSessionFormat } from './format-retry.js'
import { checkSessionId } from './check-args.js'
import type { Ledger } from './ledger.js'
import { prepareMessage, type PreparedMessage } from './prepare-message.js'
import { refuseUnshowablePins } from './showable-pins.js'
import { SqlLedgerView } from './sql-ledger-view.js'
import { foldSessionMetadata, type SessionMetadataFold } from './session-metadata.js'
import type { SessionForAppendRow, SessionRow } from '../db/statements.js'
import type { BodyFormat } from '../formats/index.js'
import type { LedgerEntry } from './store-types.js'

/**
 * Appends messages to a session (created on first use), all or none; see `ContextStore.append`.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param messages - one message or several, oldest first
 * @param options - a token counter, or `{ tokenCounter?, format?, expectCount?, sessionMetadata? }`
 *   (unchecked: checked here)
 * @returns one entry per input message, in order
 */
export function append(
  ledger: Ledger,
  sessionId: string,
  messages: unknown,
  options?: unknown,
): LedgerEntry[] {
  ledger.ensureWritable()
  checkSessionId(sessionId)
  const { tokenCounter, format: named, expectCount, sessionMetadata } = checkAppendOptions(options)
  const inputs: unknown[] = Array.isArray(messages) ? messages : [messages]
  const batch = Array.isArray(messages)
  return withSessionFormat(ledger, sessionId, (seen) => {
    // The session's format as this connection last saw it; the write checks it against the row.
    const format = appendFormat(seen, sessionId, named)
    const read = (): PreparedMessage[] =>
      inputs.map((m, i) => prepareMessage(m, batch ? i : -1, tokenCounter, ledger.limits, 'caller', format))
    // Refused in a format the caller did not name: perhaps the cached one, no longer the session's.
    const prepared = named === undefined ? prepareIn(ledger, sessionId, seen, read) : read()
    if (prepared === STALE_FORMAT) return STALE_FORMAT
    if (prepared.length === 0) {
      // Nothing to write, but a count the session does not hold is still a conflict.
      if (expectCount !== undefined) checkAppendCount(sessionId, expectCount, countNow(ledger, sessionId))
      return []
    }
    const appended = ledger.write(sessionId, () => {
      const before = ledger.st.sessionById.get(sessionId)
      if (before !== undefined) ledger.keys.remember(sessionId, before.pk)
      // Another connection deleted the session (and perhaps created it again in another format) since
      // the format was read: messages whose format the caller left to the session are read again.
      if (named === undefined && !sameFormat(seen, before?.format)) return STALE_FORMAT
      // Compare-and-append: the count read here, under the write lock, is the one the rows follow.
      checkAppendCount(sessionId, expectCount, before?.message_count ?? 0)
      if (before !== undefined && formatChanged(format, before))
        throw formatMismatch(sessionId, before.format, format.name)
      const entries = writeBatch(ledger, sessionId, prepared, before, batch, format)
      if (sessionMetadata !== undefined) writeMetadata(ledger, sessionId, before, entries, sessionMetadata)
      return entries
    })
    if (ledger.erasurePending) ledger.completeErasure()
    return appended
  })
}

/** How many messages a session holds (0 when it does not exist), in a read transaction. */
function countNow(ledger: Ledger, sessionId: string): number {
  return ledger.read(
    () => ledger.keys.sessionRow(sessionId)?.message_count ?? 0,
    `read session "${sessionId}"`,
    sessionId,
  )
}

/** The append's metadata fold, inside its transaction after its rows (see `AppendOptions.sessionMetadata`). */
function writeMetadata(
  ledger: Ledger,
  sessionId: string,
  before: SessionForAppendRow | undefined,
  entries: readonly LedgerEntry[],
  fold: SessionMetadataFold,
): void {
  const input = {
    sessionId,
    stored: before?.metadata ?? null,
    countBefore: before?.message_count ?? 0,
    entries,
  }
  const text = foldSessionMetadata(input, fold, ledger.limits)
  if (text === undefined) return
  const pk = before?.pk ?? ledger.st.sessionById.get(sessionId)?.pk
  if (pk === undefined) throw new Error(`session "${sessionId}" not found after its append`)
  ledger.st.setSessionMetadata.run(text, pk)
}

/** The batch's rows, inside the append's transaction (see `append`). */
function writeBatch(
  ledger: Ledger,
  sessionId: string,
  prepared: readonly PreparedMessage[],
  before: SessionForAppendRow | undefined,
  batch: boolean,
  format: BodyFormat,
): LedgerEntry[] {
  const entries = appendRows(ledger, sessionId, prepared, before, batch, format)
  const session = (): SqlLedgerView =>
    new SqlLedgerView(ledger.st, ledger.st.sessionById.get(sessionId) as SessionRow)
  refuseUnshowablePins(
    session,
    prepared,
    entries.map((e) => e.seq),
    batch,
    sessionId,
  )
  // A new session, or one whose window's tail is empty after a cut: see skipInvalidStart.
  if (before === undefined || before.boundary === before.message_count) {
    const pk = before?.pk ?? ledger.st.sessionById.get(sessionId)?.pk
    if (pk === undefined) return entries
    const from = before?.boundary ?? 0
    const { boundary, restored } = skipInvalidStart(ledger, pk, from)
    if (boundary === from) return entries
    return entries.map((e) => (e.seq < boundary && !restored.has(e.seq) ? { ...e, inWindow: false } : e))
  }
  return entries
}

/** The last-N protected range of limits recorded as JSON (`sessions.limits`), 0 when unknown. */
export function recordedLast(json: string | null): number {
  if (json === null) return 0
  const last: unknown = (JSON.parse(json) as { last?: unknown }).last
  return typeof last === 'number' && Number.isSafeInteger(last) && last > 0 ? last : 0
}

/**
 * In a new session, or after a cut that left the window's tail empty, messages that cannot continue
 * the window go straight to the archive — the boundary moves past them — so the window stays valid for
 * a provider between appends: with nothing kept, anything but a user message without toolResult (an
 * assistant greeting, a reply or result whose question left); with kept messages, a tool result none of
 * whose calls is in the window. A pinned message skipped this way — or one in the last-N range the window
 * was last planned with — comes back at once (with its tool partners and a lead), as a pin would bring it
 * back.
 */
function skipInvalidStart(
  ledger: Ledger,
  pk: number,
  boundary: number,
): { boundary: number; restored: Set<number> } {
  const st = ledger.st
  const current = st.sessionByPk.get(pk)
  const count = current?.message_count ?? 0
  // Whether anything is kept is asked only when the first new message is not a user message without
  // toolResult, which continues any window (the common case: a new turn).
  let anyKept: boolean | undefined
  let start = boundary
  const skippedPins: number[] = []
  // The last-N range the window was last planned with: a message in it is protected like a pinned one.
  const last = recordedLast(current?.limits ?? null)
  for (; start < count; start++) {
    const f = st.flagsBySeq.get(pk, start)
    // A user message without toolResult opens a window, but one that neither prompts nor calls (an AI SDK
    // tool message of approval responses) belongs to the calls before it.
    if (
      f === undefined ||
      (f.role === 'user' && f.has_tool_result === 0 && (f.plain_user === 1 || f.has_tool_use === 1))
    )
      break
    // A summary the window shows opens it (a user message) just as a kept row would.
    anyKept ??= st.anyKept.get(pk) !== undefined || (current?.summary ?? null) !== null
    if (anyKept && f.has_tool_result === 0) break
    const inWindow = (u: number): boolean => u < boundary && st.flagsBySeq.get(pk, u)?.kept === 1
    if (anyKept && st.usesOfResult.all(pk, start).some(inWindow)) break
    if (f.pinned === 1 || start >= count - last) skippedPins.push(start)
  }
  const restored = new Set<number>()
  if (start === boundary) return { boundary, restored }
  const now = Date.now()
  st.sessionBoundary.run(start, now, pk)
  const session = skippedPins.length > 0 ? st.sessionByPk.get(pk) : undefined
  if (session !== undefined) {
    // The protected ranges are the manager's; the ones the window was last planned with stand in.
    const limits = { ...PINS_ONLY, first: session.kept_first ?? 0, last }
    const changes = protectedToRestore(new SqlLedgerView(st, session), limits, skippedPins)
    applyKeptChanges(st, session, changes, limits.first)
    for (const k of changes.keep) restored.add(k.seq)
  }
  recordEvictions(
    st,
    pk,
    { tail: tailRuns(boundary, start, restored), released: [] },
    'opening',
    'validity',
    now,
  )
  return { boundary: start, restored }
}
