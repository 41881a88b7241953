/**
 * The SDK's session calls on forks (a conformance-suite file): the same steps — a fork, a turn in it, a
 * fork of that fork at an entry it shares and at one of its own, a titled fork, a fork at a tool call
 * answered afterwards — run side by side on a `LedgerSessionStore` and on the SDK's reference store,
 * `InMemorySessionStore`, where the SDK's own `forkSession` copies; `listSessions`, `getSessionInfo`,
 * `getSessionMessages` and `load` must agree up to the ids and instants each fork makes up. Then
 * `deleteSession` of a transcript with live forks: refused with a typed error, nothing deleted; with
 * `LedgerSessionStore.delete(key, { subtree: true })`, the whole tree goes with the forks' subagents.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import {
  deleteSession,
  forkSession as sdkForkSession,
  getSessionInfo,
  getSessionMessages,
  InMemorySessionStore,
  listSessions,
  type SessionStore,
  type SessionStoreEntry,
  type SDKSessionInfo,
} from '@anthropic-ai/claude-agent-sdk'
import { forkSession } from '../../../src/adapters/claude-agent-sdk/index.js'
import { ContextLedgerError } from '../../../src/index.js'
import { makeBackend } from '../../helpers/backend.js'
import { readFixture, transcriptOf } from '../../helpers/claude-fixtures.js'
import { tempDir } from '../../helpers/temp-store.js'
import { messageRows, shapeOf } from './fork-helpers.js'
import { openSessions, projectKeyOf } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})
const temp = tempDir('claude-fork-calls-')
const dir = join(temp.path, 'project')
mkdirSync(dir)
afterAll(() => {
  temp.cleanup()
})
const projectKey = projectKeyOf(dir)

const fixture = readFixture('tool-call')
const parent = transcriptOf(fixture)
const ROOT = fixture.sessionId
/** The assistant entry that calls the tool, and what follows it up to the answer (result, answer). */
const callAt = parent.findIndex(
  (e) => e.type === 'assistant' && JSON.stringify(e.message).includes('tool_use'),
)
const call = parent[callAt] as SessionStoreEntry
const afterCall = parent.slice(callAt + 1).filter((e) => typeof e.uuid === 'string')

/** One side: a store, and the session ids its forks got, by name. */
interface Side {
  readonly store: SessionStore
  readonly ids: Map<string, string>
}

/**
 * Entries as a session goes on after `leaf`: fresh uuids (the same on both sides: the `tag` letter), the
 * session's id, the first one answering `leaf`.
 */
function goOn(
  entries: readonly SessionStoreEntry[],
  sessionId: string,
  leaf: string | null,
  tag: string,
): SessionStoreEntry[] {
  const rename = (u: unknown) => (typeof u === 'string' ? `${tag.repeat(8)}${u.slice(8)}` : u)
  return entries.map((e, i) => ({
    ...e,
    sessionId,
    uuid: rename(e.uuid) as string,
    parentUuid: i === 0 ? leaf : rename(e.parentUuid),
  }))
}

/** The last entry with a uuid. */
const leafOf = (entries: readonly SessionStoreEntry[] | null): string =>
  (entries ?? []).findLast((e) => typeof e.uuid === 'string')?.uuid ?? ''

/**
 * The steps, on one side. `fork` is that side's `forkSession`.
 *
 * @returns the side's stores and fork ids by name
 */
async function steps(store: SessionStore, fork: typeof forkSession): Promise<Side> {
  const ids = new Map<string, string>([['root', ROOT]])
  const key = (name: string) => ({ projectKey, sessionId: ids.get(name) ?? '' })
  await store.append(key('root'), parent)
  ids.set('a', (await fork(ROOT, { dir, sessionStore: store })).sessionId)
  const aTurn = goOn(afterCall, ids.get('a') ?? '', leafOf(await store.load(key('a'))), 'a')
  await store.append(key('a'), aTurn)
  const loadedA = (await store.load(key('a'))) ?? []
  // Of the fork: at an entry it shares (its copy of the call), at one of its own, titled.
  const shared = loadedA.find((e) => e.forkedFrom !== undefined && e.type === 'assistant')?.uuid
  const a = ids.get('a') ?? ''
  ids.set('b', (await fork(a, { dir, upToMessageId: shared ?? '', sessionStore: store })).sessionId)
  const own = aTurn.at(-1)?.uuid ?? ''
  ids.set('c', (await fork(a, { dir, upToMessageId: own, title: 'Try C', sessionStore: store })).sessionId)
  // At the tool call, then answered in the fork.
  ids.set('d', (await fork(ROOT, { dir, upToMessageId: call.uuid ?? '', sessionStore: store })).sessionId)
  const dTurn = goOn(afterCall, ids.get('d') ?? '', leafOf(await store.load(key('d'))), 'd')
  await store.append(key('d'), dTurn)
  return { store, ids }
}

