/**
 * Every hot statement must seek an index (a SEARCH), never SCAN the messages table: that is what keeps
 * append, window and applyWindow flat as the archive grows. Plans do not depend on the clock, so they are
 * asserted here; the timings live in bench/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { STATEMENT_SQL } from '../../src/db/statements.js'
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
  store.connection().exec('ANALYZE')
})
afterAll(() => cleanup())

/** Statements that may read whole tables: listings over all sessions, and the pin log of a session. */
const COLD = new Set(['allSessions', 'pinnedMessages'])

function plan(sql: string): string[] {
  const db = store.connection()
  // eslint-disable-next-line no-restricted-syntax -- prefixing our own constant SQL text, no values
  const stmt = db.prepare(`EXPLAIN QUERY PLAN ${sql}`)
  const named = /@s\b/.test(sql)
  const count = (sql.match(/\?/g) ?? []).length
  const rows = (named ? stmt.all({ s: 1 }) : stmt.all(...Array.from({ length: count }, () => 1))) as {
    detail: string
  }[]
  return rows.map((r) => r.detail)
}

describe('statements', () => {
  const hot = Object.entries(STATEMENT_SQL).filter(
    ([name, sql]) => !COLD.has(name) && /^\s*(SELECT|UPDATE)/i.test(sql),
  )
  it.each(hot)('%s seeks an index instead of scanning', (_name, sql) => {
    const details = plan(sql)
    expect(details.length).toBeGreaterThan(0)
    for (const d of details) expect(d).not.toMatch(/^SCAN (messages|tool_calls|sessions|pin_events)\b/)
    expect(details.some((d) => d.startsWith('SEARCH'))).toBe(true)
  })

  it('uses the partial indexes for pins, kept rows, trim points and pair starts', () => {
    expect(plan(STATEMENT_SQL.pinnedSeqs).join('\n')).toContain('messages_pinned')
    expect(plan(STATEMENT_SQL.keptSeqs).join('\n')).toContain('messages_kept')
    expect(plan(STATEMENT_SQL.firstTrimPoint).join('\n')).toContain('messages_trim_points')
    expect(plan(STATEMENT_SQL.firstPairStart).join('\n')).toContain('messages_pair_starts')
    expect(plan(STATEMENT_SQL.seekCumulative).join('\n')).toContain('messages_session_cum')
  })

  it('reads the window in one statement: kept rows, then the tail', () => {
    expect(STATEMENT_SQL.window).toMatch(/UNION ALL/)
    const details = plan(STATEMENT_SQL.window).join('\n')
    expect(details).toContain('messages_kept')
    expect(details).toContain('messages_session_seq')
  })
})
