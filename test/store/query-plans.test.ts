/**
 * Every hot statement must seek an index (a SEARCH), never SCAN the messages table: that is what keeps
 * append, window and applyWindow flat as the archive grows. Plans do not depend on the clock, so they are
 * asserted here; the timings live in bench/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { STATEMENT_SQL } from '../../src/db/statements.js'
import { BRANCH_STATEMENTS } from '../../src/db/branch-statements.js'
import { sqlTexts } from '../../src/db/typed-statement.js'
import { PersistentConversationManager, type ContextStore } from '../../src/index.js'
import { tempStore } from '../helpers/temp-store.js'

let store: ContextStore
let cleanup: () => void
beforeAll(() => {
  ;({ store, cleanup } = tempStore())
  const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 10 })
  for (let i = 0; i < 200; i++)
    m.append([
      { role: 'user', content: [{ text: `q${i}` }] },
      { role: 'assistant', content: [{ toolUse: { name: 't', toolUseId: `c${i}`, input: {} } }] },
      {
        role: 'user',
        content: [{ toolResult: { toolUseId: `c${i}`, status: 'success', content: [{ text: 'r' }] } }],
      },
      { role: 'assistant', content: [{ text: `a${i}` }] },
    ])
  m.pin({ seq: 5 })
  m.applyWindow()
  // No ANALYZE: the store never runs it, so these are the plans users get.
})
afterAll(() => {
  cleanup()
})

/** Statements that list across all sessions (they walk the sessions table or the partial pinned index). */
const COLD = new Set(['allSessions', 'allPinnedMessages'])

/**
 * Statements that read every kept row of a session. They run only when the kept rows' marks must be
 * derived again (other protected ranges than last time, or a file from before the kept totals), never on
 * the steady path of append, pin, applyWindow or window().
 */
const WHOLE_KEPT_SET = ['keptSeqs', 'keptTotals']

/**
 * Statements that walk the kept index over a seq range only: `unkeepRange` clears the kept rows of the
 * range a dropped summary folded from its tail (`dropSummary`, never on the steady path).
 */
const KEPT_RANGE = ['unkeepRange']

function plan(sql: string): string[] {
  const db = store.connection()
  // eslint-disable-next-line no-restricted-syntax -- prefixing our own constant SQL text, no values
  const stmt = db.prepare(`EXPLAIN QUERY PLAN ${sql}`)
  const names = [...new Set([...sql.matchAll(/@(\w+)/g)].map((m) => m[1] as string))]
  const named = names.length > 0
  const count = (sql.match(/\?/g) ?? []).length
  const args = Object.fromEntries(names.map((n) => [n, n === 'seqs' ? '[1,2,3]' : 1]))
  const rows = (named ? stmt.all(args) : stmt.all(...Array.from({ length: count }, () => 1))) as {
    detail: string
  }[]
  return rows.map((r) => r.detail)
}

