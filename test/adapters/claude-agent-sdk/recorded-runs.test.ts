/**
 * Every run recorded from the real CLI with every `append` the SDK made (test/fixtures/claude-agent/
 * cli-*.json: a tool call, a resume and `/compact`, parallel calls, foreground and background subagents
 * under subpath keys, an interrupt, an abort), replayed batch by batch into `LedgerSessionStore` on
 * either backend (a conformance-suite file) and into `InMemorySessionStore` side by side: after every
 * batch the same summaries and subkeys; at the end every key's transcript deep-equal, the SDK's
 * `getSessionMessages` / `listSubagents` / `getSubagentMessages` answering the same through both stores;
 * then every batch re-sent, as after a crash, adding only the entries without uuid.
 */
import { afterEach, describe, expect, it } from 'vitest'
import {
  getSessionMessages,
  getSubagentMessages,
  InMemorySessionStore,
  listSubagents,
  type SessionKey,
  type SessionStore,
} from '@anthropic-ai/claude-agent-sdk'
import { COMPACTION_MODEL } from '../../../src/adapters/claude-agent-sdk/index.js'
import { makeBackend } from '../../helpers/backend.js'
import {
  fixtureNames,
  mainKey,
  readFixture,
  subpathsOf,
  transcriptOf,
} from '../../helpers/claude-fixtures.js'
import { dedupedByUuid, openSessions } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

/** The folder the recordings ran in: the SDK derives their project key from it (it need not exist). */
const DIR = '/tmp/claude-agent/fixture'

const byId = (list: { sessionId: string; data: unknown }[]) =>
  list.map((s) => ({ id: s.sessionId, data: s.data })).sort((a, b) => a.id.localeCompare(b.id))

/** What the SDK's readers make of a session through a store. */
async function sdkView(store: SessionStore, sessionId: string) {
  const options = { sessionStore: store, dir: DIR }
  const agents = await listSubagents(sessionId, options)
  return {
    messages: await getSessionMessages(sessionId, options),
    agents: [...agents].sort(),
    agentMessages: await Promise.all(
      [...agents].sort().map((agent) => getSubagentMessages(sessionId, agent, options)),
    ),
  }
}

describe('the runs recorded from the real CLI, batch by batch', () => {
  it('are all there', () => {
    expect(fixtureNames()).toEqual(
      expect.arrayContaining(['tool-call', 'tool-call-resume-compact', 'parallel-tool-calls', 'subagent']),
    )
  })

  it.each(fixtureNames())('%s', async (scenario) => {
    const fixture = readFixture(scenario)
    const { handle, sessions } = await openSessions(backend)
    const oracle = new InMemorySessionStore()
    const main = mainKey(fixture)
    expect(fixture.projectKey).toBe(DIR.replace(/[^a-zA-Z0-9]/g, '-'))
    for (const { key, entries } of fixture.appends) {
      await sessions.append(key, entries)
      await oracle.append(key, entries)
      expect(byId(await sessions.listSessionSummaries(main.projectKey))).toStrictEqual(
        byId(await oracle.listSessionSummaries(main.projectKey)),
      )
      expect((await sessions.listSubkeys(main)).sort()).toStrictEqual((await oracle.listSubkeys(main)).sort())
    }
    const keys: SessionKey[] = [main, ...subpathsOf(fixture).map((subpath) => ({ ...main, subpath }))]
    for (const key of keys) {
      expect(await sessions.load(key)).toStrictEqual(transcriptOf(fixture, key.subpath))
      expect(await sessions.load(key)).toStrictEqual(await oracle.load(key))
    }
    const view = await sdkView(sessions, main.sessionId)
    expect(view).toStrictEqual(await sdkView(oracle, main.sessionId))
    expect(view.messages.length).toBeGreaterThan(0)
    expect(view.agents).toHaveLength(subpathsOf(fixture).length)
    for (const messages of view.agentMessages) expect(messages.length).toBeGreaterThan(0)

    // A compaction is a ledger summary up to the first entry it kept (or to its boundary).
    const transcript = transcriptOf(fixture)
    const boundary = transcript.findLast((e) => e.subtype === 'compact_boundary')
    const summaries = await handle.summaries(sessions.sessionIdOf(main))
    if (boundary === undefined) expect(summaries).toStrictEqual([])
    else {
      const meta = boundary.compactMetadata as { preservedSegment?: { headUuid?: string } } | undefined
      const head = transcript.findIndex((e) => e.uuid === meta?.preservedSegment?.headUuid)
      const end = head === -1 ? transcript.indexOf(boundary) : head
      expect(summaries.at(-1)).toMatchObject({ model: COMPACTION_MODEL, current: true, toBoundary: end })
    }

    // The SDK sends a batch again when it did not hear back: nothing with a uuid is stored twice.
    for (const { key, entries } of fixture.appends) await sessions.append(key, entries)
    for (const key of keys) {
      const batches = fixture.appends.filter((a) => a.key.subpath === key.subpath).map((a) => a.entries)
      expect(await sessions.load(key)).toStrictEqual(dedupedByUuid([...batches, ...batches]))
    }
    expect(await handle.summaries(sessions.sessionIdOf(main))).toStrictEqual(summaries)
  })
})
