/**
 * `context-ledger sessions <file>`: every session with its size, window, pins, summaries and last change.
 */
import { STATEMENTS } from '../../db/statements.js'
import { prepareSpec } from '../../db/typed-statement.js'
import { toSessionSummary } from '../../store/session-summary.js'
import type { SessionSummary } from '../../store/store-types.js'
import { count, counted, iso, time, visible } from '../format.js'
import { inspect } from '../open-ledger.js'
import type { CommandContext } from '../program.js'
import { CLI_READS } from '../statements.js'
import { printTable } from '../table.js'

/** One session in `sessions --json`. */
export interface SessionJson {
  id: string
  /** Its message format (`'strands'` unless another was named at its first append). */
  format: string
  messageCount: number
  windowMessages: number
  windowTokens: number
  totalTokens: number
  pinnedCount: number
  summaryCount: number
  summaryId: number | null
  boundary: number
  createdAt: string | null
  updatedAt: string | null
}

const ORDER: Record<string, (a: SessionSummary, b: SessionSummary) => number> = {
  id: () => 0,
  updated: (a, b) => b.updatedAt.getTime() - a.updatedAt.getTime(),
  messages: (a, b) => b.messageCount - a.messageCount,
  tokens: (a, b) => b.totalTokens - a.totalTokens,
}

/**
 * Runs `sessions`.
 *
 * @param ctx - output
 * @param file - the ledger
 * @param options - `json`, `sort`
 * @returns the exit code
 */
export function sessions(
  ctx: CommandContext,
  file: string,
  options: { json?: boolean; sort?: string },
): number {
  // The store's own session summaries, from only the statements they need: no store to load.
  const { db } = inspect(file)
  try {
    const st = {
      keptTotals: prepareSpec(db, STATEMENTS.keptTotals),
      cumAt: prepareSpec(db, STATEMENTS.cumAt),
      tailCorrection: prepareSpec(db, STATEMENTS.tailCorrection),
      pinnedCount: prepareSpec(db, STATEMENTS.pinnedCount),
    }
    const { list, summaries } = db
      .transaction(() => ({
        list: prepareSpec(db, STATEMENTS.allSessions)
          .all()
          .map((row) => toSessionSummary(st, row)),
        summaries: new Map(
          prepareSpec(db, CLI_READS.summaryCounts)
            .all()
            .map((r) => [r.id, r.count]),
        ),
      }))
      .deferred()
    list.sort(ORDER[options.sort ?? 'id'] ?? ORDER.id)
    const out = ctx.out
    if (options.json === true) {
      out.json({
        file,
        sessions: list.map((s): SessionJson => ({
          id: s.id,
          format: s.format,
          messageCount: s.messageCount,
          windowMessages: s.windowMessages,
          windowTokens: s.windowTokens,
          totalTokens: s.totalTokens,
          pinnedCount: s.pinnedCount,
          summaryCount: summaries.get(s.id) ?? 0,
          summaryId: s.summaryId ?? null,
          boundary: s.boundary,
          createdAt: iso(s.createdAt),
          updatedAt: iso(s.updatedAt),
        })),
      })
      return 0
    }
    if (list.length === 0) {
      out.line(`${visible(file)} holds no sessions yet.`)
      return 0
    }
    // The format column appears when a session is not Strands (a ledger of Strands sessions reads as before).
    const formats = list.some((s) => s.format !== 'strands')
    printTable(
      out,
      [
        { head: 'messages', align: 'right' },
        { head: 'window', align: 'right' },
        { head: 'window tokens', align: 'right' },
        { head: 'tokens', align: 'right' },
        { head: 'pins', align: 'right' },
        { head: 'summaries', align: 'right' },
        { head: 'last change (UTC)' },
        ...(formats ? [{ head: 'format' }] : []),
        { head: 'session' },
      ],
      list.map((s) => [
        count(s.messageCount),
        count(s.windowMessages),
        count(s.windowTokens),
        count(s.totalTokens),
        count(s.pinnedCount),
        count(summaries.get(s.id) ?? 0),
        time(s.updatedAt),
        ...(formats ? [s.format] : []),
        s.id,
      ]),
    )
    const total = list.reduce((n, s) => n + s.messageCount, 0)
    out.line(out.color.dim(`${counted(list.length, 'session')}, ${counted(total, 'message')}`))
    return 0
  } finally {
    db.close()
  }
}
