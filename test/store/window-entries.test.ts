/**
 * `windowEntries()`: the window with where each row comes from. Its messages are `window()`'s, one for
 * one; its seqs are those of the `history()` entries in the window, in order, with the summary row's
 * undefined; its pinned flags are the archive's — after pins, evictions, a summary and an edit.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { WindowEntry } from '../../src/index.js'
import { BACKEND, makeBackend, type LedgerManager, type LedgerStore } from '../helpers/backend.js'
import { assistant, texts, toolResult, toolUse, turns, user } from '../helpers/messages.js'
import { fcRuns } from '../helpers/runs.js'
import { recordingSummarizer } from '../helpers/summarizers.js'

// The conformance suite: one store per file on the backend the project selects, a session per test.
const backend = makeBackend()
let store: LedgerStore
let sid = ''
let tests = 0
beforeAll(async () => {
  store = await backend.open()
})
afterAll(async () => {
  await backend.cleanup()
})
beforeEach(() => {
  sid = `s${tests++}`
})

/**
 * Checks `windowEntries()` against `window()` and `history()` read from the same session, and returns
 * the entries.
 */
async function checkedEntries(m: LedgerManager): Promise<readonly WindowEntry[]> {
  const entries = await store.windowEntries(m.sessionId)
  expect(await m.windowEntries()).toStrictEqual(entries)
  expect(entries.map((e) => e.message)).toStrictEqual(await m.window())
  const history = await m.history({ limit: 1000 })
  const inWindow = history.filter((e) => e.inWindow)
  const withSeq = entries.filter((e) => e.seq !== undefined)
  expect(withSeq.map((e) => e.seq)).toStrictEqual(inWindow.map((e) => e.seq))
  expect(withSeq.map((e) => e.pinned)).toStrictEqual(inWindow.map((e) => e.pinned))
  const summaryRows = entries.filter((e) => e.seq === undefined)
  const summary = (await m.summaries()).find((s) => s.current)
  expect(summaryRows).toHaveLength(summary === undefined ? 0 : 1)
  for (const row of summaryRows) expect(row.pinned).toBe(false)
  return entries
}

describe(`windowEntries [${BACKEND}]`, () => {
  it('is empty for an unknown session', async () => {
    expect(await store.windowEntries('nobody')).toStrictEqual([])
    expect(await backend.manager(store, { sessionId: 'nobody' }).windowEntries()).toStrictEqual([])
  })

  it('gives every row its seq and pin while nothing has left the window', async () => {
    const m = backend.manager(store, { sessionId: sid })
    await m.append([user('q0'), toolUse('A'), toolResult('A'), assistant('a0')])
    await m.pin({ seq: 1 })
    const entries = await checkedEntries(m)
    expect(entries.map((e) => [e.seq, e.pinned])).toStrictEqual([
      [0, false],
      [1, true],
      [2, false],
      [3, false],
    ])
  })

  it('after evictions and pins: the kept rows, then the tail, with the archive seqs', async () => {
    const m = backend.manager(store, { sessionId: sid, windowSize: 4 })
    await m.append(turns(5))
    await m.applyWindow()
    // A pin brings an evicted reply back with its question as the lead.
    await m.pin({ seq: 3 })
    const entries = await checkedEntries(m)
    expect(entries.map((e) => e.seq)).toStrictEqual([2, 3, 6, 7, 8, 9])
    expect(entries.filter((e) => e.pinned).map((e) => e.seq)).toStrictEqual([3])
    expect(texts(entries.map((e) => e.message))).toStrictEqual(['q1', 'a1', 'q3', 'a3', 'q4', 'a4'])
  })

  it('with a summary: its row has no seq and sits after the kept rows, before the tail', async () => {
    const summarizer = recordingSummarizer()
    const m = backend.manager(store, { sessionId: sid, windowSize: 4 })
    await m.append(turns(4))
    await m.pin({ seq: 1 })
    await m.summarizeExcess(summarizer.summarize)
    await m.append(turns(1, 4))
    await m.pin({ seq: 9 })
    // An edited row: the window (and the entry) shows the edit, the archive keeps the original.
    await m.edit({ seq: 8 }, { ...user('q4 edited'), trackingId: (await m.message({ seq: 8 })).trackingId })
    const entries = await checkedEntries(m)
    // The pinned a0 stays kept with its lead; the summary folds 2–6; 7 and the new turn are the tail.
    expect(entries.map((e) => [e.seq, e.pinned])).toStrictEqual([
      [0, false],
      [1, true],
      [undefined, false],
      [7, false],
      [8, false],
      [9, true],
    ])
    const summaryAt = 2
    expect(texts([entries.find((e) => e.seq === 8)?.message ?? user('missing')])).toStrictEqual(['q4 edited'])
    expect(texts([entries[summaryAt]?.message ?? user('missing')])[0]).toMatch(/^Summary of /)
  })

  it('shows a message of another format exactly as window() does', async () => {
    const other = `${sid}-ui`
    await store.append(
      other,
      [
        { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] },
        { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] },
      ],
      { format: 'ai-sdk/ui' },
    )
    await store.pin(other, { seq: 1 })
    const entries = await store.windowEntries(other)
    expect(entries.map((e) => e.message)).toStrictEqual(await store.window(other))
    expect(entries.map((e) => [e.seq, e.pinned])).toStrictEqual([
      [0, false],
      [1, true],
    ])
  })
})

/** One step of a session's life. */
type Step =
  | { kind: 'turn' }
  | { kind: 'tool' }
  | { kind: 'apply' }
  | { kind: 'pin' | 'unpin'; at: number }
  | { kind: 'summarize' }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ kind: 'turn' as const }),
  fc.constant({ kind: 'tool' as const }),
  fc.constant({ kind: 'apply' as const }),
  fc.record({ kind: fc.constantFrom('pin' as const, 'unpin' as const), at: fc.nat() }),
  fc.constant({ kind: 'summarize' as const }),
)

describe(`windowEntries as a property [${BACKEND}]`, () => {
  it('matches window() and the in-window history after any appends, cuts, pins and summaries', async () => {
    let run = 0
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const summarizer = recordingSummarizer()
        const m = backend.manager(store, { sessionId: `${sid}-${run++}`, windowSize: 4 })
        await m.append(user('q'))
        let count = 1
        for (const [i, s] of steps.entries()) {
          if (s.kind === 'turn') count += (await m.append(turns(1, i))).length
          else if (s.kind === 'tool')
            count += (await m.append([toolUse(`t${i}`), toolResult(`t${i}`), assistant(`r${i}`)])).length
          else if (s.kind === 'apply') await m.applyWindow()
          else if (s.kind === 'summarize') await m.summarizeExcess(summarizer.summarize)
          else await m[s.kind]({ seq: s.at % count })
        }
        await checkedEntries(m)
      }),
      { numRuns: fcRuns(15) },
    )
  })
})
