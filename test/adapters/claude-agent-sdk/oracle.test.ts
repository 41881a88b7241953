/**
 * `InMemorySessionStore` as the oracle (a conformance-suite file: SQLite and PostgreSQL): random
 * sequences of `append` / `delete` over a few keys (two projects, two sessions, main and two subpaths)
 * run on both stores, and after every call `load` of every key, `listSessions` ids,
 * `listSubkeys` and `listSessionSummaries` `data` agree. Two documented differences are applied to the
 * oracle's side only: `append(key, [])` is not sent to it (it makes `load` return `[]` and lists the
 * session; the SDK's conformance suite says it is a no-op, as here), and it is sent only the entries
 * whose `uuid` the key does not hold yet (the SDK asks stores to deduplicate by `uuid`; its in-memory
 * store does not).
 */
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { InMemorySessionStore, type SessionKey, type SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { BACKEND, makeBackend } from '../../helpers/backend.js'
import { openSessions } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

const RUNS = Number(process.env.FC_RUNS ?? (BACKEND === 'postgres' ? 10 : 30))

/** Entries of the types the CLI writes, carrying what the SDK's summary fold reads (plain JSON objects). */
const entry: fc.Arbitrary<SessionStoreEntry> = fc
  .oneof(
    fc.record({
      type: fc.constant('user'),
      uuid: fc.uuid(),
      timestamp: fc.integer({ min: 1.7e12, max: 1.8e12 }).map((t) => new Date(t).toISOString()),
      cwd: fc.constantFrom('/w/a', '/w/b'),
      isSidechain: fc.boolean(),
      gitBranch: fc.constantFrom('main', 'dev'),
      message: fc.record({
        role: fc.constant('user'),
        content: fc.constantFrom('Plan it', 'Fix the bug', '/compact'),
      }),
    }),
    fc.record({
      type: fc.constant('assistant'),
      uuid: fc.uuid(),
      message: fc.record({
        role: fc.constant('assistant'),
        content: fc.constant([{ type: 'text', text: 'Done.' }]),
      }),
    }),
    fc.record({ type: fc.constant('custom-title'), customTitle: fc.constantFrom('One', 'Two') }),
    fc.record({ type: fc.constant('ai-title'), aiTitle: fc.constantFrom('Auto', 'Other') }),
    fc.record({ type: fc.constant('last-prompt'), lastPrompt: fc.constantFrom('a', 'b') }),
    fc.record({ type: fc.constant('tag'), tag: fc.constantFrom('', 'x') }),
    fc.record({ type: fc.constant('mode'), mode: fc.constantFrom('default', 'plan') }),
  )
  .map((e) => JSON.parse(JSON.stringify(e)) as SessionStoreEntry)

type Op =
  | {
      readonly kind: 'append'
      readonly key: number
      readonly entries: SessionStoreEntry[]
      readonly again: boolean
    }
  | { readonly kind: 'delete'; readonly key: number }

const KEYS = 12 // 2 projects × 2 sessions × (main, subagents/a, subagents/b)
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      key: fc.nat(KEYS - 1),
      entries: fc.array(entry, { maxLength: 4 }),
      again: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), key: fc.nat(KEYS - 1) }) },
)

function keyAt(run: number, i: number): SessionKey {
  const projectKey = `run${run}-p${i % 2}`
  const sessionId = `s${Math.floor(i / 2) % 2}`
  const sub = Math.floor(i / 4)
  return sub === 0 ? { projectKey, sessionId } : { projectKey, sessionId, subpath: `subagents/agent-${sub}` }
}

const sorted = (list: string[]) => [...list].sort()
const byId = (list: { sessionId: string; data: unknown }[]) =>
  list.map((s) => ({ id: s.sessionId, data: s.data })).sort((a, b) => a.id.localeCompare(b.id))

describe('LedgerSessionStore against InMemorySessionStore', () => {
  it('answers every read as the oracle does after every call of a random sequence', async () => {
    const { sessions } = await openSessions(backend)
    let run = 0
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async (ops) => {
        const r = run++
        const oracle = new InMemorySessionStore()
        for (const o of ops) {
          const key = keyAt(r, o.key)
          if (o.kind === 'delete') {
            await sessions.delete(key)
            await oracle.delete(key)
          } else {
            for (let send = o.again ? 2 : 1; send > 0; send--) {
              await sessions.append(key, o.entries)
              const held = new Set(oracle.getEntries(key).map((e) => e.uuid))
              const fresh = o.entries.filter((e) => e.uuid === undefined || !held.has(e.uuid))
              if (fresh.length > 0) await oracle.append(key, fresh)
            }
          }
          for (let i = 0; i < KEYS; i++) {
            const k = keyAt(r, i)
            expect(await sessions.load(k)).toStrictEqual(await oracle.load(k))
          }
          for (const projectKey of [`run${r}-p0`, `run${r}-p1`]) {
            const ids = async (s: typeof oracle | typeof sessions) =>
              sorted((await s.listSessions(projectKey)).map((x) => x.sessionId))
            expect(await ids(sessions)).toStrictEqual(await ids(oracle))
            expect(byId(await sessions.listSessionSummaries(projectKey))).toStrictEqual(
              byId(await oracle.listSessionSummaries(projectKey)),
            )
            for (const sessionId of ['s0', 's1'])
              expect(sorted(await sessions.listSubkeys({ projectKey, sessionId }))).toStrictEqual(
                sorted(await oracle.listSubkeys({ projectKey, sessionId })),
              )
          }
        }
      }),
      { numRuns: RUNS },
    )
  })

  it('differs from it, as documented, on append(key, []): a no-op here, an empty session there', async () => {
    const { sessions } = await openSessions(backend)
    const oracle = new InMemorySessionStore()
    const key = { projectKey: 'p', sessionId: 's' }
    await sessions.append(key, [])
    await oracle.append(key, [])
    expect(await sessions.load(key)).toBeNull()
    expect(await oracle.load(key)).toStrictEqual([])
    expect(await sessions.listSessions('p')).toStrictEqual([])
    expect((await oracle.listSessions('p')).map((s) => s.sessionId)).toStrictEqual(['s'])
  })
})
