/**
 * `context-ledger check` runs the property tests' checker (`src/check/`): it accepts every state the
 * library makes on purpose, and it finds a ledger changed behind the store's back — each corruption below
 * is made with better-sqlite3 on a copy of a real file, and `check` must exit 1 naming the rule.
 */
import { copyFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openContextStore, PersistentConversationManager } from '../../src/index.js'
import { assertWindowRules } from '../helpers/window-rules.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { buildRichLedger, cli } from './support.js'

let dir: TempDir
let rich: string

beforeAll(async () => {
  dir = tempDir('context-ledger-check-')
  rich = dir.file('rich.db')
  const store = openContextStore(rich)
  await buildRichLedger(store)
  store.close()
})
afterAll(() => {
  dir.cleanup()
})

interface Report {
  ok: boolean
  problems: { sessionId: string | null; rule: string; detail: string }[]
}

async function checked(file: string): Promise<{ code: number; report: Report; text: string }> {
  const r = await cli(['check', file, '--json'])
  const text = await cli(['check', file])
  expect(text.code).toBe(r.code)
  return { code: r.code, report: JSON.parse(r.stdout) as Report, text: text.stdout }
}

let copies = 0
/** A copy of the rich ledger changed by `sql` (each statement run with better-sqlite3). */
function corrupted(...sql: string[]): string {
  const file = dir.file(`broken-${++copies}.db`)
  copyFileSync(rich, file)
  const db = new Database(file)
  for (const s of sql) db.exec(s)
  db.close()
  return file
}

const RICH = "(SELECT pk FROM sessions WHERE id = 'support-42')"

describe('check accepts what the library makes on purpose', () => {
  it('a fold by the excess that took the newest turn (the summary the window shows stands for it)', async () => {
    const file = dir.file('fold-newest.db')
    const store = openContextStore(file)
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 2 })
    for (let i = 0; i < 3; i++)
      m.append([
        { role: 'user', content: [{ text: `q${i}` }] },
        { role: 'assistant', content: [{ text: `a${i}` }] },
      ])
    m.pin({ seq: 0 })
    m.pin({ seq: 1 })
    const r = await m.summarizeExcess((x) => `S${x.length}`)
    expect(r.summarized).toBe(4)
    const report = assertWindowRules(store, 's')
    expect(report.chainSeqs).toContain(4)
    store.close()
    const { code, report: json } = await checked(file)
    expect(json.problems).toStrictEqual([])
    expect(code).toBe(0)
  })

  it('the rich ledger (pins, an unpin, edits, a redaction, a late result, two summaries)', async () => {
    const { code, report } = await checked(rich)
    expect(report.problems).toStrictEqual([])
    expect(code).toBe(0)
  })
})

