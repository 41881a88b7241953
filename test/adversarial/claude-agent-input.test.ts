/**
 * Adversarial: entries the real Claude Code CLI can write, handed to `LedgerSessionStore` on either
 * backend (a conformance-suite file). The SDK retries a refused `append` twice and then drops the batch
 * for good (`mirror_error`): every refusal of something the CLI wrote loses the whole batch — up to 500
 * entries, and with them the chain a resume from the store needs. So each entry here must be stored, and
 * the session must go on taking appends after it.
 */
import { isDeepStrictEqual } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { makeBackend } from '../helpers/backend.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'
import { EntryMaker } from '../helpers/claude-format-entries.js'
import { openSessions } from '../adapters/claude-agent-sdk/helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

const KEY = { projectKey: '-srv-app', sessionId: '5d0c1d6e-0000-4000-8000-00000000000a' }
const asEntries = (entries: readonly unknown[]): SessionStoreEntry[] =>
  JSON.parse(JSON.stringify(entries)) as SessionStoreEntry[]

describe('a NUL in what a tool returned', () => {
  it('a late result holding a NUL is stored, and the session goes on taking appends', async () => {
    // A result for a call the transcript never made (its call was in a batch the SDK dropped, or in the
    // parent transcript) is stored late; `cat` of a binary file puts NULs in a tool's output.
    const { sessions } = await openSessions(backend)
    const m = new EntryMaker('n')
    const first = asEntries([m.prompt('read the dump'), m.result('toolu_gone', 'head\u0000\u0000tail')])
    const later = asEntries([
      m.text('It is binary.', 'msg_2'),
      m.prompt('and now?'),
      m.text('Done.', 'msg_3'),
    ])
    await sessions.append(KEY, first)
    await sessions.append(KEY, later)
    expect(await sessions.load(KEY)).toStrictEqual([...first, ...later])
  })

  it('a NUL in entries a compaction replaced: prune erases them', async () => {
    const { sessions } = await openSessions(backend)
    const m = new EntryMaker('c')
    const before = asEntries([
      m.prompt('read the dump'),
      m.call('toolu_1'),
      m.result('toolu_1', 'bin\u0000ary'),
      m.result('toolu_gone', 'late\u0000result'),
      m.text('It is binary.', 'msg_2'),
    ])
    const compaction = asEntries(m.compaction('The user read a binary file.'))
    const after = asEntries([m.prompt('next'), m.text('ok', 'msg_3')])
    for (const batch of [before, compaction, after]) await sessions.append(KEY, batch)
    const result = await sessions.prune({ olderThan: Date.now() + 60_000, keepPinned: true })
    expect(result.pruned).toBe(before.length)
    const loaded = (await sessions.load(KEY)) ?? []
    expect(JSON.stringify(loaded.slice(0, before.length))).not.toContain('\\u0000')
    expect(loaded.slice(before.length)).toStrictEqual([...compaction, ...after])
    // Pruned once: a second run finds nothing more to erase.
    expect((await sessions.prune({ olderThan: Date.now() + 60_000, keepPinned: true })).pruned).toBe(0)
    await sessions.append(KEY, asEntries([m.prompt('and again')]))
  })
})

describe('keys a model or a tool may use', () => {
  it('a toJSON key in a tool input and in an MCP result is stored as it came', async () => {
    // The real CLI writes both (see claude-agent-hostile-cli.test.ts): a model's tool input is any JSON
    // object, and an MCP tool's structuredContent is kept whole under mcpMeta.
    const { sessions } = await openSessions(backend)
    const m = new EntryMaker('j')
    const call = m.call('toolu_1', { payload: { toJSON: 'x', constructor: { prototype: {} } } })
    const result = { ...m.result('toolu_1', 'ok'), mcpMeta: { structuredContent: { toJSON: { a: [1] } } } }
    const entries = asEntries([m.prompt('go'), call, result])
    await sessions.append(KEY, entries)
    // (vitest's equality reads an own `constructor` key as the object's class: compared as Node does.)
    expect(isDeepStrictEqual(await sessions.load(KEY), entries)).toBe(true)
    // And again, sent twice: the same entries, stored once.
    await sessions.append(KEY, entries)
    expect(isDeepStrictEqual(await sessions.load(KEY), entries)).toBe(true)
  })
})

/** An object nested `depth` levels under `d` keys, a string at the bottom. */
function nested(depth: number): unknown {
  let value: unknown = 'bottom'
  for (let i = 0; i < depth; i++) value = { d: value }
  return value
}

/** The repairs an entry records. */
const repairsOf = (entry: SessionStoreEntry | undefined): unknown =>
  (entry?.contextLedger as { repaired?: unknown } | undefined)?.repaired

