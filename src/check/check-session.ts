/**
 * The one checker of a session, used by `context-ledger check`, by `context-ledger import` (on the
 * imported session, before it commits) and by every property test (`test/helpers/window-rules.ts`, which
 * throws the first problem): the window rules of every moment (`window-rules.ts`), the bodies, summaries
 * and edits against the validator `append` runs (`message-rules.ts`), the ledger's own bookkeeping
 * (`ledger-rows.ts`, `tool-links.ts`, `log-rows.ts`) and its eviction log (`eviction-rows.ts`), in one
 * read snapshot. So `check` and `import` hold a row to the same rules: what one refuses, the other reports.
 *
 * It reads through the store's read API — `session()`, `window()`, `summaries()`, and `history()` a
 * page at a time, keeping of each message only its role and tool ids — and, for the columns the API does
 * not return, through declared statements on the same connection (`statements.ts`). So it works on a
 * store opened `readonly` (the command line's) as on a writable one, holds no body longer than a page,
 * and turns a row the API cannot decode into a problem naming it instead of an exception.
 */
import { formatNamed, type BodyFormat } from '../formats/index.js'
import { strandsFormat } from '../formats/strands/index.js'
import { skeletonOf } from './skeleton.js'
import { withPinFlag } from '../messages/pin-flag.js'
import { parseBody } from '../store/entries.js'
import type { ContextStoreReader } from '../store/context-store-reader.js'
import { parseLimits } from '../store/explain.js'
import type { LedgerEntry } from '../store/store-types.js'
import { toSummaryRecord, type SummaryRecord } from '../store/summaries.js'
import type { StoredMessageData } from '../messages/types.js'
import { STATEMENTS } from '../db/statements.js'
import { prepareSpec } from '../db/typed-statement.js'
import { checkEvictionRows } from './eviction-rows.js'
import { branchFactsOf, checkBranchState } from './branch-state.js'
import { checkLedgerRows, pairStartsOf, type BranchLedger } from './ledger-rows.js'
import { checkSummaryBodies, MessageRules, readable } from './message-rules.js'
import { CHECK_READS, type CheckSessionRow } from './statements.js'
import { checkStoreJson } from './store-json.js'
import {
  problemList,
  WindowRules,
  type ArchiveEntry,
  type Fail,
  type SessionFacts,
  type WindowRuleOptions,
  type WindowRulesResult,
} from './window-rules.js'

/** How many messages one `history()` call reads. */
const PAGE = 5000

/** The most summaries one `summaries()` call returns. */
const SUMMARIES_PAGE = 10_000

/** The options of {@link checkSession}. */
export interface SessionCheckOptions extends WindowRuleOptions {
  /**
   * The protected ranges in force. Default: those the session's window was last applied with
   * (`sessions.limits`), none when it never was.
   */
  readonly ranges?: WindowRuleOptions['ranges']
  /** Each archived message as it is read, in seq order (the property tests keep the archive). */
  readonly onEntry?: ((entry: LedgerEntry) => void) | undefined
  /** Called every {@link PAGE} messages with how many were read so far. */
  readonly onProgress?: ((messages: number) => void) | undefined
}

/** What {@link checkSession} found and saw. */
export type SessionCheck = WindowRulesResult

/** Runs `read`; a failure becomes a problem and `fallback` the value. */
function attempt<T>(fail: Fail, what: string, read: () => T, fallback: T): T {
  try {
    return read()
  } catch (error) {
    fail('readable', `${what}: ${error instanceof Error ? error.message : String(error)}`)
    return fallback
  }
}

/**
 * Checks every rule that holds at all times for one session, in one read snapshot. Safe while other
 * connections write; inside a write transaction it sees that transaction's rows.
 *
 * @param store - an open store (read-only or not)
 * @param sessionId - the session
 * @param options - the ranges in force, the boundary seen before, acknowledged appends, callbacks
 * @returns every problem (none when all holds), and what was seen
 */
