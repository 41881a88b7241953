/**
 * Summaries in the store: folds (where they cut, what they take, what stays), the chain (`seqs`,
 * `replaces`, `regenerates`), regenerating and dropping the summary the window shows, reading summaries,
 * and how the window, the session and lookups count the summary. Every test ends with the window-rule
 * checker, which knows summaries.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { planWindow, type MessageData } from '../../src/index.js'
import { makeBackend, type LedgerManager, type LedgerStore, type ManagerOptions } from '../helpers/backend.js'
import { refusalOf } from '../helpers/refusal.js'
import { assistant, texts, toolResult, toolResults, toolUse, turns, user } from '../helpers/messages.js'
import { recordingSummarizer, type RecordingSummarizer } from '../helpers/summarizers.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'

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

let summarizer: RecordingSummarizer
function manager(options: Partial<ManagerOptions> = {}): LedgerManager {
  summarizer = recordingSummarizer()
  return backend.manager(store, { sessionId: sid, ...options })
}

/** The window as short texts, the summary as `S<n>` (n: the messages its summarizer was given). */
async function shown(m: LedgerManager): Promise<string[]> {
  return texts(await m.window()).map((t) =>
    t.startsWith('Summary of ') ? `S${t.split(':')[0]?.slice(11)}` : t,
  )
}

async function check(m: LedgerManager): Promise<void> {
  await assertWindowRulesOf(m.store, m.sessionId, { first: m.limits.first, last: m.limits.last })
}

/** A second result for a call already answered: archived as sent, shown as text. */
function lateResult(id: string, pinned = false): MessageData {
  const message = toolResult(id, `late ${id}`)
  return pinned ? { ...message, metadata: { custom: { pinned: true } } } : message
}

describe('a fold that empties the tail', () => {
  it('shows a pinned message skipped to the archive before the summary, with its lead', async () => {
    const m = manager({ windowSize: 1 })
    // The repair row answers A before q1; the fold takes everything.
    await m.append([user('q0'), toolUse('A'), user('q1'), assistant('a1')])
    await m.summarizeExcess(summarizer.summarize)
    expect(await shown(m)).toStrictEqual(['S5'])
    // A late result for A cannot follow the summary: it goes to the archive, and being pinned comes back
    // at once as a kept row — before the summary, like every kept row, with q1 as its lead.
    await m.append(lateResult('A', true))
    expect(await shown(m)).toStrictEqual([
      'q1',
      '[Late tool result] The call "A" to lookup returned after the conversation had moved on (status: success):\nlate A',
      'S5',
    ])
    await check(m)
    // Lookups by window position agree with window().
    const window = await m.window()
    for (const [i, message] of window.entries()) {
      if (i === 2) await expect(m.message({ windowIndex: i })).rejects.toThrow(/No message/)
      else expect((await m.message({ windowIndex: i })).trackingId).toBe(message.trackingId)
    }
  })

  it('keeps a message the last-N range protects when it cannot follow the summary', async () => {
    const m = manager({ windowSize: 1, protectedMessages: { last: 1 } })
    await m.append([user('q0'), toolUse('A'), toolResult('A'), assistant('a0')])
    // a0 is protected (last 1), with q0 as its lead; the tool round folds.
    await m.summarizeExcess(summarizer.summarize)
    expect(await shown(m)).toStrictEqual(['q0', 'a0', 'S2'])
    // A late result for A cannot follow the summary, but it is the session's last message now: it stays
    // in the window, as a kept row, as a pinned one would.
    await m.append(lateResult('A'))
    expect(await shown(m)).toStrictEqual([
      'q0',
      'a0',
      '[Late tool result] The call "A" to lookup returned after the conversation had moved on (status: success):\nlate A',
      'S2',
    ])
    await check(m)
  })

  it('drops the summary back to a window whose kept rows are all before the boundary', async () => {
    const m = manager({ windowSize: 1 })
    await m.append([user('q0'), toolUse('A'), user('q1'), assistant('a1')])
    const { summary } = await m.summarizeExcess(summarizer.summarize)
    await m.append(lateResult('A', true))
    await m.dropSummary(summary?.id ?? 0)
    await check(m)
    expect((await store.session(sid))?.windowMessages).toBe((await m.window()).length)
  })
})

