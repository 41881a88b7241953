/**
 * What the end-to-end runs of claude-agent-support.ts must show, asserted the same way on both backends:
 * the ledger gives back exactly what the real CLI handed the store, across two processes; the resume
 * really came from the ledger; the sidecar is the SDK's fold; a `/compact` is a ledger summary over the
 * range it replaced, its originals still found by search; two writers lose and double nothing.
 */
import { foldSessionSummary, type SessionKey, type SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { expect } from 'vitest'
import { ClaudeEntries } from '../../bench/claude-agent-fixtures.js'
import { COMPACTION_MODEL } from '../../src/adapters/claude-agent-sdk/index.js'
import { openSessions, type AppenderArgs, type OpenedSessions } from '../helpers/claude-ledger.js'
import { COMPACT_SUMMARY } from '../helpers/claude-model.js'
import { concatenated, tagged, type ResumeRun } from './claude-agent-support.js'
import type { WorkerExit } from './support.js'

/** Asserts a worker ended well: exit 0, nothing on stderr but what the CLI says, `done` last. */
export function expectClean(exit: WorkerExit): void {
  expect({ code: exit.code, last: exit.lines.at(-1) }, exit.stderr).toStrictEqual({ code: 0, last: 'done' })
}

/** The index in `entries` of the entry with this uuid (-1 if none). */
const at = (entries: readonly SessionStoreEntry[], uuid: unknown): number =>
  entries.findIndex((e) => e.uuid === uuid)

/** Asserts the SDK's summary of a main transcript is the fold of what it loads. */
export async function expectSidecarIsFold(opened: OpenedSessions, key: SessionKey): Promise<void> {
  const loaded = (await opened.sessions.load(key)) ?? []
  const summaries = await opened.sessions.listSessionSummaries(key.projectKey)
  const ours = summaries.find((s) => s.sessionId === key.sessionId)
  expect(ours).toBeDefined()
  const fold = foldSessionSummary(undefined, key, loaded, { mtime: ours?.mtime ?? 0 })
  expect(ours?.data).toStrictEqual(fold.data)
  const listed = await opened.sessions.listSessions(key.projectKey)
  expect(listed).toContainEqual({ sessionId: key.sessionId, mtime: ours?.mtime })
}

/**
 * Asserts what a {@link ResumeRun} left in the ledger at `location`, and returns the loaded transcript.
 *
 * @param run - the run
 * @param location - its ledger
 * @returns the main transcript as the ledger loads it, and its ledger session id
 */
export async function expectResumedRun(
  run: ResumeRun,
  location: string,
): Promise<{ loaded: SessionStoreEntry[]; id: string; resultSeq: number }> {
  expectClean(run.worker)
  // The second process resumed the same session, reading it from the store (its CLI had no local file).
  expect([...new Set(tagged(run.worker, 'session'))]).toStrictEqual([run.key.sessionId])
  const reads = JSON.parse(tagged(run.worker, 'reads')[0] ?? '[]') as { method: string }[]
  expect(reads.map((r) => r.method)).toContain('load')
  const resumed = JSON.stringify(run.requests[run.firstRequests]?.body.messages)
  expect(resumed).toContain('What is 4000 + 17?')
  expect(resumed).toContain('4017')
  const opened = await openSessions(location)
  try {
    const { ledger, sessions } = opened
    const loaded = (await sessions.load(run.key)) ?? []
    // Every entry both CLIs handed the store, in order, exactly.
    expect(loaded).toStrictEqual(concatenated(run.appends, run.key))
    expect(loaded.length).toBeGreaterThan(40)
    await expectSidecarIsFold(opened, run.key)
    const id = sessions.sessionIdOf(run.key)
    // The /compact: one ledger summary over everything before the segment the CLI kept.
    const boundary = loaded.find((e) => e.subtype === 'compact_boundary')
    const head = (boundary?.compactMetadata as { preservedSegment?: { headUuid?: string } } | undefined)
      ?.preservedSegment?.headUuid
    expect(at(loaded, head)).toBeGreaterThan(0)
    // The ledger window opens at the first prompt: the queue operations before it were never in it.
    const opening = loaded.findIndex((e) => e.type === 'user')
    const summaries = await ledger.summaries(id)
    expect(summaries.map((s) => [s.model, s.current, s.seqs])).toStrictEqual([
      [COMPACTION_MODEL, true, [[opening, at(loaded, head)]]],
    ])
    expect(JSON.stringify(summaries[0]?.message)).toContain(COMPACT_SUMMARY)
    // The first turn's tool result, replaced by the summary, is still found — and says where it went.
    const resultSeq = loaded.findIndex(
      (e) => e.type === 'user' && JSON.stringify(e.message).includes('"4017"'),
    )
    expect(resultSeq).toBeGreaterThan(0)
    const hits = await ledger.search('4017', { sessionId: id, summaries: false })
    expect(hits.find((h) => h.seq === resultSeq)).toMatchObject({
      inWindow: false,
      summaryId: summaries[0]?.id,
    })
    return { loaded, id, resultSeq }
  } finally {
    await opened.ledger.close()
  }
}

/** Counts of each value. */
function multiset(values: readonly string[]): Map<string, number> {
  const out = new Map<string, number>()
  for (const v of values) out.set(v, (out.get(v) ?? 0) + 1)
  return out
}

/**
 * Asserts what two appender workers left: every entry with a `uuid` once and deep-equal, every entry
 * without one as often as it was sent (re-sent batches included, as the SDK asks), each first send of a
 * batch contiguous and in its writer's order, and the sidecar the fold of the whole transcript.
 *
 * @param writers - both workers' arguments (same location and key)
 * @param exits - how they ended
 */
export async function expectTwoWritersKeptAll(
  writers: readonly AppenderArgs[],
  exits: readonly WorkerExit[],
): Promise<void> {
  for (const [i, exit] of exits.entries()) {
    expectClean(exit)
    expect(tagged(exit, 'sent')).toHaveLength(writers[i]?.sizes.length ?? -1)
  }
  const [first] = writers
  if (first === undefined) throw new Error('no writers')
  const opened = await openSessions(first.location)
  try {
    const loaded = (await opened.sessions.load(first.key)) ?? []
    const batches = writers.map((w) => {
      const gen = new ClaudeEntries(w.key.sessionId, w.tag)
      return w.sizes.map((n) => gen.next(n))
    })
    const sent = writers.flatMap((w, i) =>
      (batches[i] ?? []).flatMap((b, j) => (w.resend.includes(j) ? [...b, ...b] : b)),
    )
    const withUuid = batches.flat(2).filter((e) => e.uuid !== undefined)
    // Nothing lost, nothing doubled: every uuid once, deep-equal; the uuid-less as often as sent.
    expect(loaded.filter((e) => e.uuid !== undefined).length).toBe(withUuid.length)
    for (const e of withUuid) expect(loaded[at(loaded, e.uuid)]).toStrictEqual(e)
    const plain = (entries: readonly SessionStoreEntry[]) =>
      multiset(entries.filter((e) => e.uuid === undefined).map((e) => JSON.stringify(e)))
    expect(plain(loaded)).toStrictEqual(plain(sent))
    // Each batch arrived whole (one transaction) and after its writer's previous one.
    for (const writerBatches of batches) {
      let last = -1
      for (const b of writerBatches) {
        const j = b.findIndex((e) => e.uuid !== undefined)
        expect(j).toBeGreaterThanOrEqual(0)
        const start = at(loaded, b[j]?.uuid) - j
        expect(loaded.slice(start, start + b.length)).toStrictEqual(b)
        expect(start).toBeGreaterThan(last)
        last = start
      }
    }
    await expectSidecarIsFold(opened, first.key)
  } finally {
    await opened.ledger.close()
  }
}