export function checkSession(
  store: ContextStoreReader,
  sessionId: string,
  options: SessionCheckOptions = {},
): SessionCheck {
  const db = store.connection()
  return db
    .transaction((): SessionCheck => {
      const { problems, fail } = problemList(sessionId)
      // A read the API cannot make is often the echo of a row reported below (a body append would
      // refuse): those problems come after the rows'.
      const reads = problemList(sessionId)
      const row = prepareSpec(db, CHECK_READS.session).get(sessionId)
      const facts = attempt(reads.fail, 'session()', () => store.session(sessionId), undefined)
      const session: SessionFacts | undefined =
        facts === undefined
          ? undefined
          : {
              messageCount: facts.messageCount,
              boundary: facts.boundary,
              windowMessages: facts.windowMessages,
              summaryId: facts.summaryId,
            }
      // A message append would refuse is reported from the archive and the summaries; the rules read
      // what can be read of it.
      const format = formatNamed(row?.format)
      const { window, alternate } =
        format === strandsFormat
          ? windowForms(store, sessionId, reads.fail)
          : skeletonWindow(store, sessionId, format, reads.fail)
      const stored = readSummaries(store, sessionId, row, fail)
      if (stored !== undefined) checkSummaryBodies(stored, fail, format)
      const summaries = stored?.map((s) => ({
        ...s,
        message: format === strandsFormat ? readable(s.message) : skeletonOf(format, s.message, s.trackingId),
      }))
      const limits = row === undefined ? undefined : parseLimits(row.limits)
      const rules = new WindowRules(
        sessionId,
        { session, window, alternate, summaries },
        { ...options, ranges: options.ranges ?? { first: limits?.first ?? 0, last: limits?.last ?? 0 } },
      )
      const boundary = row?.boundary ?? 0
      const branch = row === undefined ? undefined : branchFactsOf(db, row.pk)
      let inheritedTokens = 0
      const bodies = new MessageRules(format)
      for (let from = 0; ; from += PAGE) {
        let page: readonly ArchiveEntry[]
        let entries: LedgerEntry[] | undefined
        try {
          entries = store.history(sessionId, { fromSeq: from, limit: PAGE })
          page = entries
        } catch (error) {
          if (row === undefined) throw error
          page = undecoded(store, row.pk, boundary, from, fail)
        }
        if (entries !== undefined)
          page = entries.map((e) => {
            options.onEntry?.(e)
            if (branch !== undefined && e.seq <= branch.forkSeq) inheritedTokens += e.tokens
            return bodies.entry(e)
          })
        for (const e of page) rules.entry(e)
        if (page.length < PAGE) break
        options.onProgress?.(from + page.length)
      }
      const result = rules.finish()
      const log = problemList(sessionId)
      const bodyFacts = bodies.report(fail)
      if (row !== undefined) {
        let own: BranchLedger | undefined
        if (branch !== undefined) {
          const pairStart = pairStartsOf(row, result.shapes)
          const state = checkBranchState(db, branch, result.shapes, inheritedTokens, pairStart, fail)
          own = { firstSeq: branch.forkSeq + 1, forkTokens: branch.fork.fork_tokens ?? 0, ...state }
        }
        checkLedgerRows(db, row, result.shapes, bodyFacts, fail, own)
        checkStoreJson(db, row.pk, fail)
        checkEvictionRows(db, row.pk, session?.messageCount ?? 0, row.boundary, log.fail)
      }
      // The bookkeeping first: a column changed behind the store's back (a kept total, a pinned flag) is
      // the cause of the window rules it then breaks. The eviction log last: it is checked against the
      // session's rows and summaries, so a problem there is often the echo of one in them.
      return { ...result, problems: [...problems, ...reads.problems, ...result.problems, ...log.problems] }
    })
    .deferred()
}

/** The window and its alternating form as a Strands session's check reads them. */
function windowForms(
  store: ContextStoreReader,
  sessionId: string,
  fail: Fail,
): { window: StoredMessageData[]; alternate: StoredMessageData[] } {
  const window = attempt(fail, 'window()', () => store.window(sessionId), []).map(readable)
  const alternate = attempt(
    fail,
    'window({ alternate: true })',
    () => store.window(sessionId, { alternate: true }),
    [],
  ).map(readable)
  return { window, alternate }
}

/**
 * The window of a session of another format, as skeletons (`skeleton.ts`) under their rows' trackingIds;
 * it has no alternating form (`window({ alternate: true })` is Strands'): the rules it
 * is checked against are about the facts, which the skeletons carry.
 */