/** Session info without what each side stamps itself: ids by name, instants. */
function named(info: SDKSessionInfo | undefined, side: Side) {
  if (info === undefined) return undefined
  const name = [...side.ids].find(([, id]) => id === info.sessionId)?.[0] ?? info.sessionId
  return { ...info, sessionId: name, lastModified: 0, createdAt: 0 }
}

describe('the SDK’s session calls on forks, side by side with its in-memory store', () => {
  it('listSessions, getSessionInfo, getSessionMessages and load agree on forks, forks of forks and a fork at a tool call', async () => {
    const { sessions, handle } = await openSessions(backend)
    const ours = await steps(sessions, forkSession)
    const theirs = await steps(new InMemorySessionStore(), sdkForkSession)
    const byName = (list: SDKSessionInfo[], side: Side) =>
      list.map((s) => named(s, side)).sort((x, y) => (x?.sessionId ?? '').localeCompare(y?.sessionId ?? ''))
    const listed = byName(await listSessions({ sessionStore: ours.store, dir }), ours)
    expect(listed.map((s) => s?.sessionId)).toStrictEqual(['a', 'b', 'c', 'd', 'root'])
    expect(listed).toStrictEqual(byName(await listSessions({ sessionStore: theirs.store, dir }), theirs))
    for (const name of ['root', 'a', 'b', 'c', 'd']) {
      const [o, t] = [ours, theirs].map((side) => side.ids.get(name) ?? '')
      const infos = [
        named(await getSessionInfo(o ?? '', { sessionStore: ours.store, dir }), ours),
        named(await getSessionInfo(t ?? '', { sessionStore: theirs.store, dir }), theirs),
      ]
      expect(infos[0], name).toStrictEqual(infos[1])
      const messages = [
        await getSessionMessages(o ?? '', { sessionStore: ours.store, dir }),
        await getSessionMessages(t ?? '', { sessionStore: theirs.store, dir }),
      ]
      expect(shapeOf(messages[0] ?? [], parent), name).toStrictEqual(shapeOf(messages[1] ?? [], parent))
      const loaded = [
        await ours.store.load({ projectKey, sessionId: o ?? '' }),
        await theirs.store.load({ projectKey, sessionId: t ?? '' }),
      ]
      expect(shapeOf(loaded[0] ?? [], parent), name).toStrictEqual(shapeOf(loaded[1] ?? [], parent))
    }
    expect(
      (await getSessionInfo(ours.ids.get('c') ?? '', { sessionStore: sessions, dir }))?.customTitle,
    ).toBe('Try C')
    // Only the root's entries and the turns written in forks a and d are rows: no fork copied one.
    const root = await handle.session(sessions.sessionIdOf({ projectKey, sessionId: ROOT }))
    expect(await messageRows(backend, handle)).toBe((root?.messageCount ?? 0) + 2 * afterCall.length)
  })

  it('a fork at a tool call shows the call open, and the result appended in the fork answers it', async () => {
    const { sessions, handle } = await openSessions(backend)
    await sessions.append({ projectKey, sessionId: ROOT }, parent)
    const rows = await messageRows(backend, handle)
    const { sessionId } = await forkSession(ROOT, {
      dir,
      upToMessageId: call.uuid ?? '',
      sessionStore: sessions,
    })
    const key = { projectKey, sessionId }
    const id = sessions.sessionIdOf(key)
    expect(await messageRows(backend, handle)).toBe(rows)
    const window = await handle.window(id)
    expect(JSON.stringify(window.at(-1))).toContain('tool_use')
    expect((await handle.session(id))?.forkSeq).toBe(callAt)
    const turn = goOn(afterCall, sessionId, leafOf(await sessions.load(key)), 'e')
    await sessions.append(key, turn)
    expect(await messageRows(backend, handle)).toBe(rows + turn.length)
    const answered = JSON.stringify(await handle.window(id))
    expect(answered).toContain('tool_result')
    expect(answered.indexOf('tool_use')).toBeLessThan(answered.indexOf('tool_result'))
    expect(((await sessions.load(key)) ?? []).slice(-turn.length)).toStrictEqual(turn)
    // The parent is as it was.
    expect(await sessions.load({ projectKey, sessionId: ROOT })).toStrictEqual(parent)
  })
})

