/**
 * `context-ledger sessions <file>`: every session with its size, window, pins, summaries and last change.
 */
import { prepareSpec } from '../../db/typed-statement.js'
import type { SessionSummary } from '../../store/context-store.js'
import { count, iso, time } from '../format.js'
import { openStore } from '../open-ledger.js'
import type { CommandContext } from '../program.js'
import { CLI_READS } from '../statements.js'
import { printTable } from '../table.js'

/** One session in `sessions --json`. */
export interface SessionJson {
  id: string
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
  const store = openStore(file)
  try {
    const list = store.sessions().sort(ORDER[options.sort ?? 'id'] ?? ORDER.id)
    const summaries = new Map(
      prepareSpec(store.connection(), CLI_READS.summaryCounts)
        .all()
        .map((r) => [r.id, r.count]),
    )
    const out = ctx.out
    if (options.json === true) {
      out.json({
        file,
        sessions: list.map((s): SessionJson => ({
          id: s.id,
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
      out.line(`${file} holds no sessions yet.`)
      return 0
    }
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
        s.id,
      ]),
    )
    const total = list.reduce((n, s) => n + s.messageCount, 0)
    out.line(out.color.dim(`${count(list.length)} sessions, ${count(total)} messages`))
    return 0
  } finally {
    store.close()
  }
}
