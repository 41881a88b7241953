/**
 * `export` then `import`: the session comes back exactly — every column of every table's rows for it
 * (but surrogate keys), byte-identical bodies, and the same window, archive, explanation and summaries —
 * under its own id or another (`--as`); an existing id, a malformed line and a truncated export are
 * refused with nothing imported.
 */
import { copyFileSync, existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { buildRichLedger, cli } from './support.js'

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'ledger-schema0.sqlite')

let dir: TempDir
let source: string
let exported: string

/** Every row of every table for a session, surrogate keys left out (summaries named by their uid). */
const TABLES = {
  sessions: `SELECT created_at, updated_at, metadata, boundary, version, kept_count, kept_tokens, kept_first, limits,
      (SELECT uid FROM summaries x WHERE x.id = s.summary) AS summary FROM sessions s WHERE s.id = ?`,
  messages: `SELECT seq, uid, role, body, tokens, cum_tokens, pinned, kept, recheck, plain_user, trim_point, pair_start,
      has_tool_use, has_tool_result, created_at, window_body, window_tokens, repeat_of, late
    FROM messages WHERE session = (SELECT pk FROM sessions WHERE id = ?) ORDER BY seq`,
  tool_calls: `SELECT tool_use_id, name, use_seq, result_seq, status FROM tool_calls
    WHERE session = (SELECT pk FROM sessions WHERE id = ?) ORDER BY id`,
  pin_events: `SELECT seq, action, actor, reason, at FROM pin_events
    WHERE session = (SELECT pk FROM sessions WHERE id = ?) ORDER BY id`,
  message_edits: `SELECT seq, kind, actor, reason, at, body FROM message_edits
    WHERE session = (SELECT pk FROM sessions WHERE id = ?) ORDER BY id`,
  summaries: `SELECT uid, (SELECT uid FROM summaries r WHERE r.id = x.replaces) AS replaces,
      (SELECT uid FROM summaries r WHERE r.id = x.regenerates) AS regenerates, from_boundary, to_boundary, seqs,
      message_count, body, tokens, model, prompt_hash, created_at, ended_at, end_reason
    FROM summaries x WHERE session = (SELECT pk FROM sessions WHERE id = ?) ORDER BY id`,
  eviction_log: `SELECT to_seq, version, from_seq, at, cut, reason, (SELECT uid FROM summaries x WHERE x.id = e.summary) AS summary
    FROM eviction_log e WHERE session = (SELECT pk FROM sessions WHERE id = ?) ORDER BY to_seq, version`,
}

function rowsOf(path: string, sessionId: string): Record<string, unknown[]> {
  const db = new Database(path, { readonly: true })
  try {
    return Object.fromEntries(Object.entries(TABLES).map(([t, sql]) => [t, db.prepare(sql).all(sessionId)]))
  } finally {
    db.close()
  }
}

function reads(path: string, sessionId: string): unknown {
  const store = openContextStore(path, { readonly: true })
  try {
    const { sessionId: _, ...explained } = store.explainWindow(sessionId) ?? {}
    return {
      window: store.window(sessionId),
      history: store.history(sessionId, { limit: 1000 }).map(({ sessionId: _s, ...e }) => e),
      summaries: store.summaries(sessionId).map(({ sessionId: _s, id: _i, replaces: _r, ...s }) => s),
      explained: JSON.parse(JSON.stringify(explained)) as unknown,
      edits: store.edits(sessionId).map(({ sessionId: _s, ...e }) => e),
      pinEvents: store.pinEvents(sessionId).map(({ sessionId: _s, ...e }) => e),
      evictions: store
        .evictions(sessionId, { limit: 10_000 })
        .map(({ sessionId: _s, summaryId, ...e }) => ({ ...e, folded: summaryId !== undefined })),
      search: store
        .search('replication lag', { sessionId, limit: 100 })
        .map((h) => [h.seq, h.snippet, h.inWindow]),
    }
  } finally {
    store.close()
  }
}

