/**
 * Adversarial: the SDK's own calls on transcripts the ledger erased or repaired, on either backend (a
 * conformance-suite file). `load` gives erased (pruned, redacted) and repaired entries back in their
 * stored form, and the SDK feeds what it loads into new appends: `forkSession` copies a transcript under
 * new uuids, `importSessionToStore` replays a local transcript that still holds the originals, the
 * batcher re-sends a batch. None of them may be refused — a refused batch is dropped for good, a refused
 * fork fails the caller's call.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  foldSessionSummary,
  forkSession,
  getSessionMessages,
  importSessionToStore,
  InMemorySessionStore,
  type SessionStoreEntry,
} from '@anthropic-ai/claude-agent-sdk'
import { coreStoreOf, makeBackend } from '../helpers/backend.js'
import { COMPACT_SUMMARY } from '../helpers/claude-model.js'
import { tempDir } from '../helpers/temp-store.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'
import { LedgerSessionStore } from '../../src/adapters/claude-agent-sdk/index.js'
import { EntryMaker } from '../helpers/claude-format-entries.js'
import { openSessions, projectKeyOf, recorded } from '../adapters/claude-agent-sdk/helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})
const temp = tempDir('claude-adversarial-retention-')
const dir = join(temp.path, 'project')
mkdirSync(dir)
afterAll(() => {
  temp.cleanup()
})

const { entries: compacted, batches, sessionId: SESSION } = recorded('tool-call-resume-compact')
const KEY = { projectKey: projectKeyOf(dir), sessionId: SESSION }
const LATER = Date.now() + 3_600_000
const isPruned = (e: SessionStoreEntry): boolean =>
  (e.contextLedger as { pruned?: unknown } | undefined)?.pruned === true

/** The recorded resumed-and-compacted transcript under `dir`'s project, pruned. */
async function prunedStore() {
  const opened = await openSessions(backend)
  for (const batch of batches) await opened.sessions.append(KEY, batch)
  const { pruned } = await opened.sessions.prune({ olderThan: LATER, keepPinned: true })
  expect(pruned).toBeGreaterThan(10)
  return opened
}

/** What the SDK's fork over the in-memory store makes of the same transcript, as JSON. */
async function oracleFork(source: SessionStoreEntry[]): Promise<SessionStoreEntry[]> {
  const oracle = new InMemorySessionStore()
  await oracle.append(KEY, source)
  const { sessionId } = await forkSession(SESSION, { sessionStore: oracle, dir })
  return JSON.parse(JSON.stringify(await oracle.load({ ...KEY, sessionId }))) as SessionStoreEntry[]
}

/** Entries without what each fork makes anew (uuids, session ids, times). */
const shape = (entries: readonly SessionStoreEntry[]): unknown =>
  JSON.parse(
    JSON.stringify(entries)
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'U')
      .replace(/"timestamp":"[^"]*"/g, '"timestamp":"T"'),
  ) as unknown

describe('forkSession', () => {
  it('of a pruned transcript: the fork holds the erased entries, in their pruned form', async () => {
    const { handle, sessions } = await prunedStore()
    const source = (await sessions.load(KEY)) ?? []
    const { sessionId } = await forkSession(SESSION, { sessionStore: sessions, dir })
    const fork = (await sessions.load({ ...KEY, sessionId })) ?? []
    const reference = await oracleFork(source)
    expect(fork.map(isPruned)).toStrictEqual(reference.map(isPruned))
    expect(fork.filter(isPruned).length).toBeGreaterThan(10)
    // The entries the fork kept whole are the SDK's copies; the erased ones are their pruned form (the
    // ids the copy adds, such as forkedFrom, are not kept in it).
    const whole = (list: SessionStoreEntry[]) => list.filter((e) => !isPruned(e))
    expect(shape(whole(fork))).toStrictEqual(shape(whole(reference)))
    for (const e of fork.filter(isPruned)) expect(e.forkedFrom).toBeUndefined()
    expect(JSON.stringify(fork)).not.toContain('What is 4000 + 17')
    expect(JSON.stringify(fork)).toContain(COMPACT_SUMMARY)
    await assertWindowRulesOf(handle, sessions.sessionIdOf({ ...KEY, sessionId }))
    const messages = await getSessionMessages(sessionId, { sessionStore: sessions, dir })
    expect(messages.length).toBeGreaterThan(0)
    // Forked again from the fork: the same.
    await forkSession(sessionId, { sessionStore: sessions, dir })
  })

  it('of a transcript holding a repaired entry (a tool output cut inside an emoji)', async () => {
    const { handle, sessions } = await openSessions(backend)
    const { entries } = recorded('tool-call')
    const cut = entries.map((e) =>
      e.toolUseResult === undefined ? e : { ...e, toolUseResult: [{ type: 'text', text: '42 \ud83d' }] },
    )
    await sessions.append(KEY, cut)
    const source = (await sessions.load(KEY)) ?? []
    const { sessionId } = await forkSession(SESSION, { sessionStore: sessions, dir })
    const fork = (await sessions.load({ ...KEY, sessionId })) ?? []
    expect(shape(fork)).toStrictEqual(shape(await oracleFork(source)))
    expect(fork.filter((e) => e.contextLedger !== undefined).map((e) => e.contextLedger)).toStrictEqual([
      { repaired: [{ path: 'toolUseResult[0].text', problem: 'lone-surrogate' }] },
    ])
    await assertWindowRulesOf(handle, sessions.sessionIdOf({ ...KEY, sessionId }))
  })
})

/** The entries a store that already holds `stored` keeps after `sent` again: the uuid-less ones, again. */
const resentAdds = (sent: readonly SessionStoreEntry[]) => sent.filter((e) => e.uuid === undefined)

