/**
 * Writing to a fork made by `forkSession` (a conformance-suite file): what the CLI appends follows what
 * the fork shares; an entry the fork shows through its parent, sent again, is held (and other content
 * under its uuid refused, nothing written); a pin of a shared entry is the fork's alone; a compaction
 * in the fork folds shared entries into a summary of the fork's; deleting. And the refusals of bad input.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { ForkSessionOptions, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import {
  COMPACTION_MODEL,
  forkedUuid,
  forkSession,
  LedgerSessionStore,
} from '../../../src/adapters/claude-agent-sdk/index.js'
import { ContextLedgerError } from '../../../src/index.js'
import { coreStoreOf, makeBackend } from '../../helpers/backend.js'
import { readFixture, transcriptOf } from '../../helpers/claude-fixtures.js'
import { tempDir } from '../../helpers/temp-store.js'
import { messageRows } from './fork-helpers.js'
import { openSessions, projectKeyOf } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})
const temp = tempDir('claude-fork-writes-')
const dir = join(temp.path, 'project')
mkdirSync(dir)
afterAll(() => {
  temp.cleanup()
})
const projectKey = projectKeyOf(dir)

const fixture = readFixture('tool-call-resume-compact')
const recorded = transcriptOf(fixture)
/** The transcript before its `/compact` (entries 0–32), and the compaction the CLI wrote (33–46). */
const beforeCompact = recorded.slice(0, 33)
const compaction = recorded.slice(33)

/** A store holding the transcript before the compaction, and a fork of all of it. */
async function forked() {
  const opened = await openSessions(backend)
  const parentKey = { projectKey, sessionId: fixture.sessionId }
  await opened.sessions.append(parentKey, beforeCompact)
  const { sessionId } = await forkSession(fixture.sessionId, { dir, sessionStore: opened.sessions })
  const key = { projectKey, sessionId }
  const view = (await opened.sessions.load(key)) ?? []
  return { ...opened, parentKey, key, view, id: opened.sessions.sessionIdOf(key) }
}

/** An entry of the recorded transcript as the fork's CLI writes it: its session, its ids by the fork rule. */
function inFork(entry: SessionStoreEntry, forkId: string, keep: ReadonlySet<string>): SessionStoreEntry {
  const json = JSON.stringify(entry).replace(
    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
    (u) => (u === fixture.sessionId ? forkId : keep.has(u) ? u : forkedUuid(u, forkId)),
  )
  return JSON.parse(json) as SessionStoreEntry
}

