/**
 * Summaries in the ledger: planning a fold (which oldest part of the window a new summary takes in, read
 * in one snapshot), writing it once the summarizer has answered (one short transaction that first checks
 * the window is still the one planned), regenerating the summary the window shows, dropping it again,
 * and reading them. The model call happens between the plan and the write, outside any transaction; the
 * orchestration is `src/summaries/summarize.ts`.
 *
 * A summary stands for the exact messages it folded (`seqs`, half-open ranges) and, through `replaces`,
 * for those of the summary it folded with them: a chain down to the raw messages, which never change.
 */
import { ContextLedgerError } from '../errors.js'
import type { Statements, SummaryRow } from '../db/statements.js'
import { formatNamed, type BodyFormat, type MessageFormatName } from '../formats/index.js'
import type { StoredMessageData } from '../messages/types.js'
import { planCut, type CutDecision, type FoldRequest, type NothingEvictedReason } from '../window/plan-cut.js'
import type { WindowLimits } from '../window/window-options.js'
import { applyKeptChanges, applyPlanned } from './apply-window.js'
import { checkSessionId, checkWindowLimits } from './check-args.js'
import { parseBody } from './entries.js'
import type { Ledger } from './ledger.js'
import { SqlLedgerView } from './sql-ledger-view.js'
import { endSummaryIn, inheritedSummary, reopenSummaryIn } from './branches/summary-ends.js'
import { recordEvictions, runsOf } from './eviction-log.js'
import { recordLimits } from './window-state.js'
import type { WindowResult } from './store-types.js'

/** Why a summary left the window. */
export type SummaryEndReason = 'replaced' | 'regenerated' | 'dropped' | 'evicted'

/** A summary of a session, with exactly what it stands for. */
export interface SummaryRecord {
  /** Its id, unique in the file. */
  readonly id: number
  /** Its session (the one asked about: for an inherited summary, the branch, not the ancestor). */
  readonly sessionId: string
  /**
   * Written by an ancestor of the session before it was forked and shown by its window then (a branch
   * shows it as the ancestor wrote it: docs/api.md, "Branches"); false for the session's own.
   */
  readonly inherited: boolean
  /** The trackingId of the summary message. */
  readonly trackingId: string
  /** Whether the window shows it now. */
  readonly current: boolean
  /** The summary message (role user, text), as the window shows it. */
  readonly message: StoredMessageData
  /** Its tokens, by the session's token counter: what the window counts for it. */
  readonly tokens: number
  /**
   * The messages it folded itself, as half-open seq ranges `[from, to)`, ascending. Those of the summary
   * it replaced (`replaces`) are that summary's: walk the chain for everything it stands for.
   */
  readonly seqs: readonly (readonly [number, number])[]
  /** How many messages `seqs` holds. */
  readonly messageCount: number
  /** The summary it folded in (the window showed it when this one was made). */
  readonly replaces: number | undefined
  /** The summary this one regenerated: the same messages, a new text. */
  readonly regenerates: number | undefined
  /** The session's boundary before it was made. */
  readonly fromBoundary: number
  /** The boundary after: the first seq of the tail that follows it in the window. */
  readonly toBoundary: number
  /** Who wrote it, when known (a model id). */
  readonly model: string | undefined
  /** SHA-256 (hex) of the system prompt and the request its summarizer was given. */
  readonly promptHash: string
  /** When it was written. */
  readonly createdAt: Date
  /** When it left the window. */
  readonly endedAt: Date | undefined
  /** Why it left the window. */
  readonly endReason: SummaryEndReason | undefined
}

/** A planned fold: what the summarizer is given, and what `writeFold` writes once it has answered. */
export interface FoldPlan {
  /** The session. */
  readonly sessionId: string
  /** The session row's key when planned: a session deleted and created again under the id is another. */
  readonly sessionPk: number
  /** The session's version when planned: any window or pin change since makes the plan stale. */
  readonly version: number
  /** The boundary when planned. */
  readonly boundary: number
  /** The summary the window showed when planned (folded into the new one), if any. */
  readonly previous: number | undefined
  /** The boundary after the fold. */
  readonly newBoundary: number
  /** The messages of the archive the fold takes out of the window, ascending. */
  readonly folded: readonly number[]
  /** What the summarizer summarizes, in window order: the folded messages as the window shows them, and the previous summary among them. */
  readonly input: readonly StoredMessageData[]
  /** The limits planned with. */
  readonly limits: WindowLimits
  /** The planner's decision, applied as it is. */
  readonly decision: CutDecision
  /** The session's message format: the summary is a message of it. */
  readonly format: MessageFormatName
}