describe('statements', () => {
  type Name = keyof typeof STATEMENT_SQL
  // Golden plans: the index and the constrained columns of every hot lookup. A planner change that
  // turns an equality into a range over the whole session (an O(history) read) fails here.
  const golden: Partial<Record<Name, string>> = {
    messageByUid: 'SEARCH messages USING INDEX messages_session_uid (session=? AND uid=?)',
    messageBySeq: 'SEARCH messages USING INDEX messages_session_seq (session=? AND seq=?)',
    flagsBySeq: 'SEARCH messages USING INDEX messages_session_seq (session=? AND seq=?)',
    cumAt: 'SEARCH messages USING INDEX messages_session_seq (session=? AND seq=?)',
    keptSeqs: 'SEARCH messages USING COVERING INDEX messages_kept (session=?)',
    firstKept: 'SEARCH messages USING COVERING INDEX messages_kept (session=?)',
    keptAt: 'SEARCH messages USING COVERING INDEX messages_kept (session=?)',
    anyKept: 'SEARCH messages USING COVERING INDEX messages_kept (session=?)',
    firstSettled: 'SEARCH messages USING INDEX messages_kept (session=?)',
    recheckSeqs: 'SEARCH messages USING COVERING INDEX messages_recheck (session=?)',
    pinnedIn: 'SEARCH messages USING COVERING INDEX messages_pinned (session=? AND seq>? AND seq<?)',
    corrections:
      'SEARCH messages USING COVERING INDEX messages_window_tokens (session=? AND seq>? AND seq<?)',
    tailCorrection: 'SEARCH messages USING COVERING INDEX messages_window_tokens (session=? AND seq>?)',
    lastPairStart: 'SEARCH messages USING COVERING INDEX messages_cut_points (session=? AND seq>? AND seq<?)',
    setKept: 'SEARCH messages USING INDEX messages_session_seq (session=? AND seq=?)',
    setRecheck: 'SEARCH messages USING INDEX messages_session_seq (session=? AND seq=?)',
    setWindowBody: 'SEARCH messages USING INDEX messages_session_seq (session=? AND seq=?)',
    setKeptTotals: 'SEARCH sessions USING INTEGER PRIMARY KEY (rowid=?)',
    setKeptTokens: 'SEARCH sessions USING INTEGER PRIMARY KEY (rowid=?)',
    firstTrimPoint:
      'SEARCH messages USING COVERING INDEX messages_cut_points (session=? AND seq>? AND seq<?)',
    lastTrimPoint: 'SEARCH messages USING COVERING INDEX messages_cut_points (session=? AND seq>? AND seq<?)',
    firstPairStart:
      'SEARCH messages USING COVERING INDEX messages_cut_points (session=? AND seq>? AND seq<?)',
    firstPlainUser: 'SEARCH messages USING COVERING INDEX messages_cut_points (session=? AND seq>?)',
    openCalls: 'SEARCH tool_calls USING INDEX tool_calls_open (session=?)',
    usesOfResult: 'SEARCH tool_calls USING INDEX tool_calls_answered (session=? AND result_seq=?)',
    sessionByPk: 'SEARCH s USING INTEGER PRIMARY KEY (rowid=?)',
    setCutFlags: 'SEARCH messages USING INDEX messages_session_seq (session=? AND seq=?)',
    firstSplitPoint: 'SEARCH messages USING INDEX messages_session_seq (session=? AND seq>? AND seq<?)',
    unkeepRange: 'SEARCH messages USING INDEX messages_kept (session=? AND seq>? AND seq<?)',
    summaryById: 'SEARCH summaries USING INTEGER PRIMARY KEY (rowid=?)',
    summaryByUid: 'SEARCH summaries USING INDEX summaries_session_uid (session=? AND uid=?)',
    summariesOf: 'SEARCH summaries USING INDEX summaries_session (session=?)',
  }
  const hot = (Object.entries(STATEMENT_SQL) as [Name, string][]).filter(
    ([name, sql]) => !COLD.has(name) && /^\s*(SELECT|UPDATE)/i.test(sql),
  )

  it.each(hot)(
    '%s seeks an index instead of scanning, by its golden plan where one is pinned',
    (name, sql) => {
      const details = plan(sql)
      expect(details.length).toBeGreaterThan(0)
      for (const d of details) expect(d).not.toMatch(/^SCAN (messages|tool_calls|sessions|pin_events)\b/)
      // A full-text query is driven by the FTS5 index (a virtual table's index, never a table scan).
      const seeks = (d: string): boolean =>
        d.startsWith('SEARCH') || (/\bMATCH\b/.test(sql) && /VIRTUAL TABLE INDEX \d+:M/.test(d))
      expect(details.some(seeks), details.join('\n')).toBe(true)
      const expected = golden[name]
      if (expected !== undefined) expect(details[0]).toBe(expected)
    },
  )

  it('pins golden plans only for hot statements, so each one is checked above', () => {
    const hotNames = new Set(hot.map(([name]) => name))
    expect(Object.keys(golden).filter((name) => !hotNames.has(name as Name))).toStrictEqual([])
  })

  it('looks up a set of seqs with one index seek per seq, in one statement', () => {
    expect(plan(STATEMENT_SQL.linksOfUses)).toContain(
      'SEARCH t USING INDEX tool_calls_use (session=? AND use_seq=?)',
    )
    expect(plan(STATEMENT_SQL.linksOfResults)).toContain(
      'SEARCH t USING INDEX tool_calls_answered (session=? AND result_seq=?)',
    )
    expect(plan(STATEMENT_SQL.factsOfSeqs)).toContain(
      'SEARCH m USING INDEX messages_session_seq (session=? AND seq=?)',
    )
    for (const name of ['linksOfUses', 'linksOfResults', 'factsOfSeqs'] as const)
      expect(plan(STATEMENT_SQL[name]).join('\n')).not.toContain('TEMP B-TREE')
  })

  it('reads every kept row only in the statements meant for re-deriving them', () => {
    // The steady path must not: no other statement walks the kept index without a LIMIT.
    for (const [name, sql] of Object.entries(STATEMENT_SQL))
      if (plan(sql).some((d) => d.includes('messages_kept') && !/LIMIT/.test(sql)) && name !== 'window') {
        if (KEPT_RANGE.includes(name))
          expect(plan(sql).join('\n'), name).toMatch(/messages_kept \(session=\? AND seq>\? AND seq<\?\)/)
        else expect(WHOLE_KEPT_SET, name).toContain(name)
      }
  })

  it('links a tool result through the partial index of open calls', () => {
    expect(plan(STATEMENT_SQL.answerToolCall)).toContain(
      'SEARCH tool_calls USING INDEX tool_calls_open (session=? AND tool_use_id=?)',
    )
  })

  it("lists one session's pins by seeking the partial pinned index", () => {
    expect(plan(STATEMENT_SQL.pinnedMessages)).toContain('SEARCH m USING INDEX messages_pinned (session=?)')
  })

  it('reads the window in one statement: kept rows, then the tail', () => {
    const details = plan(STATEMENT_SQL.window).join('\n')
    expect(details).toContain('MERGE (UNION ALL)')
    expect(details).not.toContain('TEMP B-TREE')
    expect(details).toContain('messages_kept')
    expect(details).toContain('messages_session_seq')
  })
})

