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
