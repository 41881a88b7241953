/**
 * Retention on either backend (a conformance-suite file): `prune` erases the content of the entries a
 * compaction replaced (out of the ledger window) appended before `olderThan`, keeping pinned ones, the
 * entries after the compaction, and every entry's place and identity; `delete` erases whole transcripts.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { LedgerSessionStore } from '../../../src/adapters/claude-agent-sdk/index.js'
import { coreStoreOf, makeBackend } from '../../helpers/backend.js'
import { openSessions, recorded } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

const { key: KEY, entries: compacted, batches } = recorded('tool-call-resume-compact')
const PROMPT =
  compacted.find((e) => e.type === 'user' && JSON.stringify(e).includes('What is 40 + 2?'))?.uuid ?? ''
const boundary = compacted.find((e) => e.subtype === 'compact_boundary')
const headUuid = (boundary?.compactMetadata as { preservedSegment: { headUuid: string } }).preservedSegment
  .headUuid
/** The first entry the compaction kept: every entry before it was folded into its summary. */
const head = compacted.findIndex((e) => e.uuid === headUuid)
const pruned = (e: SessionStoreEntry | undefined) =>
  (e?.contextLedger as { pruned?: unknown } | undefined)?.pruned === true

async function compactedStore() {
  const opened = await openSessions(backend)
  for (const batch of batches) await opened.sessions.append(KEY, batch)
  return opened
}

describe('prune', () => {
  it('keeps a pinned entry and erases the other entries the compaction replaced', async () => {
    const { handle, sessions } = await compactedStore()
    const id = sessions.sessionIdOf(KEY)
    await sessions.pin(KEY, PROMPT, { reason: 'the task' })
    const result = await sessions.prune({ olderThan: Date.now() + 60_000, keepPinned: true })
    expect(result.sessions).toBe(1)
    const after = (await sessions.load(KEY)) ?? []
    expect(after).toHaveLength(compacted.length)
    after.forEach((entry, seq) => {
      const original = compacted[seq]
      if (seq >= head || original?.uuid === PROMPT) expect(entry).toStrictEqual(original)
      else {
        expect(pruned(entry)).toBe(true)
        // Its identity and place stay: the CLI can still resume from the transcript.
        expect(entry).toMatchObject({ type: original?.type })
        for (const field of ['uuid', 'parentUuid', 'timestamp', 'sessionId'] as const)
          expect(entry[field]).toStrictEqual(original?.[field])
      }
    })
    expect(result.pruned).toBe(head - 1)
    expect(JSON.stringify(compacted.slice(0, head))).toContain('Let me add.')
    expect(JSON.stringify(after.slice(0, head))).not.toContain('Let me add.')
    const hits = await handle.search('What is 40', { sessionId: id, summaries: false })
    expect(hits.map((h) => h.trackingId)).toStrictEqual([PROMPT])
    expect(await handle.search('Let me add', { sessionId: id, summaries: false })).toStrictEqual([])
    // Pruning again erases nothing more.
    expect((await sessions.prune({ olderThan: Date.now() + 60_000, keepPinned: true })).pruned).toBe(0)
  })

  it('erases nothing appended after olderThan, nor in the window, nor of another project or store', async () => {
    const { handle, sessions } = await compactedStore()
    const other = new LedgerSessionStore({ store: coreStoreOf(handle), prefix: 'other:' })
    await other.append(KEY, compacted)
    expect(await sessions.prune({ olderThan: 0, keepPinned: true })).toMatchObject({ pruned: 0 })
    expect(
      await sessions.prune({ olderThan: Date.now() + 60_000, keepPinned: true, projectKey: 'elsewhere' }),
    ).toStrictEqual({ sessions: 0, pruned: 0, erased: true })
    expect(await sessions.load(KEY)).toStrictEqual(compacted)
    const result = await sessions.prune({
      olderThan: Date.now() + 60_000,
      keepPinned: true,
      projectKey: KEY.projectKey,
    })
    expect(result).toMatchObject({ sessions: 1, pruned: head })
    expect(await other.load(KEY)).toStrictEqual(compacted)
  })

  it('of a transcript without a compaction erases only what came before its first prompt', async () => {
    const { sessions } = await openSessions(backend)
    const { entries } = recorded('tool-call')
    await sessions.append(KEY, entries)
    // The ledger window opens at a prompt: the queue operations before the first one were never in it.
    const opening = entries.findIndex((e) => e.type === 'user')
    expect(entries.slice(0, opening).map((e) => e.type)).toStrictEqual(['queue-operation', 'queue-operation'])
    expect((await sessions.prune({ olderThan: Date.now() + 60_000, keepPinned: true })).pruned).toBe(opening)
    const after = (await sessions.load(KEY)) ?? []
    expect(after.slice(opening)).toStrictEqual(entries.slice(opening))
    expect(after.slice(0, opening).every(pruned)).toBe(true)
    expect(after.slice(0, opening).map((e) => [e.type, e.timestamp])).toStrictEqual(
      entries.slice(0, opening).map((e) => [e.type, e.timestamp]),
    )
  })
})

describe('delete', () => {
  it('erases a whole transcript and its subagents: nothing of it is found any more', async () => {
    const { handle, sessions } = await compactedStore()
    await sessions.append({ ...KEY, subpath: 'subagents/agent-1' }, recorded('tool-call').entries)
    const id = sessions.sessionIdOf(KEY)
    await sessions.delete(KEY)
    expect(await handle.session(id)).toBeUndefined()
    expect(await handle.search('What is 40')).toStrictEqual([])
    expect(await handle.sessions()).toStrictEqual([])
  })
})
