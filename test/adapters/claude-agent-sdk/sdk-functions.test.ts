/**
 * The SDK's own session functions through `LedgerSessionStore` on either backend (a conformance-suite
 * file), none of which needs the CLI: `getSessionMessages`, `listSessions`, `getSessionInfo`,
 * `renameSession`, `tagSession`, `forkSession` (with `upToMessageId`), `deleteSession` and
 * `importSessionToStore` replays — each answering as it does over `InMemorySessionStore` fed the same
 * transcript. `dir` maps to the project key the SDK derives from it (the sanitized real path).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  deleteSession,
  forkSession,
  getSessionInfo,
  getSessionMessages,
  importSessionToStore,
  InMemorySessionStore,
  listSessions,
  renameSession,
  tagSession,
  type SessionStore,
  type SDKSessionInfo,
} from '@anthropic-ai/claude-agent-sdk'
import { makeBackend } from '../../helpers/backend.js'
import { tempDir } from '../../helpers/temp-store.js'
import { openSessions, projectKeyOf, recorded } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})
const temp = tempDir('claude-sdk-functions-')
const dir = join(temp.path, 'project')
mkdirSync(dir)
afterAll(() => {
  temp.cleanup()
})

const { entries: transcript, sessionId: FIXTURE_SESSION } = recorded('tool-call')
const key = () => ({ projectKey: projectKeyOf(dir), sessionId: FIXTURE_SESSION })

/** Ours and the oracle, both holding the recorded transcript under `dir`'s project. */
async function both(): Promise<{ ours: SessionStore; oracle: InMemorySessionStore }> {
  const { sessions } = await openSessions(backend)
  const oracle = new InMemorySessionStore()
  for (const store of [sessions, oracle]) await store.append(key(), transcript)
  return { ours: sessions, oracle }
}

/** Session info without the storage time, which each store stamps itself. */
const info = (s: SDKSessionInfo | undefined) => (s === undefined ? undefined : { ...s, lastModified: 0 })

describe("the SDK's session functions over the ledger", () => {
  it('getSessionMessages gives the conversation as over the in-memory store', async () => {
    const { ours, oracle } = await both()
    const messages = await getSessionMessages(FIXTURE_SESSION, { sessionStore: ours, dir })
    expect(messages).toStrictEqual(await getSessionMessages(FIXTURE_SESSION, { sessionStore: oracle, dir }))
    expect(messages.map((m) => m.type)).toContain('assistant')
    expect(JSON.stringify(messages)).toContain('Results: 42.')
  })

  it('listSessions and getSessionInfo read the folded summary', async () => {
    const { ours, oracle } = await both()
    const listed = await listSessions({ sessionStore: ours, dir })
    expect(listed.map(info)).toStrictEqual((await listSessions({ sessionStore: oracle, dir })).map(info))
    expect(listed.map((s) => s.sessionId)).toStrictEqual([FIXTURE_SESSION])
    expect(listed[0]?.firstPrompt).toBe('What is 40 + 2? Use the add tool.')
    const one = await getSessionInfo(FIXTURE_SESSION, { sessionStore: ours, dir })
    expect(info(one)).toStrictEqual(
      info(await getSessionInfo(FIXTURE_SESSION, { sessionStore: oracle, dir })),
    )
    expect(one?.summary).toBe('What is 40 + 2? Use the add tool.')
  })

  it('renameSession and tagSession append entries the summary folds', async () => {
    const { ours } = await both()
    await renameSession(FIXTURE_SESSION, 'Adding numbers', { sessionStore: ours, dir })
    await tagSession(FIXTURE_SESSION, 'math', { sessionStore: ours, dir })
    const one = await getSessionInfo(FIXTURE_SESSION, { sessionStore: ours, dir })
    expect(one).toMatchObject({ customTitle: 'Adding numbers', summary: 'Adding numbers', tag: 'math' })
    await tagSession(FIXTURE_SESSION, null, { sessionStore: ours, dir })
    expect((await getSessionInfo(FIXTURE_SESSION, { sessionStore: ours, dir }))?.tag).toBeUndefined()
  })

  it('forkSession up to a message writes a new transcript through the store, resumable from it', async () => {
    const { ours, oracle } = await both()
    const toolResult = transcript.find((e) => JSON.stringify(e).includes('"tool_result"'))
    const upToMessageId = toolResult?.uuid ?? ''
    const forked = await forkSession(FIXTURE_SESSION, { upToMessageId, sessionStore: ours, dir })
    const reference = await forkSession(FIXTURE_SESSION, { upToMessageId, sessionStore: oracle, dir })
    expect(forked.sessionId).not.toBe(FIXTURE_SESSION)
    const entries = await ours.load({ projectKey: projectKeyOf(dir), sessionId: forked.sessionId })
    const expected = await oracle.load({ projectKey: projectKeyOf(dir), sessionId: reference.sessionId })
    // Fresh uuids and session ids each fork: the same entries otherwise.
    const shape = (list: unknown) =>
      JSON.parse(
        JSON.stringify(list)
          .replaceAll(forked.sessionId, 'FORK')
          .replaceAll(reference.sessionId, 'FORK')
          .replace(/"(uuid|parentUuid|logicalParentUuid|leafUuid|timestamp)":"[^"]*"/g, '"$1":"x"'),
      ) as unknown
    expect(shape(entries)).toStrictEqual(shape(expected))
    const messages = await getSessionMessages(forked.sessionId, { sessionStore: ours, dir })
    expect(messages.at(-1)?.type).toBe('user')
    expect(JSON.stringify(messages.at(-1)?.message)).toContain('tool_result')
    expect((await listSessions({ sessionStore: ours, dir })).map((s) => s.sessionId).sort()).toStrictEqual(
      [FIXTURE_SESSION, forked.sessionId].sort(),
    )
  })

  it('deleteSession deletes the transcript from the ledger', async () => {
    const { ours } = await both()
    await deleteSession(FIXTURE_SESSION, { sessionStore: ours, dir })
    expect(await ours.load(key())).toBeNull()
    expect(await listSessions({ sessionStore: ours, dir })).toStrictEqual([])
  })
})

describe('importSessionToStore', () => {
  const config = join(temp.path, 'config')
  let saved: string | undefined
  beforeAll(() => {
    saved = process.env.CLAUDE_CONFIG_DIR
    process.env.CLAUDE_CONFIG_DIR = config
    const folder = join(config, 'projects', projectKeyOf(dir))
    mkdirSync(folder, { recursive: true })
    writeFileSync(
      join(folder, `${FIXTURE_SESSION}.jsonl`),
      transcript.map((e) => JSON.stringify(e)).join('\n'),
    )
  })
  afterAll(() => {
    if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR
    else process.env.CLAUDE_CONFIG_DIR = saved
  })

  it('replays a local transcript in batches; a second replay adds only the entries without uuid', async () => {
    const { sessions } = await openSessions(backend)
    await importSessionToStore(FIXTURE_SESSION, sessions, { dir, batchSize: 4 })
    expect(await sessions.load(key())).toStrictEqual(transcript)
    await importSessionToStore(FIXTURE_SESSION, sessions, { dir, batchSize: 7 })
    const again = (await sessions.load(key())) ?? []
    expect(again.slice(0, transcript.length)).toStrictEqual(transcript)
    expect(again.slice(transcript.length)).toStrictEqual(transcript.filter((e) => e.uuid === undefined))
  })
})
