/**
 * `forkSession` of `context-ledger/claude-agent-sdk` on either backend (a conformance-suite file): a
 * ledger fork — one session row, no entry copied — whose `load`, `getSessionMessages`, `listSessions`
 * and `getSessionInfo` give what the SDK's own `forkSession` gives on `InMemorySessionStore` (its
 * reference store) fed the same transcript, up to the ids and instants each fork makes up; its uuids are
 * the fork rule's. Forks of forks, the writes of a fork of a long transcript (as few as of a short one), a
 * second store on the ledger, and the calls that are not a `LedgerSessionStore`'s.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import {
  forkSession as sdkForkSession,
  getSessionInfo,
  getSessionMessages,
  InMemorySessionStore,
  listSessions,
  type SessionStore,
  type SessionStoreEntry,
  type SDKSessionInfo,
} from '@anthropic-ai/claude-agent-sdk'
import { ClaudeEntries } from '../../../bench/claude-agent-fixtures.js'
import { forkedUuid, forkSession, LedgerSessionStore } from '../../../src/adapters/claude-agent-sdk/index.js'
import { coreStoreOf, makeBackend } from '../../helpers/backend.js'
import { fixtureNames, readFixture, transcriptOf } from '../../helpers/claude-fixtures.js'
import { tempDir } from '../../helpers/temp-store.js'
import { messageRows, shapeOf } from './fork-helpers.js'
import { openSessions, projectKeyOf } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})
const temp = tempDir('claude-fork-')
const dir = join(temp.path, 'project')
mkdirSync(dir)
afterAll(() => {
  temp.cleanup()
})
const projectKey = projectKeyOf(dir)

/** Ours and the oracle, both holding `entries` as session `sessionId` of `dir`'s project. */
async function both(sessionId: string, entries: SessionStoreEntry[]) {
  const opened = await openSessions(backend)
  const oracle = new InMemorySessionStore()
  for (const store of [opened.sessions, oracle] as SessionStore[])
    await store.append({ projectKey, sessionId }, entries)
  return { ...opened, oracle }
}

/** The uuid of each copied message is the fork rule's uuid of the message it was copied from. */
function expectForkUuids(entries: readonly SessionStoreEntry[] | null, forkId: string): void {
  const copied = (entries ?? []).filter((e) => e.forkedFrom !== undefined)
  expect(copied.length).toBeGreaterThan(0)
  for (const e of copied)
    expect(e.uuid).toBe(forkedUuid((e.forkedFrom as { messageUuid: string }).messageUuid, forkId))
}

/** Session info without what each fork stamps itself: its id, the instant it was made, its storage time. */
const info = (s: SDKSessionInfo | undefined, ids: Record<string, string>) =>
  s === undefined
    ? undefined
    : { ...s, sessionId: ids[s.sessionId] ?? s.sessionId, lastModified: 0, createdAt: 0 }

/** Where to fork a transcript: all of it, its first prompt, each third entry with a uuid, its last. */
function forkPoints(entries: readonly SessionStoreEntry[]): (string | undefined)[] {
  const uuids = entries.flatMap((e) => (typeof e.uuid === 'string' ? [e.uuid] : []))
  return [undefined, ...uuids.filter((_, i) => i % 3 === 0 || i === uuids.length - 1)]
}

