/**
 * A second writer while the summarizer runs (docs/design.md, "Summaries", Concurrency): the summarizer
 * performs the other write before it answers — through another store on the same file, or another
 * manager. Appends are fine (the fold is written as planned). Pins, cuts, edits and other summaries make
 * the fold be planned again: the same input is written with the summary already made (no second call);
 * a different one asks the summarizer once more, and after that the caller gets SUMMARY_CONFLICT with
 * nothing written. Never is a summary written over a range that changed. Summarizer calls are counted.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openContextStore, PersistentConversationManager, type ContextStore } from '../../src/index.js'
import { assistant, texts, turns, user } from '../helpers/messages.js'
import { recordingSummarizer } from '../helpers/summarizers.js'
import { useTempStore } from '../helpers/temp-store.js'
import { assertWindowRules } from '../helpers/window-rules.js'

let store: ContextStore
let path: string
let other: ContextStore
useTempStore((opened) => {
  ;({ store, path } = opened)
})
beforeEach(() => {
  other = openContextStore(path)
})
afterEach(() => {
  other.close()
})

const LIMITS = { windowSize: 40 } as const
const RATIO = { summaryRatio: 0.5, preserveRecentMessages: 2 } as const

/** The manager under test, on 6 text turns (12 messages): a fold by RATIO takes seqs [0, 6). */
function ours(): PersistentConversationManager {
  const m = new PersistentConversationManager({ store, sessionId: 's', ...LIMITS })
  m.append(turns(6))
  return m
}

/** The other writer: a manager of the same session on another connection. */
function theirs(options: { windowSize?: number } = {}): PersistentConversationManager {
  return new PersistentConversationManager({ store: other, sessionId: 's', ...LIMITS, ...options })
}

function check(): void {
  assertWindowRules(store, 's')
  assertWindowRules(other, 's')
}

/** The window as short texts, the summary as `S<n>`. */
function shown(m: PersistentConversationManager): string[] {
  return texts(m.window()).map((t) => (t.startsWith('Summary of ') ? `S${t.split(':')[0]?.slice(11)}` : t))
}

