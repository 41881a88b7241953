/**
 * Summaries in the store: folds (where they cut, what they take, what stays), the chain (`seqs`,
 * `replaces`, `regenerates`), regenerating and dropping the summary the window shows, reading summaries,
 * and how the window, the session and lookups count the summary. Every test ends with the window-rule
 * checker, which knows summaries.
 */
import { describe, expect, it } from 'vitest'
import {
  PersistentConversationManager,
  type ContextStore,
  type MessageData,
  type PersistentConversationManagerOptions,
} from '../../src/index.js'
import { assistant, texts, toolResult, toolUse, turns, user } from '../helpers/messages.js'
import { recordingSummarizer, type RecordingSummarizer } from '../helpers/summarizers.js'
import { useTempStore } from '../helpers/temp-store.js'
import { assertWindowRules } from '../helpers/window-rules.js'

let store: ContextStore
useTempStore((opened) => {
  ;({ store } = opened)
})

let summarizer: RecordingSummarizer
function manager(options: Partial<PersistentConversationManagerOptions> = {}): PersistentConversationManager {
  summarizer = recordingSummarizer()
  return new PersistentConversationManager({ store, sessionId: 's', ...options })
}

/** The window as short texts, the summary as `S<n>` (n: the messages its summarizer was given). */
function shown(m: PersistentConversationManager): string[] {
  return texts(m.window()).map((t) => (t.startsWith('Summary of ') ? `S${t.split(':')[0]?.slice(11)}` : t))
}

function check(m: PersistentConversationManager): void {
  assertWindowRules(m.store, m.sessionId, { first: m.limits.first, last: m.limits.last })
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
    m.append([user('q0'), toolUse('A'), user('q1'), assistant('a1')])
    await m.summarizeExcess(summarizer.summarize)
    expect(shown(m)).toStrictEqual(['S5'])
    // A late result for A cannot follow the summary: it goes to the archive, and being pinned comes back
    // at once as a kept row — before the summary, like every kept row, with q1 as its lead.
    m.append(lateResult('A', true))
    expect(shown(m)).toStrictEqual([
      'q1',
      '[Late tool result] The call "A" to lookup returned after the conversation had moved on (status: success):\nlate A',
      'S5',
    ])
    check(m)
    // Lookups by window position agree with window().
    const window = m.window()
    window.forEach((message, i) => {
      if (i === 2) expect(() => m.message({ windowIndex: i })).toThrow(/No message/)
      else expect(m.message({ windowIndex: i }).trackingId).toBe(message.trackingId)
    })
  })

  it('keeps a message the last-N range protects when it cannot follow the summary', async () => {
    const m = manager({ windowSize: 1, protectedMessages: { last: 1 } })
    m.append([user('q0'), toolUse('A'), toolResult('A'), assistant('a0')])
    // a0 is protected (last 1), with q0 as its lead; the tool round folds.
    await m.summarizeExcess(summarizer.summarize)
    expect(shown(m)).toStrictEqual(['q0', 'a0', 'S2'])
    // A late result for A cannot follow the summary, but it is the session's last message now: it stays
    // in the window, as a kept row, as a pinned one would.
    m.append(lateResult('A'))
    expect(shown(m)).toStrictEqual([
      'q0',
      'a0',
      '[Late tool result] The call "A" to lookup returned after the conversation had moved on (status: success):\nlate A',
      'S2',
    ])
    check(m)
  })

  it('drops the summary back to a window whose kept rows are all before the boundary', async () => {
    const m = manager({ windowSize: 1 })
    m.append([user('q0'), toolUse('A'), user('q1'), assistant('a1')])
    const { summary } = await m.summarizeExcess(summarizer.summarize)
    m.append(lateResult('A', true))
    m.dropSummary(summary?.id ?? 0)
    check(m)
    expect(store.session('s')?.windowMessages).toBe(m.window().length)
  })
})

describe('the summary leaving the window', () => {
  it('brings back the newest turn a fold took, when only the summary can go', async () => {
    const m = manager({ windowSize: 1, protectedMessages: { first: 1, last: 1 } })
    m.append([user('q0'), assistant('a0'), user('q1'), assistant('a1')])
    // Strands' rule takes the oldest ⌊4 × 0.8⌋ = 3: q0 is protected and stays, a0 and q1 fold.
    await m.summarize(summarizer.summarize, { summaryRatio: 0.8, preserveRecentMessages: 0 })
    expect(shown(m)).toStrictEqual(['q0', 'S2', 'a1'])
    // Everything left but the summary is protected: the summary goes, and the newest turn's prompt,
    // which it stood for, comes back — the newest turn always stays.
    const result = m.applyWindow()
    expect(result).toMatchObject({ summaryEvicted: true, evicted: 0, restored: 1 })
    expect(shown(m)).toStrictEqual(['q0', 'q1', 'a1'])
    check(m)
  })

  it('goes when the protected messages and the newest turn alone break the limits', async () => {
    const m = manager({ windowSize: 4 })
    m.append([user('q0'), toolUse('A'), toolResult('A'), user('q1'), assistant('a1')])
    await m.summarizeExcess(summarizer.summarize)
    expect(shown(m)).toStrictEqual(['S3', 'q1', 'a1'])
    // Pinning the folded call brings it back with its result and its lead: 6 messages for a window of 4.
    m.pin({ seq: 1 })
    expect(shown(m)).toStrictEqual(['q0', 'use A', 'result A', 'S3', 'q1', 'a1'])
    // No cut of the tail helps (q1 opens the newest turn): what must stay is kept, the summary goes.
    expect(m.applyWindow()).toMatchObject({
      summaryEvicted: true,
      evicted: 0,
      cut: 'summary',
      windowMessages: 5,
      exceedsLimit: true,
    })
    expect(shown(m)).toStrictEqual(['q0', 'use A', 'result A', 'q1', 'a1'])
    check(m)
  })
})

