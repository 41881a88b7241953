/**
 * `LedgerSessionStore` on either backend (a conformance-suite file: SQLite in `unit`, PostgreSQL in the
 * `postgres` project) against the thirteen contracts the SDK's own conformance suite states for a
 * `SessionStore` (examples/session-stores/shared/conformance.ts in its repository), each a test of its
 * own, written here from those contracts; then the issue's: idempotent by uuid, modification times,
 * summaries folded across batches as `InMemorySessionStore` folds them.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { foldSessionSummary, InMemorySessionStore, type SessionKey } from '@anthropic-ai/claude-agent-sdk'
import { LedgerSessionStore } from '../../../src/adapters/claude-agent-sdk/index.js'
import { coreStoreOf, makeBackend } from '../../helpers/backend.js'
import { E, openSessions } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

const KEY: SessionKey = { projectKey: 'proj', sessionId: 'sess' }
const sub = (subpath: string): SessionKey => ({ ...KEY, subpath })
const open = async () => (await openSessions(backend)).sessions

describe("the SDK's thirteen SessionStore contracts", () => {
  it('1. append then load gives the same entries in the same order', async () => {
    const store = await open()
    const entries = [E('a', { n: 1, nested: { x: [1, 2] } }), E('b', { n: 2 })]
    await store.append(KEY, entries)
    expect(await store.load(KEY)).toStrictEqual(entries)
  })

  it('2. load of an unknown key, main or subpath, is null', async () => {
    const store = await open()
    expect(await store.load(KEY)).toBeNull()
    expect(await store.load(sub('subagents/a'))).toBeNull()
  })

  it('3. several appends keep the order of the calls', async () => {
    const store = await open()
    await store.append(KEY, [E('a')])
    await store.append(KEY, [E('b'), E('c')])
    await store.append(KEY, [E('d')])
    expect(await store.load(KEY)).toStrictEqual([E('a'), E('b'), E('c'), E('d')])
  })

  it('4. append([]) writes nothing: load stays null, then stays as it was', async () => {
    const { handle, sessions: store } = await openSessions(backend)
    await store.append(KEY, [])
    expect(await store.load(KEY)).toBeNull()
    expect(await handle.sessions()).toStrictEqual([])
    await store.append(KEY, [E('a')])
    const before = await backend.checksum(handle)
    await store.append(KEY, [])
    expect(await store.load(KEY)).toStrictEqual([E('a')])
    expect(await backend.checksum(handle)).toBe(before)
  })

  it('5. a subpath is stored apart from the main transcript', async () => {
    const store = await open()
    await store.append(KEY, [E('main')])
    await store.append(sub('subagents/x'), [E('sub')])
    expect(await store.load(KEY)).toStrictEqual([E('main')])
    expect(await store.load(sub('subagents/x'))).toStrictEqual([E('sub')])
  })

  it('6. projects are isolated', async () => {
    const store = await open()
    const A = { projectKey: 'A', sessionId: 's' }
    const B = { projectKey: 'B', sessionId: 's' }
    await store.append(A, [E('a')])
    await store.append(B, [E('b')])
    expect(await store.load(A)).toStrictEqual([E('a')])
    expect(await store.load(B)).toStrictEqual([E('b')])
  })

  it("7. listSessions gives a project's session ids with epoch-ms mtimes, [] for an unknown project", async () => {
    const store = await open()
    await store.append({ projectKey: 'P', sessionId: 's1' }, [E('a')])
    await store.append({ projectKey: 'P', sessionId: 's2' }, [E('b')])
    await store.append({ projectKey: 'Q', sessionId: 's3' }, [E('c')])
    const listed = await store.listSessions('P')
    expect(listed.map((s) => s.sessionId).sort()).toStrictEqual(['s1', 's2'])
    for (const { mtime } of listed) {
      expect(mtime).toBeGreaterThan(1e12)
      expect(Number.isInteger(mtime)).toBe(true)
    }
    expect(await store.listSessions('never-seen')).toStrictEqual([])
  })

  it('8. listSessions leaves out subagent transcripts', async () => {
    const store = await open()
    await store.append({ projectKey: 'P', sessionId: 's1', subpath: 'subagents/x' }, [E('sub')])
    expect((await store.listSessions('P')).map((s) => s.sessionId)).not.toContain('s1')
  })

  it('9. delete of a main transcript, then load, is null; deleting an unknown key is a no-op', async () => {
    const { handle, sessions: store } = await openSessions(backend)
    await store.append(KEY, [E('a')])
    await store.delete(KEY)
    expect(await store.load(KEY)).toBeNull()
    const before = await backend.checksum(handle)
    await store.delete({ projectKey: 'x', sessionId: 'never' })
    expect(await backend.checksum(handle)).toBe(before)
  })

  it("10. delete of a main transcript takes its subkeys, and nothing of another session's or project's", async () => {
    const store = await open()
    await store.append(KEY, [E('main')])
    await store.append(sub('subagents/a'), [E('sa')])
    await store.append(sub('subagents/b'), [E('sb')])
    await store.append({ projectKey: 'proj', sessionId: 'other' }, [E('o')])
    await store.append({ projectKey: 'proj2', sessionId: 'sess' }, [E('p2')])
    await store.delete(KEY)
    expect(await store.load(KEY)).toBeNull()
    expect(await store.load(sub('subagents/a'))).toBeNull()
    expect(await store.load(sub('subagents/b'))).toBeNull()
    expect(await store.load({ projectKey: 'proj', sessionId: 'other' })).toStrictEqual([E('o')])
    expect(await store.load({ projectKey: 'proj2', sessionId: 'sess' })).toStrictEqual([E('p2')])
    expect(await store.listSubkeys(KEY)).toStrictEqual([])
  })

  it('11. delete of a subpath takes that subkey only', async () => {
    const store = await open()
    await store.append(KEY, [E('main')])
    await store.append(sub('subagents/a'), [E('sa')])
    await store.append(sub('subagents/b'), [E('sb')])
    await store.delete(sub('subagents/a'))
    expect(await store.load(KEY)).toStrictEqual([E('main')])
    expect(await store.load(sub('subagents/a'))).toBeNull()
    expect(await store.load(sub('subagents/b'))).toStrictEqual([E('sb')])
  })

  it("12. listSubkeys gives the session's subpaths, not another session's", async () => {
    const store = await open()
    await store.append(sub('subagents/a'), [E('sa')])
    await store.append(sub('subagents/b'), [E('sb')])
    await store.append({ projectKey: 'proj', sessionId: 'other', subpath: 'subagents/c' }, [E('sc')])
    expect((await store.listSubkeys(KEY)).sort()).toStrictEqual(['subagents/a', 'subagents/b'])
  })

  it('13. listSubkeys leaves out the main transcript; [] for an unknown session', async () => {
    const store = await open()
    await store.append(KEY, [E('main')])
    expect(await store.listSubkeys(KEY)).toStrictEqual([])
    expect(await store.listSubkeys({ projectKey: 'x', sessionId: 'never' })).toStrictEqual([])
  })
})

describe("the issue's contracts", () => {
  it('a batch re-sent after a crash adds nothing; entries without uuid are appended again, as the SDK asks', async () => {
    const { handle, sessions: store } = await openSessions(backend)
    const batch = [
      E('user', { uuid: 'u1', message: { role: 'user', content: 'hi' } }),
      E('assistant', {
        uuid: 'a1',
        message: { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
      }),
    ]
    await store.append(KEY, batch)
    const before = await backend.checksum(handle)
    await store.append(KEY, batch)
    // The same entry with its keys in another order is the same entry.
    await store.append(KEY, [{ message: batch[0]?.message, uuid: 'u1', type: 'user' }])
    expect(await backend.checksum(handle)).toBe(before)
    expect(await store.load(KEY)).toStrictEqual(batch)
    await store.append(KEY, [E('last-prompt', { lastPrompt: 'hi' }), E('last-prompt', { lastPrompt: 'hi' })])
    expect((await store.load(KEY))?.length).toBe(4)
  })

  it('a re-sent batch with new entries after stored ones writes the new ones only', async () => {
    const store = await open()
    const first = [E('user', { uuid: 'u1', message: { role: 'user', content: 'one' } })]
    const more = [...first, E('user', { uuid: 'u2', message: { role: 'user', content: 'two' } })]
    await store.append(KEY, first)
    await store.append(KEY, more)
    expect(await store.load(KEY)).toStrictEqual(more)
  })

  it('mtimes are integers that grow with every write of a session', async () => {
    const store = await open()
    const mtimes: number[] = []
    for (let i = 0; i < 5; i++) {
      await store.append(KEY, [E('mode', { mode: `m${i}` })])
      const [listed] = await store.listSessions('proj')
      mtimes.push(listed?.mtime ?? 0)
    }
    for (let i = 1; i < mtimes.length; i++) expect(mtimes[i]).toBeGreaterThan(mtimes[i - 1] ?? 0)
    const [summary] = await store.listSessionSummaries('proj')
    expect(summary?.mtime).toBe(mtimes.at(-1))
  })

  it("listSessionSummaries' data equals InMemorySessionStore's after the same appends, across batches", async () => {
    const store = await open()
    const memory = new InMemorySessionStore()
    const calls: [SessionKey, ReturnType<typeof E>[]][] = [
      [
        KEY,
        [
          E('user', {
            uuid: 'u1',
            timestamp: '2026-01-02T03:04:05.000Z',
            cwd: '/w',
            message: { role: 'user', content: 'Plan the trip' },
            isSidechain: false,
          }),
        ],
      ],
      [
        KEY,
        [
          E('custom-title', { customTitle: 'Trip', sessionId: 'sess' }),
          E('tag', { tag: 'travel', sessionId: 'sess' }),
        ],
      ],
      [
        sub('subagents/agent-1'),
        [E('user', { uuid: 's1', isSidechain: true, message: { role: 'user', content: 'sub' } })],
      ],
      [KEY, [E('summary', { summary: 'A trip', leafUuid: 'u1' }), E('tag', { tag: '', sessionId: 'sess' })]],
      [
        { projectKey: 'proj', sessionId: 'two' },
        [
          E('user', {
            uuid: 'x',
            message: { role: 'user', content: [{ type: 'text', text: 'second' }] },
            gitBranch: 'main',
          }),
        ],
      ],
    ]
    for (const [key, entries] of calls) {
      await store.append(key, entries)
      await memory.append(key, entries)
      const data = (list: { sessionId: string; data: unknown }[]) =>
        list.map((s) => ({ id: s.sessionId, data: s.data })).sort((a, b) => a.id.localeCompare(b.id))
      expect(data(await store.listSessionSummaries('proj'))).toStrictEqual(
        data(await memory.listSessionSummaries('proj')),
      )
    }
    const summaries = await store.listSessionSummaries('proj')
    const listed = await store.listSessions('proj')
    for (const s of summaries) expect(listed).toContainEqual({ sessionId: s.sessionId, mtime: s.mtime })
  })

  it('a delete removes the summary: the session is gone from both lists', async () => {
    const store = await open()
    await store.append(KEY, [E('user', { uuid: 'u', message: { role: 'user', content: 'x' } })])
    await store.delete(KEY)
    expect(await store.listSessions('proj')).toStrictEqual([])
    expect(await store.listSessionSummaries('proj')).toStrictEqual([])
  })

  it('keys with slashes and long parts round-trip, and list by their own parts', async () => {
    const store = await open()
    const odd = { projectKey: '/home/a b/proj', sessionId: 'x/y', subpath: 'subagents/wf/agent-1' }
    const long = { projectKey: 'p'.repeat(300), sessionId: 's'.repeat(100) }
    await store.append(odd, [E('a')])
    await store.append({ projectKey: odd.projectKey, sessionId: odd.sessionId }, [E('m')])
    await store.append(long, [E('b')])
    expect(await store.load(odd)).toStrictEqual([E('a')])
    expect(await store.load(long)).toStrictEqual([E('b')])
    expect(await store.listSubkeys(odd)).toStrictEqual(['subagents/wf/agent-1'])
    expect((await store.listSessions(odd.projectKey)).map((s) => s.sessionId)).toStrictEqual(['x/y'])
    expect((await store.listSessions(long.projectKey)).map((s) => s.sessionId)).toStrictEqual([
      long.sessionId,
    ])
    expect(store.sessionIdOf(long).length).toBeLessThanOrEqual(256)
  })

  it('stores with different prefixes on one ledger never see each other', async () => {
    const { sessions: plain, handle } = await openSessions(backend)
    const { LedgerSessionStore } = await import('../../../src/adapters/claude-agent-sdk/index.js')
    const { coreStoreOf } = await import('../../helpers/backend.js')
    const prefixed = new LedgerSessionStore({ store: coreStoreOf(handle), prefix: 'tenant-b:' })
    await plain.append(KEY, [E('a')])
    await prefixed.append(KEY, [E('b')])
    expect(prefixed.sessionIdOf(KEY)).toBe('tenant-b:proj/sess')
    expect(await plain.load(KEY)).toStrictEqual([E('a')])
    expect(await prefixed.load(KEY)).toStrictEqual([E('b')])
    expect(await plain.listSessions('proj')).toHaveLength(1)
    await prefixed.delete(KEY)
    expect(await plain.load(KEY)).toStrictEqual([E('a')])
  })

  it('two connections appending to one session at once lose nothing, store each uuid once, fold every entry', async () => {
    const { handle, sessions: one } = await openSessions(backend)
    const two = new LedgerSessionStore({ store: coreStoreOf(await backend.reopen(handle)) })
    const shared = (i: number) =>
      E('user', { uuid: `shared-${i}`, message: { role: 'user', content: `both ${i}` } })
    const own = (who: string, i: number) => [
      E('assistant', {
        uuid: `${who}-${i}`,
        message: { role: 'assistant', content: [{ type: 'text', text: who }] },
      }),
      E('last-prompt', { lastPrompt: `${who} ${i}` }),
      shared(i),
    ]
    const writer = async (store: Pick<typeof one, 'append'>, who: string) => {
      for (let i = 0; i < 12; i++) await store.append(KEY, own(who, i))
    }
    await Promise.all([writer(one, 'a'), writer(two, 'b')])
    const entries = (await one.load(KEY)) ?? []
    const uuids = entries.flatMap((e) => (e.uuid === undefined ? [] : [e.uuid]))
    expect(new Set(uuids).size).toBe(uuids.length)
    expect(uuids.sort()).toStrictEqual(
      [...Array.from({ length: 12 }, (_, i) => [`a-${i}`, `b-${i}`, `shared-${i}`]).flat()].sort(),
    )
    expect(entries.filter((e) => e.type === 'last-prompt')).toHaveLength(24)
    const [summary] = await two.listSessionSummaries('proj')
    expect(summary?.data).toStrictEqual(foldSessionSummary(undefined, KEY, entries).data)
    expect(await two.load(KEY)).toStrictEqual(entries)
  })

  it('a transcript another store object deleted loads as null, and starts afresh on the next append', async () => {
    const { handle, sessions: one } = await openSessions(backend)
    const two = new LedgerSessionStore({ store: coreStoreOf(await backend.reopen(handle)) })
    await one.append(KEY, [E('a')])
    expect(await one.load(KEY)).toStrictEqual([E('a')])
    await two.delete(KEY)
    expect(await one.load(KEY)).toBeNull()
    await one.append(KEY, [E('b')])
    expect(await two.load(KEY)).toStrictEqual([E('b')])
    expect((await two.listSessions('proj')).map((s) => s.sessionId)).toStrictEqual(['sess'])
  })
})