describe('a second writer while the summarizer runs', () => {
  it('appends: the fold is written as planned, with one summarizer call', async () => {
    const m = ours()
    const them = theirs()
    const summarizer = recordingSummarizer((call) => {
      if (call === 0) them.append([user('q6'), assistant('a6')])
    })
    const { summary } = await m.summarize(summarizer.summarize, RATIO)
    expect(summarizer.calls).toHaveLength(1)
    expect(summary?.seqs).toStrictEqual([[0, 6]])
    expect(shown(m)).toStrictEqual(['S6', 'q3', 'a3', 'q4', 'a4', 'q5', 'a5', 'q6', 'a6'])
    check()
  })

  it('pins a message the fold keeps anyway: planned again, the same input, no second call', async () => {
    const m = ours()
    const summarizer = recordingSummarizer((call) => {
      if (call === 0) other.pin('s', { seq: 9 })
    })
    const { summary } = await m.summarize(summarizer.summarize, RATIO)
    expect(summarizer.calls).toHaveLength(1)
    expect(summary?.seqs).toStrictEqual([[0, 6]])
    expect(m.history({ limit: 100 })[9]?.pinned).toBe(true)
    check()
  })

  it('pins a message the fold would take: planned again, the summarizer asked again without it', async () => {
    const m = ours()
    const summarizer = recordingSummarizer((call) => {
      if (call === 0) other.pin('s', { seq: 2 })
    })
    const { summary } = await m.summarize(summarizer.summarize, RATIO)
    expect(summarizer.calls).toHaveLength(2)
    expect(texts(summarizer.calls[0]?.input ?? [])).toStrictEqual(['q0', 'a0', 'q1', 'a1', 'q2', 'a2'])
    expect(texts(summarizer.calls[1]?.input ?? [])).toStrictEqual(['q0', 'a0', 'a1', 'q2', 'a2'])
    expect(summary?.seqs).toStrictEqual([
      [0, 2],
      [3, 6],
    ])
    expect(summary?.message.content).toStrictEqual([{ text: summarizer.calls[1]?.text }])
    expect(shown(m)).toStrictEqual(['q1', 'S5', 'q3', 'a3', 'q4', 'a4', 'q5', 'a5'])
    check()
  })

  it('keeps changing the window: SUMMARY_CONFLICT after two summarizer calls, nothing written', async () => {
    const m = ours()
    const summarizer = recordingSummarizer((call) => {
      other.pin('s', { seq: 2 + call * 2 })
    })
    const window = m.window().map((x) => x.trackingId)
    await expect(m.summarize(summarizer.summarize, RATIO)).rejects.toMatchObject({ code: 'SUMMARY_CONFLICT' })
    expect(summarizer.calls).toHaveLength(2)
    expect(m.summaries()).toStrictEqual([])
    expect(m.window().map((x) => x.trackingId)).toStrictEqual(window)
    check()
  })

  it('cuts the window: planned again from the new boundary, the summarizer asked again', async () => {
    const m = ours()
    const them = theirs({ windowSize: 8 })
    const summarizer = recordingSummarizer((call) => {
      if (call === 0) expect(them.applyWindow()).toMatchObject({ boundary: 4 })
    })
    const { summary } = await m.summarize(summarizer.summarize, RATIO)
    expect(summarizer.calls).toHaveLength(2)
    // The window after the cut is q2 … a5 (8 messages): ⌊8 × 0.5⌋ = 4 fold.
    expect(summary).toMatchObject({ fromBoundary: 4, toBoundary: 8, seqs: [[4, 8]] })
    expect(texts(summarizer.calls[1]?.input ?? [])).toStrictEqual(['q2', 'a2', 'q3', 'a3'])
    check()
  })

  it('writes another summary: planned again with it folded in, the summarizer asked again', async () => {
    const m = ours()
    const them = theirs()
    const summarizer = recordingSummarizer((call) => {
      if (call === 0) {
        // Synchronously: the other manager's fold, through the store's own steps.
        const planned = other.planFold('s', them.limits, { kind: 'ratio', ratio: 0.3, preserve: 2 })
        if (!('plan' in planned)) throw new Error('nothing to fold')
        const text = 'their summary'
        other.writeFold(planned.plan, {
          message: {
            role: 'user',
            content: [{ text }],
            trackingId: 'theirs',
            metadata: { custom: { contextLedger: { summary: true } } },
          },
          uid: 'theirs',
          text: null,
          tokens: 5,
          model: undefined,
          promptHash: 'x',
        })
      }
    })
    const { summary } = await m.summarize(summarizer.summarize, RATIO)
    expect(summarizer.calls).toHaveLength(2)
    const theirSummary = m.summaries().find((s) => s.trackingId === 'theirs')
    expect(summary).toMatchObject({ replaces: theirSummary?.id, current: true })
    expect(theirSummary).toMatchObject({ endReason: 'replaced', seqs: [[0, 3]] })
    expect(summarizer.calls[1]?.input[0]).toStrictEqual(theirSummary?.message)
    check()
  })

  it('edits a message the fold takes: the summarizer asked again with the new form', async () => {
    const m = ours()
    const summarizer = recordingSummarizer((call) => {
      if (call === 0) other.editMessage('s', { seq: 1 }, assistant('a0, edited'))
    })
    const { summary } = await m.summarize(summarizer.summarize, RATIO)
    expect(summarizer.calls).toHaveLength(2)
    expect(texts(summarizer.calls[1]?.input ?? [])[1]).toBe('a0, edited')
    expect(summary?.seqs).toStrictEqual([[0, 6]])
    check()
  })

  it('edits a message the fold keeps: the same input, no second call', async () => {
    const m = ours()
    const summarizer = recordingSummarizer((call) => {
      if (call === 0) other.editMessage('s', { seq: 11 }, assistant('a5, edited'))
    })
    const { summary } = await m.summarize(summarizer.summarize, RATIO)
    expect(summarizer.calls).toHaveLength(1)
    expect(summary?.seqs).toStrictEqual([[0, 6]])
    expect(shown(m).at(-1)).toBe('a5, edited')
    check()
  })

  it('deletes the session: nothing is written', async () => {
    const m = ours()
    const summarizer = recordingSummarizer((call) => {
      if (call === 0) other.deleteSession('s')
    })
    const result = await m.summarize(summarizer.summarize, RATIO)
    expect(result).toMatchObject({ summarized: 0, summary: undefined })
    expect(m.summaries()).toStrictEqual([])
    expect(store.session('s')).toBeUndefined()
  })

  it('appends during summarizeExcess: the next round folds what they brought over the limits', async () => {
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 6 })
    m.append(turns(6))
    const them = theirs()
    const summarizer = recordingSummarizer((call) => {
      if (call === 0) them.append(turns(2, 6))
    })
    const result = await m.summarizeExcess(summarizer.summarize)
    // Round 1 folds q0 … q3 (the summary and 5 messages fit 6); the 4 appended messages put the window
    // at 10; round 2 folds the summary and a3 … q5.
    expect(summarizer.calls).toHaveLength(2)
    const [second, first] = m.summaries()
    expect(first?.seqs).toStrictEqual([[0, 7]])
    expect(second).toMatchObject({ seqs: [[7, 11]], replaces: first?.id, current: true })
    expect(result).toMatchObject({ summarized: 12, windowMessages: 6, summary: { id: second?.id } })
    expect(shown(m)).toStrictEqual(['S5', 'a5', 'q6', 'a6', 'q7', 'a7'])
    check()
  })
})