/** The summary a summarizer made, ready to be written. */
export interface MadeSummary {
  /** The summary message (validated; role user; a message of the session's format). */
  readonly message: StoredMessageData
  /** Its id (a Strands summary's trackingId). */
  readonly uid: string
  /** Its searchable text, or null for a Strands summary (the view derives it from the body). */
  readonly text: string | null
  /** Its tokens. */
  readonly tokens: number
  /** Who wrote it, when known. */
  readonly model: string | undefined
  /** SHA-256 (hex) of the system prompt and the request. */
  readonly promptHash: string
}

/** A planned regeneration of the summary the window shows. */
export interface RegenerationPlan {
  /** The session. */
  readonly sessionId: string
  /** The session row's key when planned. */
  readonly sessionPk: number
  /** The session's version when planned. */
  readonly version: number
  /** The summary regenerated. */
  readonly summary: SummaryRecord
  /** What the summarizer summarizes: the archived messages (and, from `'previous'`, the summary before). */
  readonly input: readonly StoredMessageData[]
  /** The session's message format: the summary is a message of it. */
  readonly format: MessageFormatName
}

/**
 * Half-open ranges of an ascending list of seqs.
 *
 * @param seqs - ascending, unique
 * @returns `[from, to)` ranges, ascending
 */
export function toRanges(seqs: readonly number[]): [number, number][] {
  const out: [number, number][] = []
  for (const s of seqs) {
    const last = out.at(-1)
    if (last !== undefined && last[1] === s) last[1] = s + 1
    else out.push([s, s + 1])
  }
  return out
}

/** Half-open ranges sorted and merged where they overlap or touch. */
function mergeRanges(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const out: [number, number][] = []
  for (const [lo, hi] of [...ranges].sort((a, c) => a[0] - c[0])) {
    const last = out.at(-1)
    if (last !== undefined && lo <= last[1]) last[1] = Math.max(last[1], hi)
    else out.push([lo, hi])
  }
  return out
}

function parseRanges(json: string): [number, number][] {
  return JSON.parse(json) as [number, number][]
}

/**
 * A summary row as a record.
 *
 * @param sessionId - its session
 * @param row - the row
 * @param current - the id of the summary the window shows, or null
 * @param inherited - whether an ancestor of the session wrote it (docs/design.md, "Branches")
 * @returns the record
 */
export function toSummaryRecord(
  sessionId: string,
  row: SummaryRow,
  current: number | null,
  inherited = false,
): SummaryRecord {
  return {
    id: row.id,
    sessionId,
    inherited,
    trackingId: row.uid,
    current: row.id === current,
    message: parseBody(row.body),
    tokens: row.tokens,
    seqs: parseRanges(row.seqs),
    messageCount: row.message_count,
    replaces: row.replaces ?? undefined,
    regenerates: row.regenerates ?? undefined,
    fromBoundary: row.from_boundary,
    toBoundary: row.to_boundary,
    model: row.model ?? undefined,
    promptHash: row.prompt_hash,
    createdAt: new Date(row.created_at),
    endedAt: row.ended_at === null ? undefined : new Date(row.ended_at),
    endReason: row.end_reason ?? undefined,
  }
}

function conflict(sessionId: string, what: string): ContextLedgerError<'SUMMARY_CONFLICT'> {
  return new ContextLedgerError(
    'SUMMARY_CONFLICT',
    `Session "${sessionId}" changed while its summary was being made (${what}); nothing was written. Plan and summarize again.`,
    { sessionId },
  )
}

function notFound(sessionId: string, id: unknown): ContextLedgerError<'SUMMARY_NOT_FOUND'> {
  return new ContextLedgerError('SUMMARY_NOT_FOUND', `No summary ${String(id)} in session "${sessionId}"`, {
    sessionId,
  })
}

function notCurrent(
  sessionId: string,
  id: number,
  current: number | null,
): ContextLedgerError<'SUMMARY_NOT_CURRENT'> {
  return new ContextLedgerError(
    'SUMMARY_NOT_CURRENT',
    `Summary ${id} of session "${sessionId}" is not the one its window shows (${current === null ? 'it shows none' : `it shows summary ${current}`}); only that one can be regenerated or dropped`,
    { sessionId },
  )
}

function checkSummaryId(id: unknown): asserts id is number {
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `Invalid summary id: expected a positive integer, got ${String(id)}`,
      {
        path: 'id',
      },
    )
}