function skeletonWindow(
  store: ContextStoreReader,
  sessionId: string,
  format: BodyFormat,
  fail: Fail,
): { window: StoredMessageData[]; alternate: undefined } {
  const explained = attempt(fail, 'explainWindow()', () => store.explainWindow(sessionId), undefined)
  // A pinned message is shown pinned as a Strands window shows it: the rules read the flag there.
  const window = (explained?.messages ?? []).map((m) =>
    withPinFlag(skeletonOf(format, m.message, m.trackingId), m.pinned),
  )
  return { window, alternate: undefined }
}

/**
 * Every summary of the session, newest first: `summaries()`, and past the most it returns at once, the
 * rest through the statement it reads with. When a row cannot be decoded, each such row is named and the
 * summaries are left out of the window rules (undefined).
 */
function readSummaries(
  store: ContextStoreReader,
  sessionId: string,
  row: CheckSessionRow | undefined,
  fail: Fail,
): SummaryRecord[] | undefined {
  try {
    const newest = store.summaries(sessionId, { limit: SUMMARIES_PAGE })
    if (newest.length < SUMMARIES_PAGE || row === undefined) return withInheritedChains(store, sessionId, newest)
    // LIMIT -1: no limit.
    return prepareSpec(store.connection(), STATEMENTS.summariesOf)
      .all(row.pk, -1)
      .map((r) => toSummaryRecord(sessionId, r, row.summary))
  } catch (error) {
    if (row === undefined) throw error
    for (const s of prepareSpec(store.connection(), CHECK_READS.summaries).iterate(row.pk)) {
      for (const [column, text] of [
        ['seqs', s.seqs],
        ['body', s.body],
      ] as const)
        try {
          JSON.parse(text)
        } catch {
          fail(`summary ${column}`, `summary ${s.id} has ${column} that are not JSON: ${text.slice(0, 80)}`, {
            summaryId: s.id,
          })
        }
    }
    return undefined
  }
}

/**
 * A branch's summaries with the chain of the one it inherited: the summary its window showed at the fork
 * is an ancestor's, and so are the summaries it replaced or regenerated (read through the branch, which
 * finds them in its lineage) — the rules walk that chain down to the raw messages.
 */
function withInheritedChains(
  store: ContextStoreReader,
  sessionId: string,
  list: SummaryRecord[],
): SummaryRecord[] {
  const known = new Map(list.map((x) => [x.id, x]))
  const todo = list.filter((x) => x.inherited)
  for (let x = todo.pop(); x !== undefined; x = todo.pop())
    for (const [id, reason] of [
      [x.replaces, 'replaced'],
      [x.regenerates, 'regenerated'],
    ] as const)
      if (id !== undefined && !known.has(id)) {
        // In the branch's view it ended when the summary after it in the chain was made, whatever its own
        // session did with it later (it may show it still: the fold was made below it).
        const link: SummaryRecord = {
          ...store.summary(sessionId, id),
          inherited: true,
          current: false,
          endReason: reason,
          endedAt: x.createdAt,
        }
        known.set(id, link)
        todo.push(link)
      }
  return known.size === list.length ? list : [...known.values()].sort((a, b) => b.id - a.id)
}

/**
 * A page of the archive `history()` could not decode, read row by row: each row whose body or window
 * form is not JSON is named, and stands in the archive as a message of its role without content.
 */
function undecoded(
  store: ContextStoreReader,
  pk: number,
  boundary: number,
  from: number,
  fail: Fail,
): ArchiveEntry[] {
  const out: ArchiveEntry[] = []
  for (const r of prepareSpec(store.connection(), CHECK_READS.bodies).iterate(pk, from, from + PAGE)) {
    let message: StoredMessageData
    try {
      message = parseBody(r.body)
    } catch {
      fail('body is JSON', `seq ${r.seq} holds a body that is not JSON`, { seq: r.seq })
      message = { role: r.role === 'assistant' ? 'assistant' : 'user', content: [], trackingId: r.uid }
    }
    if (r.window_body !== null)
      try {
        JSON.parse(r.window_body)
      } catch {
        fail('window body is JSON', `seq ${r.seq} holds a window form that is not JSON`, { seq: r.seq })
      }
    out.push({
      seq: r.seq,
      trackingId: r.uid,
      message,
      pinned: r.pinned === 1,
      inWindow: r.seq >= boundary || r.kept === 1,
    })
  }
  return out
}