describe('the summary leaving the window', () => {
  it('brings back the newest turn a fold took, when only the summary can go', async () => {
    const m = manager({ windowSize: 1, protectedMessages: { first: 1, last: 1 } })
    await m.append([user('q0'), assistant('a0'), user('q1'), assistant('a1')])
    // Strands' rule takes the oldest ⌊4 × 0.8⌋ = 3: q0 is protected and stays, a0 and q1 fold.
    await m.summarize(summarizer.summarize, { summaryRatio: 0.8, preserveRecentMessages: 0 })
    expect(await shown(m)).toStrictEqual(['q0', 'S2', 'a1'])
    // Everything left but the summary is protected: the summary goes, and the newest turn's prompt,
    // which it stood for, comes back — the newest turn always stays.
    const result = await m.applyWindow()
    expect(result).toMatchObject({ summaryEvicted: true, evicted: 0, restored: 1 })
    expect(await shown(m)).toStrictEqual(['q0', 'q1', 'a1'])
    await check(m)
  })

  it('goes when the protected messages and the newest turn alone break the limits', async () => {
    const m = manager({ windowSize: 4 })
    await m.append([user('q0'), toolUse('A'), toolResult('A'), user('q1'), assistant('a1')])
    await m.summarizeExcess(summarizer.summarize)
    expect(await shown(m)).toStrictEqual(['S3', 'q1', 'a1'])
    // Pinning the folded call brings it back with its result and its lead: 6 messages for a window of 4.
    await m.pin({ seq: 1 })
    expect(await shown(m)).toStrictEqual(['q0', 'use A', 'result A', 'S3', 'q1', 'a1'])
    // No cut of the tail helps (q1 opens the newest turn): what must stay is kept, the summary goes.
    expect(await m.applyWindow()).toMatchObject({
      summaryEvicted: true,
      evicted: 0,
      cut: 'summary',
      windowMessages: 5,
      exceedsLimit: true,
    })
    expect(await shown(m)).toStrictEqual(['q0', 'use A', 'result A', 'q1', 'a1'])
    await check(m)
  })
})

describe('summarizeExcess', () => {
  it('does not fold the summary alone into another one (it would take the same place)', async () => {
    const m = manager({ windowSize: 1, protectedMessages: { first: 1 } })
    await m.append([user('q0'), assistant('a0'), user('q1')])
    const result = await m.summarizeExcess(summarizer.summarize)
    // q0 must stay; the summary of a0 and q1 takes one place: the window cannot get smaller.
    expect(summarizer.calls).toHaveLength(1)
    expect(await m.summaries()).toHaveLength(1)
    expect(result).toMatchObject({ summarized: 2, windowMessages: 2, reason: undefined })
    expect(await shown(m)).toStrictEqual(['q0', 'S2'])
    // Asked again, nothing is left to fold.
    expect(await m.summarizeExcess(summarizer.summarize)).toMatchObject({
      summarized: 0,
      summary: undefined,
      reason: 'all-protected',
    })
    expect(summarizer.calls).toHaveLength(1)
    await check(m)
  })
})

describe('resummarize', () => {
  it("gives the summarizer each raw message of the chain once, in seq order ('raw')", async () => {
    let m = manager({ windowSize: 1 })
    await m.append(turns(2))
    await m.summarizeExcess(summarizer.summarize)
    // Pinning a1 brings it back with q1, its lead; a manager protecting the first message then folds
    // q1 again (no longer a lead: q0 opens the window) with the first summary.
    await m.pin({ seq: 3 })
    m = backend.manager(store, {
      sessionId: sid,
      windowSize: 1,
      protectedMessages: { first: 1 },
    })
    const { summary } = await m.summarizeExcess(summarizer.summarize)
    expect(await shown(m)).toStrictEqual(['q0', 'a1', 'S2'])
    expect((await m.summaries()).map((s) => s.seqs)).toStrictEqual([[[2, 3]], [[0, 4]]])
    await m.resummarize(summary?.id ?? 0, summarizer.summarize, { from: 'raw' })
    expect(texts(summarizer.calls.at(-1)?.input ?? [])).toStrictEqual(['q0', 'a0', 'q1', 'a1'])
    await check(m)
  })
})

