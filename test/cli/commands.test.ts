/**
 * The read commands on a real ledger with every kind of fact (test/cli/support.ts): what each prints for
 * people and for scripts (`--json`), the reasons `window --explain` gives, and the exit codes and
 * one-line errors of everything that can go wrong.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { buildRichLedger, cli } from './support.js'

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'ledger-schema0.sqlite')

let dir: TempDir
let path: string

beforeAll(async () => {
  dir = tempDir('context-ledger-cli-')
  path = dir.file('agent.db')
  const store = openContextStore(path)
  await buildRichLedger(store)
  store.close()
})
afterAll(() => {
  dir.cleanup()
})

async function json<T>(argv: string[]): Promise<T> {
  const r = await cli([...argv, '--json'])
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as T
}

/** An error run: exit 2, one line on stderr, no stack trace. */
async function refused(argv: string[]): Promise<string> {
  const r = await cli(argv)
  expect(r.code).toBe(2)
  expect(r.stderr.trim().split('\n')[0]).toMatch(/^context-ledger: /)
  expect(r.stderr).not.toMatch(/\n\s+at /)
  return r.stderr
}

describe('sessions', () => {
  it('lists every session with its sizes, for people and as JSON', async () => {
    const table = await cli(['sessions', path])
    expect(table.code).toBe(0)
    expect(table.stdout).toMatch(/messages\s+window\s+window tokens\s+tokens\s+pins\s+summaries/)
    expect(table.stdout).toContain('support-42')
    expect(table.stdout).toMatch(/^2 sessions, \d+ messages$/m)
    const { sessions } = await json<{ sessions: Record<string, unknown>[] }>(['sessions', path])
    expect(sessions.map((s) => s.id)).toStrictEqual(['other', 'support-42'])
    const rich = sessions[1] ?? {}
    expect(Object.keys(rich).sort()).toStrictEqual(
      [
        'boundary',
        'createdAt',
        'forkSeq',
        'format',
        'id',
        'kind',
        'messageCount',
        'parentId',
        'pinnedCount',
        'summaryCount',
        'summaryId',
        'totalTokens',
        'updatedAt',
        'windowMessages',
        'windowTokens',
      ].sort(),
    )
    expect(rich).toMatchObject({
      format: 'strands',
      // A root: no parent, no fork point.
      parentId: null,
      forkSeq: null,
      kind: 'root',
      messageCount: 32,
      pinnedCount: 2,
      summaryCount: 2,
      summaryId: 2,
    })
    // Every session is Strands: no format column.
    expect(table.stdout).not.toMatch(/\bformat\b/)
  })

  it('sorts by size on request', async () => {
    const { sessions } = await json<{ sessions: { id: string }[] }>(['sessions', path, '--sort', 'messages'])
    expect(sessions[0]?.id).toBe('support-42')
  })
})