describe('summarizeExcess', () => {
  it('does not fold the summary alone into another one (it would take the same place)', async () => {
    const m = manager({ windowSize: 1, protectedMessages: { first: 1 } })
    m.append([user('q0'), assistant('a0'), user('q1')])
    const result = await m.summarizeExcess(summarizer.summarize)
    // q0 must stay; the summary of a0 and q1 takes one place: the window cannot get smaller.
    expect(summarizer.calls).toHaveLength(1)
    expect(m.summaries()).toHaveLength(1)
    expect(result).toMatchObject({ summarized: 2, windowMessages: 2, reason: undefined })
    expect(shown(m)).toStrictEqual(['q0', 'S2'])
    // Asked again, nothing is left to fold.
    expect(await m.summarizeExcess(summarizer.summarize)).toMatchObject({
      summarized: 0,
      summary: undefined,
      reason: 'all-protected',
    })
    expect(summarizer.calls).toHaveLength(1)
    check(m)
  })
})

describe('resummarize', () => {
  it("gives the summarizer each raw message of the chain once, in seq order ('raw')", async () => {
    let m = manager({ windowSize: 1 })
    m.append(turns(2))
    await m.summarizeExcess(summarizer.summarize)
    // Pinning a1 brings it back with q1, its lead; a manager protecting the first message then folds
    // q1 again (no longer a lead: q0 opens the window) with the first summary.
    m.pin({ seq: 3 })
    m = new PersistentConversationManager({
      store,
      sessionId: 's',
      windowSize: 1,
      protectedMessages: { first: 1 },
    })
    const { summary } = await m.summarizeExcess(summarizer.summarize)
    expect(shown(m)).toStrictEqual(['q0', 'a1', 'S2'])
    expect(m.summaries().map((s) => s.seqs)).toStrictEqual([[[2, 3]], [[0, 4]]])
    await m.resummarize(summary?.id ?? 0, summarizer.summarize, { from: 'raw' })
    expect(texts(summarizer.calls.at(-1)?.input ?? [])).toStrictEqual(['q0', 'a0', 'q1', 'a1'])
    check(m)
  })
})

describe("summarize: Strands' ratio rule", () => {
  it('moves a split at the first message of the tail past a call whose result does not follow', async () => {
    const m = manager({ windowSize: 1 })
    m.append(user('q0'))
    // A window of one message: ⌊1 × 0.8⌋ → 1, the whole window folds.
    await m.summarize(summarizer.summarize, { summaryRatio: 0.8, preserveRecentMessages: 0 })
    m.append(toolUse('A'))
    expect(shown(m)).toStrictEqual(['S1', 'use A'])
    // ⌊2 × 0.5⌋ = 1: the split lands on the call in flight, and moving it forward reaches the end
    // (Strands: "Unable to find valid split point").
    const result = await m.summarize(summarizer.summarize, { summaryRatio: 0.5, preserveRecentMessages: 0 })
    expect(result).toMatchObject({ summarized: 0, summary: undefined, reason: 'no-valid-cut' })
    expect(summarizer.calls).toHaveLength(1)
    check(m)
  })

  it('folds nothing when the oldest messages it takes are all protected (not the summary after them)', async () => {
    const m = manager({ windowSize: 10 })
    m.append(turns(2))
    m.pin({ seq: 0 })
    await m.summarize(summarizer.summarize, { summaryRatio: 0.8, preserveRecentMessages: 1 })
    expect(shown(m)).toStrictEqual(['q0', 'S2', 'a1'])
    // ⌊3 × 0.1⌋ → 1: the oldest window message is q0, pinned (Strands: all protected, nothing to do).
    const result = await m.summarize(summarizer.summarize, { summaryRatio: 0.1, preserveRecentMessages: 0 })
    expect(result).toMatchObject({ summarized: 0, summary: undefined, reason: 'all-protected' })
    expect(summarizer.calls).toHaveLength(1)
    check(m)
  })
})