describe("summarize: Strands' ratio rule", () => {
  it('moves a split at the first message of the tail past a call whose result does not follow', async () => {
    const m = manager({ windowSize: 1 })
    await m.append(user('q0'))
    // A window of one message: ⌊1 × 0.8⌋ → 1, the whole window folds.
    await m.summarize(summarizer.summarize, { summaryRatio: 0.8, preserveRecentMessages: 0 })
    await m.append(toolUse('A'))
    expect(await shown(m)).toStrictEqual(['S1', 'use A'])
    // ⌊2 × 0.5⌋ = 1: the split lands on the call in flight, and moving it forward reaches the end
    // (Strands: "Unable to find valid split point").
    const result = await m.summarize(summarizer.summarize, { summaryRatio: 0.5, preserveRecentMessages: 0 })
    expect(result).toMatchObject({ summarized: 0, summary: undefined, reason: 'no-valid-cut' })
    expect(summarizer.calls).toHaveLength(1)
    await check(m)
  })

  it('takes its share of what may fold: protected messages at the front neither count nor take places', async () => {
    const m = manager({ windowSize: 40 })
    await m.append(turns(4))
    await m.pin({ seq: 0 })
    await m.summarize(summarizer.summarize, { summaryRatio: 0.8, preserveRecentMessages: 1 })
    expect(await shown(m)).toStrictEqual(['q0', 'S5', 'q3', 'a3'])
    await m.append(turns(2, 4))
    // Window [q0 (pinned, kept), S5, q3, a3, q4, a4, q5, a5]: 7 of the 8 may fold; ⌊7 × 0.3⌋ = 2, the
    // summary and q3 — then past a3, which a summary may precede. Strands counts q0: ⌊8 × 0.3⌋ = 2 is q0
    // and the summary, and folds the summary alone.
    const result = await m.summarize(summarizer.summarize, { summaryRatio: 0.3, preserveRecentMessages: 0 })
    expect(result.summary?.seqs).toStrictEqual([[6, 7]])
    expect(await shown(m)).toStrictEqual(['q0', 'S2', 'a3', 'q4', 'a4', 'q5', 'a5'])
    await check(m)
  })

  it('makes progress with many pins at the front, where Strands would fold nothing again and again', async () => {
    const m = manager({ windowSize: 40 })
    await m.append(turns(8))
    for (const seq of [0, 1, 2, 3, 4, 5]) await m.pin({ seq })
    await m.summarize(summarizer.summarize, { summaryRatio: 0.5, preserveRecentMessages: 2 })
    // Every further fold takes messages, not only the pins' places.
    for (let i = 0; i < 3; i++) {
      const before = (await m.window()).length
      await m.append(turns(12).slice(8 + i, 9 + i))
      const r = await m.summarize(summarizer.summarize, { summaryRatio: 0.3, preserveRecentMessages: 2 })
      expect(r.summary?.messageCount).toBeGreaterThan(0)
      expect((await m.window()).length).toBeLessThanOrEqual(before + 2 - 1)
    }
    await check(m)
  })
})

