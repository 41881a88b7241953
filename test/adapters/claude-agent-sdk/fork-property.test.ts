/**
 * Forks against the SDK's reference (a conformance-suite file): random sequences of `forkSession` (of any
 * session, at any entry it shows or at none), appends of new turns to any session, and reloads through a
 * second store, run on `LedgerSessionStore` with this adapter's `forkSession` and on the SDK's
 * `InMemorySessionStore` with the SDK's own. After every step every session loads the same entries on
 * both, up to the ids and instants each fork makes up ({@link shapeOf}); the ledger never holds more
 * message rows than the entries appended (a fork copies none).
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { forkSession as sdkForkSession, InMemorySessionStore } from '@anthropic-ai/claude-agent-sdk'
import { ClaudeEntries } from '../../../bench/claude-agent-fixtures.js'
import { forkSession, LedgerSessionStore } from '../../../src/adapters/claude-agent-sdk/index.js'
import { BACKEND, coreStoreOf, makeBackend } from '../../helpers/backend.js'
import { readFixture, transcriptOf } from '../../helpers/claude-fixtures.js'
import { fcRuns } from '../../helpers/runs.js'
import { tempDir } from '../../helpers/temp-store.js'
import { messageRows, shapeOf } from './fork-helpers.js'
import { openSessions, projectKeyOf } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})
const temp = tempDir('claude-fork-property-')
const dir = join(temp.path, 'project')
mkdirSync(dir)
afterAll(() => {
  temp.cleanup()
})
const projectKey = projectKeyOf(dir)

type Op =
  | { readonly kind: 'fork'; readonly from: number; readonly at: number | undefined }
  | { readonly kind: 'append'; readonly to: number; readonly entries: number }
  | { readonly kind: 'reopen' }

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('fork'),
      from: fc.nat(),
      at: fc.option(fc.nat(), { nil: undefined }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('append'),
      to: fc.nat(),
      entries: fc.integer({ min: 1, max: 14 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen') }) },
)

const fixture = readFixture('tool-call-resume-compact')

describe('forkSession against the SDK’s own on its in-memory store', () => {
  it('every session loads the same entries after every step, and no fork adds a row', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 7 }), async (ops) => {
        const opened = await openSessions(backend)
        let ours = opened.sessions
        const oracle = new InMemorySessionStore()
        // Each session as [ours, the oracle's] SDK ids, and the entries appended by hand.
        const ids: [string, string][] = [[fixture.sessionId, fixture.sessionId]]
        const root = transcriptOf(fixture)
        await ours.append({ projectKey, sessionId: fixture.sessionId }, root)
        await oracle.append({ projectKey, sessionId: fixture.sessionId }, root)
        let appended = root.length
        let tag = 10
        for (const step of ops) {
          if (step.kind === 'reopen') {
            ours = new LedgerSessionStore({ store: coreStoreOf(await backend.reopen(opened.handle)) })
            continue
          }
          if (step.kind === 'append') {
            const [mine, theirs] = ids[step.to % ids.length] ?? ids[0] ?? ['', '']
            // The same turn on both sides, each saying the session it is in.
            const entries = new ClaudeEntries(mine, tag).next(step.entries)
            await ours.append({ projectKey, sessionId: mine }, entries)
            await oracle.append(
              { projectKey, sessionId: theirs },
              new ClaudeEntries(theirs, tag++).next(step.entries),
            )
            appended += entries.length
            continue
          }
          const [mine, theirs] = ids[step.from % ids.length] ?? ids[0] ?? ['', '']
          const shown = ((await oracle.load({ projectKey, sessionId: theirs })) ?? []).flatMap((e, i) =>
            typeof e.uuid === 'string' ? [i] : [],
          )
          const index = step.at === undefined ? undefined : shown[step.at % Math.max(1, shown.length)]
          const upTo = async (store: 'ours' | 'oracle', sessionId: string) => {
            if (index === undefined) return {}
            const s = store === 'ours' ? ours : oracle
            const uuid = ((await s.load({ projectKey, sessionId })) ?? [])[index]?.uuid
            return uuid === undefined ? {} : { upToMessageId: uuid }
          }
          const settled = async <T>(p: Promise<T>) =>
            p.then(
              (value) => ({ value }),
              (error: unknown) => ({ error }),
            )
          const a = await settled(
            forkSession(mine, { dir, sessionStore: ours, ...(await upTo('ours', mine)) }),
          )
          const b = await settled(
            sdkForkSession(theirs, { dir, sessionStore: oracle, ...(await upTo('oracle', theirs)) }),
          )
          // An entry that is no message (a title) is refused by both, ours as MESSAGE_NOT_FOUND.
          if ('error' in b) {
            expect(a).toMatchObject({ error: { code: 'MESSAGE_NOT_FOUND', path: 'options.upToMessageId' } })
            continue
          }
          if ('error' in a) throw a.error
          ids.push([a.value.sessionId, b.value.sessionId])
        }
        for (const [mine, theirs] of ids) {
          const loaded = await ours.load({ projectKey, sessionId: mine })
          const expected = await oracle.load({ projectKey, sessionId: theirs })
          expect(shapeOf(loaded, root)).toStrictEqual(shapeOf(expected, root))
        }
        expect(await messageRows(backend, opened.handle)).toBe(appended)
        await backend.cleanup()
      }),
      { numRuns: fcRuns(BACKEND === 'postgres' ? 6 : 20) },
    )
  }, 300_000)
})