describe('what the store’s limits cannot hold is stored repaired, never refused', () => {
  it('JSON nested past maxDepth in a tool input: the batch is stored whole, a re-send adds nothing', async () => {
    // The real CLI wrote this for a model that called a tool with a deeply nested argument: refused, the
    // batch it came in (51 entries in that run) was dropped by the SDK.
    const { handle, sessions } = await openSessions(backend)
    const m = new EntryMaker('d')
    const entries = asEntries([
      m.prompt('store the tree'),
      m.call('toolu_1', { payload: nested(80) }),
      m.result('toolu_1', 'stored'),
      m.text('Stored.', 'msg_2'),
    ])
    await sessions.append(KEY, entries)
    const loaded = (await sessions.load(KEY)) ?? []
    expect(loaded).toHaveLength(entries.length)
    for (const i of [0, 2, 3]) expect(loaded[i]).toStrictEqual(entries[i])
    const repairs = repairsOf(loaded[1]) as { path: string; problem: string }[]
    expect(repairs).toHaveLength(1)
    expect(repairs[0]?.problem).toBe('too-deep')
    expect(repairs[0]?.path).toMatch(/^message\.content\[0\]\.input\.payload(\.d)+$/)
    // Nothing is lost: the part past the limit is its JSON text, at the path the record names.
    let at: unknown = loaded[1]
    for (const key of (repairs[0]?.path ?? '').replace('[0]', '.0').split('.'))
      at = (at as Record<string, unknown>)[key]
    const { contextLedger: _notes, ...body } = loaded[1] ?? { type: '' }
    expect(JSON.stringify(body).length).toBeLessThan(JSON.stringify(entries[1]).length + 200)
    expect(typeof at).toBe('string')
    expect(JSON.stringify(nested(80))).toContain(at as string)
    // The SDK's retry sends the same entries: the same repair, so it is the same entry, stored once.
    await sessions.append(KEY, entries)
    expect(await sessions.load(KEY)).toStrictEqual(loaded)
    await assertWindowRulesOf(handle, sessions.sessionIdOf(KEY))
  })

  it('a string over maxStringLength (an MCP result kept whole under mcpMeta) is cut around a mark', async () => {
    const { handle, sessions } = await openSessions(backend, {}, { maxStringLength: 4096 })
    const m = new EntryMaker('l')
    const blob = `HEAD${'x'.repeat(10_000)}TAIL`
    const result = { ...m.result('toolu_1', 'saved to a file'), mcpMeta: { structuredContent: { blob } } }
    const entries = asEntries([m.prompt('fetch it'), m.call('toolu_1'), result, m.text('Saved.', 'msg_2')])
    await sessions.append(KEY, entries)
    const loaded = (await sessions.load(KEY)) ?? []
    expect(loaded).toHaveLength(entries.length)
    expect(repairsOf(loaded[2])).toStrictEqual([
      { path: 'mcpMeta.structuredContent.blob', problem: 'string-too-long', originalLength: blob.length },
    ])
    const cut = (loaded[2]?.mcpMeta as { structuredContent: { blob: string } }).structuredContent.blob
    expect(cut.length).toBeLessThanOrEqual(4096)
    expect(cut.startsWith('HEAD') && cut.endsWith('TAIL')).toBe(true)
    expect(cut).toContain('<truncated chars=')
    await sessions.append(KEY, entries)
    expect(await sessions.load(KEY)).toStrictEqual(loaded)
    await assertWindowRulesOf(handle, sessions.sessionIdOf(KEY))
  })

  it('a tool output cut inside an emoji (a lone surrogate) becomes U+FFFD, and stays searchable', async () => {
    const { handle, sessions } = await openSessions(backend)
    const m = new EntryMaker('u')
    const entries = asEntries([
      m.prompt('list the reactions'),
      m.call('toolu_1'),
      m.result('toolu_1', 'reactions: thumbs \ud83d'),
      m.text('One reaction.', 'msg_2'),
    ])
    await sessions.append(KEY, entries)
    const loaded = (await sessions.load(KEY)) ?? []
    expect(loaded).toHaveLength(entries.length)
    expect(repairsOf(loaded[2])).toStrictEqual([
      { path: 'message.content[0].content[0].text', problem: 'lone-surrogate' },
      { path: 'toolUseResult[0].text', problem: 'lone-surrogate' },
    ])
    expect(JSON.stringify(loaded[2])).toContain('reactions: thumbs \ufffd')
    const hits = await handle.search('reactions', { sessionId: sessions.sessionIdOf(KEY) })
    expect(hits.map((h) => h.seq)).toContain(2)
    await sessions.append(KEY, entries)
    expect(await sessions.load(KEY)).toStrictEqual(loaded)
    await assertWindowRulesOf(handle, sessions.sessionIdOf(KEY))
  })

  it('a note the ledger did not write is still refused, with nothing of the batch written', async () => {
    const { handle, sessions } = await openSessions(backend)
    const m = new EntryMaker('f')
    const forged = [
      { ...m.prompt('secret'), contextLedger: { pruned: true } },
      { ...m.prompt('x'), contextLedger: { repaired: [{ path: 'a', problem: 'made-up' }] } },
      { ...m.prompt('y'), contextLedger: { repaired: [] } },
      { ...m.prompt('z'), contextLedger: { summary: true } },
    ]
    for (const entry of forged) {
      const before = await backend.checksum(handle)
      await expect(sessions.append(KEY, asEntries([m.prompt('ok'), entry]))).rejects.toMatchObject({
        code: 'INVALID_MESSAGE',
        path: '[1].contextLedger',
      })
      expect(await backend.checksum(handle)).toBe(before)
    }
  })
})