describe("summarize: Strands' ratio arithmetic", () => {
  // 20 text messages (q0 a0 … q9 a9), a window of 40: [summaryRatio, preserveRecentMessages, folded].
  it.each<[number, number, number]>([
    [0.3, 10, 6], // ⌊20 × 0.3⌋ = 6
    [0.05, 10, 2], // clamped to 0.1: ⌊2⌋
    [0, 0, 2], // clamped to 0.1
    [0.95, 10, 10], // clamped to 0.8: ⌊16⌋, at most 20 − 10
    [1, 0, 16], // clamped to 0.8
    [0.5, 15, 5], // ⌊10⌋, at most 20 − 15: the split lands on a2, which a summary can precede
    [0.33, 0, 6], // ⌊6.6⌋
  ])('ratio %d, preserve %d folds the oldest %d messages', async (ratio, preserve, folded) => {
    const m = manager()
    await m.append(turns(10))
    const result = await m.summarize(summarizer.summarize, {
      summaryRatio: ratio,
      preserveRecentMessages: preserve,
    })
    expect(result.summarized).toBe(folded)
    expect(result.summary?.seqs).toStrictEqual([[0, folded]])
    expect(result.summary).toMatchObject({ messageCount: folded, fromBoundary: 0, toBoundary: folded })
    expect(await m.window()).toHaveLength(20 - folded + 1)
    expect(result).toMatchObject({ windowMessages: 21 - folded, reason: undefined })
    await check(m)
  })

  it('uses the defaults of Strands: ratio 0.3, the newest 10 messages preserved', async () => {
    const m = manager()
    await m.append(turns(20))
    expect((await m.summarize(summarizer.summarize)).summarized).toBe(12) // ⌊40 × 0.3⌋
    await m.deleteSession()
    await m.append(turns(7))
    expect((await m.summarize(summarizer.summarize)).summarized).toBe(4) // ⌊14 × 0.3⌋, ≤ 14 − 10
  })

  it("says 'too-few-messages' when the window is not longer than what it must preserve", async () => {
    const m = manager()
    await m.append(turns(3))
    for (const preserve of [6, 7, 100])
      expect(
        await m.summarize(summarizer.summarize, { preserveRecentMessages: preserve, summaryRatio: 0.8 }),
      ).toMatchObject({ summarized: 0, summary: undefined, reason: 'too-few-messages', windowMessages: 6 })
    expect(await manager({ sessionId: 'empty' }).summarize(summarizer.summarize)).toMatchObject({
      summarized: 0,
      reason: 'too-few-messages',
      windowMessages: 0,
    })
    expect(summarizer.calls).toHaveLength(0)
    expect(await m.summaries()).toStrictEqual([])
  })

  it('moves the split past tool results to the next message a summary can be followed by', async () => {
    const m = manager()
    await m.append([
      user('q0'),
      toolUse('A'),
      toolResult('A'),
      toolUse('B', 'C'),
      toolResults(['B', 'C']),
      assistant('a0'),
    ])
    await m.append(turns(2, 1))
    // ⌊10 × 0.3⌋ = 3 lands on result A; the next split point is the tool pair B/C (its result follows).
    let result = await m.summarize(summarizer.summarize, { summaryRatio: 0.3, preserveRecentMessages: 0 })
    expect(result.summary?.seqs).toStrictEqual([[0, 3]])
    expect(await shown(m)).toStrictEqual(['S3', 'use B', 'result B', 'a0', 'q1', 'a1', 'q2', 'a2'])
    // ⌊8 × 0.3⌋ = 2: the summary and the call B/C — the split on their result moves to a0.
    result = await m.summarize(summarizer.summarize, { summaryRatio: 0.3, preserveRecentMessages: 0 })
    expect(result).toMatchObject({ summarized: 3 })
    expect(result.summary?.seqs).toStrictEqual([[3, 5]])
    expect(await shown(m)).toStrictEqual(['S3', 'a0', 'q1', 'a1', 'q2', 'a2'])
    await check(m)
  })

  it("says 'all-protected' when every message it would fold is protected", async () => {
    const m = manager({ protectedMessages: { first: 2, last: 2 } })
    await m.append(turns(2))
    expect(await m.summarize(summarizer.summarize, { preserveRecentMessages: 0 })).toMatchObject({
      summarized: 0,
      reason: 'all-protected',
    })
    const pinned = manager({ sessionId: 'pins' })
    await pinned.append(turns(3))
    for (const seq of [0, 1, 2, 3]) await pinned.pin({ seq })
    expect(
      await pinned.summarize(summarizer.summarize, { summaryRatio: 0.5, preserveRecentMessages: 0 }),
    ).toMatchObject({ summarized: 0, reason: 'all-protected' })
    expect(summarizer.calls).toHaveLength(0)
  })
})

