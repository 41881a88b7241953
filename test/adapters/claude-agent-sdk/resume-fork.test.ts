/**
 * A resume with `forkSession: true` (a conformance-suite file): the SDK loads the parent, the CLI writes
 * the new session's first batch — a few entries of its own, the parent's chain (to `resumeSessionAt`, or
 * all of it) under the same uuids, then the new turn. `LedgerSessionStore` makes that a ledger fork: only
 * the new turn is stored, `load` gives the batch exactly. A batch that is not exactly such a copy is
 * stored as it is. The batches here are built the way the real CLI writes them (recorded by hand from it;
 * test/reliability/claude-agent-fork-e2e.test.ts runs the real CLI).
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { ClaudeEntries } from '../../../bench/claude-agent-fixtures.js'
import { makeBackend } from '../../helpers/backend.js'
import { readFixture, transcriptOf } from '../../helpers/claude-fixtures.js'
import { cliResumeCopy, messageRows } from './fork-helpers.js'
import { openSessions } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

const fixture = readFixture('tool-call')
const parent = transcriptOf(fixture)
const parentKey = { projectKey: fixture.projectKey, sessionId: fixture.sessionId }
const forkId = '5a5a5a5a-0000-4000-8000-000000000001'
const key = { projectKey: fixture.projectKey, sessionId: forkId }
const promptId = '5a5a5a5a-0000-4000-8000-0000000000ff'
const turn = new ClaudeEntries(forkId, 3).next(12)
const last = parent.findLast((e) => typeof e.uuid === 'string')?.uuid ?? ''
const toolUse = parent.find((e) => JSON.stringify(e.message ?? null).includes('"tool_use"'))?.uuid ?? ''

/** A store holding the parent. */
async function stored() {
  const opened = await openSessions(backend)
  await opened.sessions.append(parentKey, parent)
  return opened
}

describe('a resume with forkSession: true', () => {
  it.each([
    ['all of the parent', last],
    ['the parent up to resumeSessionAt', toolUse],
  ])('copying %s is a ledger fork: only the new turn is stored', async (_what, leaf) => {
    const { sessions, handle } = await stored()
    await sessions.load(parentKey)
    const batch = cliResumeCopy(parent, leaf, forkId, promptId, turn)
    const rows = await messageRows(backend, handle)
    await sessions.append(key, batch)
    expect(await sessions.load(key)).toStrictEqual(batch)
    expect(await messageRows(backend, handle)).toBe(rows + turn.length)
    const session = await handle.session(sessions.sessionIdOf(key))
    expect(session?.parentId).toBe(sessions.sessionIdOf(parentKey))
    expect(await sessions.load(parentKey)).toStrictEqual(parent)
    // The batch sent again (a retry): the copy and the turn are held; entries without uuid come again.
    await sessions.append(key, batch)
    const again = batch.filter((e) => e.uuid === undefined)
    expect(await sessions.load(key)).toStrictEqual([...batch, ...again])
  })

  it.each([
    ['when the store never loaded the parent', (b: SessionStoreEntry[]) => b, false],
    [
      'when an entry of the copy differs',
      (b: SessionStoreEntry[]) => b.map((e, i) => (i === 4 ? { ...e, x: 1 } : e)),
      true,
    ],
  ])('is stored as the copy it is %s', async (_what, change, load) => {
    const { sessions, handle } = await stored()
    if (load) await sessions.load(parentKey)
    const batch = change(cliResumeCopy(parent, last, forkId, promptId, turn))
    const rows = await messageRows(backend, handle)
    await sessions.append(key, batch)
    expect(await sessions.load(key)).toStrictEqual(batch)
    expect(await messageRows(backend, handle)).toBe(rows + batch.length)
  })
})
