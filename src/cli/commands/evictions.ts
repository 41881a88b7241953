/**
 * `context-ledger evictions <file> <session>`: what left the window, when, why, and what stands for it now.
 *
 * Two sources, merged in one report. The eviction log (`store.evictions()`, docs/design.md, "Recall")
 * says when and how each run of messages left: one event per cut — its kind (trim point, tool pair, …,
 * fold, release), the reason (window size, token budget, overflow, summary) and the summary a fold went
 * into. The ledger's state says what stands for the evicted messages now: the messages before the
 * boundary that are not kept, as ranges of seqs — each folded into a summary (through the chain of the
 * summary the window shows) or cut by the sliding window — with their tokens and when they were
 * appended, the summaries and why each ended, and the unpins of messages now evicted
 * ({@link fromLedgerState}). A file from before the log (schema 8 and older) has the state only, and so
 * has a session for the cuts made before it was migrated: `eventLog` says whether the log covers every
 * evicted message.
 */
import type Database from 'better-sqlite3'
import { prepareSpec } from '../../db/typed-statement.js'
import type { ContextStore, SummaryRecord } from '../../store/context-store.js'
import { unknownSession } from '../errors.js'
import { count, iso, time, visible } from '../format.js'
import { openStore } from '../open-ledger.js'
import type { CommandContext } from '../program.js'
import { EXPORT_READS } from '../export-statements.js'
import { conversationFacts } from '../conversation-facts.js'
import { CLI_READS } from '../statements.js'
import { printTable } from '../table.js'

/** A run of evicted messages with one cause. */
export interface EvictedRange {
  /** First seq. */
  fromSeq: number
  /** One past the last seq. */
  toSeq: number
  messages: number
  tokens: number
  /** `summary`: folded into the summary `summaryId`, which the window shows or stands for through its chain; `cut`: the sliding window (or a summary since evicted). */
  cause: 'summary' | 'cut'
  summaryId: number | null
  firstAppendedAt: string | null
  lastAppendedAt: string | null
  /** Messages of the range whose content was erased (redacted or pruned). */
  redacted: number
}

/** What `evictions` reports. */
export interface EvictionReport {
  sessionId: string
  messageCount: number
  boundary: number
  evictedMessages: number
  evictedTokens: number
  /** When the window last changed: every message left the window no later than this. */
  windowChangedAt: string | null
  /**
   * Whether every message now out of the window has an event in the eviction log (false on a file from
   * before the log, or for cuts made before it was migrated).
   */
  eventLog: boolean
  /** The eviction log's events, by their last seq: one per run of seqs a cut took out. */
  events: {
    fromSeq: number
    /** The run's last seq (inclusive). */
    lastSeq: number
    at: string | null
    cut: string
    reason: string
    summaryId: number | null
    /** For a rewind's event: the abandoned branch that holds the messages now. */
    abandonedId: string | null
    /** For an event a branch inherits: the ancestor whose cut it was. */
    inheritedFrom: string | null
  }[]
  ranges: EvictedRange[]
  summaries: {
    id: number
    current: boolean
    messageCount: number
    fromBoundary: number
    toBoundary: number
    replaces: number | null
    regenerates: number | null
    model: string | null
    createdAt: string | null
    endedAt: string | null
    endReason: string | null
  }[]
  unpins: { seq: number; actor: string; reason: string | null; at: string | null }[]
}

/** The summaries the window's summary stands for, itself included: its chain of replaced and regenerated ones. */
function chainOf(current: number | undefined, byId: ReadonlyMap<number, SummaryRecord>): Set<number> {
  const chain = new Set<number>()
  const todo = current === undefined ? [] : [current]
  while (todo.length > 0) {
    const id = todo.pop() as number
    const s = byId.get(id)
    if (s === undefined || chain.has(id)) continue
    chain.add(id)
    if (s.replaces !== undefined) todo.push(s.replaces)
    if (s.regenerates !== undefined) todo.push(s.regenerates)
  }
  return chain
}

/**
 * The evictions of a session from what the ledger holds today: the boundary, the kept rows, summaries.
 *
 * @param store - the store
 * @param sessionId - the session
 * @returns the report, or undefined for an unknown session
 */