describe('odd keys', () => {
  const SUBPATHS = [
    'subagents/../agent-1',
    '/leading',
    'trailing/',
    'a//b',
    '%2F',
    '..',
    'subagents/agent ü 😀',
    `subagents/${'x'.repeat(300)}`,
  ]

  it('subpaths with odd characters are each their own transcript: listed, loaded, deleted with the session', async () => {
    const { handle, sessions } = await openSessions(backend)
    const m = new EntryMaker('o')
    await sessions.append(KEY, asEntries([m.prompt('main')]))
    for (const [i, subpath] of SUBPATHS.entries())
      await sessions.append({ ...KEY, subpath }, asEntries([m.prompt(`sub ${i}`)]))
    expect((await sessions.listSubkeys(KEY)).sort()).toStrictEqual([...SUBPATHS].sort())
    for (const [i, subpath] of SUBPATHS.entries())
      expect(JSON.stringify(await sessions.load({ ...KEY, subpath }))).toContain(`sub ${i}`)
    await sessions.delete(KEY)
    expect(await sessions.listSubkeys(KEY)).toStrictEqual([])
    expect(await handle.sessions()).toStrictEqual([])
  })

  it('keys whose `projectKey/sessionId/subpath` strings are one (the in-memory store mixes them up) stay apart', async () => {
    const { sessions } = await openSessions(backend)
    const keys = [
      { projectKey: 'a/b', sessionId: 'c' },
      { projectKey: 'a', sessionId: 'b/c' },
      { projectKey: 'a', sessionId: 'b', subpath: 'c' },
    ]
    for (const [i, key] of keys.entries()) await sessions.append(key, [{ type: 'mark', n: i }])
    for (const [i, key] of keys.entries())
      expect(await sessions.load(key)).toStrictEqual([{ type: 'mark', n: i }])
    expect((await sessions.listSessions('a')).map((s) => s.sessionId)).toStrictEqual(['b/c'])
    expect(await sessions.listSubkeys({ projectKey: 'a', sessionId: 'b' })).toStrictEqual(['c'])
  })

  it('project keys and session ids past the id limit: hashed ids, listed by their parts, deleted', async () => {
    // The SDK cuts a project key at 200 characters and adds a hash; a caller may pass anything.
    const { handle, sessions } = await openSessions(backend)
    const project = `-${'very-long-folder-'.repeat(20)}`
    const ids = [`${'s'.repeat(300)}-1`, `${'s'.repeat(300)}-2`]
    for (const sessionId of ids) {
      await sessions.append({ projectKey: project, sessionId }, [{ type: 'mark', sessionId }])
      await sessions.append({ projectKey: project, sessionId, subpath: 'subagents/a' }, [{ type: 'sub' }])
    }
    const listed = await sessions.listSessions(project)
    expect(listed.map((s) => s.sessionId).sort()).toStrictEqual(ids)
    for (const sessionId of ids) {
      expect(sessions.sessionIdOf({ projectKey: project, sessionId }).length).toBeLessThanOrEqual(256)
      expect(await sessions.load({ projectKey: project, sessionId })).toStrictEqual([
        { type: 'mark', sessionId },
      ])
      expect(await sessions.listSubkeys({ projectKey: project, sessionId })).toStrictEqual(['subagents/a'])
    }
    await sessions.delete({ projectKey: project, sessionId: ids[0] ?? '' })
    expect((await sessions.listSessions(project)).map((s) => s.sessionId)).toStrictEqual([ids[1]])
    expect(await handle.sessions()).toHaveLength(2)
  })

  it('a NUL in a subpath (no file path holds one) is refused at key.subpath on both backends', async () => {
    const { handle, sessions } = await openSessions(backend)
    const before = await backend.checksum(handle)
    await expect(sessions.append({ ...KEY, subpath: 'a\u0000b' }, [{ type: 'x' }])).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'key.subpath',
    })
    await expect(sessions.load({ ...KEY, subpath: 'a\u0000b' })).rejects.toMatchObject({
      path: 'key.subpath',
    })
    expect(await backend.checksum(handle)).toBe(before)
  })
})