/** A ledger with the root, fork a of it, fork b of a (at the call), a subagent transcript of the root and of b. */
async function tree() {
  const opened = await openSessions(backend)
  const { sessions } = opened
  const key = (sessionId: string, subpath?: string) => ({
    projectKey,
    sessionId,
    ...(subpath === undefined ? {} : { subpath }),
  })
  await sessions.append(key(ROOT), parent)
  const a = (await forkSession(ROOT, { dir, sessionStore: sessions })).sessionId
  // At a's copy of the call (its own uuid, by the fork rule).
  const copies = (await sessions.load(key(a))) ?? []
  const upToMessageId = copies.find((e) => JSON.stringify(e.forkedFrom).includes(call.uuid ?? '-'))?.uuid
  const b = (await forkSession(a, { dir, upToMessageId: upToMessageId ?? '', sessionStore: sessions }))
    .sessionId
  const agent = 'subagents/agent-1'
  await sessions.append(key(ROOT, agent), goOn(afterCall, ROOT, null, 'f'))
  await sessions.append(key(b, agent), goOn(afterCall, b, null, '0'))
  return { ...opened, key, a, b, agent }
}

describe('deleting a transcript that has forks', () => {
  it('the SDK’s deleteSession of a parent with live forks is refused with a typed error; nothing is deleted', async () => {
    const { sessions, handle, key, a, b } = await tree()
    for (const sessionId of [ROOT, a]) {
      const before = await backend.checksum(handle)
      const refused = deleteSession(sessionId, { dir, sessionStore: sessions })
      await expect(refused).rejects.toBeInstanceOf(ContextLedgerError)
      await expect(refused).rejects.toMatchObject({ code: 'BRANCH_HAS_CHILDREN', path: 'key' })
      expect(await backend.checksum(handle)).toBe(before)
    }
    expect(await sessions.listSubkeys(key(b))).toStrictEqual(['subagents/agent-1'])
    // Leaf first, then up: each goes once nothing lives below it.
    for (const sessionId of [b, a, ROOT]) {
      await deleteSession(sessionId, { dir, sessionStore: sessions })
      expect(await sessions.load(key(sessionId))).toBeNull()
    }
    expect(await listSessions({ sessionStore: sessions, dir })).toStrictEqual([])
    expect(await messageRows(backend, handle)).toBe(0)
  })

  it('delete(key, { subtree: true }) takes the forks below it and their subagent transcripts, nothing else', async () => {
    const { sessions, handle, key, a, b, agent } = await tree()
    const other = '11111111-2222-4333-8444-555555555555'
    await sessions.append(key(other), goOn(afterCall, other, null, '9'))
    // A subtree of a fork: a, b and b's subagent go; the root keeps its entries and its subagent.
    await sessions.delete(key(a), { subtree: true })
    for (const gone of [key(a), key(b), key(b, agent)]) expect(await sessions.load(gone)).toBeNull()
    expect(await sessions.listSubkeys(key(b))).toStrictEqual([])
    expect(await sessions.load(key(ROOT))).toStrictEqual(parent)
    expect(await sessions.listSubkeys(key(ROOT))).toStrictEqual([agent])
    await sessions.delete(key(ROOT), { subtree: true })
    // The store's own list (the SDK's listSessions leaves out a transcript without a prompt).
    const listed = await sessions.listSessions(projectKey)
    expect(listed.map((s) => s.sessionId)).toStrictEqual([other])
    expect(await sessions.listSubkeys(key(ROOT))).toStrictEqual([])
    expect(await messageRows(backend, handle)).toBe(afterCall.length)
  })

  it('a whole tree in one call, and a bad subtree option refused before anything goes', async () => {
    const { sessions, handle, key, a, b } = await tree()
    const before = await backend.checksum(handle)
    // What a JavaScript caller may pass.
    const bad = { subtree: 'yes' } as unknown as { subtree: boolean }
    await expect(sessions.delete(key(ROOT), bad)).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'options.subtree',
    })
    expect(await backend.checksum(handle)).toBe(before)
    await sessions.delete(key(ROOT), { subtree: true })
    for (const sessionId of [ROOT, a, b]) expect(await sessions.load(key(sessionId))).toBeNull()
    expect(await messageRows(backend, handle)).toBe(0)
  })
})