describe('a fold', () => {
  it('keeps the protected messages of the folded part before the summary, in seq order', async () => {
    const m = manager({ protectedMessages: { first: 1 } })
    await m.append(turns(5))
    await m.pin({ seq: 3 })
    await m.pin({ seq: 6 })
    // ⌊10 × 0.8⌋ = 8, at most 10 − 2: q0 (first 1), a1 and q3 (pinned) stay; the rest of [0, 8) folds.
    const { summary } = await m.summarize(summarizer.summarize, {
      summaryRatio: 0.8,
      preserveRecentMessages: 2,
    })
    expect(await shown(m)).toStrictEqual(['q0', 'a1', 'q3', 'S5', 'q4', 'a4'])
    expect(summary?.seqs).toStrictEqual([
      [1, 3],
      [4, 6],
      [7, 8],
    ])
    expect(texts(summarizer.calls[0]?.input ?? [])).toStrictEqual(['a0', 'q1', 'q2', 'a2', 'a3'])
    expect((await m.history({ limit: 100 })).filter((e) => e.inWindow).map((e) => e.seq)).toStrictEqual([
      0, 3, 6, 8, 9,
    ])
    await check(m)
  })

  it('folds the summary the window shows into the new one, and records it in replaces', async () => {
    const m = manager()
    await m.append(turns(6))
    const first = await m.summarize(summarizer.summarize, { summaryRatio: 0.5, preserveRecentMessages: 2 })
    expect(first.summary).toMatchObject({
      seqs: [[0, 6]],
      replaces: undefined,
      fromBoundary: 0,
      toBoundary: 6,
    })
    await m.append(turns(2, 6))
    // The window: the summary and q3 … a7 (11 messages); ⌊11 × 0.5⌋ = 5 takes the summary and q3 … a4.
    const second = await m.summarize(summarizer.summarize, { summaryRatio: 0.5, preserveRecentMessages: 2 })
    expect(second).toMatchObject({ summarized: 5 })
    expect(second.summary).toMatchObject({
      seqs: [[6, 10]],
      messageCount: 4,
      replaces: first.summary?.id,
      fromBoundary: 6,
      toBoundary: 10,
      current: true,
    })
    expect(summarizer.calls[1]?.input[0]).toStrictEqual(first.summary?.message)
    expect(summarizer.calls[1]?.request.previous?.id).toBe(first.summary?.id)
    expect(await m.summary(first.summary?.id ?? 0)).toMatchObject({ current: false, endReason: 'replaced' })
    expect(await shown(m)).toStrictEqual(['S5', 'q5', 'a5', 'q6', 'a6', 'q7', 'a7'])
    await check(m)
  })

  it('never folds a call in flight', async () => {
    const m = manager({ windowSize: 1 })
    await m.append([...turns(2), user('q2'), toolUse('A')])
    // The excess over a window of 1 is everything — but the call, whose result is appended next.
    const { summary } = await m.summarizeExcess(summarizer.summarize)
    expect(summary?.seqs).toStrictEqual([[0, 5]])
    expect(await shown(m)).toStrictEqual(['S5', 'use A'])
    await check(m)
    await m.append([toolResult('A'), assistant('a2')])
    expect(await shown(m)).toStrictEqual(['S5', 'use A', 'result A', 'a2'])
    await check(m)
  })

  it('leaves a result whose call it folded to the archive when it emptied the tail', async () => {
    const m = manager({ windowSize: 1 })
    await m.append([user('q0'), toolUse('A'), user('q1'), assistant('a1')])
    await m.summarizeExcess(summarizer.summarize)
    expect(await shown(m)).toStrictEqual(['S5'])
    const [entry] = await m.append([lateResult('A')])
    expect(entry).toMatchObject({ seq: 5, inWindow: false, late: true })
    expect(await shown(m)).toStrictEqual(['S5'])
    await check(m)
    // The conversation goes on after the summary.
    await m.append([user('q2'), assistant('a2')])
    expect(await shown(m)).toStrictEqual(['S5', 'q2', 'a2'])
    await check(m)
  })

  it('leaves history() byte-identical', async () => {
    const m = manager({ windowSize: 4 })
    await m.append(turns(6))
    await m.edit({ seq: 2 }, user('q1, edited'))
    const before = JSON.stringify((await m.history({ limit: 100 })).map((e) => e.message))
    await m.summarizeExcess(summarizer.summarize)
    await m.resummarize((await m.summaries())[0]?.id ?? 0, summarizer.summarize)
    expect(JSON.stringify((await m.history({ limit: 100 })).map((e) => e.message))).toBe(before)
    // The fold was given the window's form of the edited message; the archive keeps the original.
    expect(texts(summarizer.calls[0]?.input ?? [])).toContain('q1, edited')
    expect(texts(summarizer.calls[1]?.input ?? [])).toContain('q1')
  })
})