beforeAll(async () => {
  dir = tempDir('context-ledger-cli-export-')
  source = dir.file('agent.db')
  const store = openContextStore(source)
  await buildRichLedger(store)
  // An edit's earlier form stored as text that writing its JSON again would not reproduce (another
  // tool's formatting; a message body never is: the checker refuses one, see row-rules.test.ts).
  store
    .connection()
    .prepare(
      "UPDATE message_edits SET body = replace(body, '\"content\":', '\"content\" : ') WHERE kind = 'edit' AND session = (SELECT pk FROM sessions WHERE id = 'support-42')",
    )
    .run()
  store.close()
  const r = await cli(['export', source, 'support-42'])
  expect(r.code, r.stderr).toBe(0)
  exported = r.stdout
})
afterAll(() => {
  dir.cleanup()
})

describe('export', () => {
  it('writes a header, then messages, tool calls, pin events, edits, summaries and eviction log rows, one JSON object per line', () => {
    const lines = exported
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; raw?: string[]; seq?: number })
    expect(lines[0]).toMatchObject({
      type: 'header',
      format: 'context-ledger-export',
      version: 1,
      session: { id: 'support-42', boundary: 29, limits: { windowSize: 8, first: 1, last: 0 } },
      counts: { messages: 32, toolCalls: 7, pinEvents: 4, edits: 2, summaries: 2, evictions: 8 },
    })
    const types = lines.map((l) => l.type)
    expect([...new Set(types)]).toStrictEqual([
      'header',
      'message',
      'toolCall',
      'pinEvent',
      'edit',
      'summary',
      'eviction',
    ])
    expect(lines.filter((l) => l.raw !== undefined).map((l) => [l.seq, l.raw])).toStrictEqual([
      [5, ['message']],
    ])
  })

  it('refuses an output it cannot write, in one line', async () => {
    const r = await cli(['export', source, 'support-42', '--output', dir.file('no/such/dir/out.jsonl')])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^context-ledger: .*out\.jsonl: cannot be written \(ENOENT\)\n$/)
  })

  it('--output writes the same lines to a file', async () => {
    const out = dir.file('out.jsonl')
    const r = await cli(['export', source, 'support-42', '--output', out])
    expect(r.code).toBe(0)
    const strip = (t: string): string => t.replace(/"exportedAt":"[^"]+"/, '')
    expect(strip(readFileSync(out, 'utf8'))).toBe(strip(exported))
  })
})

