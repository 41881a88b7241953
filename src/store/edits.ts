/**
 * Changing what is stored for a message, never its place in the session: a window replacement (the
 * archive keeps the original), an edit (the same, logged in the edit log), and the replacement of the
 * archived original itself (a redaction or a prune, also logged). Each new form must keep the role, the
 * trackingId and the tool ids of the original, so tool pairs and identity survive.
 */
import { ContextLedgerError } from '../errors.js'
import type { MessageRow, SessionRow, Statements } from '../db/statements.js'
import { formatNamed, storedText, type BodyFormat } from '../formats/index.js'
import { REDACTED_TEXT } from '../messages/redact.js'
import type { TokenCounter } from '../messages/tokens.js'
import type { StoredMessageData } from '../messages/types.js'
import {
  checkAttribution,
  checkMessageRef,
  checkRedactOptions,
  checkSessionId,
  checkTokenCounter,
  type MessageRef,
} from './check-args.js'
import { parseBody, toEntry } from './entries.js'
import type { Ledger } from './ledger.js'
import { findMessage } from './lookup.js'
import { STALE_FORMAT, formatChanged, prepareIn, withSessionFormat } from './format-retry.js'
import { prepareMessage, withUid } from './prepare-message.js'
import type { LedgerEntry, RedactResult } from './store-types.js'

/**
 * Shows `message` in the window for one message (`null`: its original); see `ContextStore.setWindowContent`.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param ref - which message
 * @param message - the replacement, or null
 * @param tokenCounter - counts the replacement's tokens, before the write lock is taken
 */
export function setWindowContent(
  ledger: Ledger,
  sessionId: string,
  ref: MessageRef,
  message: unknown,
  tokenCounter: TokenCounter,
): void {
  ledger.ensureWritable()
  checkSessionId(sessionId)
  checkMessageRef(ref)
  checkTokenCounter(tokenCounter)
  withSessionFormat(ledger, sessionId, (seen) => {
    const format = formatNamed(seen)
    const replacement =
      message === null
        ? null
        : prepareIn(ledger, sessionId, seen, () =>
            prepareMessage(message, -1, tokenCounter, ledger.limits, 'caller', format),
          )
    if (replacement === STALE_FORMAT) return STALE_FORMAT
    return ledger.write(sessionId, () => {
      const { session, row } = findMessage(ledger, sessionId, ref)
      if (formatChanged(format, session)) return STALE_FORMAT
      if (replacement !== null) refuseErased(sessionId, row, format)
      const archived = parseBody(row.body)
      const next = replacement === null ? archived : windowFormOf(format, archived, replacement.message)
      // A message holding late results may also be given in its window form, those results already as
      // text (overflow recovery truncates that text).
      if (replacement !== null)
        checkSameShape(
          format,
          sessionId,
          row,
          next,
          'A window replacement',
          lateIds(ledger.st, session.pk, row, format),
        )
      showInWindow(ledger.st, session, row, next, replacement?.tokens, format)
      ledger.st.sessionTouch.run(Date.now(), session.pk)
      return undefined
    })
  })
}

/**
 * The window form a caller's replacement gives a row. A window form only rewrites blocks: a Strands message
 * keeps its archived body's metadata, the notes only the library writes included (a repair row's, which
 * preparing the replacement as a caller's message stripped) — `check` holds a window form to exactly its
 * body's metadata.
 *
 * @param format - the session's format
 * @param archived - the row's archived body
 * @param replacement - the caller's replacement, prepared
 * @returns the window form to write
 */
function windowFormOf(
  format: BodyFormat,
  archived: StoredMessageData,
  replacement: StoredMessageData,
): StoredMessageData {
  if (format.name !== 'strands') return replacement
  const { metadata: _dropped, ...blocks } = replacement
  return archived.metadata === undefined ? blocks : { ...blocks, metadata: archived.metadata }
}

/**
 * Refuses to give a message retention erased a window form of other text: retention skips what it
 * pruned, so that text would never be erased (`check` reports such a row). Its marker is the library's
 * own: a caller's is stripped on the way in.
 *
 * @param sessionId - the session, for the error
 * @param row - the message's row
 * @throws ContextLedgerError `INVALID_OPTIONS` with path `ref`
 */
function refuseErased(sessionId: string, row: MessageRow, format: BodyFormat): void {
  if (format.notesOf(parseBody(row.body))?.pruned !== true) return
  throw new ContextLedgerError(
    'INVALID_OPTIONS',
    `Invalid option ref: seq ${row.seq} was erased by retention (prune); what the window shows of it cannot be set or edited`,
    { path: 'ref', sessionId },
  )
}