describe('the chain', () => {
  it('lists summaries newest first, marks the current one, and says why each ended', async () => {
    const m = manager()
    await m.append(turns(4))
    const s1 = (await m.summarize(summarizer.summarize, { summaryRatio: 0.5, preserveRecentMessages: 2 }))
      .summary
    await m.append(turns(1, 4))
    const s2 = (await m.summarize(summarizer.summarize, { summaryRatio: 0.5, preserveRecentMessages: 2 }))
      .summary
    const s3 = await m.resummarize(s2?.id ?? 0, summarizer.summarize)
    expect(s3).toMatchObject({ regenerates: s2?.id, replaces: s1?.id, seqs: s2?.seqs, current: true })
    const list = async (): Promise<[number, boolean, string | undefined][]> =>
      (await m.summaries()).map((s) => [s.id, s.current, s.endReason])
    const [id1, id2, id3] = [s1?.id ?? 0, s2?.id ?? 0, s3.id]
    expect(await list()).toStrictEqual([
      [id3, true, undefined],
      [id2, false, 'regenerated'],
      [id1, false, 'replaced'],
    ])
    // Dropping the regenerated one shows the summary it replaced again.
    await m.dropSummary(id3)
    expect(await list()).toStrictEqual([
      [id3, false, 'dropped'],
      [id2, false, 'regenerated'],
      [id1, true, undefined],
    ])
    expect((await m.summary(id1)).endedAt).toBeUndefined()
    expect((await m.summary(id3)).endedAt).toBeInstanceOf(Date)
    await check(m)
    // A sliding cut moves the boundary: the summary leaves the window too.
    const sliding = backend.manager(store, { sessionId: sid, windowSize: 6 })
    await m.append(turns(4, 5))
    expect(await sliding.applyWindow()).toMatchObject({ summaryEvicted: true, cut: 'trim-point' })
    expect((await list())[2]).toStrictEqual([id1, false, 'evicted'])
    expect((await store.session(sid))?.summaryId).toBeUndefined()
    expect((await shown(m)).some((t) => t.startsWith('S'))).toBe(false)
    expect((await m.summaries({ limit: 1 })).map((s) => s.id)).toStrictEqual([id3])
    await check(m)
  })

  it("regenerates from the archived originals of the whole chain ('raw') or of the summary before it ('previous')", async () => {
    const m = manager()
    await m.append(turns(4))
    await m.edit({ seq: 0 }, user('q0, edited'))
    const s1 = await m.summarize(summarizer.summarize, { summaryRatio: 0.5, preserveRecentMessages: 2 })
    await m.append(turns(2, 4))
    const s2 = await m.summarize(summarizer.summarize, { summaryRatio: 0.5, preserveRecentMessages: 2 })
    // ⌊9 × 0.5⌋ = 4: the summary and q2 a2 q3.
    expect(s2.summary?.seqs).toStrictEqual([[4, 7]])
    const id = s2.summary?.id ?? 0
    const archived = (await m.history({ limit: 100 })).map((e) => e.message)
    await m.resummarize(id, summarizer.summarize, { from: 'raw' })
    expect(summarizer.calls.at(-1)?.input).toStrictEqual(archived.slice(0, 7))
    expect(texts(summarizer.calls.at(-1)?.input ?? [])[0]).toBe('q0')
    const current = (await m.summaries())[0]?.id ?? 0
    await m.resummarize(current, summarizer.summarize, { from: 'previous' })
    expect(summarizer.calls.at(-1)?.input).toStrictEqual([s1.summary?.message, ...archived.slice(4, 7)])
    expect(summarizer.calls.at(-1)?.request.previous?.id).toBe(current)
    // A first summary has no summary before it: 'previous' is its own messages.
    await m.deleteSession()
    await m.append(turns(3))
    const only = await m.summarize(summarizer.summarize, { summaryRatio: 0.5, preserveRecentMessages: 2 })
    await m.resummarize(only.summary?.id ?? 0, summarizer.summarize, { from: 'previous' })
    expect(texts(summarizer.calls.at(-1)?.input ?? [])).toStrictEqual(['q0', 'a0', 'q1'])
    await check(m)
  })

  it('refuses to regenerate or drop a summary the window does not show, or one it never had', async () => {
    const m = manager()
    await m.append(turns(4))
    const s1 = await m.summarize(summarizer.summarize, { summaryRatio: 0.5, preserveRecentMessages: 2 })
    await m.summarize(summarizer.summarize, { summaryRatio: 0.5, preserveRecentMessages: 2 })
    const old = s1.summary?.id ?? 0
    const calls = summarizer.calls.length
    const before = JSON.stringify([await m.window(), await m.summaries()])
    expect(await refusalOf(() => m.dropSummary(old))).toMatchObject({ code: 'SUMMARY_NOT_CURRENT' })
    await expect(m.resummarize(old, summarizer.summarize)).rejects.toMatchObject({
      code: 'SUMMARY_NOT_CURRENT',
    })
    expect(await refusalOf(() => m.dropSummary(999))).toMatchObject({ code: 'SUMMARY_NOT_FOUND' })
    await expect(m.resummarize(999, summarizer.summarize)).rejects.toMatchObject({
      code: 'SUMMARY_NOT_FOUND',
    })
    expect(await refusalOf(() => m.summary(999))).toMatchObject({ code: 'SUMMARY_NOT_FOUND' })
    // Another session's summary is not this one's.
    const other = backend.manager(store, { sessionId: `${sid}-other` })
    expect(await refusalOf(() => other.dropSummary(old))).toMatchObject({ code: 'SUMMARY_NOT_FOUND' })
    expect(summarizer.calls.length - calls).toBe(0)
    expect(JSON.stringify([await m.window(), await m.summaries()])).toBe(before)
  })
})

