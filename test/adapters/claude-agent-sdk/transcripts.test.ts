/**
 * The runs recorded from the real CLI (a tool call; one resumed and `/compact`ed) through
 * `LedgerSessionStore` on either backend (a conformance-suite file), in any batches, batches re-sent
 * after a "crash": loaded back as the SDK asks; the compaction a ledger summary over the exact range it
 * replaced, its originals still searchable, however its batches come. (The batches the SDK really sent
 * are replayed in recorded-runs.test.ts.)
 */
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionKey, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { COMPACTION_MODEL } from '../../../src/adapters/claude-agent-sdk/index.js'
import { makeBackend, BACKEND } from '../../helpers/backend.js'
import { batches, dedupedByUuid, openSessions, recorded } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

const RUNS = Number(process.env.FC_RUNS ?? (BACKEND === 'postgres' ? 6 : 15))
const compacting = recorded('tool-call-resume-compact')
const keyOf = (sessionId: string): SessionKey => ({ projectKey: compacting.key.projectKey, sessionId })

describe('the recorded transcripts', () => {
  it('in any batches, with batches re-sent after a crash, holds what the SDK asks: every uuid once, uuid-less entries as often as sent', async () => {
    const { sessions } = await openSessions(backend)
    const entries = compacting.entries
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
})

describe('a compaction', () => {
  const compacted = compacting.entries
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
    const key = compacting.key
    for (const batch of compacting.batches) await sessions.append(key, batch)
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
    expect(hits.map((h) => h.seq)).toContain(opening)
    expect(hits.find((h) => h.seq === opening)).toMatchObject({ inWindow: false, summaryId: summary?.id })
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
    const { key, entries } = recorded('tool-call')
    await sessions.append(key, entries)
    expect(await handle.summaries(sessions.sessionIdOf(key))).toStrictEqual([])
  })
})