export function fromLedgerState(store: ContextStore, sessionId: string): EvictionReport | undefined {
  const db: Database.Database = store.connection()
  return db
    .transaction(() => {
      const session = store.session(sessionId)
      const row = prepareSpec(db, EXPORT_READS.exportSession).get(sessionId)
      if (session === undefined || row === undefined) return undefined
      const b = session.boundary
      const facts = conversationFacts(store, {
        pk: row.pk,
        id: sessionId,
        boundary: b,
        branch: session.parentId !== null,
      })
      const summaries = store.summaries(sessionId, { limit: 10_000 }).reverse()
      const byId = new Map(summaries.map((s) => [s.id, s]))
      const chain = chainOf(session.summaryId, byId)
      // Which summary of the chain folded each range (the newest, for regenerated ones).
      const folded: [number, number, number][] = []
      for (const s of summaries) if (chain.has(s.id)) for (const [f, t] of s.seqs) folded.push([f, t, s.id])
      folded.sort((x, y) => x[0] - y[0] || y[2] - x[2])
      // Evicted runs: the gaps between the kept rows before the boundary.
      const runs: [number, number][] = []
      let from = 0
      for (const k of [...facts.keptBefore, b]) {
        if (k > from) runs.push([from, k])
        from = k + 1
      }
      const ranges: EvictedRange[] = []
      const push = (f: number, t: number, summaryId: number | null): void => {
        if (t <= f) return
        ranges.push({
          fromSeq: f,
          toSeq: t,
          messages: t - f,
          tokens: facts.tokensOf(f, t),
          cause: summaryId === null ? 'cut' : 'summary',
          summaryId,
          firstAppendedAt: iso(facts.createdAt(f)),
          lastAppendedAt: iso(facts.createdAt(t - 1)),
          redacted: facts.redactedIn(f, t),
        })
      }
      for (const [rf, rt] of runs) {
        let at = rf
        for (const [f, t, id] of folded) {
          if (t <= at || f >= rt) continue
          push(at, Math.max(at, f), null)
          const end = Math.min(t, rt)
          push(Math.max(at, f), end, id)
          at = Math.max(at, end)
        }
        push(at, rt, null)
      }
      const evictedMessages = ranges.reduce((n, r) => n + r.messages, 0)
      const evictedTokens = ranges.reduce((n, r) => n + r.tokens, 0)
      const evictedSeqs = (seq: number): boolean => ranges.some((r) => seq >= r.fromSeq && seq < r.toSeq)
      return {
        sessionId,
        messageCount: session.messageCount,
        boundary: b,
        evictedMessages,
        evictedTokens,
        windowChangedAt: iso(row.updated_at),
        eventLog: false,
        events: [],
        ranges,
        summaries: summaries.map((s) => ({
          id: s.id,
          current: s.current,
          messageCount: s.messageCount,
          fromBoundary: s.fromBoundary,
          toBoundary: s.toBoundary,
          replaces: s.replaces ?? null,
          regenerates: s.regenerates ?? null,
          model: s.model ?? null,
          createdAt: iso(s.createdAt),
          endedAt: iso(s.endedAt),
          endReason: s.endReason ?? null,
        })),
        unpins: store
          .pinEvents(sessionId)
          .filter((e) => e.action === 'unpin' && evictedSeqs(e.seq))
          .map((e) => ({ seq: e.seq, actor: e.actor, reason: e.reason ?? null, at: iso(e.at) })),
      }
    })
    .deferred()
}

/**
 * Adds the eviction log's events to a report from the ledger's state, when the file has the log.
 *
 * @param store - the store
 * @param report - from {@link fromLedgerState}
 * @returns the report with `events`, and `eventLog` true when the log covers every evicted message
 */
export function withLog(store: ContextStore, report: EvictionReport): EvictionReport {
  if (prepareSpec(store.connection(), CLI_READS.hasEvictionLog).get() === undefined) return report
  const events: EvictionReport['events'] = []
  for (let from = 0; ;) {
    const page = store.evictions(report.sessionId, { fromSeq: from, limit: 10_000 })
    for (const e of page)
      events.push({
        fromSeq: e.fromSeq,
        lastSeq: e.toSeq,
        at: iso(e.at),
        cut: e.cut,
        reason: e.reason,
        summaryId: e.summaryId ?? null,
        abandonedId: e.abandonedId ?? null,
        inheritedFrom: e.inheritedFrom ?? null,
      })
    const last = page.at(-1)
    if (page.length < 10_000 || last === undefined) break
    from = last.toSeq + 1
  }
  // Covered: every evicted seq of the ranges lies in some event (a rewind's is about the conversation it
  // took back, whose seqs the session has used again).
  const covered = (seq: number): boolean =>
    events.some((e) => e.cut !== 'rewind' && e.fromSeq <= seq && seq <= e.lastSeq)
  const eventLog = report.ranges.every((r) => covered(r.fromSeq) && covered(r.toSeq - 1))
  return { ...report, eventLog, events }
}