describe('dropSummary', () => {
  it('restores the exact window before the fold: the same messages, the same kept rows', async () => {
    const m = manager({ protectedMessages: { first: 1 } })
    await m.append(turns(6))
    await m.pin({ seq: 5 })
    await m.applyWindow()
    const before = {
      window: JSON.stringify(await m.window()),
      history: JSON.stringify(await m.history({ limit: 100 })),
    }
    const session = await store.session(sid)
    const { summary } = await m.summarize(summarizer.summarize, {
      summaryRatio: 0.8,
      preserveRecentMessages: 2,
    })
    // ⌊12 × 0.8⌋ = 9: q0 (first 1) and a2 (pinned) stay, the rest of [0, 9) folds.
    expect(await shown(m)).toStrictEqual(['q0', 'a2', 'S7', 'a4', 'q5', 'a5'])
    const result = await m.dropSummary(summary?.id ?? 0)
    expect(result).toMatchObject({ evicted: 0, reason: 'within-limits', windowMessages: 12 })
    expect(JSON.stringify(await m.window())).toBe(before.window)
    expect(JSON.stringify(await m.history({ limit: 100 }))).toBe(before.history)
    expect(await store.session(sid)).toMatchObject({
      boundary: session?.boundary,
      windowMessages: session?.windowMessages,
      windowTokens: session?.windowTokens,
      summaryId: undefined,
    })
    await check(m)
  })

  it('restores kept rows the fold released, and plans the window anew', async () => {
    const m = manager({ windowSize: 6, protectedMessages: { first: 1 } })
    await m.append(turns(4))
    await m.pin({ seq: 3 })
    await m.applyWindow()
    await m.unpin({ seq: 3 })
    // a1 lost its pin but is still kept: the fold takes it (a kept row that lost its protection).
    const { summary } = await m.summarize(summarizer.summarize, {
      summaryRatio: 0.5,
      preserveRecentMessages: 2,
    })
    // ⌊6 × 0.5⌋ = 3 from [q0 a1 · q2 a2 q3 a3]: a1 (released) and q2 fold.
    expect(summary?.seqs).toStrictEqual([[3, 5]])
    expect(summary?.fromBoundary).toBe(4)
    await m.append(turns(2, 4))
    const state = { boundary: summary?.fromBoundary ?? 0, kept: [0, 3] }
    const archive = (await m.history({ limit: 100 })).map((e) => e.message)
    const expected = planWindow(archive, {
      windowSize: 6,
      protectedMessages: { first: 1 },
      state,
      tokens: (await m.history({ limit: 100 })).map((e) => e.tokens),
    })
    const result = await m.dropSummary(summary?.id ?? 0)
    const { indices, messages: _m, state: _s, kept: _k, ...plan } = expected
    expect(result).toStrictEqual(plan)
    expect((await m.history({ limit: 100 })).filter((e) => e.inWindow).map((e) => e.seq)).toStrictEqual(
      indices,
    )
    await check(m)
  })
})

