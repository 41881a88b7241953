/**
 * `export` and `import` keep a tree of branches (docs/cli.md, "export", "import"), on real SQLite files:
 * `export --tree` writes a session and every branch below it, and `import` restores them exactly — every
 * column of every row of every table, each key that names another session or summary named again by id —
 * so each session's window, history, evictions and search are what they were. A branch imports into a
 * file that holds its parent. An input whose parents loop (`BRANCH_CYCLE`) or name a parent neither in
 * the input nor in the file (`INVALID_OPTIONS`) is refused naming the session, and nothing is written.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import type Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import {
  openContextStore,
  PersistentConversationManager,
  type ContextStore,
  type MessageData,
} from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'
import { cli } from './support.js'

const dir = useTempDir('context-ledger-cli-branch-export-')

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })
const call = (id: string): MessageData => ({
  role: 'assistant',
  content: [{ toolUse: { toolUseId: id, name: 'run_sql', input: { sql: 'SELECT 1' } } }],
})
const result = (id: string): MessageData => ({
  role: 'user',
  content: [{ toolResult: { toolUseId: id, status: 'success', content: [{ text: 'one row' }] } }],
})

/**
 * A tree with every kind of fact: pins (inherited and the branch's own), a summary a branch inherits
 * and one it folds it into, an edit, a call open at a fork point and answered in the branch, a rewind
 * (its abandoned branch and its 'rewind' row), a fork of a fork.
 */
async function richTree(store: ContextStore): Promise<void> {
  const root = new PersistentConversationManager({ store, sessionId: 'root', windowSize: 6 })
  for (let i = 0; i < 5; i++) root.append([user(`root question ${i}`), assistant(`root answer ${i}`)])
  root.pin({ seq: 1 }, { actor: 'agent', reason: 'the plan' })
  await root.summarize(() => 'Earlier: the root discussed indexes.', {
    summaryRatio: 0.5,
    preserveRecentMessages: 2,
  })
  root.append([user('run it'), call('t1')])
  store.fork('root', {
    atSeq: store.messageCount('root') - 1,
    newSessionId: 'b',
    actor: 'agent',
    reason: 'the other plan',
  })
  const b = new PersistentConversationManager({ store, sessionId: 'b', windowSize: 6 })
  b.append([result('t1'), assistant('done in the branch')])
  b.pin({ seq: 3 }, { actor: 'user' })
  b.edit({ seq: 10 }, user('run it, carefully'), { actor: 'user', reason: 'tone' })
  for (let i = 0; i < 3; i++) b.append([user(`branch question ${i}`), assistant(`branch answer ${i}`)])
  await b.summarize(() => 'The branch folded the root summary and more.', {
    summaryRatio: 0.5,
    preserveRecentMessages: 2,
  })
  store.fork('b', { atSeq: 14, newSessionId: 'c' })
  store.append('c', [assistant('c speaks')])
  store.rewind('b', { toSeq: 15, reason: 'wrong turn' })
  store.append('b', [user('after the rewind'), assistant('fine')])
  root.append([result('t1'), assistant('done in the root')])
}