/** The window forms of `seqs` (ascending), pin flags as `window()` shows them. */
function windowForms(
  st: Statements,
  pk: number,
  seqs: readonly number[],
  format: BodyFormat,
): Map<number, StoredMessageData> {
  const out = new Map<number, StoredMessageData>()
  if (seqs.length === 0) return out
  for (const row of st.windowRowsOfSeqs.all({ s: pk, seqs: JSON.stringify(seqs) })) {
    out.set(row.seq, format.show(parseBody(row.body), row.pinned === 1))
  }
  return out
}

/**
 * Plans a fold in one read snapshot: which messages leave the window for a new summary, and what the
 * summarizer is given.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param limits - the manager's limits (their protected ranges say what never folds)
 * @param request - by ratio (Strands) or the excess over the limits
 * @returns the plan, or why nothing can be folded
 */
export function planFold(
  ledger: Ledger,
  sessionId: string,
  limits: WindowLimits,
  request: FoldRequest,
): { readonly plan: FoldPlan } | { readonly nothing: NothingEvictedReason } {
  ledger.ensureWritable()
  checkSessionId(sessionId)
  return ledger.read(
    () => {
      const session = ledger.keys.sessionRow(sessionId)
      if (session === undefined) return { nothing: 'too-few-messages' as const }
      const decision = planCut(new SqlLedgerView(ledger.st, session), limits, 'apply', request)
      const folded = decision.folded
      if (decision.plan.cut !== 'fold' || folded === undefined)
        return { nothing: decision.plan.reason ?? ('within-limits' as const) }
      const forms = windowForms(ledger.st, session.pk, folded, formatNamed(session.format))
      const before = folded.filter((s) => s < session.boundary)
      const after = folded.filter((s) => s >= session.boundary)
      const previous =
        session.summary === null ? undefined : ledger.st.summaryById.get(session.pk, session.summary)
      const input = [
        ...before.map((s) => forms.get(s)),
        ...(previous === undefined ? [] : [parseBody(previous.body)]),
        ...after.map((s) => forms.get(s)),
      ].filter((m): m is StoredMessageData => m !== undefined)
      return {
        plan: {
          sessionId,
          sessionPk: session.pk,
          version: session.version,
          boundary: session.boundary,
          previous: session.summary ?? undefined,
          newBoundary: decision.plan.boundary,
          folded,
          input,
          limits,
          decision,
          format: formatNamed(session.format).name,
        },
      }
    },
    `plan a summary of session "${sessionId}"`,
    sessionId,
  )
}

/**
 * Writes a planned fold with the summary made for it, in one transaction that first checks the window is
 * still the one planned (another writer may have pinned, cut or summarized meanwhile; appends are fine).
 *
 * @param ledger - the open ledger
 * @param plan - from {@link planFold}
 * @param made - the summary
 * @returns the summary as written
 * @throws ContextLedgerError `SUMMARY_CONFLICT` when the window changed (nothing is written)
 */
export function writeFold(ledger: Ledger, plan: FoldPlan, made: MadeSummary): SummaryRecord {
  ledger.ensureWritable()
  const { sessionId } = plan
  return ledger.write(sessionId, () => {
    const st = ledger.st
    const session = ledger.keys.sessionRow(sessionId)
    if (session === undefined || session.pk !== plan.sessionPk) throw conflict(sessionId, 'it was deleted')
    if (session.version !== plan.version || session.boundary !== plan.boundary)
      throw conflict(sessionId, 'its window or pins changed')
    if ((session.summary ?? undefined) !== plan.previous)
      throw conflict(sessionId, 'another summary was written')
    const now = Date.now()
    applyKeptChanges(st, session, plan.decision.changes, plan.limits.first)
    if (plan.newBoundary !== session.boundary) st.sessionBoundary.run(plan.newBoundary, now, session.pk)
    const ranges = toRanges(plan.folded)
    st.insertSummary.run(
      session.pk,
      made.uid,
      plan.previous ?? null,
      null,
      plan.boundary,
      plan.newBoundary,
      JSON.stringify(ranges),
      plan.folded.length,
      JSON.stringify(made.message),
      made.tokens,
      made.model ?? null,
      made.promptHash,
      now,
      made.text,
    )
    const row = st.summaryByUid.get(session.pk, made.uid)
    if (row === undefined) throw new Error(`summary ${made.uid} not found right after its insert`)
    ledger.search.summaryInserted(row.id)
    if (plan.previous !== undefined) endSummaryIn(ledger, session, plan.previous, now, 'replaced')
    st.setSessionSummary.run(row.id, now, session.pk)
    // The folded messages' rows of the eviction log: kept rows one each, tail rows as runs.
    const out = {
      tail: runsOf(plan.folded.filter((q) => q >= session.boundary)),
      released: plan.folded.filter((q) => q < session.boundary),
    }
    recordEvictions(st, session.pk, out, 'fold', 'summary', now, row.id)
    recordLimits(st, session, plan.limits)
    return toSummaryRecord(sessionId, row, row.id)
  })
}