describe('the summary in the window', () => {
  it('is counted by session() as one message of its tokens', async () => {
    const m = manager()
    await m.append(turns(5))
    const { summary } = await m.summarize(summarizer.summarize, {
      summaryRatio: 0.5,
      preserveRecentMessages: 2,
    })
    const raw = (await m.history({ limit: 100 })).filter((e) => e.inWindow)
    expect(await store.session(sid)).toMatchObject({
      windowMessages: raw.length + 1,
      windowTokens: raw.reduce((a, e) => a + e.tokens, 0) + (summary?.tokens ?? 0),
      summaryId: summary?.id,
      messageCount: 10,
    })
    expect(summary?.tokens).toBeGreaterThan(0)
  })

  it('takes a window position that message({ windowIndex }) skips', async () => {
    const m = manager()
    await m.append(turns(4))
    await m.pin({ seq: 1 })
    await m.summarize(summarizer.summarize, { summaryRatio: 0.5, preserveRecentMessages: 2 })
    expect(await shown(m)).toStrictEqual(['q0', 'a0', 'S2', 'q2', 'a2', 'q3', 'a3'])
    const window = await m.window()
    expect((await m.message({ windowIndex: 1 })).trackingId).toBe(window[1]?.trackingId)
    expect(await refusalOf(() => m.message({ windowIndex: 2 }))).toMatchObject({ code: 'MESSAGE_NOT_FOUND' })
    expect((await m.message({ windowIndex: 3 })).trackingId).toBe(window[3]?.trackingId)
    expect((await m.message({ windowIndex: 6 })).trackingId).toBe(window[6]?.trackingId)
    expect(await refusalOf(() => m.message({ windowIndex: 7 }))).toMatchObject({ code: 'MESSAGE_NOT_FOUND' })
    // Pins and edits by window position name the same messages.
    expect((await m.pin({ windowIndex: 3 })).seq).toBe(4)
  })

  it('is read back the same by a store that opens the file afresh', async () => {
    const m = manager({ windowSize: 6 })
    await m.append(turns(6))
    await m.summarizeExcess(summarizer.summarize)
    const window = await m.window()
    const summaries = await m.summaries()
    const session = await store.session(sid)
    const reopened = await backend.reopen(store)
    try {
      expect(await reopened.window(sid)).toStrictEqual(window)
      expect(await reopened.summaries(sid)).toStrictEqual(summaries)
      expect(await reopened.session(sid)).toStrictEqual(session)
      await assertWindowRulesOf(reopened, sid)
    } finally {
      await reopened.close()
    }
  })
})
