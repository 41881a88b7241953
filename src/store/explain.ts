/**
 * Why each message of a window is there (`ContextStore.explainWindow`): a tool that shows a window — the
 * `context-ledger` command line, a web view — reads the reasons from here instead of re-deriving the
 * window rules. The protected set is the planner's own (`Protection` over a `SqlLedgerView`, the pure
 * pieces `applyWindow()` runs), derived for every kept row rather than for the few marked for a recheck,
 * with the limits the session's window was last applied with (`sessions.limits`). Reads only, in one
 * snapshot; the cost is that of the window plus the tool links of its rows.
 */
import type { SessionForAppendRow } from '../db/statements.js'
import { formatNamed } from '../formats/index.js'
import type { Role, StoredMessageData } from '../messages/types.js'
import { Protection, toolComponent } from '../window/protection.js'
import type { WindowLimits } from '../window/window-options.js'
import { checkSessionId } from './check-args.js'
import { parseBody } from './entries.js'
import type { Ledger } from './ledger.js'
import { SqlLedgerView } from './sql-ledger-view.js'
import { toSummaryRecord, type SummaryRecord } from './summaries.js'
import { inheritedSummary } from './branches/summary-ends.js'

/** One reason a message is in the window. */
export type WindowReason =
  /** At or after the boundary: the window's tail holds every message from there on. */
  | { readonly kind: 'tail' }
  /** Pinned, with the latest pin's attribution (undefined when the pin log has none). */
  | {
      readonly kind: 'pinned'
      readonly actor: string | undefined
      readonly reason: string | undefined
      readonly at: Date | undefined
    }
  /** In the session's first `n` messages (`protectedMessages.first`). */
  | { readonly kind: 'first'; readonly n: number }
  /** In the session's last `n` messages (`protectedMessages.last`). */
  | { readonly kind: 'last'; readonly n: number }
  /** Tied by tool calls to protected messages (`of`: their seqs) that are pinned or in a range. */
  | { readonly kind: 'tool-partner'; readonly of: readonly number[] }
  /** The plain user message that opens the window for the earliest protected message (`for`). */
  | { readonly kind: 'lead'; readonly for: number }
  /** Opens the session's newest turn, which always stays. */
  | { readonly kind: 'newest-turn' }
  /** The plain user message before a tail that does not start where a window may (a tool-pair cut, a call in flight). */
  | { readonly kind: 'anchor' }
  /** The summary the window shows: it stands for `messageCount` messages folded out of the window. */
  | { readonly kind: 'summary'; readonly id: number; readonly messageCount: number }
  /** Kept by an earlier plan and no longer protected: the next `applyWindow()` that needs room lets it go. */
  | { readonly kind: 'released' }

/** One message of the window with why it is there. */
export interface ExplainedWindowMessage {
  /** Its position in the window, from 0. */
  readonly index: number
  /** Its seq; undefined for the summary, which is no message of the archive. */
  readonly seq: number | undefined
  /** Its trackingId (the summary's own for the summary). */
  readonly trackingId: string
  /** Its role. */
  readonly role: Role
  /** Where it sits: a kept row before the boundary, the summary, or the tail. */
  readonly part: 'kept' | 'summary' | 'tail'
  /** The tokens the window counts for it. */
  readonly tokens: number
  /** Whether it is pinned. */
  readonly pinned: boolean
  /** The message as the window shows it. */
  readonly message: StoredMessageData
  /** Why it is there, most telling first; never empty. */
  readonly reasons: readonly WindowReason[]
}

/** A session's window with the reasons for each message, the boundary and the limits. */
export interface WindowExplanation {
  /** The session. */
  readonly sessionId: string
  /** Messages in the archive. */
  readonly messageCount: number
  /** First seq of the window's tail. */
  readonly boundary: number
  /** The limits the window was last applied with, or undefined when it never was. */
  readonly limits: WindowLimits | undefined
  /** Messages in the window (its summary included). */
  readonly windowMessages: number
  /** Tokens in the window (its summary included). */
  readonly windowTokens: number
  /** The summary the window shows, if any. */
  readonly summary: SummaryRecord | undefined
  /** The window, in order, each with its reasons. */
  readonly messages: readonly ExplainedWindowMessage[]
}

/**
 * Reads the limits a session's window was last applied with.
 *
 * @param json - `sessions.limits`
 * @returns them, or undefined when never recorded or not readable
 */
export function parseLimits(json: string | null): WindowLimits | undefined {
  if (json === null) return undefined
  try {
    const v = JSON.parse(json) as Partial<Record<keyof WindowLimits, unknown>>
    const int = (x: unknown): number | undefined =>
      typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 ? x : undefined
    const windowSize = int(v.windowSize)
    if (windowSize === undefined) return undefined
    const lowWaterMark = typeof v.lowWaterMark === 'number' ? v.lowWaterMark : undefined
    return {
      windowSize,
      tokenBudget: int(v.tokenBudget),
      first: int(v.first) ?? 0,
      last: int(v.last) ?? 0,
      ...(lowWaterMark === undefined ? {} : { lowWaterMark }),
    }
  } catch {
    return undefined
  }
}