/**
 * The messages a regeneration summarizes, from the archive: every message the summary stands for, down
 * its chain (`'raw'`), or the summary it replaced and the messages it folded itself (`'previous'`).
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param id - the summary the window shows
 * @param from - `'raw'` or `'previous'`
 * @returns the plan
 * @throws ContextLedgerError `SUMMARY_NOT_FOUND`, `SUMMARY_NOT_CURRENT`
 */
export function planRegeneration(
  ledger: Ledger,
  sessionId: string,
  id: number,
  from: 'raw' | 'previous',
): RegenerationPlan {
  ledger.ensureWritable()
  checkSessionId(sessionId)
  checkSummaryId(id)
  return ledger.read(
    () => {
      const st = ledger.st
      const session = ledger.keys.sessionRow(sessionId)
      const row = session === undefined ? undefined : st.summaryById.get(session.pk, id)
      if (session === undefined || row === undefined) throw notFound(sessionId, id)
      if (session.summary !== id) throw notCurrent(sessionId, id, session.summary)
      const ranges: [number, number][] = []
      let previous: StoredMessageData | undefined
      const seen = new Set<number>()
      for (let link: SummaryRow | undefined = row; link !== undefined;) {
        // A chain only leads to older summaries: one that comes back to itself is a damaged file.
        if (seen.has(link.id))
          throw new ContextLedgerError(
            'CORRUPT_DATABASE',
            `Session "${sessionId}": summary ${link.id} replaces itself down its chain; the file is damaged (context-ledger check names the rows)`,
            { sessionId },
          )
        seen.add(link.id)
        ranges.push(...parseRanges(link.seqs))
        const next: number | null = link.replaces
        if (next === null) break
        const older = st.summaryById.get(session.pk, next)
        if (from === 'previous') {
          previous = older === undefined ? undefined : parseBody(older.body)
          break
        }
        link = older
      }
      // Each message once, in seq order: a message protection brought back after a fold, and that a later
      // fold took again, is in two links of the chain.
      const input: StoredMessageData[] = previous === undefined ? [] : [previous]
      for (const [lo, hi] of mergeRanges(ranges))
        for (const r of st.history.all(session.pk, lo, hi - lo)) input.push(parseBody(r.body))
      return {
        sessionId,
        sessionPk: session.pk,
        version: session.version,
        summary: toSummaryRecord(sessionId, row, session.summary),
        input,
        format: formatNamed(session.format).name,
      }
    },
    `plan regenerating summary ${id} of session "${sessionId}"`,
    sessionId,
  )
}

/**
 * Writes a regenerated summary in place of the one the window shows: same messages, same place, new text.
 *
 * @param ledger - the open ledger
 * @param plan - from {@link planRegeneration}
 * @param made - the new summary
 * @returns the new summary
 * @throws ContextLedgerError `SUMMARY_CONFLICT` when the window changed meanwhile
 */
export function writeRegeneration(ledger: Ledger, plan: RegenerationPlan, made: MadeSummary): SummaryRecord {
  ledger.ensureWritable()
  const { sessionId, summary } = plan
  return ledger.write(sessionId, () => {
    const st = ledger.st
    const session = ledger.keys.sessionRow(sessionId)
    if (session === undefined || session.pk !== plan.sessionPk) throw conflict(sessionId, 'it was deleted')
    if (session.summary !== summary.id) throw conflict(sessionId, 'another summary was written')
    if (session.version !== plan.version) throw conflict(sessionId, 'its window or pins changed')
    const now = Date.now()
    st.insertSummary.run(
      session.pk,
      made.uid,
      summary.replaces ?? null,
      summary.id,
      summary.fromBoundary,
      summary.toBoundary,
      JSON.stringify(summary.seqs),
      summary.messageCount,
      JSON.stringify(made.message),
      made.tokens,
      made.model ?? null,
      made.promptHash,
      now,
      made.text,
    )
    const row = st.summaryByUid.get(session.pk, made.uid)
    if (row === undefined) throw new Error(`summary ${made.uid} not found right after its insert`)
    ledger.search.summaryInserted(row.id)
    endSummaryIn(ledger, session, summary.id, now, 'regenerated')
    // The eviction log names the summary that folded each message: now this one (a scan of the
    // session's log rows; a regeneration is rare).
    st.renameFoldSummary.run(row.id, session.pk, summary.id)
    st.setSessionSummary.run(row.id, now, session.pk)
    return toSummaryRecord(sessionId, row, row.id)
  })
}