describe('check reads every summary', () => {
  it('of a session with more than the read API returns at once (10,000)', async () => {
    // Dropped summaries, each standing for nothing: valid rows, and many of them.
    const file = corrupted(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10050)
      INSERT INTO summaries (session, uid, from_boundary, to_boundary, seqs, message_count, body, tokens,
        prompt_hash, created_at, ended_at, end_reason)
      SELECT ${RICH}, 'dropped-' || i, 0, 0, '[]', 0,
        json_object('role', 'user', 'content', json_array(json_object('text', 's')), 'trackingId', 'dropped-' || i,
          'metadata', json('{"custom":{"contextLedger":{"summary":true}}}')),
        1, 'h', 1, 2, 'dropped' FROM n`)
    const { code, report } = await checked(file)
    expect(report.problems).toStrictEqual([])
    expect(code).toBe(0)
    // One more, whose replaces names the first of them: seen although it is the oldest.
    const broken = corrupted(`UPDATE summaries SET replaces = 99999 WHERE id = 1`)
    expect((await checked(broken)).code).toBe(1)
  })
})

describe('check finds a ledger changed behind the store’s back', () => {
  const cases: [string, string[], string, RegExp][] = [
    [
      'summary seqs reversed',
      [`UPDATE summaries SET seqs = '[[25,22]]', message_count = -3 WHERE id = 1`],
      'summary seqs',
      /summary 1/,
    ],
    [
      'summary seqs beyond the archive',
      [`UPDATE summaries SET seqs = '[[30,40]]', message_count = 10 WHERE id = 1`],
      'summary seqs',
      /summary 1/,
    ],
    [
      'summary seqs not JSON',
      [`UPDATE summaries SET seqs = '[[1,2' WHERE id = 1`],
      'summary seqs',
      /summary 1/,
    ],
    [
      'a replaces cycle',
      [`UPDATE summaries SET replaces = 2 WHERE id = 1`],
      'summary replaces',
      /summary 1 replaces 2/,
    ],
    [
      'a summary replacing itself',
      [`UPDATE summaries SET replaces = 2 WHERE id = 2`],
      'summary replaces',
      /summary 2 replaces 2/,
    ],
    [
      'a dangling replaces',
      [`UPDATE summaries SET replaces = 99 WHERE id = 2`],
      'summary replaces',
      /summary 2 replaces 99/,
    ],
    [
      'a tool link deleted (a toolResult with no link)',
      [`DELETE FROM tool_calls WHERE tool_use_id = 't3'`],
      'tool links',
      /seq 16/,
    ],
    [
      'a tool link moved (to a message without that toolUse)',
      [`UPDATE tool_calls SET use_seq = 14 WHERE tool_use_id = 't3'`],
      'tool links',
      /seq 14/,
    ],
    [
      'a tool link answered by the wrong message',
      [`UPDATE tool_calls SET result_seq = 17 WHERE tool_use_id = 't3'`],
      'tool links',
      /seq 17/,
    ],
    [
      'the role column disagreeing with the body',
      [`UPDATE messages SET role = 'assistant' WHERE seq = 2 AND session = ${RICH}`],
      'role column',
      /seq 2/,
    ],
    [
      'a pinned column with no pin event',
      [`UPDATE messages SET pinned = 1 WHERE seq = 6 AND session = ${RICH}`],
      'pin log',
      /seq 6/,
    ],
    [
      'a pinned column cleared while the log says pinned',
      [`UPDATE messages SET pinned = 0 WHERE seq = 4 AND session = ${RICH}`],
      'pin log',
      /seq 4/,
    ],
    [
      'cum_tokens not the running sum',
      [`UPDATE messages SET cum_tokens = cum_tokens + 1 WHERE seq = 7 AND session = ${RICH}`],
      'token sums',
      /seq 7/,
    ],
    [
      'every trim point flag cleared',
      [`UPDATE messages SET trim_point = 0 WHERE session = ${RICH}`],
      'derived flags',
      /trim_point/,
    ],
    [
      'junk JSON in sessions.limits',
      [`UPDATE sessions SET limits = '{"windowSize":' WHERE id = 'support-42'`],
      'session limits',
      /not JSON|not limits/,
    ],
    [
      'junk JSON in sessions.metadata',
      [`UPDATE sessions SET metadata = 'not json' WHERE id = 'other'`],
      'session metadata',
      /not JSON/,
    ],
    [
      'a current summary that has ended',
      [`UPDATE summaries SET ended_at = 1, end_reason = 'dropped' WHERE id = 2`],
      'only the current summary is open',
      /summary 2/,
    ],
    [
      'a body that is not JSON',
      [`UPDATE messages SET body = '{bad' WHERE seq = 5 AND session = ${RICH}`],
      'body is JSON',
      /seq 5/,
    ],
    [
      'a kept row at the boundary',
      [`UPDATE messages SET kept = 1 WHERE seq = 29 AND session = ${RICH}`],
      'kept before the boundary',
      /seq 29/,
    ],
  ]

  it.each(cases)('%s', async (_what, sql, rule, detail) => {
    const { code, report, text } = await checked(corrupted(...sql))
    expect(code).toBe(1)
    expect(report.ok).toBe(false)
    const found = report.problems.filter((p) => p.rule === rule)
    expect(found, JSON.stringify(report.problems, null, 2)).not.toHaveLength(0)
    expect(found.map((p) => p.detail).join('\n')).toMatch(detail)
    expect(text).toContain(`: ${rule} — `)
  })

  it('goes on past a row it cannot decode', async () => {
    const { report } = await checked(
      corrupted(
        `UPDATE messages SET body = '{bad' WHERE seq = 5 AND session = ${RICH}`,
        `UPDATE messages SET cum_tokens = 0 WHERE seq = 20 AND session = ${RICH}`,
        `UPDATE summaries SET seqs = 'x' WHERE id = 1`,
      ),
    )
    expect(report.problems.map((p) => p.rule)).toEqual(
      expect.arrayContaining(['body is JSON', 'token sums', 'summary seqs']),
    )
  })
})