/**
 * Edits a message as the model sees it, logged; see `ContextStore.editMessage`.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param ref - which message
 * @param message - the new form (its trackingId may be omitted)
 * @param attribution - who edits and why (unchecked: checked here)
 * @param tokenCounter - counts the edit's tokens
 * @returns the message's entry after the edit
 */
export function editMessage(
  ledger: Ledger,
  sessionId: string,
  ref: MessageRef,
  message: unknown,
  attribution: unknown,
  tokenCounter: TokenCounter,
): LedgerEntry {
  ledger.ensureWritable()
  checkSessionId(sessionId)
  checkMessageRef(ref)
  const by = checkAttribution(attribution)
  checkTokenCounter(tokenCounter)
  return withSessionFormat(ledger, sessionId, (seen) => {
    const format = formatNamed(seen)
    const prepared = prepareIn(ledger, sessionId, seen, () =>
      prepareMessage(message, -1, tokenCounter, ledger.limits, 'caller', format),
    )
    if (prepared === STALE_FORMAT) return STALE_FORMAT
    const st = ledger.st
    return ledger.write(sessionId, () => {
      const { session, row } = findMessage(ledger, sessionId, ref)
      if (formatChanged(format, session)) return STALE_FORMAT
      refuseErased(sessionId, row, format)
      // An edit without a trackingId is an edit of the message `ref` names.
      const edit = prepared.minted ? withUid(format, prepared, row.uid) : prepared
      checkSameShape(format, sessionId, row, edit.message, 'An edit')
      const shown = windowBodyFor(st, session.pk, row, edit.message, format)
      if (row.window_body === shown) return toEntry(session, row)
      const now = Date.now()
      writeWindowBody(st, session, row, shown, edit.tokens, format)
      st.insertEdit.run(session.pk, row.seq, 'edit', by.actor ?? 'user', by.reason ?? null, now, edit.body)
      st.sessionTouch.run(now, session.pk)
      return toEntry(session, st.messageBySeq.get(session.pk, row.seq) ?? row)
    })
  })
}

/**
 * Erases a message (and every occurrence of it sent again) from the archive; see
 * `ContextStore.redactMessage`.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param ref - which message
 * @param options - who redacts, why, and an optional replacement (unchecked: checked here)
 * @returns the message's entry after the redaction, and whether the original is gone from the files
 */
export function redactMessage(
  ledger: Ledger,
  sessionId: string,
  ref: MessageRef,
  options: unknown,
): RedactResult {
  ledger.ensureWritable()
  checkSessionId(sessionId)
  checkMessageRef(ref)
  const { replacement, ...attribution } = checkRedactOptions(options)
  const by = checkAttribution(attribution)
  return withSessionFormat(ledger, sessionId, (seen) => {
    const format = formatNamed(seen)
    const given =
      replacement === undefined
        ? undefined
        : prepareIn(ledger, sessionId, seen, () =>
            prepareMessage(replacement, -1, () => 0, ledger.limits, 'caller', format),
          )
    if (given === STALE_FORMAT) return STALE_FORMAT
    const st = ledger.st
    const entry = ledger.write(sessionId, () => {
      const { session, row } = findMessage(ledger, sessionId, ref)
      if (formatChanged(format, session)) return STALE_FORMAT
      const root = row.repeat_of ?? row.seq
      const now = Date.now()
      for (const seq of [root, ...st.repeatsOf.all(session.pk, root)]) {
        const target = seq === row.seq ? row : st.messageBySeq.get(session.pk, seq)
        if (target === undefined) continue
        const next =
          given === undefined
            ? format.redact(parseBody(target.body), REDACTED_TEXT)
            : withUid(format, given, target.uid).message
        checkSameShape(format, sessionId, target, next, 'A redaction')
        replaceArchived(ledger, session, target, next, format, {
          actor: by.actor ?? 'user',
          reason: by.reason ?? null,
          at: now,
        })
      }
      st.sessionTouch.run(now, session.pk)
      return toEntry(session, st.messageBySeq.get(session.pk, row.seq) ?? row)
    })
    if (entry === STALE_FORMAT) return STALE_FORMAT
    ledger.erasurePending = true
    return { ...entry, erased: ledger.completeErasure() }
  })
}

/**
 * Replaces what the archive holds for `row` by `next` (a redaction or a pruning): the body, the window
 * form derived from it, the copies earlier edits kept, and one `redact` row in the edit log.
 *
 * @param ledger - the open ledger (inside the write transaction)
 * @param session - the session's row
 * @param row - the message's row
 * @param next - what the archive keeps instead
 * @param format - the session's message format
 * @param by - who, why and when, for the edit log
 */