/**
 * Why each message of a session's window is there; see `ContextStore.explainWindow`.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @returns the explanation, or undefined when the session does not exist
 */
export function explainWindow(ledger: Ledger, sessionId: string): WindowExplanation | undefined {
  ledger.ensureOpen()
  checkSessionId(sessionId)
  return ledger.read(
    () => {
      const session = ledger.keys.sessionRow(sessionId)
      return session === undefined ? undefined : explain(ledger, session)
    },
    `explain the window of session "${sessionId}"`,
    sessionId,
  )
}

function explain(ledger: Ledger, session: SessionForAppendRow): WindowExplanation {
  const st = ledger.st
  const pk = session.pk
  const n = session.message_count
  const boundary = session.boundary
  const limits = parseLimits(session.limits)
  const ranges: WindowLimits = limits ?? { windowSize: n + 1, tokenBudget: undefined, first: 0, last: 0 }
  // No recheck marks trusted: every kept row's protection is derived (the marks are for another range).
  const view = new SqlLedgerView(st, { ...session, kept_first: null })
  const protection = new Protection(view, ranges)
  const rows = st.window.all({ s: pk })
  const format = formatNamed(session.format)
  // Only a Strands body carries its trackingId; another format's comes from its row.
  const uidOf = (seq: number, shown: StoredMessageData): string =>
    format.name === 'strands' ? shown.trackingId : (st.messageBySeq.get(pk, seq)?.uid ?? '')
  const seqs = rows.filter((r) => Number.isInteger(r.seq)).map((r) => r.seq)
  const facts = new Map(view.facts(seqs).map((f) => [f.seq, f]))
  const pins = new Map(st.pinnedMessages.all(pk).map((p) => [p.seq, p]))
  const summaryRow = session.summary === null ? undefined : st.summaryById.get(pk, session.summary)
  const summary =
    summaryRow === undefined
      ? undefined
      : toSummaryRecord(
          session.id,
          summaryRow,
          session.summary,
          inheritedSummary(ledger, session, summaryRow.id),
        )
  const newest = view.lastTrimPoint(0, n, false)
  const anchor =
    boundary < n && !view.isTrimPoint(boundary) ? view.lastTrimPoint(0, boundary, true) : undefined
  const ownReasons = (seq: number, pinned: boolean): WindowReason[] => {
    const out: WindowReason[] = []
    if (pinned) {
      const p = pins.get(seq)
      out.push({
        kind: 'pinned',
        actor: p?.actor ?? undefined,
        reason: p?.reason ?? undefined,
        at: p?.at === null || p?.at === undefined ? undefined : new Date(p.at),
      })
    }
    if (seq < ranges.first) out.push({ kind: 'first', n: ranges.first })
    if (seq >= n - ranges.last) out.push({ kind: 'last', n: ranges.last })
    return out
  }
  const causes = (seq: number): number[] => {
    const component = toolComponent(view, seq)
    const pinned = new Set(
      view
        .facts(component)
        .filter((f) => f.pinned)
        .map((f) => f.seq),
    )
    return component.filter(
      (s) => s !== seq && protection.has(s) && (pinned.has(s) || s < ranges.first || s >= n - ranges.last),
    )
  }
  const protectedSeqs = seqs.filter((s) => protection.has(s) && s !== protection.lead)

  let windowTokens = 0
  const messages = rows.map((row, index): ExplainedWindowMessage => {
    const shown = parseBody(row.body)
    if (!Number.isInteger(row.seq) && summary !== undefined) {
      windowTokens += summary.tokens
      return {
        index,
        seq: undefined,
        trackingId: summary.trackingId,
        role: format.facts(shown).role,
        part: 'summary',
        tokens: summary.tokens,
        pinned: false,
        message: shown,
        reasons: [{ kind: 'summary', id: summary.id, messageCount: summary.messageCount }],
      }
    }
    const seq = row.seq
    const pinned = row.pinned === 1
    const tokens = facts.get(seq)?.windowTokens ?? 0
    windowTokens += tokens
    const reasons: WindowReason[] = seq >= boundary ? [{ kind: 'tail' }] : []
    const own = ownReasons(seq, pinned)
    reasons.push(...own)
    if (own.length === 0 && protection.has(seq) && seq !== protection.lead) {
      const of = causes(seq)
      if (of.length > 0) reasons.push({ kind: 'tool-partner', of })
    }
    if (seq === protection.lead) {
      const after = protectedSeqs.find((s) => s > seq)
      if (after !== undefined) reasons.push({ kind: 'lead', for: after })
    }
    if (seq === newest) reasons.push({ kind: 'newest-turn' })
    if (seq === anchor && seq < boundary) reasons.push({ kind: 'anchor' })
    if (reasons.length === 0) reasons.push({ kind: 'released' })
    return {
      index,
      seq,
      trackingId: uidOf(seq, shown),
      role: format.facts(shown).role,
      part: seq < boundary ? 'kept' : 'tail',
      tokens,
      pinned,
      message: format.show(shown, pinned),
      reasons,
    }
  })
  return {
    sessionId: session.id,
    messageCount: n,
    boundary,
    limits,
    windowMessages: messages.length,
    windowTokens,
    summary,
    messages,
  }
}