describe('import', () => {
  it('restores the session exactly: every row of every table, the window, the archive and the reasons', async () => {
    const target = dir.file('restored.db')
    const r = await cli(['import', target], { stdin: exported })
    expect(r.code, r.stderr).toBe(0)
    const rows = rowsOf(source, 'support-42')
    expect(Object.values(rows).map((r) => r.length)).toStrictEqual([1, 32, 7, 4, 2, 2, 8])
    expect(rowsOf(target, 'support-42')).toStrictEqual(rows)
    expect(reads(target, 'support-42')).toStrictEqual(reads(source, 'support-42'))
    expect((await cli(['check', target])).code).toBe(0)
  })

  it('imports an export from before the eviction log with an empty log, and refuses a bad eviction line', async () => {
    const lines = exported.trimEnd().split('\n')
    const header = JSON.parse(lines[0] ?? '{}') as { counts: Record<string, number> }
    delete header.counts.evictions
    const old = [JSON.stringify(header), ...lines.slice(1).filter((l) => !l.includes('"type":"eviction"'))]
    const target = dir.file('before-log.db')
    const r = await cli(['import', target], { stdin: `${old.join('\n')}\n` })
    expect(r.code, r.stderr).toBe(0)
    const store = openContextStore(target, { readonly: true })
    expect(store.evictions('support-42')).toStrictEqual([])
    expect(store.search('replication lag', { sessionId: 'support-42' }).length).toBeGreaterThan(0)
    store.close()
    const bad = lines.map((l) =>
      l.includes('"type":"eviction"') ? l.replace(/"summary":(null|\d+)/, '"summary":99') : l,
    )
    const refused = await cli(['import', dir.file('bad-eviction.db')], { stdin: `${bad.join('\n')}\n` })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/summary 99 names no summary of the export/)
    // Well-formed lines that describe no log the library could write: the shared checker refuses them.
    const bogus = lines.map((l) =>
      l.includes('"type":"eviction"') ? l.replace(/"cut":"[^"]*"/, '"cut":"bogus"') : l,
    )
    const checked = await cli(['import', dir.file('bogus-eviction.db')], { stdin: `${bogus.join('\n')}\n` })
    expect(checked.code).toBe(2)
    expect(checked.stderr).toMatch(/eviction log kind/)
    expect(existsSync(dir.file('bogus-eviction.db'))).toBe(false)
  })

  it('refuses an id the file has, and takes --as <newId>', async () => {
    const target = dir.file('twice.db')
    expect((await cli(['import', target], { stdin: exported })).code).toBe(0)
    const again = await cli(['import', target], { stdin: exported })
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('already has a session "support-42"; nothing was imported')
    expect(again.stderr).toContain('--as')
    const as = await cli(['import', target, '--as', 'support-43', '--json'], { stdin: exported })
    expect(as.code, as.stderr).toBe(0)
    expect(JSON.parse(as.stdout)).toMatchObject({ sessionId: 'support-43', messages: 32, summaries: 2 })
    expect(rowsOf(target, 'support-43')).toStrictEqual(rowsOf(source, 'support-42'))
  })

  it('refuses a file of an older schema instead of upgrading it on the side', async () => {
    const old = dir.file('old.db')
    copyFileSync(FIXTURE, old)
    const before = readFileSync(old)
    const r = await cli(['import', old], { stdin: exported })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('uses ledger schema version 1')
    expect(readFileSync(old).equals(before)).toBe(true)
  })

  it('does not wait for a terminal: stdin must be redirected, or --input given', async () => {
    const r = await cli(['import', dir.file('tty.db')], { stdinTTY: true })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('import reads an export from stdin')
    expect((await cli(['import', dir.file('tty.db'), '--input', dir.file('none.jsonl')])).stderr).toContain(
      'no such file to import',
    )
  })

  it('reads --input instead of stdin', async () => {
    const file = dir.file('in.jsonl')
    expect((await cli(['export', source, 'other', '-o', file])).code).toBe(0)
    const target = dir.file('from-file.db')
    expect((await cli(['import', target, '--input', file])).code).toBe(0)
    expect(rowsOf(target, 'other')).toStrictEqual(rowsOf(source, 'other'))
  })

  it('refuses a malformed line with its number, and a truncated export, importing nothing', async () => {
    const lines = exported.trimEnd().split('\n')
    const cases: [string, string][] = [
      [[...lines.slice(0, 4), '{"type":"message"', ...lines.slice(5)].join('\n'), 'line 5: not JSON'],
      [[...lines.slice(0, 6), '{"type":"message","seq":"x"}', ...lines.slice(7)].join('\n'), 'line 7: '],
      [
        [...lines.slice(0, 3), lines[4] ?? '', lines[3] ?? '', ...lines.slice(5)].join('\n'),
        'line 4: message seq 3 out of order',
      ],
      [
        lines.slice(0, 20).join('\n'),
        'the export ends at line 20 with 19 messages, where its header says 32',
      ],
      [lines.slice(1).join('\n'), 'line 1: not the header of a context-ledger export'],
      ['', 'the input is empty'],
    ]
    for (const [input, message] of cases) {
      const target = dir.file('bad.db')
      const r = await cli(['import', target], { stdin: input })
      expect(r.code, message).toBe(2)
      expect(r.stderr).toContain(message)
      expect(r.stderr).toContain('nothing was imported')
      expect(existsSync(target)).toBe(false)
    }
    // Into an existing ledger: the transaction is all or nothing.
    const target = dir.file('existing.db')
    expect((await cli(['import', target, '--as', 'first'], { stdin: exported })).code).toBe(0)
    const bad = [...lines.slice(0, -1), '{"type":"summary"}'].join('\n')
    expect((await cli(['import', target, '--as', 'second'], { stdin: bad })).code).toBe(2)
    expect(JSON.parse((await cli(['sessions', target, '--json'])).stdout)).toMatchObject({
      sessions: [{ id: 'first' }],
    })
  })
})