describe('branch statements', () => {
  const BRANCH_SQL = sqlTexts(BRANCH_STATEMENTS)
  type Name = keyof typeof BRANCH_SQL
  /** Listings across every session or every branch: they walk a table or a partial index once. */
  const cold = new Set<Name>(['branchesWithPins'])
  // What a branch runs on its hot paths (append, window, applyWindow, pins): each seeks an index of its
  // own session (a branch's rows are few: its window's), or a session row by key.
  const golden: Partial<Record<Name, string>> = {
    parentOf: 'SEARCH sessions USING INTEGER PRIMARY KEY (rowid=?)',
    boundaryOf: 'SEARCH sessions USING INTEGER PRIMARY KEY (rowid=?)',
    summaryOwner: 'SEARCH summaries USING INTEGER PRIMARY KEY (rowid=?)',
    branchRowsIn: 'SEARCH o USING INDEX branch_rows_session_seq (session=? AND seq>? AND seq<?)',
    branchKeptSeqs: 'SEARCH branch_rows USING COVERING INDEX branch_rows_kept (session=?)',
    branchKeptTotals: 'SEARCH o USING INDEX branch_rows_kept (session=?)',
    branchRecheckSeqs: 'SEARCH branch_rows USING COVERING INDEX branch_rows_recheck (session=?)',
    branchFirstSettled: 'SEARCH branch_rows USING INDEX branch_rows_kept (session=?)',
    branchPinnedIn:
      'SEARCH branch_rows USING COVERING INDEX branch_rows_pinned (session=? AND seq>? AND seq<?)',
    branchCorrections: 'SEARCH o USING INDEX branch_rows_session_seq (session=? AND seq>? AND seq<?)',
    setForkFlags: 'SEARCH sessions USING INTEGER PRIMARY KEY (rowid=?)',
    unkeepBranchRange: 'SEARCH branch_rows USING INDEX branch_rows_kept (session=? AND seq>? AND seq<?)',
    clearBranchWindowBodies: 'SEARCH branch_rows USING INDEX branch_rows_owner (owner=? AND seq=?)',
    madeCallUpTo: 'SEARCH tool_calls USING INDEX tool_calls_use (session=? AND use_seq<?)',
  }
  const all = Object.entries(BRANCH_SQL) as [Name, string][]
  const reads = all.filter(
    ([name, sql]) => !cold.has(name) && /^\s*(SELECT|UPDATE|WITH|INSERT\b[\s\S]*\bSELECT\b)/i.test(sql),
  )

  it.each(reads)('%s seeks an index instead of scanning a table', (name, sql) => {
    const details = plan(sql)
    for (const d of details)
      expect(d, details.join('\n')).not.toMatch(
        /^SCAN (messages|tool_calls|sessions|pin_events|message_edits|branch_rows|summaries|eviction_log)\b(?! USING)/,
      )
    const expected = golden[name]
    if (expected !== undefined) expect(details[0]).toBe(expected)
  })

  it('reads a branch window in one statement, merged, from its rows and its own', () => {
    const details = plan(BRANCH_SQL.branchWindow).join('\n')
    expect(details).toContain('MERGE (UNION ALL)')
    expect(details).not.toContain('TEMP B-TREE')
    expect(details).toContain('branch_rows_kept')
    expect(details).toContain('branch_rows_session_seq')
    expect(details).toContain('messages_session_seq')
  })

  it('reads the log clock from its one row, by key', () => {
    expect(plan(BRANCH_SQL.tickClock)).toContain('SEARCH search_state USING INTEGER PRIMARY KEY (rowid=?)')
  })

  it('looks an inherited row up through its owner key, one seek per seq', () => {
    expect(plan(BRANCH_SQL.branchRowsOf)).toContain(
      'SEARCH o USING INDEX branch_rows_session_seq (session=? AND seq=?)',
    )
    expect(plan(BRANCH_SQL.linksOfUsesHeld)).toContain(
      'SEARCH t USING INDEX tool_calls_use (session=? AND use_seq=?)',
    )
    // The copy-down before an owner's window-form change: one seek of its children when it has none.
    expect(plan(BRANCH_SQL.copyDownWindowBody).join('\n')).toContain(
      'sessions_children (parent=? AND fork_seq>?)',
    )
  })
})
