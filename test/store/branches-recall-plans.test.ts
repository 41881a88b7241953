/**
 * The plans of recall on a branch (src/db/branch-recall-statements.ts): every statement seeks an index —
 * a part's messages by the owner's seq index, a candidate by its id, a branch's state on a row by
 * `branch_rows_session_seq`, the eviction log by its key, the full-text query driven by FTS5 — and a
 * search in a root (or in the whole file) runs the trunk's statements as before branches, none of these.
 * Plans do not depend on the clock, so they are asserted here; timings are for bench/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BRANCH_PENDING_STATEMENTS, BRANCH_RECALL_STATEMENTS } from '../../src/db/branch-recall-statements.js'
import { LIFECYCLE_STATEMENTS } from '../../src/db/lifecycle-statements.js'
import { CREATE_PENDING_INDEX } from '../../src/db/recall-statements.js'
import type { ContextStore, MessageData } from '../../src/index.js'
import { countStatements } from '../helpers/statement-counter.js'
import { tempStore } from '../helpers/temp-store.js'

let store: ContextStore
let cleanup: () => void
const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })

beforeAll(() => {
  ;({ store, cleanup } = tempStore())
  for (let i = 0; i < 100; i++) store.append('root', [user(`question ${i} lag`), assistant(`answer ${i}`)])
  store.fork('root', { atSeq: 99, newSessionId: 'b' })
  for (let i = 0; i < 20; i++) store.append('b', [user(`branch ${i} lag`), assistant(`reply ${i}`)])
  store.applyWindow('b', { windowSize: 10, tokenBudget: undefined, first: 0, last: 0 })
  store.connection().exec(CREATE_PENDING_INDEX)
  // No ANALYZE: the store never runs it, so these are the plans users get.
})
afterAll(() => {
  cleanup()
})

function plan(sql: string): string[] {
  const db = store.connection()
  // eslint-disable-next-line no-restricted-syntax -- prefixing our own constant SQL text, no values
  const stmt = db.prepare(`EXPLAIN QUERY PLAN ${sql}`)
  const names = [...new Set([...sql.matchAll(/@(\w+)/g)].map((m) => m[1] as string))]
  const args = Object.fromEntries(
    names.map((n) => [n, n === 'q' ? 'lag' : n === 'skip' ? '["read_history"]' : 1]),
  )
  const count = (sql.match(/\?/g) ?? []).length
  const rows = (names.length > 0 ? stmt.all(args) : stmt.all(...Array.from({ length: count }, () => 1))) as {
    detail: string
  }[]
  return rows.map((r) => r.detail)
}

const STATEMENTS: [string, string][] = [
  ...Object.entries(BRANCH_RECALL_STATEMENTS).map(([n, s]): [string, string] => [n, s.sql]),
  ...Object.entries(BRANCH_PENDING_STATEMENTS).map(([n, s]): [string, string] => [n, s.sql]),
]

describe('the recall statements of branches', () => {
  it.each(STATEMENTS)('%s seeks an index instead of scanning a table', (_name, sql) => {
    const details = plan(sql)
    expect(details.length).toBeGreaterThan(0)
    for (const d of details)
      expect(d).not.toMatch(
        /^SCAN (messages|tool_calls|sessions|branch_rows|summaries|eviction_log)\b(?! USING)/,
      )
  })

  it('reaches a part by the owner’s seq index and a candidate’s state by the branch’s rows', () => {
    expect(plan(BRANCH_RECALL_STATEMENTS.partIdRange.sql).join('\n')).toMatch(
      /SEARCH messages USING (COVERING )?INDEX messages_session_seq \(session=\? AND seq>\?\)/,
    )
    const passes = plan(BRANCH_RECALL_STATEMENTS.branchMessagePasses.sql).join('\n')
    expect(passes).toContain('SEARCH m USING INTEGER PRIMARY KEY (rowid=?)')
    expect(passes).toContain('SEARCH o USING INDEX branch_rows_session_seq (session=? AND seq=?)')
    expect(passes).toContain('SEARCH b USING INTEGER PRIMARY KEY (rowid=?)')
  })

  it('ranks every part in one FTS5 query over the parts’ rowid hull, no row read before a match is kept', () => {
    // The match and the hull both go to FTS5 (`M…><`); a match is kept by its rowid against the parts'
    // ranges, materialized once — no message, session or branch row is read to rank.
    const details = plan(BRANCH_RECALL_STATEMENTS.branchIndexTop.sql)
    expect(details.filter((d) => d.includes('VIRTUAL TABLE INDEX') && d.includes(':M'))).toHaveLength(1)
    expect(details.find((d) => d.startsWith('SCAN f '))).toMatch(/^SCAN f VIRTUAL TABLE INDEX \d+:M\d*></)
    expect(details).toContain('MATERIALIZE parts')
    expect(details.join('\n')).not.toMatch(/\b(messages|sessions|branch_rows)\b/)
  })

  it('drives a part’s full-text query by FTS5 over its rowid range, each match joined by key', () => {
    // The match and the rowid range both go to FTS5 (`M…><`): it never walks the part's messages.
    const details = plan(BRANCH_RECALL_STATEMENTS.branchSearchMessages.sql)
    expect(details[0]).toMatch(/^SCAN f VIRTUAL TABLE INDEX \d+:M\d*></)
    expect(details.join('\n')).toContain('SEARCH m USING INTEGER PRIMARY KEY (rowid=?)')
    expect(details.join('\n')).not.toContain('messages_session_seq')
    expect(plan(BRANCH_PENDING_STATEMENTS.branchSearchPending.sql)[0]).toMatch(
      /^SCAN f VIRTUAL TABLE INDEX \d+:M/,
    )
    const summaries = plan(BRANCH_RECALL_STATEMENTS.branchSearchSummaries.sql)
    expect(summaries[0]).toMatch(/^SCAN f VIRTUAL TABLE INDEX \d+:M/)
    expect(summaries.join('\n')).toContain('SEARCH x USING INTEGER PRIMARY KEY (rowid=?)')
  })

  it('reads an ancestor’s log by its key, from the seq on and up to the last inherited seq', () => {
    expect(plan(BRANCH_RECALL_STATEMENTS.inheritedEvictionsFrom.sql)[0]).toBe(
      'SEARCH eviction_log USING PRIMARY KEY (session=? AND to_seq>? AND to_seq<?)',
    )
    expect(plan(BRANCH_RECALL_STATEMENTS.inheritedEvictionOf.sql)[0]).toBe(
      'SEARCH eviction_log USING PRIMARY KEY (session=? AND to_seq>?)',
    )
  })

  it('keeps a live branch’s rows out of a prune with one seek of branch_rows_owner per candidate', () => {
    expect(plan(LIFECYCLE_STATEMENTS.pruneCandidates.sql).join('\n')).toContain(
      'SEARCH o USING INDEX branch_rows_owner (owner=? AND seq=?)',
    )
  })
})

describe('a search in a root', () => {
  it('runs the trunk’s statements, as before branches; a branch’s ranks its parts in one query', () => {
    const counter = countStatements(store)
    const root = counter.measure(() => store.search('lag', { sessionId: 'root', inWindow: false }))
    expect(root.byName.sessionIdRange).toBe(1)
    expect(root.byName.searchIndexTop).toBeGreaterThan(0)
    expect(root.byName.searchMessages ?? 0).toBe(0)
    const all = counter.measure(() => store.search('lag'))
    expect(all.byName.sessionIdRange ?? 0).toBe(0)
    const branch = counter.measure(() => store.search('lag', { sessionId: 'b', inWindow: false }))
    expect(branch.byName.sessionIdRange ?? 0).toBe(0)
    expect(branch.byName.messagePasses ?? 0).toBe(0)
    // The store's own statements only (the branch's are prepared apart): no per-part `searchIndexTop`.
    expect(branch.byName.searchIndexTop ?? 0).toBe(0)
  })
})
