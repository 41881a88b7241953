/**
 * `context-ledger sessions <file>`: every session with its size, window, pins, summaries and last change —
 * and, for a branch, its parent and fork point. A file without branches is read with the few statements
 * a session summary needs (no store is loaded: a quick start); a file with branches through the store's
 * `sessions()`, whose reads of a branch go through its lineage (docs/design.md, "Branches").
 */
import type Database from 'better-sqlite3'
import { STATEMENTS } from '../../db/statements.js'
import { prepareSpec, value } from '../../db/typed-statement.js'
import { toSessionSummary } from '../../store/session-summary.js'
import type { SessionSummary } from '../../store/store-types.js'
import { count, counted, iso, time, visible } from '../format.js'
import { inspect, openStore } from '../open-ledger.js'
import type { CommandContext } from '../program.js'
import { CLI_READS } from '../statements.js'
import { printTable } from '../table.js'

/** Whether a file holds a branch (one seek of `sessions_children`). */
const HAS_BRANCH = value<[], number>(
  'SELECT 1 AS found FROM sessions WHERE parent IS NOT NULL LIMIT 1',
  'found',
)

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
  /** The session it was forked from (or abandoned by a rewind of); null for a root. */
  parentId: string | null
  /** The last seq it inherits from its parent; null for a root. */
  forkSeq: number | null
  /** `root`, `fork` or `abandoned`. */
  kind: 'root' | 'fork' | 'abandoned'
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
export async function sessions(
  ctx: CommandContext,
  file: string,
  options: { json?: boolean; sort?: string },
): Promise<number> {
  const { list, summaries } = await readSummaries(file)
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
        parentId: s.parentId,
        forkSeq: s.forkSeq,
        kind: s.kind,
      })),
    })
    return 0
  }
  if (list.length === 0) {
    out.line(`${visible(file)} holds no sessions yet.`)
    return 0
  }
  // The format column appears when a session is not Strands (a ledger of Strands sessions reads as before),
  // the parent and fork point when one is a branch.
  const formats = list.some((s) => s.format !== 'strands')
  const branches = list.some((s) => s.parentId !== null)
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
      ...(branches ? [{ head: 'parent' }, { head: 'fork at', align: 'right' as const }] : []),
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
      ...(branches
        ? [
            s.parentId === null ? '—' : `${s.parentId}${s.kind === 'abandoned' ? ' (abandoned)' : ''}`,
            s.forkSeq === null ? '—' : String(s.forkSeq),
          ]
        : []),
      s.id,
    ]),
  )
  const total = list.reduce((n, s) => n + s.messageCount, 0)
  out.line(out.color.dim(`${counted(list.length, 'session')}, ${counted(total, 'message')}`))
  return 0
}

/** Every session's summary and its summaries' count, in one read. */
async function readSummaries(
  file: string,
): Promise<{ list: SessionSummary[]; summaries: Map<string, number> }> {
  const { db } = inspect(file)
  let branched: boolean
  try {
    branched = prepareSpec(db, HAS_BRANCH).get() !== undefined
    // The store's own session summaries, from only the statements they need: no store to load.
    if (!branched) return db.transaction(() => readDirect(db)).deferred()
  } finally {
    db.close()
  }
  const store = await openStore(file)
  try {
    const read = store.connection()
    return read.transaction(() => ({ list: store.sessions(), summaries: summaryCounts(read) })).deferred()
  } finally {
    store.close()
  }
}

/** The summaries of a file of roots alone, from the statements they need. */
function readDirect(db: Database.Database): { list: SessionSummary[]; summaries: Map<string, number> } {
  const st = {
    keptTotals: prepareSpec(db, STATEMENTS.keptTotals),
    cumAt: prepareSpec(db, STATEMENTS.cumAt),
    tailCorrection: prepareSpec(db, STATEMENTS.tailCorrection),
    pinnedCount: prepareSpec(db, STATEMENTS.pinnedCount),
  }
  const list = prepareSpec(db, STATEMENTS.allSessions)
    .all()
    .map((row) => toSessionSummary(st, row))
  return { list, summaries: summaryCounts(db) }
}

/** How many summaries each session has made. */
function summaryCounts(db: Database.Database): Map<string, number> {
  return new Map(
    prepareSpec(db, CLI_READS.summaryCounts)
      .all()
      .map((r) => [r.id, r.count]),
  )
}