describe('forkSession on the ledger', () => {
  it.each(fixtureNames())(
    '%s: every fork point loads what the SDK’s fork gives on the in-memory store, and writes no entry',
    async (name) => {
      const fixture = readFixture(name)
      const parent = transcriptOf(fixture)
      const { handle, sessions, oracle } = await both(fixture.sessionId, parent)
      const rows = await messageRows(backend, handle)
      for (const upToMessageId of forkPoints(parent)) {
        const options = { dir, ...(upToMessageId === undefined ? {} : { upToMessageId }) }
        const ours = await forkSession(fixture.sessionId, { ...options, sessionStore: sessions })
        const theirs = await sdkForkSession(fixture.sessionId, { ...options, sessionStore: oracle })
        const loaded = await sessions.load({ projectKey, sessionId: ours.sessionId })
        const expected = await oracle.load({ projectKey, sessionId: theirs.sessionId })
        expect(shapeOf(loaded, parent)).toStrictEqual(shapeOf(expected, parent))
        expectForkUuids(loaded, ours.sessionId)
        const messages = await getSessionMessages(ours.sessionId, { sessionStore: sessions, dir })
        const reference = await getSessionMessages(theirs.sessionId, { sessionStore: oracle, dir })
        expect(shapeOf(messages, parent)).toStrictEqual(shapeOf(reference, parent))
        const ids = { [ours.sessionId]: 'FORK', [theirs.sessionId]: 'FORK' }
        expect(
          info(await getSessionInfo(ours.sessionId, { sessionStore: sessions, dir }), ids),
        ).toStrictEqual(info(await getSessionInfo(theirs.sessionId, { sessionStore: oracle, dir }), ids))
      }
      expect(await messageRows(backend, handle)).toBe(rows)
      const listed = (await listSessions({ sessionStore: sessions, dir })).map((s) => s.sessionId)
      expect(listed.length).toBe(forkPoints(parent).length + 1)
    },
    120_000,
  )

  it('a fork of a fork, at an entry it shares and at one of its own, is the SDK’s fork of what it loads', async () => {
    const fixture = readFixture('tool-call-resume-compact')
    const root = transcriptOf(fixture)
    const { sessions } = await both(fixture.sessionId, root)
    const first = await forkSession(fixture.sessionId, { dir, sessionStore: sessions })
    const firstKey = { projectKey, sessionId: first.sessionId }
    // The fork goes on: a turn of its own after what it shares.
    const turn = new ClaudeEntries(first.sessionId, 7).next(12)
    await sessions.append(firstKey, turn)
    const inFirst = (await sessions.load(firstKey)) ?? []
    expect(inFirst.slice(-12)).toStrictEqual(turn)
    const shared = inFirst.find((e) => e.forkedFrom !== undefined && e.type === 'assistant')?.uuid
    for (const upToMessageId of [shared, turn[5]?.uuid, undefined]) {
      const oracle = new InMemorySessionStore()
      await oracle.append(firstKey, inFirst)
      const options = { dir, ...(upToMessageId === undefined ? {} : { upToMessageId }) }
      const ours = await forkSession(first.sessionId, { ...options, sessionStore: sessions })
      const theirs = await sdkForkSession(first.sessionId, { ...options, sessionStore: oracle })
      const loaded = await sessions.load({ projectKey, sessionId: ours.sessionId })
      expect(shapeOf(loaded, inFirst)).toStrictEqual(
        shapeOf(await oracle.load({ projectKey, sessionId: theirs.sessionId }), inFirst),
      )
      expectForkUuids(loaded, ours.sessionId)
    }
  })

  it('takes the SDK’s title, and a fork of a transcript with subagents has none of them, as the SDK’s', async () => {
    const fixture = readFixture('subagent')
    const parent = transcriptOf(fixture)
    const { sessions, oracle } = await both(fixture.sessionId, parent)
    const ours = await forkSession(fixture.sessionId, { dir, title: 'Try B', sessionStore: sessions })
    const theirs = await sdkForkSession(fixture.sessionId, { dir, title: 'Try B', sessionStore: oracle })
    const key = { projectKey, sessionId: ours.sessionId }
    expect(shapeOf(await sessions.load(key), parent)).toStrictEqual(
      shapeOf(await oracle.load({ projectKey, sessionId: theirs.sessionId }), parent),
    )
    expect((await getSessionInfo(ours.sessionId, { sessionStore: sessions, dir }))?.customTitle).toBe('Try B')
    expect(await sessions.listSubkeys(key)).toStrictEqual([])
  })

  it('writes as much for a transcript of 2,400 entries as for one of 24: one session row, no entry', async () => {
    const written: { rows: number; metadata: number }[] = []
    for (const turns of [2, 200]) {
      const sessionId = '0f0e0d0c-0b0a-4908-8706-050403020100'
      const entries = new ClaudeEntries(sessionId).next(turns * 12)
      const opened = await openSessions(backend)
      await opened.sessions.append({ projectKey, sessionId }, entries)
      const before = await messageRows(backend, opened.handle)
      const upToMessageId = entries.filter((e) => e.uuid !== undefined).at(-3)?.uuid ?? ''
      const fork = await forkSession(sessionId, { dir, upToMessageId, sessionStore: opened.sessions })
      const id = opened.sessions.sessionIdOf({ projectKey, sessionId: fork.sessionId })
      const session = await opened.handle.session(id)
      written.push({
        rows: (await messageRows(backend, opened.handle)) - before,
        metadata: JSON.stringify(session?.metadata).length,
      })
      expect((await opened.sessions.load({ projectKey, sessionId: fork.sessionId }))?.length).toBeGreaterThan(
        turns * 5,
      )
    }
    expect(written.map((w) => w.rows)).toStrictEqual([0, 0])
    const [small, big] = written.map((w) => w.metadata)
    expect(Math.abs((big ?? 0) - (small ?? 0))).toBeLessThanOrEqual(16)
  })

  it('is loaded the same by a second store on the ledger (another connection)', async () => {
    const fixture = readFixture('parallel-tool-calls')
    const parent = transcriptOf(fixture)
    const { handle, sessions } = await both(fixture.sessionId, parent)
    const upToMessageId = parent.filter((e) => e.type === 'assistant').at(1)?.uuid ?? ''
    const fork = await forkSession(fixture.sessionId, { dir, upToMessageId, sessionStore: sessions })
    const key = { projectKey, sessionId: fork.sessionId }
    const other = new LedgerSessionStore({ store: coreStoreOf(await backend.reopen(handle)) })
    expect(await other.load(key)).toStrictEqual(await sessions.load(key))
    expect(await other.listSessionSummaries(projectKey)).toStrictEqual(
      await sessions.listSessionSummaries(projectKey),
    )
  })

  it('is the SDK’s own forkSession for any other store, and the SDK’s forkSession copies into ours', async () => {
    const fixture = readFixture('tool-call')
    const parent = transcriptOf(fixture)
    const { handle, sessions, oracle } = await both(fixture.sessionId, parent)
    const theirs = await forkSession(fixture.sessionId, { dir, sessionStore: oracle })
    expect(oracle.getEntries({ projectKey, sessionId: theirs.sessionId }).length).toBeGreaterThan(10)
    const rows = await messageRows(backend, handle)
    const copied = await sdkForkSession(fixture.sessionId, { dir, sessionStore: sessions })
    const loaded = (await sessions.load({ projectKey, sessionId: copied.sessionId })) ?? []
    expect(await messageRows(backend, handle)).toBe(rows + loaded.length)
    expect(shapeOf(loaded, parent)).toStrictEqual(
      shapeOf(oracle.getEntries({ projectKey, sessionId: theirs.sessionId }), parent),
    )
  })
})