export function replaceArchived(
  ledger: Ledger,
  session: SessionRow,
  row: MessageRow,
  next: StoredMessageData,
  format: BodyFormat,
  by: { actor: string; reason: string | null; at: number },
): void {
  const st = ledger.st
  const body = JSON.stringify(next)
  const text = storedText(format, next)
  // The index entry goes with the old text and comes back with the new (see search-index.ts).
  ledger.search.replaceBody(session.pk, row.seq, () => st.setBody.run(body, text, session.pk, row.seq))
  // A late result's window form quotes the result: it is rebuilt from the new body.
  showInWindow(st, session, { ...row, body }, next, undefined, format)
  st.eraseEditBodies.run(session.pk, row.seq)
  st.insertEdit.run(session.pk, row.seq, 'redact', by.actor, by.reason, by.at, null)
}

/** Shows `message` in the window for `row` (its archived form when they are equal); see writeWindowBody. */
function showInWindow(
  st: Statements,
  session: SessionRow,
  row: MessageRow,
  message: StoredMessageData,
  tokens: number | undefined,
  format: BodyFormat,
): void {
  writeWindowBody(st, session, row, windowBodyFor(st, session.pk, row, message, format), tokens, format)
}

/**
 * Writes the window form `body` of `row` (null: the archived form) with its tokens (`tokens`, or the
 * built-in estimate for a late result's text form), keeping the session's kept-token total in step.
 */
function writeWindowBody(
  st: Statements,
  session: SessionRow,
  row: MessageRow,
  body: string | null,
  tokens: number | undefined,
  format: BodyFormat,
): void {
  const windowTokens =
    body === null
      ? null
      : row.late === 1 || tokens === undefined
        ? format.estimateTokens(parseBody(body))
        : tokens
  st.setWindowBody.run(body, windowTokens, session.pk, row.seq)
  const delta = (windowTokens ?? row.tokens) - (row.window_tokens ?? row.tokens)
  if (delta !== 0 && row.kept === 1 && row.seq < session.boundary) st.setKeptTokens.run(delta, session.pk)
}

/**
 * What the window shows for `row` when its content becomes `message`: in a row holding late tool
 * results, each result no call links to this row stays a text block (see late-tool-results.ts); null
 * when that is `message` as archived.
 */
function windowBodyFor(
  st: Statements,
  pk: number,
  row: MessageRow,
  message: StoredMessageData,
  format: BodyFormat,
): string | null {
  let shown = message
  if (row.late === 1) {
    const linked = new Set(st.idsAnsweredBy.all(pk, row.seq))
    const late = format
      .facts(message)
      .toolResults.filter((r) => !linked.has(r.id))
      .map((r) => ({ id: r.id, name: st.madeCall.get(pk, r.id) ?? '' }))
    shown = format.lateForm(message, late)
  }
  const body = JSON.stringify(shown)
  return body === row.body ? null : body
}

/** The ids of the toolResults in `row` that no call links to it: its late results (none unless late). */
function lateIds(st: Statements, pk: number, row: MessageRow, format: BodyFormat): Set<string> {
  if (row.late !== 1) return new Set()
  const linked = new Set(st.idsAnsweredBy.all(pk, row.seq))
  return new Set(
    format
      .facts(parseBody(row.body))
      .toolResults.map((r) => r.id)
      .filter((id) => !linked.has(id)),
  )
}

/**
 * Refuses a new form that would change what ties the message to the session: role, id, tool ids. With
 * `asText` (the ids of late results), a form showing all of those results as text is accepted too.
 */
function checkSameShape(
  format: BodyFormat,
  sessionId: string,
  row: MessageRow,
  next: StoredMessageData,
  what: string,
  asText: ReadonlySet<string> = new Set(),
): void {
  const ids = (m: StoredMessageData, without: ReadonlySet<string>): string => {
    const f = format.facts(m)
    const results = f.toolResults.map((r) => r.id).filter((id) => !without.has(id))
    return JSON.stringify([f.speaker, format.idOf(m) ?? row.uid, f.toolUses.map((u) => u.id), results])
  }
  const original = parseBody(row.body)
  const none = new Set<string>()
  const shape = ids(next, none)
  if (ids(original, none) !== shape && (asText.size === 0 || ids(original, asText) !== shape))
    throw new ContextLedgerError(
      'INVALID_MESSAGE',
      `${what} of seq ${row.seq} must keep the role, trackingId and tool ids of the original`,
      { sessionId, path: '(message)' },
    )
}
