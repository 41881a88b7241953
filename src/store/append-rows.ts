/**
 * Writing a prepared batch's rows, inside the append's transaction: the message rows with the flags the
 * window rules read (trim points, tool-pair starts), the tool-call links, the pin log entries of messages
 * that arrived pinned, and — where a message leaves tool calls of the previous one unanswered — a repair
 * row of error results first (see interrupted-tool-results.ts). A result whose call no longer waits is
 * archived as sent and shown as text (late-tool-results.ts); a message sent again under a trackingId the
 * session already holds becomes a new occurrence recording which message it repeats.
 */
import { mintTrackingId } from '../messages/tracking-id.js'
import { ContextLedgerError } from '../errors.js'
import type { MessageRow, SessionForAppendRow } from '../db/statements.js'
import { storedFormatName, type BodyFormat } from '../formats/index.js'
import type { LateToolResult } from '../formats/types.js'
import { isToolPairStart, isTrimPoint, type MessageClass } from '../messages/classify.js'
import type { StoredMessageData } from '../messages/types.js'
import { parseBody, toEntry } from './entries.js'
import { interruptedToolResults } from './interrupted-tool-results.js'
import type { Ledger } from './ledger.js'
import { withUid, type PreparedMessage } from './prepare-message.js'
import { NOT_RETRIED, retriedPrefix } from './retry.js'
import type { LedgerEntry } from './store-types.js'

/**
 * Writes a batch's rows (creating the session when `known` is undefined).
 *
 * @param ledger - the open ledger (inside the write transaction)
 * @param sessionId - the session
 * @param prepared - the batch, validated
 * @param known - the session's row read in this transaction, or undefined for a new session
 * @param batch - whether the caller passed an array (error paths then name the index)
 * @param format - the batch's message format (the session's, or the new session's)
 * @returns one entry per message of the batch, in order
 * @throws ContextLedgerError `INVALID_MESSAGE` for a result of a call never made or a second open call
 *   with the same id, `DUPLICATE_MESSAGE` for another message under the newest message's trackingId
 */