/** Every row of every table that belongs to `ids`, with keys that name sessions and summaries by id. */
function dump(db: Database.Database, ids: readonly string[]): Record<string, unknown[]> {
  const q = (sql: string): unknown[] => db.prepare(sql).all(JSON.stringify(ids))
  const mine = '(SELECT value FROM json_each(?))'
  const sid = (col: string): string => `(SELECT id FROM sessions WHERE pk = ${col})`
  const xname = (col: string): string =>
    `(SELECT ${sid('x2.session')} || '/' || x2.uid FROM summaries x2 WHERE x2.id = ${col})`
  return {
    sessions: q(`SELECT s.id, s.created_at, s.updated_at, s.metadata, s.boundary, s.version, s.kept_count,
      s.kept_tokens, s.kept_first, ${xname('s.summary')} AS summary, s.limits, s.format, ${sid('s.parent')} AS parent,
      s.fork_seq, s.kind, s.forked_at, s.fork_actor, s.fork_reason, s.fork_version, s.fork_tokens,
      s.fork_trim_point, s.fork_pair_start, ${xname('s.fork_summary')} AS fork_summary, s.fork_summary_ended_at,
      s.fork_summary_end_reason FROM sessions s WHERE s.id IN ${mine} ORDER BY s.id`),
    messages: q(`SELECT ${sid('m.session')} AS session, m.seq, m.uid, m.role, m.body, m.tokens, m.cum_tokens,
      m.pinned, m.kept, m.recheck, m.plain_user, m.trim_point, m.pair_start, m.has_tool_use, m.has_tool_result,
      m.created_at, m.window_body, m.window_tokens, m.repeat_of, m.late, m.text
      FROM messages m WHERE ${sid('m.session')} IN ${mine} ORDER BY 1, m.seq`),
    toolCalls:
      q(`SELECT ${sid('session')} AS session, tool_use_id, name, use_seq, result_seq, status FROM tool_calls
      WHERE ${sid('session')} IN ${mine} ORDER BY 1, id`),
    pinEvents: q(`SELECT ${sid('session')} AS session, seq, action, actor, reason, at, version FROM pin_events
      WHERE ${sid('session')} IN ${mine} ORDER BY 1, id`),
    edits:
      q(`SELECT ${sid('session')} AS session, seq, kind, actor, reason, at, body, version FROM message_edits
      WHERE ${sid('session')} IN ${mine} ORDER BY 1, id`),
    summaries: q(`SELECT ${sid('x.session')} AS session, x.uid, ${xname('x.replaces')} AS replaces,
      ${xname('x.regenerates')} AS regenerates, x.from_boundary, x.to_boundary, x.seqs, x.message_count, x.body,
      x.text, x.tokens, x.model, x.prompt_hash, x.created_at, x.ended_at, x.end_reason
      FROM summaries x WHERE ${sid('x.session')} IN ${mine} ORDER BY 1, x.id`),
    evictions:
      q(`SELECT ${sid('e.session')} AS session, e.to_seq, e.version, e.from_seq, e.at, e.cut, e.reason,
      CASE WHEN e.cut = 'rewind' THEN ${sid('e.summary')} ELSE ${xname('e.summary')} END AS summary, e.clock
      FROM eviction_log e WHERE ${sid('e.session')} IN ${mine} ORDER BY 1, e.to_seq, e.version`),
    branchRows: q(`SELECT ${sid('session')} AS session, seq, ${sid('owner')} AS owner, pinned, kept, recheck,
      window_body, window_tokens FROM branch_rows WHERE ${sid('session')} IN ${mine} ORDER BY 1, seq`),
  }
}

/** What each session reads like through the store. */
function readings(store: ContextStore, ids: readonly string[]): unknown {
  return ids.map((id) => ({
    window: store.window(id),
    history: store.history(id, { limit: 1000 }).map((e) => ({ ...e, createdAt: e.createdAt.getTime() })),
    evictions: store.evictions(id),
    summaries: store
      .summaries(id)
      .map((s) => ({ ...s, id: undefined, replaces: undefined, regenerates: undefined })),
    search: store.search('question', { sessionId: id, limit: 100 }).map((h) => [h.seq, h.inWindow, h.pinned]),
  }))
}

const TREE = ['root', 'b', 'b~1', 'c']