/**
 * Takes back the summary the window shows: its messages come back (the boundary returns to where it was
 * before it, kept rows it folded are kept again), the summary it replaced is shown again, and the window
 * is planned anew with `limits`, as if the summary had never been made — over the limits, the oldest
 * messages then leave by the sliding window's rule.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param id - the summary the window shows
 * @param limits - the limits to plan the window with afterwards
 * @returns the window plan made afterwards
 * @throws ContextLedgerError `SUMMARY_NOT_FOUND`, `SUMMARY_NOT_CURRENT`
 */
export function dropSummary(
  ledger: Ledger,
  sessionId: string,
  id: number,
  limits: WindowLimits,
): WindowResult {
  ledger.ensureWritable()
  checkSessionId(sessionId)
  checkSummaryId(id)
  checkWindowLimits(limits)
  return ledger.write(sessionId, () => {
    const st = ledger.st
    const session = ledger.keys.sessionRow(sessionId)
    const row = session === undefined ? undefined : st.summaryById.get(session.pk, id)
    if (session === undefined || row === undefined) throw notFound(sessionId, id)
    if (session.summary !== id) throw notCurrent(sessionId, id, session.summary)
    const now = Date.now()
    const pk = session.pk
    // The messages it folded from the tail are the tail again; the kept rows it folded are kept again.
    // Every row from its old boundary on is tail now: also rows an append kept after it moved the boundary
    // past `to_boundary` (a pinned message that could not follow the summary).
    st.unkeepRange.run(pk, row.from_boundary, session.boundary)
    // Every message from its old boundary on, and every kept row it folded, is in the window again: their
    // rows of the eviction log go (the plan below writes those that leave again).
    st.deleteEvictionsFrom.run(pk, row.from_boundary)
    for (const [lo, hi] of parseRanges(row.seqs))
      if (lo < row.from_boundary) st.deleteFoldEvictions.run(pk, lo, Math.min(hi, row.from_boundary), id)
    for (const [lo, hi] of parseRanges(row.seqs))
      for (let s = lo; s < Math.min(hi, row.from_boundary); s++) st.setKept.run(1, 1, pk, s)
    st.sessionBoundary.run(row.from_boundary, now, pk)
    endSummaryIn(ledger, session, id, now, 'dropped')
    if (row.replaces !== null) reopenSummaryIn(ledger, session, row.replaces)
    st.setSessionSummary.run(row.replaces, now, pk)
    // Kept rows changed outside a plan: count them, and have the next plan derive every one again.
    const totals = st.keptTotals.get(pk) ?? { count: 0, tokens: 0 }
    st.setKeptTotals.run(totals.count, totals.tokens, null, pk)
    const fresh = ledger.keys.sessionRow(sessionId)
    if (fresh === undefined) throw new Error(`session "${sessionId}" not found in its own transaction`)
    return applyPlanned(ledger, fresh, limits, 'apply')
  })
}

/**
 * A session's summaries, newest first.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param limit - at most this many
 * @returns the summaries (empty for an unknown session)
 */
export function readSummaries(ledger: Ledger, sessionId: string, limit: number): SummaryRecord[] {
  ledger.ensureOpen()
  checkSessionId(sessionId)
  return ledger.read(
    () => {
      const session = ledger.keys.sessionRow(sessionId)
      if (session === undefined) return []
      return ledger.st.summariesOf
        .all(session.pk, limit)
        .map((row) =>
          toSummaryRecord(sessionId, row, session.summary, inheritedSummary(ledger, session, row.id)),
        )
    },
    `read the summaries of session "${sessionId}"`,
    sessionId,
  )
}

/**
 * One summary of a session.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param id - its id
 * @returns the summary
 * @throws ContextLedgerError `SUMMARY_NOT_FOUND`
 */
export function readSummary(ledger: Ledger, sessionId: string, id: number): SummaryRecord {
  ledger.ensureOpen()
  checkSessionId(sessionId)
  checkSummaryId(id)
  return ledger.read(
    () => {
      const session = ledger.keys.sessionRow(sessionId)
      const row = session === undefined ? undefined : ledger.st.summaryById.get(session.pk, id)
      if (session === undefined || row === undefined) throw notFound(sessionId, id)
      return toSummaryRecord(sessionId, row, session.summary, inheritedSummary(ledger, session, id))
    },
    `read summary ${id} of session "${sessionId}"`,
    sessionId,
  )
}