export function appendRows(
  ledger: Ledger,
  sessionId: string,
  prepared: readonly PreparedMessage[],
  known: SessionForAppendRow | undefined,
  batch: boolean,
  format: BodyFormat,
): LedgerEntry[] {
  const st = ledger.st
  const session = known ?? createSession(ledger, sessionId, format)
  const pk = session.pk
  const now = Date.now()
  let n = session.message_count
  let total = session.total_tokens
  // The previous message: its class (for the flags the next message settles) and the flags it was written
  // with.
  let prev: { seq: number; cls: MessageClass; trim: boolean; pair: boolean; blocked: boolean } | undefined
  if (known !== undefined && known.last_role !== null) {
    prev = {
      seq: n - 1,
      // Only the role and whether tool blocks are present matter for the flags the next message sets.
      cls: {
        role: known.last_role,
        toolUseIds: known.last_has_tool_use ? ['?'] : [],
        toolResultIds: known.last_has_tool_result ? ['?'] : [],
        plainUser: known.last_plain_user === 1,
      },
      trim: known.last_trim_point === 1,
      pair: known.last_pair_start === 1,
      // Settled below, from the calls waiting now, for a format whose calls each stand alone.
      blocked: false,
    }
  }
  // A format whose step comes as several messages, each making its own calls (an Agents item, a Claude
  // transcript entry).
  const split = format.splitSteps === true
  // A format whose framework answers interrupted calls itself: no repair row, calls left open stay open.
  const repairs = format.repairs !== false
  // The calls waiting for their results before the next message, read from the session once (only when its
  // newest message may have left some: it makes or answers calls, or is a non-prompt user-side message —
  // or, in a format whose model-side items each carry open calls on (an Agents reasoning item or message
  // after a call), any model-side message; in a format without repairs, any message) and kept up to date
  // through the batch.
  let waiting: { id: string; name: string }[] | undefined =
    known === undefined ||
    !(
      !repairs ||
      known.last_has_tool_use === 1 ||
      known.last_has_tool_result === 1 ||
      (known.last_role === 'user' && known.last_plain_user !== 1) ||
      (split && known.last_role === 'assistant')
    )
      ? []
      : undefined
  const waitingNow = (): { id: string; name: string }[] =>
    (waiting ??= st.openCalls.all(pk).map((c) => ({ id: c.tool_use_id, name: c.name })))
  // In a format whose items each make one call (an Agents function_call), the newest row, when it makes a
  // call, made the newest waiting one; any other waiting call was open before it.
  if (split && prev !== undefined && prev.cls.toolUseIds.length > 0) {
    const open = waitingNow()
    const own = open.at(-1)
    prev = {
      ...prev,
      cls: { ...prev.cls, toolUseIds: own === undefined ? [] : [own.id] },
      blocked: open.length > 1,
    }
  }
  /**
   * Whether `current` starts a tool pair a window may open at. In a format whose items each make one call,
   * only when the next item answers it and no other call waits before it (parallel calls, or another
   * writer's round while a call waits for approval, would otherwise open a window between a call and its
   * result).
   */
  const pairAt = (current: MessageClass, next: MessageClass | undefined, blocked: boolean): boolean =>
    isToolPairStart(current, next) &&
    (!split || (!blocked && current.toolUseIds.every((id) => next?.toolResultIds.includes(id) === true)))
  // `next` is the message expected to follow (the next one of the batch): flags that depend on it are
  // written with the row, and corrected below in the rare case something else followed.
  const insert = (
    m: PreparedMessage,
    next: MessageClass | undefined,
    index: number,
    repeatOf: number | null,
    blocked = false,
  ): { seq: number; shown: StoredMessageData | undefined } => {
    const seq = n
    // Every result answers a call. A call the session never made is refused (stored late in a format
    // that says so: a transcript mirror); one that is no longer waiting (a repair row or an earlier
    // result answered it) makes this a late result: archived as sent, shown in the window as text (see
    // late-tool-results.ts).
    const late: LateToolResult[] = []
    for (const r of m.toolResults) {
      if (st.answerToolCall.run(seq, r.status, pk, r.id).changes > 0) continue
      const name = st.madeCall.get(pk, r.id)
      if (name === undefined && format.unknownResults === 'late') late.push({ id: r.id, name: '' })
      else if (name === undefined) {
        const path = `${batch ? `[${index}].` : ''}${r.path}`
        throw new ContextLedgerError(
          'INVALID_MESSAGE',
          `Invalid message at ${path}: session "${sessionId}" never made a tool call "${r.id}"`,
          { path, sessionId },
        )
      } else late.push({ id: r.id, name })
    }
    // From the validated body: the caller's token counter has seen `m.message` since.
    const shown = late.length > 0 ? format.lateForm(parseBody(m.body), late) : undefined
    // Classified as archived: a late result never opens a window (it is no one's prompt), so the newest
    // turn keeps its real prompt; its text form follows the message before it like any result would.
    const c = m.cls
    total += m.tokens
    const trim = isTrimPoint(c, next)
    const pair = pairAt(c, next, blocked)
    ledger.search.messageAppended(m.body.length)
    st.insertMessage.run(
      pk,
      seq,
      m.uid,
      c.role,
      m.body,
      m.tokens,
      total,
      m.pinned ? 1 : 0,
      c.plainUser ? 1 : 0,
      trim ? 1 : 0,
      pair ? 1 : 0,
      c.toolUseIds.length > 0 ? 1 : 0,
      c.toolResultIds.length > 0 ? 1 : 0,
      now,
      shown === undefined ? null : JSON.stringify(shown),
      shown === undefined ? null : format.estimateTokens(shown),
      repeatOf,
      late.length > 0 ? 1 : 0,
      m.text,
    )
    if (prev !== undefined) {
      const prevTrim = isTrimPoint(prev.cls, c)
      const prevPair = pairAt(prev.cls, c, prev.blocked)
      if (prevTrim !== prev.trim || prevPair !== prev.pair)
        st.setCutFlags.run(prevTrim ? 1 : 0, prevPair ? 1 : 0, pk, prev.seq)
    }
    for (const u of m.toolUses) {
      if (format.callIdsOnce && st.madeCall.get(pk, u.id) !== undefined) {
        const path = `${batch ? `[${index}].` : ''}${u.path}`
        throw new ContextLedgerError(
          'INVALID_MESSAGE',
          `Invalid message at ${path}: session "${sessionId}" already made a call "${u.id}"; a call id names one call, so a new call needs a new id`,
          { path, sessionId },
        )
      }
      if (st.openCallById.get(pk, u.id) !== undefined) {
        const path = `${batch ? `[${index}].` : ''}${u.path}`
        throw new ContextLedgerError(
          'INVALID_MESSAGE',
          `Invalid message at ${path}: a call with this toolUseId is still waiting for its result in session "${sessionId}"; every open call needs its own id`,
          { path, sessionId },
        )
      }
      st.insertToolCall.run(pk, u.id, u.name, seq)
    }
    if (m.pinned) st.insertPinEvent.run(pk, seq, 'pin', 'append', 'metadata.custom.pinned', now)
    prev = { seq, cls: c, trim, pair, blocked }
    n++
    return { seq, shown }
  }
  const entries: LedgerEntry[] = []
  const entryOf = (
    m: PreparedMessage,
    at: { seq: number; shown: StoredMessageData | undefined },
    repeatOf: number | null,
  ): LedgerEntry => ({
    sessionId,
    seq: at.seq,
    trackingId: m.uid,
    message: m.message,
    tokens: m.tokens,
    pinned: m.pinned,
    inWindow: true,
    createdAt: new Date(now),
    windowMessage: at.shown,
    repeatOf: repeatOf ?? undefined,
    late: at.shown !== undefined,
  })
  // A retry starts with a message the session holds; the common case (a new message) costs no more than
  // the trackingId lookup every caller-named message gets anyway.
  const byUid = (m: PreparedMessage): MessageRow | undefined =>
    m.minted ? undefined : st.messageByUid.get(pk, m.uid)
  const first = prepared[0]
  const firstRow = known === undefined || first === undefined ? undefined : byUid(first)
  const retried = firstRow === undefined ? NOT_RETRIED : retriedPrefix(st, pk, prepared, format)
  for (let i = 0; i < prepared.length; i++) {
    let m = prepared[i]
    if (m === undefined) break
    const retry = retried.entries[i]
    if (retry !== undefined) {
      entries.push(toEntry({ ...session, message_count: n }, retry))
      continue
    }
    let repeatOf: number | null = null
    const existing = i === 0 && known !== undefined ? firstRow : byUid(m)
    if (existing !== undefined && format.uniqueIds) {
      // An id that names one message for good (a UIMessage's): the same message again writes nothing,
      // other content under it is refused.
      if (format.contentKey(parseBody(existing.body)) === format.contentKey(m.message)) {
        entries.push(toEntry({ ...session, message_count: n }, existing))
        continue
      }
      const path = `${batch ? `[${i}].` : ''}${format.idPath ?? 'id'}`
      throw new ContextLedgerError(
        'DUPLICATE_MESSAGE',
        `Invalid message at ${path}: session "${sessionId}" already holds another message with id ${JSON.stringify(m.uid)} (seq ${existing.seq}); a ${format.name} id names one message`,
        { sessionId, path },
      )
    }
    if (existing !== undefined) {
      // The first new message of the batch under the trackingId of the session's newest message, with
      // other content: not a retry, not a copy sent again — a conflicting message.
      if (i === retried.count && existing.seq === retried.newest)
        throw new ContextLedgerError(
          'DUPLICATE_MESSAGE',
          `Session "${sessionId}" already holds a different message with trackingId ${m.uid} as its newest message (seq ${existing.seq})`,
          { sessionId },
        )
      // A copy of an earlier message sent again: a new occurrence with a new trackingId, recording
      // which message it repeats.
      repeatOf = existing.repeat_of ?? existing.seq
      m = withUid(format, m, mintTrackingId())
    }
    let repair: LedgerEntry | undefined
    // Waiting calls that this message does not answer can never be answered in a valid conversation any
    // more: record error results for them first (see interrupted-tool-results.ts) — unless the message
    // carries part of their answers on (an AI SDK tool message: a step's results, approval responses),
    // which leaves them waiting for the next one.
    const answered = new Set(m.cls.toolResultIds)
    const missing = waitingNow().filter((c) => !answered.has(c.id))
    // Results that all answer calls no longer waiting (late ones, shown as text) carry nothing on.
    const carries =
      m.facts.defersCalls && (m.cls.toolResultIds.length === 0 || missing.length < waitingNow().length)
    // Without repairs (the framework answers its interrupted calls), what nobody answered stays open.
    const stays = carries || !repairs
    if (missing.length > 0 && !stays) {
      const row = interruptedToolResults(missing, ledger.limits, format)
      repair = entryOf(row, insert(row, m.cls, i, null), null)
    }
    // Calls still waiting before this message (none once a repair row answered them).
    const at = insert(m, prepared[i + 1]?.cls, i, repeatOf, stays && missing.length > 0)
    waiting = [...(stays ? missing : []), ...m.toolUses.map((u) => ({ id: u.id, name: u.name }))]
    const entry = entryOf(m, at, repeatOf)
    entries.push(repair === undefined ? entry : { ...entry, repair })
  }
  return entries
}

/** Creates the session row inside the caller's write transaction; the key is cached only once it commits. */
function createSession(ledger: Ledger, sessionId: string, format: BodyFormat): SessionForAppendRow {
  const now = Date.now()
  ledger.st.insertSession.run(sessionId, now, now, null, storedFormatName(format.name))
  const row = ledger.st.sessionById.get(sessionId)
  if (row === undefined) throw new Error(`session "${sessionId}" not found right after its insert`)
  return row
}