describe('entries sent again after the ledger erased them', () => {
  it("the SDK's batches re-sent after prune: nothing refused, the erased entries stay erased", async () => {
    const { handle, sessions } = await prunedStore()
    const pruned = (await sessions.load(KEY)) ?? []
    for (const batch of batches) await sessions.append(KEY, batch)
    const after = (await sessions.load(KEY)) ?? []
    expect(after.slice(0, pruned.length)).toStrictEqual(pruned)
    expect(after.slice(pruned.length)).toStrictEqual(resentAdds(compacted))
    await assertWindowRulesOf(handle, sessions.sessionIdOf(KEY))
  })

  it('a batch mixing erased entries with new ones stores the new ones; a real conflict is still refused', async () => {
    const { handle, sessions } = await prunedStore()
    const held = (await sessions.load(KEY)) ?? []
    const m = new EntryMaker('z')
    const fresh = JSON.parse(
      JSON.stringify([m.prompt('one more'), m.text('Sure.', 'msg_z')]),
    ) as SessionStoreEntry[]
    await sessions.append(KEY, [...compacted.slice(0, 6), ...fresh])
    const after = (await sessions.load(KEY)) ?? []
    expect(after.slice(0, held.length)).toStrictEqual(held)
    expect(after.slice(held.length)).toStrictEqual([...resentAdds(compacted.slice(0, 6)), ...fresh])
    // Other content under the uuid of an entry kept whole: refused, at its place in the batch.
    const last = compacted.at(-1)
    const kept = [...compacted].reverse().find((e) => e.uuid !== undefined && !isPruned(e)) ?? { type: 'x' }
    const before = await backend.checksum(handle)
    await expect(
      sessions.append(KEY, [...compacted.slice(0, 6), { ...kept, changed: true }, ...(last ? [last] : [])]),
    ).rejects.toMatchObject({ code: 'DUPLICATE_MESSAGE', path: '[6].uuid' })
    expect(await backend.checksum(handle)).toBe(before)
  })

  it('an entry redacted through the core API, sent again: held', async () => {
    const { handle, sessions } = await openSessions(backend)
    const { entries } = recorded('tool-call')
    await sessions.append(KEY, entries)
    const id = sessions.sessionIdOf(KEY)
    const prompt = entries.find((e) => e.type === 'user')?.uuid ?? ''
    await coreStoreOf(handle).redactMessage(id, { trackingId: prompt })
    const redacted = (await sessions.load(KEY)) ?? []
    await sessions.append(KEY, entries)
    expect(((await sessions.load(KEY)) ?? []).slice(0, redacted.length)).toStrictEqual(redacted)
  })
})

describe('importSessionToStore after prune', () => {
  const config = join(temp.path, 'config')
  const file = join(config, 'projects', KEY.projectKey, `${SESSION}.jsonl`)
  let saved: string | undefined
  beforeAll(() => {
    saved = process.env.CLAUDE_CONFIG_DIR
    process.env.CLAUDE_CONFIG_DIR = config
    mkdirSync(join(config, 'projects', KEY.projectKey), { recursive: true })
  })
  afterAll(() => {
    if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR
    else process.env.CLAUDE_CONFIG_DIR = saved
  })

  it('replays the local transcript, which still holds the originals, and its new entries', async () => {
    const { handle, sessions } = await prunedStore()
    const held = (await sessions.load(KEY)) ?? []
    const m = new EntryMaker('i')
    const fresh = JSON.parse(
      JSON.stringify([m.prompt('after the prune'), m.text('Ok.', 'msg_i')]),
    ) as SessionStoreEntry[]
    writeFileSync(file, [...compacted, ...fresh].map((e) => JSON.stringify(e)).join('\n'))
    await importSessionToStore(SESSION, sessions, { dir, batchSize: 10 })
    const after = (await sessions.load(KEY)) ?? []
    expect(after.slice(0, held.length)).toStrictEqual(held)
    expect(after.slice(held.length)).toStrictEqual([...resentAdds(compacted), ...fresh])
    await assertWindowRulesOf(handle, sessions.sessionIdOf(KEY))
  })
})

describe('delete racing appends from another connection', () => {
  it('leaves either nothing or a transcript whose summary is the fold of what it holds', async () => {
    const { handle, sessions: a } = await openSessions(backend)
    const b = new LedgerSessionStore({ store: coreStoreOf(await backend.reopen(handle)) })
    const key = { projectKey: KEY.projectKey, sessionId: 'race-0000-4000-8000-000000000000' }
    const m = new EntryMaker('r')
    const sub = { ...key, subpath: 'subagents/agent-r' }
    for (let round = 0; round < 8; round++) {
      const batch = JSON.parse(
        JSON.stringify([m.prompt(`round ${round}`), m.text('ok', `msg_r${round}`)]),
      ) as SessionStoreEntry[]
      const results = await Promise.allSettled([
        a.append(key, batch),
        a.append(sub, batch),
        b.delete(key),
        a.append(key, [{ type: 'cost-state', round }]),
      ])
      expect(results.filter((r) => r.status === 'rejected')).toStrictEqual([])
      for (const store of [a, b]) {
        const loaded = await store.load(key)
        const summaries = await store.listSessionSummaries(key.projectKey)
        const mine = summaries.find((s) => s.sessionId === key.sessionId)
        if (loaded === null) expect(mine).toBeUndefined()
        else expect(mine?.data).toStrictEqual(foldSessionSummary(undefined, key, loaded, { mtime: 0 }).data)
      }
    }
    await b.delete(key)
    expect(await a.load(key)).toBeNull()
    expect(await a.load(sub)).toBeNull()
    expect(await a.listSubkeys(key)).toStrictEqual([])
  })
})