/**
 * Runs `evictions`.
 *
 * @param ctx - output
 * @param file - the ledger
 * @param sessionId - the session
 * @param options - `json`
 * @returns the exit code
 */
export async function evictions(
  ctx: CommandContext,
  file: string,
  sessionId: string,
  options: { json?: boolean },
): Promise<number> {
  const store = await openStore(file)
  try {
    const state = fromLedgerState(store, sessionId)
    if (state === undefined) throw unknownSession(file, sessionId)
    const report = withLog(store, state)
    const out = ctx.out
    if (options.json === true) {
      out.json({ file, ...report })
      return 0
    }
    const c = out.color
    out.line(
      `${c.bold(sessionId)}: ${count(report.evictedMessages)} of ${count(report.messageCount)} messages left the window (${count(report.evictedTokens)} tokens); boundary ${count(report.boundary)}`,
    )
    if (report.ranges.length > 0) {
      out.line()
      printTable(
        out,
        [
          { head: 'seqs' },
          { head: 'messages', align: 'right' },
          { head: 'tokens', align: 'right' },
          { head: 'appended (UTC)' },
          { head: 'erased', align: 'right' },
          { head: 'now stands for them' },
        ],
        report.ranges.map((r) => [
          `${r.fromSeq}–${r.toSeq - 1}`,
          count(r.messages),
          count(r.tokens),
          `${time(r.firstAppendedAt === null ? undefined : new Date(r.firstAppendedAt))} … ${time(r.lastAppendedAt === null ? undefined : new Date(r.lastAppendedAt))}`,
          count(r.redacted),
          r.cause === 'summary' ? `summary #${String(r.summaryId)}` : 'nothing (cut by the sliding window)',
        ]),
      )
    }
    if (report.summaries.length > 0) {
      out.line()
      printTable(
        out,
        [
          { head: 'summary', align: 'right' },
          { head: 'messages', align: 'right' },
          { head: 'made (UTC)' },
          { head: 'state' },
          { head: 'model' },
        ],
        report.summaries.map((s) => [
          `#${s.id}`,
          count(s.messageCount),
          time(s.createdAt === null ? undefined : new Date(s.createdAt)),
          s.current
            ? 'in the window'
            : `${s.endReason ?? 'ended'} ${time(s.endedAt === null ? undefined : new Date(s.endedAt))}`,
          s.model ?? '',
        ]),
      )
    }
    if (report.events.length > 0) {
      const inherited = report.events.some((e) => e.inheritedFrom !== null)
      out.line()
      printTable(
        out,
        [
          { head: 'left (UTC)' },
          { head: 'seqs' },
          { head: 'cut' },
          { head: 'why' },
          { head: 'into' },
          ...(inherited ? [{ head: 'inherited' }] : []),
        ],
        report.events.map((e) => [
          time(e.at === null ? undefined : new Date(e.at)),
          e.fromSeq === e.lastSeq ? String(e.fromSeq) : `${e.fromSeq}–${e.lastSeq}`,
          e.cut,
          e.reason,
          e.summaryId !== null
            ? `summary #${e.summaryId}`
            : e.abandonedId !== null
              ? `branch ${e.abandonedId} (abandoned)`
              : '',
          ...(inherited ? [e.inheritedFrom === null ? '' : `cut in ${e.inheritedFrom} before the fork`] : []),
        ]),
      )
    }
    for (const u of report.unpins)
      out.line(
        `seq ${u.seq} was unpinned by ${visible(u.actor)} at ${time(u.at === null ? undefined : new Date(u.at))}${u.reason === null ? '' : ` (${visible(u.reason)})`}, then left the window`,
      )
    if (!report.eventLog)
      out.line(
        c.dim(
          `When some messages left is not in the eviction log (cut before this ledger had one): they left no later than the window's last change, ${time(report.windowChangedAt === null ? undefined : new Date(report.windowChangedAt))}.`,
        ),
      )
    return 0
  } finally {
    store.close()
  }
}