describe('export --tree and import', () => {
  it('restores a tree exactly: every row of every table, and what each session reads like', async () => {
    const source = dir.open('source.db')
    await richTree(source)
    expect(
      source
        .branches('root')
        .map((b) => b.sessionId)
        .sort(),
    ).toStrictEqual([...TREE].sort())
    const exported = await cli([
      'export',
      dir.file('source.db'),
      'root',
      '--tree',
      '-o',
      dir.file('tree.jsonl'),
    ])
    expect(exported.code, exported.stderr).toBe(0)
    const headers = readFileSync(dir.file('tree.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"header"'))
      .map((l) => (JSON.parse(l) as { session: { id: string } }).session.id)
    // Parents first.
    expect(headers[0]).toBe('root')
    expect(headers.indexOf('b')).toBeLessThan(headers.indexOf('b~1'))
    expect(headers.indexOf('b')).toBeLessThan(headers.indexOf('c'))
    const imported = await cli(['import', dir.file('copy.db'), '-i', dir.file('tree.jsonl'), '--json'])
    expect(imported.code, imported.stderr).toBe(0)
    expect(JSON.parse(imported.stdout)).toMatchObject({ sessionId: 'root', sessions: headers })
    const copy = openContextStore(dir.file('copy.db'), { readonly: true })
    try {
      expect(dump(copy.connection(), TREE)).toStrictEqual(dump(source.connection(), TREE))
      expect(readings(copy, TREE)).toStrictEqual(readings(source, TREE))
      expect((await cli(['check', dir.file('copy.db'), '--json'])).code).toBe(0)
    } finally {
      copy.close()
    }
  })

  it("imports a branch alone into a file that holds its parent, and renames a tree's root with --as", async () => {
    const source = dir.open('source.db')
    await richTree(source)
    const file = dir.file('source.db')
    writeFileSync(dir.file('root.jsonl'), (await cli(['export', file, 'root'])).stdout)
    writeFileSync(dir.file('tree.jsonl'), (await cli(['export', file, 'b', '--tree'])).stdout)
    // b's tree (b, b~1, c) needs root, which the file holds once it is imported.
    expect((await cli(['import', dir.file('one.db'), '-i', dir.file('tree.jsonl')])).code).toBe(2)
    expect((await cli(['import', dir.file('one.db'), '-i', dir.file('root.jsonl')])).code).toBe(0)
    const r = await cli(['import', dir.file('one.db'), '-i', dir.file('tree.jsonl')])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('imported session "b" and 2 branches below it')
    const copy = openContextStore(dir.file('one.db'), { readonly: true })
    try {
      expect(
        copy
          .branches('root')
          .map((b) => b.sessionId)
          .sort(),
      ).toStrictEqual([...TREE].sort())
      expect(dump(copy.connection(), TREE)).toStrictEqual(dump(source.connection(), TREE))
    } finally {
      copy.close()
    }
    // --as renames the input's first session; its branches follow it.
    writeFileSync(dir.file('all.jsonl'), (await cli(['export', file, 'root', '--tree'])).stdout)
    expect(
      (await cli(['import', dir.file('three.db'), '-i', dir.file('all.jsonl'), '--as', 'renamed'])).code,
    ).toBe(0)
    const renamed = openContextStore(dir.file('three.db'), { readonly: true })
    try {
      expect(renamed.branches('renamed').map((b) => [b.sessionId, b.parentId])).toContainEqual([
        'b',
        'renamed',
      ])
      expect(renamed.history('c').map((e) => e.message)).toStrictEqual(
        source.history('c').map((e) => e.message),
      )
    } finally {
      renamed.close()
    }
  })

  it('refuses a branch whose parent is neither in the input nor in the file, naming it; nothing is written', async () => {
    const source = dir.open('source.db')
    await richTree(source)
    const exported = await cli(['export', dir.file('source.db'), 'c'])
    const r = await cli(['import', dir.file('new.db'), '--json'], { stdin: exported.stdout })
    expect(r.code).toBe(2)
    const error = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error
    expect(error.code).toBe('INVALID_OPTIONS')
    expect(error.message).toMatch(
      /session "c" \(line 1\) is a branch of "b", which is neither in the input nor in the file/,
    )
    expect(error.message).toContain('nothing was imported')
    expect(() => readFileSync(dir.file('new.db'))).toThrow()
  })

  it('refuses an input whose parents make a cycle, naming the session; the file is left as it was', async () => {
    const source = dir.open('source.db')
    await richTree(source)
    const lines = (await cli(['export', dir.file('source.db'), 'b', '--tree'])).stdout.trimEnd().split('\n')
    // b's parent becomes c, which is b's grandchild: b → c → b~1 → b.
    const edited = lines.map((l) => {
      const v = JSON.parse(l) as { type: string; session?: { id: string; branch?: { parent: string } } }
      if (v.type === 'header' && v.session?.id === 'b' && v.session.branch !== undefined)
        v.session.branch.parent = 'c'
      return JSON.stringify(v)
    })
    dir.open('target.db').close()
    const before = readFileSync(dir.file('target.db'))
    const r = await cli(['import', dir.file('target.db'), '--json'], { stdin: `${edited.join('\n')}\n` })
    expect(r.code).toBe(2)
    const error = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error
    expect(error.code).toBe('BRANCH_CYCLE')
    expect(error.message).toMatch(
      /session "(b|c|b~1)": its parents make a cycle \("b" → "c" → "b~1" → "b"|.*→.*\)/,
    )
    expect(readFileSync(dir.file('target.db')).equals(before)).toBe(true)
    // A session that names itself as its parent.
    const self = lines
      .slice(
        0,
        lines.findIndex((l, i) => i > 0 && l.includes('"type":"header"')),
      )
      .map((l) => {
        const v = JSON.parse(l) as { type: string; session?: { id: string; branch?: { parent: string } } }
        if (v.type === 'header' && v.session?.branch !== undefined) v.session.branch.parent = v.session.id
        return JSON.stringify(v)
      })
    const r2 = await cli(['import', dir.file('target.db'), '--json'], { stdin: `${self.join('\n')}\n` })
    expect((JSON.parse(r2.stdout) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'BRANCH_CYCLE',
      message: expect.stringContaining('session "b": its parents make a cycle ("b" → "b")') as unknown,
    })
  })

  it('refuses a branch row the lineage does not make an inherited seq, at its line', async () => {
    const source = dir.open('source.db')
    await richTree(source)
    const file = dir.file('source.db')
    const root = (await cli(['export', file, 'root'])).stdout
    const lines = (await cli(['export', file, 'b'])).stdout.trimEnd().split('\n')
    const i = lines.findIndex((l) => l.includes('"type":"branchRow"'))
    lines[i] = (lines[i] ?? '').replace(/"seq":\d+/, '"seq":99')
    expect((await cli(['import', dir.file('t.db')], { stdin: root })).code).toBe(0)
    const r = await cli(['import', dir.file('t.db')], { stdin: `${lines.join('\n')}\n` })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(new RegExp(`line ${i + 1}: branch row seq 99 is not inherited`))
  })
})