describe('window --explain', () => {
  interface Explained {
    boundary: number
    limits: { windowSize: number; first: number; last: number }
    summary: { id: number; messageCount: number } | null
    windowMessages: number
    messages: { seq: number | null; part: string; reasons: { kind: string; [k: string]: unknown }[] }[]
  }

  it('says why each message is in the window', async () => {
    const w = await json<Explained>(['window', path, 'support-42', '--explain'])
    const why = new Map(w.messages.map((m) => [m.seq, m.reasons]))
    expect(w.limits).toMatchObject({ windowSize: 8, first: 1, last: 0 })
    expect(why.get(0)).toStrictEqual([{ kind: 'first', n: 1 }])
    expect(why.get(1)).toMatchObject([{ kind: 'pinned', actor: 'agent', reason: 'the plan' }])
    expect(why.get(4)).toMatchObject([{ kind: 'pinned', actor: 'ops', reason: 'first lag reading' }])
    expect(why.get(3)).toStrictEqual([{ kind: 'tool-partner', of: [4] }])
    expect(why.get(null)).toStrictEqual([{ kind: 'summary', id: 2, messageCount: 4 }])
    expect(why.get(w.boundary)?.[0]).toStrictEqual({ kind: 'tail' })
    expect(why.get(29)).toStrictEqual([{ kind: 'tail' }, { kind: 'newest-turn' }])
    expect(w.messages.map((m) => m.part)).toStrictEqual([
      'kept',
      'kept',
      'kept',
      'kept',
      'summary',
      ...w.messages.slice(5).map(() => 'tail'),
    ])
    expect(w.messages).toHaveLength(w.windowMessages)
  })

  it('prints the boundary, the limits and a why column, elided to the width', async () => {
    const r = await cli(['window', path, 'support-42', '--explain'], {
      columns: 70,
      tty: true,
      env: { NO_COLOR: '1' },
    })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('limits (as last applied): windowSize 8, tokenBudget none, first 1, last 0')
    expect(r.stdout).toContain('boundary 29')
    expect(r.stdout).toContain('pinned by agent: the plan')
    for (const line of r.stdout.split('\n').slice(4))
      expect(Array.from(new Intl.Segmenter().segment(line)).length).toBeLessThanOrEqual(70)
    expect(r.stdout).toContain('…')
  })

  it('without --explain, lists the window; --full shows whole messages', async () => {
    const plain = await json<{ messages: Record<string, unknown>[] }>(['window', path, 'other'])
    expect(plain.messages.map((m) => m.reasons)).toStrictEqual([undefined, undefined])
    const full = await cli(['window', path, 'other', '--full'])
    expect(full.stdout).toContain('hi there')
  })

  it('colours only a terminal, and never with NO_COLOR', async () => {
    expect((await cli(['window', path, 'other'], { tty: true })).stdout).toContain('\u001b[')
    expect(
      (await cli(['window', path, 'other'], { tty: true, env: { NO_COLOR: '1' } })).stdout,
    ).not.toContain('\u001b[')
    expect((await cli(['window', path, 'other'])).stdout).not.toContain('\u001b[')
  })
})

describe('history, pins, search, evictions, stats', () => {
  it('history pages through the archive with each message’s place', async () => {
    const h = await json<{
      entries: { seq: number; inWindow: boolean; windowMessage: unknown; late: boolean }[]
    }>(['history', path, 'support-42', '--from', '4', '--limit', '3'])
    expect(h.entries.map((e) => e.seq)).toStrictEqual([4, 5, 6])
    expect(h.entries[1]?.windowMessage).toMatchObject({ content: [{ text: 'Round 0: lag fine.' }] })
    const table = await cli(['history', path, 'support-42', '--limit', '3'])
    expect(table.stdout).toMatch(/more: context-ledger history .* --from 3/)
  })

  it('pins says who pinned what, and filters by actor and session', async () => {
    const all = await json<{ pins: { seq: number; actor: string; reason: string | null }[] }>(['pins', path])
    expect(all.pins.map((p) => [p.seq, p.actor, p.reason])).toStrictEqual([
      [1, 'agent', 'the plan'],
      [4, 'ops', 'first lag reading'],
    ])
    const ops = await json<{ pins: unknown[] }>(['pins', path, '--actor', 'ops', '--session', 'support-42'])
    expect(ops.pins).toHaveLength(1)
  })

  it('search finds text in evicted messages too, and says how it searched', async () => {
    const r = await json<{ method: string; matches: { seq: number; inWindow: boolean; snippet: string }[] }>([
      'search',
      path,
      'replication LAG',
      '--session',
      'support-42',
    ])
    expect(r.method).toBe('index')
    expect(r.matches.length).toBeGreaterThan(3)
    expect(r.matches.some((m) => !m.inWindow)).toBe(true)
    expect(r.matches[0]?.snippet).toContain('replication lag')
    // The substring scan, for what words cannot say; the same messages for plain words.
    const scan = await json<{ method: string; matches: { seq: number }[] }>([
      'search',
      path,
      'replication LAG',
      '--session',
      'support-42',
      '--scan',
      '--limit',
      '100',
    ])
    expect(scan.method).toBe('scan')
    const all = await json<{ matches: { seq: number }[] }>([
      'search',
      path,
      'replication LAG',
      '--session',
      'support-42',
      '--limit',
      '100',
    ])
    expect(all.matches.map((m) => m.seq).sort((a, b) => a - b)).toStrictEqual(scan.matches.map((m) => m.seq))
    const quoted = await json<{ matches: unknown[] }>(['search', path, '"sql":', '--scan', '--limit', '1'])
    expect(quoted.matches).toHaveLength(1)
    expect((await cli(['search', path, 'zebra'])).stdout).toContain('no message matches "zebra"')
    expect((await cli(['search', path, 'zebra', '--scan'])).stdout).toContain('no message contains "zebra"')
    const prefix = await json<{ matches: unknown[] }>(['search', path, 'replic*', '--fts5'])
    expect(prefix.matches.length).toBeGreaterThan(3)
    const bad = await cli(['search', path, 'NEAR(', '--fts5', '--json'])
    expect(bad.code).toBe(2)
    expect(bad.stdout + bad.stderr).toMatch(/INVALID_QUERY|Invalid search query/)
  })

  it('evictions reports what left, what stands for it now, and what the schema cannot say', async () => {
    const e = await json<{
      evictedMessages: number
      eventLog: boolean
      events: { fromSeq: number; lastSeq: number; cut: string; summaryId: number | null }[]
      ranges: { fromSeq: number; toSeq: number; cause: string; summaryId: number | null }[]
      summaries: { id: number; current: boolean; endReason: string | null }[]
      unpins: { seq: number }[]
    }>(['evictions', path, 'support-42'])
    // The fixture was made by this library: the eviction log covers every evicted message.
    expect(e.eventLog).toBe(true)
    expect(e.events.length).toBeGreaterThan(0)
    for (const ev of e.events) expect(ev.lastSeq).toBeGreaterThanOrEqual(ev.fromSeq)
    expect(e.events.filter((ev) => ev.cut === 'fold').map((ev) => ev.summaryId)).toContain(1)
    expect(e.ranges.reduce((n, r) => n + r.toSeq - r.fromSeq, 0)).toBe(e.evictedMessages)
    expect(e.ranges.filter((r) => r.cause === 'summary').map((r) => r.summaryId)).toStrictEqual([1, 1, 2])
    expect(e.summaries.map((s) => [s.id, s.current, s.endReason])).toStrictEqual([
      [1, false, 'replaced'],
      [2, true, null],
    ])
    expect(e.unpins.map((u) => u.seq)).toStrictEqual([10])
  })

  it('stats describes the file and every session', async () => {
    const s = await json<{
      schemaVersion: number
      currentSchemaVersion: number
      pageSize: number
      messages: number
    }>(['stats', path])
    expect(s.schemaVersion).toBe(s.currentSchemaVersion)
    expect(s.pageSize).toBe(1024)
    expect(s.messages).toBe(34)
  })
})

