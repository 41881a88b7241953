/**
 * Adversarial property, on either backend (a conformance-suite file): random transcripts of the entries
 * the CLI writes — prompts, one block per assistant entry, parallel calls answered in full, in part or
 * not, results for calls never made, attachments, bookkeeping entries, compactions whose kept segment
 * starts anywhere (or at an entry the transcript never held), NULs, keys named `toJSON` — appended in
 * random batches, some re-sent at once (the SDK's retry of a lost answer), then pruned and replayed whole
 * (`importSessionToStore` from the local file, which still holds the originals).
 *
 * Held for every run: no append is ever refused (the SDK would drop the batch); `load` is every entry
 * once by uuid, the uuid-less ones as often as sent; the SDK's summary is the fold of what `load` gives;
 * after prune and the replay, the erased entries stay erased, the replay adds only the uuid-less entries
 * again, and the summary folds exactly those; the window rules hold.
 */
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { foldSessionSummary, type SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { BACKEND, makeBackend } from '../helpers/backend.js'
import { EntryMaker, type Entry } from '../helpers/claude-format-entries.js'
import { fcRuns } from '../helpers/runs.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'
import { dedupedByUuid, openSessions } from '../adapters/claude-agent-sdk/helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

type Step =
  | { readonly k: 'prompt' | 'text' | 'attachment' | 'bookkeeping' }
  | { readonly k: 'calls'; readonly n: number; readonly odd: boolean }
  | { readonly k: 'results'; readonly which: readonly number[]; readonly unknown: boolean }
  | { readonly k: 'compact'; readonly head: number | null }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constantFrom<Step>({ k: 'prompt' }, { k: 'text' }, { k: 'attachment' }, { k: 'bookkeeping' }),
  fc.record({ k: fc.constant('calls' as const), n: fc.integer({ min: 1, max: 3 }), odd: fc.boolean() }),
  fc.record({
    k: fc.constant('results' as const),
    which: fc.array(fc.nat(5), { maxLength: 3 }),
    unknown: fc.boolean(),
  }),
  fc.record({ k: fc.constant('compact' as const), head: fc.option(fc.nat(40)) }),
)

/**
 * The entries of a run of steps, as the SDK hands them over (plain JSON), as the CLI writes them: opening
 * with a prompt, and compacting only when no call waits. (A call left outside the ledger window while it
 * waits — a transcript opening with a call and a prompt before its result, a compaction between a call
 * and its result — gets its result shown in the window without it, a broken window rule: see the report
 * of this branch; not fixed here, the CLI writes neither.)
 */
function transcript(steps: readonly Step[]): SessionStoreEntry[] {
  const m = new EntryMaker('p')
  const out: Entry[] = [m.prompt('the task')]
  let open: string[] = []
  let calls = 0
  for (const s of steps) {
    const n = out.length
    switch (s.k) {
      case 'prompt':
        out.push(m.prompt(`prompt ${n} a\u0000b`))
        break
      case 'text':
        out.push(m.text(`answer ${n}`, `msg_${n}`))
        break
      case 'attachment':
        out.push(m.attachment(`note ${n}`))
        break
      case 'bookkeeping':
        out.push({ ...EntryMaker.bookkeeping('cost-state'), n })
        break
      case 'calls':
        for (let i = 0; i < s.n; i++) {
          const id = `toolu_${calls++}`
          open.push(id)
          out.push(m.call(id, s.odd ? { toJSON: 'x', nul: '\u0000' } : { a: i }, `msg_c${n}`))
        }
        break
      case 'results':
        for (const w of s.which) {
          const id = s.unknown ? `toolu_never_${w}` : open[w % Math.max(1, open.length)]
          if (id === undefined) continue
          open = open.filter((o) => o !== id)
          out.push(m.result(id, `result ${w}\u0000`))
        }
        break
      case 'compact': {
        // The CLI compacts between turns, its calls answered (an interrupted one by itself).
        for (const id of open.splice(0)) out.push(m.result(id, 'answered before the compaction'))
        const uuids = out.flatMap((e) => (e.uuid === undefined ? [] : [e.uuid]))
        const head = s.head === null ? undefined : (uuids[s.head] ?? 'never-stored')
        out.push(...m.compaction(`summary ${n}`, head))
      }
    }
  }
  return JSON.parse(JSON.stringify(out)) as SessionStoreEntry[]
}

/** The entries cut into batches of the given sizes, the rest in one. */
function cut(entries: readonly SessionStoreEntry[], sizes: readonly number[]): SessionStoreEntry[][] {
  const out: SessionStoreEntry[][] = []
  let at = 0
  for (const size of [...sizes, entries.length]) {
    if (at >= entries.length) break
    out.push(entries.slice(at, at + size))
    at += size
  }
  return out
}

const KEY = { projectKey: '-srv-property', sessionId: 'c1a0d2e4-0000-4000-8000-00000000000d' }
const LATER = Date.now() + 3_600_000

describe('random transcripts, retries, prune and replay', () => {
  it('never refuse an append; load, the summary and the window stay right', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 8 }), { maxLength: 10 }),
        fc.array(fc.boolean(), { maxLength: 12 }),
        async (steps, sizes, resend) => {
          const entries = transcript(steps)
          const { handle, sessions } = await openSessions(backend)
          const sent: SessionStoreEntry[][] = []
          for (const [i, batch] of cut(entries, sizes).entries()) {
            await sessions.append(KEY, batch)
            sent.push(batch)
            if (resend[i] === true) {
              await sessions.append(KEY, batch)
              sent.push(batch)
            }
          }
          const loaded = (await sessions.load(KEY)) ?? []
          expect(loaded).toStrictEqual(dedupedByUuid(sent))
          const [before] = await sessions.listSessionSummaries(KEY.projectKey)
          expect(before?.data).toStrictEqual(foldSessionSummary(undefined, KEY, loaded, { mtime: 0 }).data)

          await sessions.prune({ olderThan: LATER, keepPinned: true })
          const pruned = (await sessions.load(KEY)) ?? []
          await sessions.append(KEY, entries)
          const after = (await sessions.load(KEY)) ?? []
          expect(after.slice(0, pruned.length)).toStrictEqual(pruned)
          const added = after.slice(pruned.length)
          expect(added).toStrictEqual(entries.filter((e) => e.uuid === undefined))
          const [summary] = await sessions.listSessionSummaries(KEY.projectKey)
          if (added.length > 0 && before !== undefined)
            expect(summary?.data).toStrictEqual(foldSessionSummary(before, KEY, added, { mtime: 0 }).data)
          await assertWindowRulesOf(handle, sessions.sessionIdOf(KEY))
          await backend.cleanup()
        },
      ),
      { numRuns: fcRuns(BACKEND === 'postgres' ? 8 : 40) },
    )
  }, 600_000)
})
