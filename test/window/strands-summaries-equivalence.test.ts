/**
 * With no pins and no protected ranges, `summarize()` folds exactly what Strands 1.19's
 * `SummarizingConversationManager` summarizes — run here for real, with a fake model, on the same window:
 * the oldest `max(1, ⌊len × ratio⌋)` window messages (at most `len − preserveRecentMessages`), moved
 * forward past tool results and calls whose result does not follow. Before each fold the Strands array is
 * the ledger's window (kept rows, the summary, the tail), so the comparison goes on across folds,
 * sliding-window cuts and the anchors they keep.
 */
import fc from 'fast-check'
import { configureLogging, Message, SummarizingConversationManager, TextBlock } from '@strands-agents/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isSummaryMessage, type StoredMessageData } from '../../src/index.js'
import { BACKEND, makeBackend, type LedgerManager, type LedgerStore } from '../helpers/backend.js'
import { conversation } from '../helpers/conversations.js'
import { fcRuns } from '../helpers/runs.js'
import { recordingSummarizer, type RecordingSummarizer } from '../helpers/summarizers.js'
import { toolUse, turns, user } from '../helpers/messages.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'

const quiet = (): void => undefined
configureLogging({ debug: quiet, info: quiet, warn: quiet, error: quiet })

// The conformance suite: the same tests on the backend the project selects (test/helpers/backend.ts).
const backend = makeBackend()
let store: LedgerStore
let session = 0
beforeAll(async () => {
  store = await backend.open()
})
afterAll(async () => {
  await backend.cleanup()
})

const SUMMARY = 'STRANDS-SUMMARY'

/** A model whose every reply is the summary text. */
const model = {
  streamAggregated: () =>
    (async function* () {
      await Promise.resolve()
      yield* []
      return { message: new Message({ role: 'assistant', content: [new TextBlock(SUMMARY)] }) }
    })(),
}

/** What Strands' manager does to `messages`: true (folded), false (declined), or 'no-valid-split'. */
async function strandsFold(
  messages: Message[],
  ratio: number,
  preserve: number,
): Promise<boolean | 'no-valid-split'> {
  const manager = new SummarizingConversationManager({
    summaryRatio: ratio,
    preserveRecentMessages: preserve,
  })
  const run = (
    manager as unknown as { _summarizeOldest(agent: unknown, model: unknown): Promise<boolean> }
  )._summarizeOldest.bind(manager)
  try {
    return await run({ messages }, model)
  } catch (error) {
    if (error instanceof Error && /valid split point/.test(error.message)) return 'no-valid-split'
    throw error
  }
}

/** Ids of a window, every summary as `S`. */
function ids(messages: readonly (StoredMessageData | Message)[]): string[] {
  return messages.map((m) => {
    const json = m instanceof Message ? (m.toJSON() as StoredMessageData) : m
    const first = json.content[0]
    if (isSummaryMessage(json) || (first !== undefined && 'text' in first && first.text === SUMMARY))
      return 'S'
    return json.trackingId
  })
}

/**
 * Folds the window of `ours` by ratio with both managers and expects the same outcome.
 *
 * @returns whether a summary was made
 */
async function sameAsStrands(
  ours: LedgerManager,
  summarizer: RecordingSummarizer,
  ratio: number,
  preserve: number,
): Promise<boolean> {
  const theirs = (await ours.window()).map((m) => Message.fromJSON(m as never))
  const folded = await strandsFold(theirs, ratio, preserve)
  const result = await ours.summarize(summarizer.summarize, {
    summaryRatio: ratio,
    preserveRecentMessages: preserve,
  })
  if (folded === true) {
    expect(result.reason).toBeUndefined()
    expect(ids(await ours.window())).toStrictEqual(ids(theirs))
  } else {
    expect(result.summary).toBeUndefined()
    expect(result.reason).toBe(
      folded === 'no-valid-split'
        ? 'no-valid-cut'
        : theirs.length - preserve <= 0
          ? 'too-few-messages'
          : 'all-protected',
    )
  }
  await assertWindowRulesOf(store, ours.sessionId, { first: ours.limits.first, last: ours.limits.last })
  return folded === true
}

const step = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('append' as const), take: fc.integer({ min: 1, max: 7 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('apply' as const) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('summarize' as const),
      ratio: fc.double({ min: 0, max: 1, noNaN: true }),
      preserve: fc.integer({ min: 0, max: 12 }),
    }),
  },
)

describe(`summarize [${BACKEND}]`, () => {
  it('folds exactly what Strands 1.19 SummarizingConversationManager summarizes when nothing is protected', async () => {
    await fc.assert(
      fc.asyncProperty(
        conversation(20, { greetings: false }),
        fc.array(step, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 12 }),
        async (messages, steps, windowSize) => {
          const sessionId = `eq-${session++}`
          const ours = backend.manager(store, { sessionId, windowSize })
          const summarizer = recordingSummarizer()
          let next = 0
          for (const s of steps) {
            if (s.kind === 'append') {
              const batch = messages.slice(next, next + s.take)
              next += batch.length
              if (batch.length > 0) await ours.append(batch)
              continue
            }
            if (s.kind === 'apply') {
              await ours.applyWindow()
              continue
            }
            await sameAsStrands(ours, summarizer, s.ratio, s.preserve)
          }
        },
      ),
      // PostgreSQL answers in milliseconds where SQLite takes microseconds: fewer runs there, the same checks.
      { numRuns: fcRuns(BACKEND === 'postgres' ? 100 : 200) },
    )
  })

  it('declines as Strands does when the split lands on the call in flight after the summary', async () => {
    const ours = backend.manager(store, { sessionId: `eq-${session++}`, windowSize: 1 })
    const summarizer = recordingSummarizer()
    await ours.append(user('q0'))
    expect(await sameAsStrands(ours, summarizer, 0.8, 0)).toBe(true)
    await ours.append(toolUse('A'))
    expect(await sameAsStrands(ours, summarizer, 0.5, 0)).toBe(false)
  })

  it('takes its share after pinned messages at the front, where Strands declines', async () => {
    const ours = backend.manager(store, { sessionId: `eq-${session++}`, windowSize: 10 })
    const summarizer = recordingSummarizer()
    await ours.append(turns(2))
    await ours.pin({ seq: 0 })
    // The pin is not at the front yet: the same fold as Strands.
    expect(await sameAsStrands(ours, summarizer, 0.8, 1)).toBe(true)
    expect(ids(await ours.window())).toHaveLength(3)
    // [q0 (pinned), summary, a1]: Strands' share is q0 alone — all protected, nothing done; ours is the
    // summary (the share of what may fold), so the fold makes progress.
    const theirs = (await ours.window()).map((m) => Message.fromJSON(m as never))
    expect(await strandsFold(theirs, 0.1, 0)).toBe(false)
    const result = await ours.summarize(summarizer.summarize, {
      summaryRatio: 0.1,
      preserveRecentMessages: 0,
    })
    expect(result.summary?.replaces).toBeDefined()
    expect(ids(await ours.window())).toHaveLength(3)
    await assertWindowRulesOf(store, ours.sessionId, { first: 0, last: 0 })
  })
})