describe('check', () => {
  it('passes a healthy ledger', async () => {
    const r = await cli(['check', path])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('window rules hold in 2 sessions')
  })

  it('shows progress on a terminal’s stderr only, and not with --no-progress', async () => {
    expect((await cli(['check', path], { tty: true })).stderr).toContain(`checking ${path}`)
    expect((await cli(['check', path, '--no-progress'], { tty: true })).stderr).toBe('')
    expect((await cli(['check', path])).stderr).toBe('')
  })

  it('exits 1 and lists what is wrong when a row was changed behind the store’s back', async () => {
    const broken = dir.file('broken.db')
    copyFileSync(path, broken)
    const db = new Database(broken)
    db.prepare(
      "UPDATE messages SET kept = 0 WHERE seq = 1 AND session = (SELECT pk FROM sessions WHERE id = 'support-42')",
    ).run()
    db.prepare(
      "UPDATE messages SET cum_tokens = cum_tokens + 1 WHERE seq = 3 AND session = (SELECT pk FROM sessions WHERE id = 'other')",
    ).run()
    db.close()
    const r = await cli(['check', broken, '--json'])
    expect(r.code).toBe(1)
    const report = JSON.parse(r.stdout) as { ok: boolean; problems: { sessionId: string; rule: string }[] }
    expect(report.ok).toBe(false)
    expect(report.problems.map((p) => `${p.sessionId} ${p.rule}`)).toEqual(
      expect.arrayContaining(['support-42 protected in window', 'support-42 kept totals']),
    )
    const text = await cli(['check', broken])
    expect(text.code).toBe(1)
    expect(text.stdout).toMatch(/✗ support-42: protected in window — protected seqs 1 are not in the window/)
  })
})

