/**
 * The transcripts recorded from the real CLI (test/fixtures/claude-agent/: a tool call; the same session
 * resumed and `/compact`ed) through `LedgerSessionStore` on either backend (a conformance-suite file):
 * appended in batches as the CLI would send them, batches re-sent after a "crash", loaded back
 * deep-equal; the SDK's summary folded across the batches as `InMemorySessionStore` folds it; the
 * compaction a ledger summary over the exact range it replaced, its originals still searchable.
 */
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { InMemorySessionStore, type SessionKey, type SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { COMPACTION_MODEL } from '../../../src/adapters/claude-agent-sdk/index.js'
import { makeBackend, BACKEND } from '../../helpers/backend.js'
import { batches, fixture, FIXTURE_SESSION, openSessions } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

const RUNS = Number(process.env.FC_RUNS ?? (BACKEND === 'postgres' ? 6 : 15))
const PROJECT = '-tmp-cas-e2e'
const keyOf = (sessionId: string): SessionKey => ({ projectKey: PROJECT, sessionId })

/** The batches the CLI sends: each turn's entries flushed at the end of the turn (after `last-prompt`/`cost-state`). */
function turns(entries: readonly SessionStoreEntry[]): SessionStoreEntry[][] {
  const out: SessionStoreEntry[][] = [[]]
  for (const entry of entries) {
    out.at(-1)?.push(entry)
    if (entry.type === 'cost-state') out.push([])
  }
  return out.filter((b) => b.length > 0)
}

/** What a store deduplicating by uuid holds after these batches: uuid-less entries each time they came. */
function dedupedByUuid(sent: readonly SessionStoreEntry[][]): SessionStoreEntry[] {
  const seen = new Set<string>()
  const out: SessionStoreEntry[] = []
  for (const entry of sent.flat()) {
    if (entry.uuid !== undefined && seen.has(entry.uuid)) continue
    if (entry.uuid !== undefined) seen.add(entry.uuid)
    out.push(entry)
  }
  return out
}

describe('the recorded transcripts', () => {
  it.each(['tool-call', 'tool-call-resume-compact'] as const)(
    '%s, in the batches of its turns, loads back deep-equal',
    async (name) => {
      const { sessions } = await openSessions(backend)
      const entries = fixture(name)
      for (const batch of turns(entries)) await sessions.append(keyOf(FIXTURE_SESSION), batch)
      expect(await sessions.load(keyOf(FIXTURE_SESSION))).toStrictEqual(entries)
    },
  )

  it('in any batches, with batches re-sent after a crash, holds what the SDK asks: every uuid once, uuid-less entries as often as sent', async () => {
    const { sessions } = await openSessions(backend)
    const entries = fixture('tool-call-resume-compact')
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        async (sizes, crashes) => {
          const key = keyOf(`run-${run++}`)
          const split = batches(entries, sizes)
          const resent = new Set(crashes.map((c) => c % split.length))
          const sent: SessionStoreEntry[][] = []
          for (const [i, batch] of split.entries()) {
            await sessions.append(key, batch)
            sent.push(batch)
            // The store committed, the SDK did not hear back: it sends the batch again.
            if (resent.has(i)) {
              await sessions.append(key, batch)
              sent.push(batch)
            }
          }
          expect(await sessions.load(key)).toStrictEqual(dedupedByUuid(sent))
          const onlyUuids = [...resent].every((i) => split[i]?.every((e) => e.uuid !== undefined))
          if (onlyUuids) expect(await sessions.load(key)).toStrictEqual(entries)
        },
      ),
      { numRuns: RUNS },
    )
  })

  it("folds the SDK's summary across the batches as InMemorySessionStore does", async () => {
    const { sessions } = await openSessions(backend)
    const memory = new InMemorySessionStore()
    const key = keyOf(FIXTURE_SESSION)
    for (const batch of turns(fixture('tool-call-resume-compact'))) {
      await sessions.append(key, batch)
      await memory.append(key, batch)
      const [ours] = await sessions.listSessionSummaries(PROJECT)
      const [theirs] = await memory.listSessionSummaries(PROJECT)
      expect(ours?.data).toStrictEqual(theirs?.data)
      expect(ours?.sessionId).toBe(FIXTURE_SESSION)
    }
  })
})

describe('a compaction', () => {
  const compacted = fixture('tool-call-resume-compact')
  const seqOf = (uuid: string) => compacted.findIndex((e) => e.uuid === uuid)
  // The ledger window opens at the first prompt: the queue operations before it were never in it.
  const opening = compacted.findIndex((e) => e.type === 'user')
  const boundary = compacted.find((e) => e.subtype === 'compact_boundary')
  const head = (boundary?.compactMetadata as { preservedSegment: { headUuid: string } }).preservedSegment
    .headUuid
  const summaryEntry = compacted.find((e) => e.isCompactSummary === true)
  const summaryText = (summaryEntry?.message as { content: string }).content

  it('becomes a ledger summary over the exact range before the kept segment, the originals searchable', async () => {
    const { handle, sessions } = await openSessions(backend)
    const key = keyOf(FIXTURE_SESSION)
    for (const batch of turns(compacted)) await sessions.append(key, batch)
    const id = sessions.sessionIdOf(key)
    const summaries = await handle.summaries(id)
    expect(summaries).toHaveLength(1)
    const [summary] = summaries
    expect(summary?.model).toBe(COMPACTION_MODEL)
    expect(summary?.current).toBe(true)
    expect(opening).toBe(2)
    expect(summary?.seqs).toStrictEqual([[opening, seqOf(head)]])
    expect(summary?.toBoundary).toBe(seqOf(head))
    expect(JSON.stringify(summary?.message)).toContain(JSON.stringify(summaryText).slice(1, -1))
    // The archive keeps every entry exactly; the originals the summary stands for are found by search.
    expect(await sessions.load(key)).toStrictEqual(compacted)
    const hits = await handle.search('What is 40', { sessionId: id, summaries: false })
    expect(hits.map((h) => h.seq)).toContain(seqOf('e17b1405-2486-44a9-8548-97aed071e49b'))
    expect(hits.find((h) => h.seq === 2)).toMatchObject({ inWindow: false, summaryId: summary?.id })
  })

  it('folds once however often its batch is sent, and in whatever batches it comes', async () => {
    const { handle, sessions } = await openSessions(backend)
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 15 }), { minLength: 1, maxLength: 8 }),
        async (sizes) => {
          const key = keyOf(`compact-${run++}`)
          for (const batch of batches(compacted, sizes)) {
            await sessions.append(key, batch)
            await sessions.append(
              key,
              batch.filter((e) => e.uuid !== undefined),
            )
          }
          const summaries = await handle.summaries(sessions.sessionIdOf(key))
          expect(summaries.map((s) => [s.model, s.seqs])).toStrictEqual([
            [COMPACTION_MODEL, [[opening, seqOf(head)]]],
          ])
        },
      ),
      { numRuns: RUNS },
    )
  })

  it('the first transcript alone (no compaction) leaves no summary', async () => {
    const { handle, sessions } = await openSessions(backend)
    const key = keyOf(FIXTURE_SESSION)
    await sessions.append(key, fixture('tool-call'))
    expect(await handle.summaries(sessions.sessionIdOf(key))).toStrictEqual([])
  })
})
