/**
 * The `sessionMetadata` fold of the Claude Agent SDK store, alone: the key recorded on the first write,
 * the SDK's summary folded over what each append newly wrote (as `foldSessionSummary` folds the whole
 * transcript at once), `mtime` never going back, other metadata keys kept, a write of nothing new leaving
 * the metadata as it is, another key's sidecar refused.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { foldSessionSummary, type SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { readSidecar, sidecarFold } from '../../../src/adapters/claude-agent-sdk/sidecar.js'
import { ContextLedgerError, type LedgerEntry } from '../../../src/index.js'

const KEY = { projectKey: 'p', sessionId: 's' }
const written = (entries: SessionStoreEntry[]): LedgerEntry[] =>
  entries.map((message, seq) => ({ seq, message }) as unknown as LedgerEntry)
const prompt = (text: string, at: number): SessionStoreEntry => ({
  type: 'user',
  uuid: `u-${text}-${at}`,
  timestamp: new Date(at).toISOString(),
  cwd: '/w',
  message: { role: 'user', content: text },
})

describe('the sidecar fold', () => {
  it('records the key and folds the summary; a subagent transcript gets the key only', () => {
    const first = sidecarFold(KEY)(undefined, written([prompt('hi', 1.7e12)]), 1.8e12)
    expect(readSidecar(first)).toStrictEqual({
      ...KEY,
      summary: foldSessionSummary(undefined, KEY, [prompt('hi', 1.7e12)], { mtime: 1.8e12 }),
    })
    const sub = { ...KEY, subpath: 'subagents/agent-1' }
    const subFirst = sidecarFold(sub)(undefined, written([prompt('x', 1)]), 5)
    expect(subFirst).toStrictEqual({ claudeAgent: sub })
    expect(sidecarFold(sub)(subFirst, written([prompt('y', 2)]), 6)).toBeUndefined()
  })

  it('folded batch by batch equals one fold of everything; mtime grows even when the clock goes back', () => {
    const batch = fc.array(
      fc.oneof(
        fc.integer({ min: 1.7e12, max: 1.8e12 }).map((t) => prompt(`p${t % 7}`, t)),
        fc.constantFrom<SessionStoreEntry>(
          { type: 'custom-title', customTitle: 'T' },
          { type: 'tag', tag: 'x' },
          { type: 'tag', tag: '' },
          { type: 'last-prompt', lastPrompt: 'again' },
        ),
      ),
      { minLength: 1, maxLength: 4 },
    )
    fc.assert(
      fc.property(
        fc.array(fc.tuple(batch, fc.integer({ min: 1e12, max: 2e12 })), { minLength: 1, maxLength: 6 }),
        (calls) => {
          let metadata: unknown = { other: { kept: true } }
          let last = 0
          for (const [entries, now] of calls) {
            metadata = sidecarFold(KEY)(metadata, written(entries), now) ?? metadata
            const mtime = readSidecar(metadata)?.summary?.mtime ?? 0
            expect(mtime).toBe(Math.max(now, last + 1))
            last = mtime
          }
          const all = calls.flatMap(([entries]) => entries)
          expect(readSidecar(metadata)?.summary?.data).toStrictEqual(
            foldSessionSummary(undefined, KEY, all).data,
          )
          expect((metadata as { other: unknown }).other).toStrictEqual({ kept: true })
        },
      ),
    )
  })

  it('leaves the metadata as it is when nothing new was written', () => {
    const first = sidecarFold(KEY)(undefined, written([prompt('hi', 1)]), 10)
    expect(sidecarFold(KEY)(first, [], 20)).toBeUndefined()
  })

  it("refuses to fold into another key's sidecar", () => {
    const first = sidecarFold(KEY)(undefined, written([prompt('hi', 1)]), 10)
    expect(() => sidecarFold({ ...KEY, sessionId: 'other' })(first, written([prompt('x', 2)]), 11)).toThrow(
      ContextLedgerError,
    )
  })

  it('reads no sidecar from metadata that is not one', () => {
    for (const metadata of [
      undefined,
      null,
      3,
      [],
      {},
      { claudeAgent: 'x' },
      { claudeAgent: { projectKey: '' } },
    ])
      expect(readSidecar(metadata)).toBeUndefined()
  })
})