describe('backup and upgrade', () => {
  it('backup copies a live file; the copy reads the same', async () => {
    const copy = dir.file('copy.db')
    const r = await cli(['backup', path, copy])
    expect(r.code, r.stderr).toBe(0)
    expect((await cli(['sessions', copy, '--json'])).stdout.replaceAll(copy, path)).toBe(
      (await cli(['sessions', path, '--json'])).stdout,
    )
    expect(await refused(['backup', path, copy])).toContain('--overwrite')
  })

  it('an older schema is reported with the way to upgrade, never upgraded by reading; upgrade does it', async () => {
    const old = dir.file('old.db')
    copyFileSync(FIXTURE, old)
    const msg = await refused(['window', old, 'fixture-main'])
    expect(msg).toContain('uses ledger schema version 1')
    expect(msg).toContain(`context-ledger upgrade ${old}`)
    const s = await json<{ schemaVersion: number; sessions: { id: string; messages: number }[] }>([
      'stats',
      old,
    ])
    expect(s.schemaVersion).toBe(1)
    expect(s.sessions).toContainEqual(expect.objectContaining({ id: 'fixture-main', messages: 28 }))
    const c = await cli(['check', old])
    expect(c.code).toBe(2)
    expect(c.stdout).toContain('integrity ok')
    expect(c.stderr).toContain('window rules not checked')
    const backup = dir.file('old-copy.db')
    expect((await cli(['backup', old, backup])).code).toBe(0)
    const up = await json<{ from: number; to: number; upgraded: boolean }>(['upgrade', backup])
    expect(up).toMatchObject({ from: 1, upgraded: true })
    expect((await cli(['check', backup])).code).toBe(0)
    expect((await json<{ upgraded: boolean }>(['upgrade', backup])).upgraded).toBe(false)
  })
})

describe('errors: one line, what to do, exit 2', () => {
  it('a missing file', async () => {
    expect(await refused(['sessions', dir.file('typo.db')])).toContain('no such file')
  })

  it('a file that is not a ledger, an empty file, a directory', async () => {
    const text = dir.file('notes.txt')
    writeFileSync(text, 'just some text that is not a database at all, long enough to be read')
    expect(await refused(['sessions', text])).toContain('is not a context-ledger file')
    const other = dir.file('other-app.db')
    const db = new Database(other)
    db.exec('CREATE TABLE t (x)')
    db.close()
    expect(await refused(['window', other, 's'])).toContain('is not a context-ledger file')
    const empty = dir.file('empty.db')
    writeFileSync(empty, '')
    expect(await refused(['sessions', empty])).toContain('empty')
    mkdirSync(dir.file('folder.db'))
    expect(await refused(['stats', dir.file('folder.db')])).toContain('directory')
  })

  it('an unknown session names the command that lists them', async () => {
    for (const argv of [
      ['window', path, 'nope'],
      ['history', path, 'nope'],
      ['evictions', path, 'nope'],
      ['export', path, 'nope'],
      ['pins', path, '--session', 'nope'],
      ['search', path, 'x', '--session', 'nope'],
      ['check', path, '--session', 'nope'],
    ])
      expect(await refused(argv)).toContain(
        `no session "nope" in ${path}; list the sessions with: context-ledger sessions`,
      )
  })

  it('usage errors: an unknown command or option, a bad number, a missing argument', async () => {
    for (const argv of [
      ['frobnicate'],
      ['sessions'],
      ['history', path, 's', '--limit', 'ten'],
      ['sessions', path, '--bogus'],
    ]) {
      const r = await cli(argv)
      expect(r.code, argv.join(' ')).toBe(2)
      expect(r.stderr).toMatch(/^context-ledger: /)
    }
  })

  it('with --json, also a JSON error on stdout', async () => {
    const r = await cli(['window', path, 'nope', '--json'])
    expect(r.code).toBe(2)
    expect(JSON.parse(r.stdout)).toStrictEqual({
      error: { code: 'UNKNOWN_SESSION', message: expect.stringContaining('no session "nope"') as unknown },
    })
  })

  it('--help and --version exit 0', async () => {
    const help = await cli(['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('Usage: context-ledger')
    for (const command of [
      'sessions',
      'window',
      'history',
      'pins',
      'search',
      'evictions',
      'stats',
      'check',
      'export',
      'import',
      'backup',
      'upgrade',
    ])
      expect(help.stdout).toContain(command)
    expect((await cli(['window', '--help'])).stdout).toContain('--explain')
    expect((await cli(['--version'])).code).toBe(0)
  })
})