describe('a second writer while a summary is regenerated', () => {
  async function folded(): Promise<{ m: PersistentConversationManager; id: number }> {
    const m = ours()
    const { summary } = await m.summarize(recordingSummarizer().summarize, RATIO)
    return { m, id: summary?.id ?? 0 }
  }

  it('pins a message of the tail: written with the summary made, no second call', async () => {
    const { m, id } = await folded()
    const summarizer = recordingSummarizer((call) => {
      if (call === 0) other.pin('s', { seq: 8 })
    })
    const made = await m.resummarize(id, summarizer.summarize)
    expect(summarizer.calls).toHaveLength(1)
    expect(made).toMatchObject({ regenerates: id, current: true, seqs: [[0, 6]] })
    check()
  })

  it('folds the summary into a new one: SUMMARY_NOT_CURRENT, nothing written', async () => {
    const { m, id } = await folded()
    const them = theirs()
    const summarizer = recordingSummarizer((call) => {
      if (call === 0) them.dropSummary(id)
    })
    await expect(m.resummarize(id, summarizer.summarize)).rejects.toMatchObject({
      code: 'SUMMARY_NOT_CURRENT',
    })
    expect(summarizer.calls).toHaveLength(1)
    expect(m.summaries().map((s) => s.endReason)).toStrictEqual(['dropped'])
    check()
  })

  it('redacts a message it stands for on every call: SUMMARY_CONFLICT after two calls, nothing written', async () => {
    const { m, id } = await folded()
    const summarizer = recordingSummarizer((call) => {
      other.redactMessage('s', { seq: call })
    })
    await expect(m.resummarize(id, summarizer.summarize)).rejects.toMatchObject({ code: 'SUMMARY_CONFLICT' })
    expect(summarizer.calls).toHaveLength(2)
    expect(m.summaries().map((s) => [s.id, s.current])).toStrictEqual([[id, true]])
    check()
  })

  it('keeps pinning: planned again, the same archived input, written with the summary made', async () => {
    const { m, id } = await folded()
    const summarizer = recordingSummarizer((call) => {
      other.pin('s', { seq: 7 + call })
    })
    const made = await m.resummarize(id, summarizer.summarize)
    expect(summarizer.calls).toHaveLength(1)
    expect(made).toMatchObject({ regenerates: id, current: true })
    check()
  })
})