describe('writing to a fork', () => {
  it('a compaction in the fork folds what it shares into the fork’s summary; the parent has none', async () => {
    const { sessions, handle, key, view, id, parentKey } = await forked()
    // The compaction's own entries keep their uuids; what they name of the shared part, the fork's.
    const own = new Set(compaction.flatMap((e) => (typeof e.uuid === 'string' ? [e.uuid] : [])))
    const entries = compaction.map((e) => inFork(e, key.sessionId, own))
    await sessions.append(key, entries)
    const loaded = (await sessions.load(key)) ?? []
    expect(loaded).toStrictEqual([...view, ...entries])
    // One summary of the fork's, over the shared entries from the first prompt to the kept segment's head
    // (the parent's row the fork's uuid of it names), as on the parent itself.
    const boundary = compaction.find((e) => e.subtype === 'compact_boundary')
    const head = (boundary?.compactMetadata as { preservedSegment: { headUuid: string } }).preservedSegment
    const headSeq = beforeCompact.findIndex((e) => e.uuid === head.headUuid)
    const opening = beforeCompact.findIndex((e) => e.type === 'user')
    const summaries = await handle.summaries(id)
    expect(headSeq).toBeGreaterThan(opening)
    expect(summaries.map((s) => [s.model, s.current, s.seqs])).toStrictEqual([
      [COMPACTION_MODEL, true, [[opening, headSeq]]],
    ])
    expect(await handle.summaries(sessions.sessionIdOf(parentKey))).toStrictEqual([])
    expect(await sessions.load(parentKey)).toStrictEqual(beforeCompact)
  })

  it('an entry the fork shares, sent again, is held; other content under its uuid is refused', async () => {
    const { sessions, handle, key, view } = await forked()
    const shared = view.filter((e) => e.forkedFrom !== undefined)
    const rows = await messageRows(backend, handle)
    await sessions.append(key, [shared[3] as SessionStoreEntry, shared[4] as SessionStoreEntry])
    expect(await sessions.load(key)).toStrictEqual(view)
    expect(await messageRows(backend, handle)).toBe(rows)
    const fresh = { type: 'user', uuid: 'f0000000-0000-4000-8000-000000000001', sessionId: key.sessionId }
    const before = await backend.checksum(handle)
    const refused = sessions.append(key, [fresh, { ...(shared[2] as SessionStoreEntry), extra: 1 }])
    await expect(refused).rejects.toMatchObject({ code: 'DUPLICATE_MESSAGE', path: '[1].uuid' })
    expect(await backend.checksum(handle)).toBe(before)
    await sessions.append(key, [shared[2] as SessionStoreEntry, fresh])
    expect(await sessions.load(key)).toStrictEqual([...view, fresh])
  })

  it('a pin of a shared entry is the fork’s, not the parent’s', async () => {
    const { sessions, handle, key, view, id, parentKey } = await forked()
    const answer = view.find((e) => e.type === 'assistant' && e.forkedFrom !== undefined)
    const result = await sessions.pin(key, answer?.uuid ?? '', { reason: 'keep' })
    expect(result.changed).toBe(true)
    const source = (answer?.forkedFrom as { messageUuid: string }).messageUuid
    expect((await handle.pinnedMessages({ sessionId: id })).map((p) => p.trackingId)).toStrictEqual([source])
    expect(await handle.pinnedMessages({ sessionId: sessions.sessionIdOf(parentKey) })).toStrictEqual([])
    await expect(sessions.pin(key, 'f0000000-0000-4000-8000-00000000ffff')).rejects.toMatchObject({
      code: 'MESSAGE_NOT_FOUND',
    })
  })

  it('a rewind of the parent (a ledger rewind before the fork point) leaves the fork as it was', async () => {
    const { sessions, handle, key, view, parentKey, id } = await forked()
    const core = coreStoreOf(handle) as { rewind(id: string, o: { toSeq: number }): unknown }
    await core.rewind(sessions.sessionIdOf(parentKey), { toSeq: 5 })
    expect(await sessions.load(parentKey)).toStrictEqual(beforeCompact.slice(0, 6))
    // The fork now hangs under the branch that holds what the rewind took out of its parent.
    const abandoned = (await handle.session(id))?.parentId ?? ''
    expect((await handle.session(abandoned))?.kind).toBe('abandoned')
    expect(await sessions.load(key)).toStrictEqual(view)
    const other = new LedgerSessionStore({ store: coreStoreOf(await backend.reopen(handle)) })
    expect(await other.load(key)).toStrictEqual(view)
  })

  it('a fork is deleted alone; its parent is refused while the fork lives, then deleted', async () => {
    const { sessions, key, view, parentKey } = await forked()
    await expect(sessions.delete(parentKey)).rejects.toMatchObject({ code: 'BRANCH_HAS_CHILDREN' })
    expect(await sessions.load(key)).toStrictEqual(view)
    await sessions.delete(key)
    expect(await sessions.load(key)).toBeNull()
    expect(await sessions.load(parentKey)).toStrictEqual(beforeCompact)
    await sessions.delete(parentKey)
    expect(await sessions.load(parentKey)).toBeNull()
    expect(await sessions.listSessions(projectKey)).toStrictEqual([])
  })
})

describe('forkSession refuses bad input, writing nothing', () => {
  it.each([
    ['a session id that is no UUID', 'not-a-uuid', {}, 'INVALID_OPTIONS', 'sessionId'],
    [
      'a session it does not hold',
      '00000000-0000-4000-8000-000000000000',
      {},
      'SESSION_NOT_FOUND',
      'sessionId',
    ],
    [
      'a message it does not hold',
      fixture.sessionId,
      { upToMessageId: 'nope' },
      'MESSAGE_NOT_FOUND',
      'options.upToMessageId',
    ],
    [
      'an upToMessageId that is no string',
      fixture.sessionId,
      { upToMessageId: 7 },
      'INVALID_OPTIONS',
      'options.upToMessageId',
    ],
    ['an unknown option', fixture.sessionId, { upTo: 'x' }, 'INVALID_OPTIONS', 'options.upTo'],
  ])('%s', async (_what, sessionId, options, code, path) => {
    const { sessions, handle } = await openSessions(backend)
    await sessions.append({ projectKey, sessionId: fixture.sessionId }, beforeCompact)
    const before = await backend.checksum(handle)
    // Bad options on purpose: what a JavaScript caller may pass.
    const given = { dir, sessionStore: sessions, ...options } as unknown as ForkSessionOptions
    const refused = forkSession(sessionId, given)
    await expect(refused).rejects.toBeInstanceOf(ContextLedgerError)
    await expect(refused).rejects.toMatchObject({ code, path })
    expect(await backend.checksum(handle)).toBe(before)
  })
})
