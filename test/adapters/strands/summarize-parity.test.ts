/**
 * Differential test: a real Strands `Agent` with Strands' own `SummarizingConversationManager` beside a
 * real `Agent` with the ledger's manager and `summarize` (no windowSize, no tokenBudget, no pins), fed the
 * same prompts. Both have the same deterministic main model — it refuses input over a message or
 * character threshold with `ContextWindowOverflowError`, otherwise answers or calls a tool per script —
 * and the same deterministic summarizer model, whose reply is a hash of everything it was given. After
 * every invocation `agent.messages` (role and content) are equal; every input the main model got (so the
 * conversation after every overflow) is equal; every input the summarizer got, and its system prompt, is
 * equal; a failing invocation fails the same way on both sides (message and cause chain).
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Agent, configureLogging, SummarizingConversationManager } from '@strands-agents/sdk'
import { openContextStore } from '../../../src/index.js'
import {
  DEFAULT_SUMMARIZATION_PROMPT,
  PersistentConversationManager,
} from '../../../src/adapters/strands/index.js'
import { fcRuns } from '../../helpers/runs.js'
import { recordingLogger } from './helpers.js'
import {
  MainModel,
  OVERFLOW_LOOP_LIMIT,
  shown,
  sizedLookup,
  SummarizerModel,
  type SummarizerFailure,
  type Threshold,
} from './summary-models.js'

const quiet = (): void => {}

beforeAll(() => {
  configureLogging({ debug: quiet, info: quiet, warn: quiet, error: quiet })
})
afterAll(() => {
  // Strands' default logger.
  configureLogging({
    debug: quiet,
    info: quiet,
    warn: (...args: unknown[]) => {
      console.warn(...args)
    },
    error: (...args: unknown[]) => {
      console.error(...args)
    },
  })
})

/** One scenario: settings shared by both managers, the models' behaviour, and the prompts. */
interface Scenario {
  readonly summaryRatio: number
  readonly preserveRecentMessages: number
  readonly systemPrompt: string
  readonly threshold: Threshold
  /** Proactive compression on both sides: the main model's context window (tokens) and the ratio. */
  readonly proactive: { readonly limit: number; readonly compressionThreshold: number } | null
  readonly failures: readonly SummarizerFailure[]
  readonly prompts: readonly string[]
}

/** How an invocation ended: the error's name and message, down its cause chain. */
type Outcome = { readonly ok: true } | { readonly ok: false; readonly chain: string[] }

function chainOf(error: unknown): string[] {
  const chain: string[] = []
  for (let e: unknown = error; e !== undefined && chain.length < 5;) {
    chain.push(
      e instanceof Error
        ? `${e.name}: ${e.message}`
        : `(not an Error) ${typeof e === 'string' ? e : JSON.stringify(e)}`,
    )
    e = e instanceof Error ? e.cause : undefined
  }
  return chain
}

async function outcome(run: Promise<unknown>): Promise<Outcome> {
  try {
    await run
    return { ok: true }
  } catch (error) {
    return { ok: false, chain: chainOf(error) }
  }
}

/** Both agents, built for a scenario. */
function agents(s: Scenario) {
  const proactiveCompression =
    s.proactive === null
      ? {}
      : { proactiveCompression: { compressionThreshold: s.proactive.compressionThreshold } }
  const strandsMain = new MainModel(s.threshold)
  const strandsSummarizer = new SummarizerModel(s.failures)
  const strands = new Agent({
    model: strandsMain,
    tools: [sizedLookup()],
    printer: false,
    conversationManager: new SummarizingConversationManager({
      model: strandsSummarizer,
      summaryRatio: s.summaryRatio,
      preserveRecentMessages: s.preserveRecentMessages,
      summarizationSystemPrompt: s.systemPrompt,
      ...proactiveCompression,
    }),
  })
  const ledgerMain = new MainModel(s.threshold)
  if (s.proactive !== null)
    for (const model of [strandsMain, ledgerMain])
      model.updateConfig({ contextWindowLimit: s.proactive.limit })
  const ledgerSummarizer = new SummarizerModel(s.failures)
  const store = openContextStore(':memory:')
  const logger = recordingLogger()
  const manager = new PersistentConversationManager({
    store,
    sessionId: 'parity',
    logger,
    ...proactiveCompression,
    summarize: {
      model: ledgerSummarizer,
      summaryRatio: s.summaryRatio,
      preserveRecentMessages: s.preserveRecentMessages,
      systemPrompt: s.systemPrompt,
    },
  })
  const ledger = new Agent({
    model: ledgerMain,
    tools: [sizedLookup()],
    printer: false,
    conversationManager: manager,
  })
  return {
    strands: { agent: strands, main: strandsMain, summarizer: strandsSummarizer },
    ledger: { agent: ledger, main: ledgerMain, summarizer: ledgerSummarizer, manager, store, logger },
  }
}

/** What the run saw, for the property's report and the tests' extra checks. */
interface RunReport {
  outcomes: Outcome[]
  /** Strands looped on folding its summary alone until the model gave up (the runs part there). */
  stuck?: boolean
  overflows: number
  summaries: number
  failures: number
}

/** Runs a scenario on both agents, checking they agree after every invocation. */
async function runBoth(s: Scenario): Promise<RunReport> {
  const { strands, ledger } = agents(s)
  const report: RunReport = { outcomes: [], overflows: 0, summaries: 0, failures: 0 }
  try {
    for (const [i, prompt] of s.prompts.entries()) {
      strands.main.startInvocation()
      ledger.main.startInvocation()
      const a = await outcome(strands.agent.invoke(prompt))
      const logged = ledger.logger.lines.length
      const b = await outcome(ledger.agent.invoke(prompt))
      const at = `after prompt ${i} (${prompt})`
      const refusedLoop = ledger.logger.lines
        .slice(logged)
        .some((l) => l.text.includes('the only part of the window a summary may take is the summary itself'))
      if (refusedLoop) {
        // The fold could take nothing but the summary it had just made: Strands' summarizing manager folds
        // it again and asks the model again, forever (until this test's model gives up, or the summarizer
        // fails); ours raises the overflow instead. Both invocations failed; the runs part here.
        expect(a.ok, `Strands' outcome ${at}`).toBe(false)
        expect(b.ok, `outcome ${at}`).toBe(false)
        expect(b.ok ? [] : b.chain[0], `outcome ${at}`).toMatch(/ContextWindowOverflowError/)
        report.outcomes.push(a)
        report.failures++
        report.stuck = true
        report.summaries = ledger.manager.ledger.summaries({ limit: 1000 }).length
        return report
      }
      expect(b, `outcome ${at}`).toStrictEqual(a)
      expect(shown(ledger.agent.messages), `agent.messages ${at}`).toStrictEqual(
        shown(strands.agent.messages),
      )
      expect(ledger.main.log, `main model inputs ${at}`).toStrictEqual(strands.main.log)
      expect(ledger.summarizer.log, `summarizer inputs ${at}`).toStrictEqual(strands.summarizer.log)
      report.outcomes.push(a)
      if (!a.ok) report.failures++
    }
    // The ledger's window is what its agent shows, and a new agent on the same session shows it too.
    expect(shown(ledger.agent.messages)).toStrictEqual(shown(restored(ledger.manager.store)))
    report.overflows = strands.main.log.filter((c) => c.overflow).length
    report.summaries = ledger.manager.ledger.summaries({ limit: 1000 }).length
    expect(report.summaries).toBe(
      strands.summarizer.log.length - failedSummaries(s, strands.summarizer.log.length),
    )
    return report
  } finally {
    ledger.store.close()
  }
}

/** Summarizer calls that failed (their summary was never written). */
function failedSummaries(s: Scenario, calls: number): number {
  return new Set(s.failures.filter((f) => f.at <= calls).map((f) => f.at)).size
}

/** `agent.messages` of a new agent on the session, once initialized. */
function restored(store: ReturnType<typeof openContextStore>) {
  const manager = new PersistentConversationManager({ store, sessionId: 'parity', summarize: true })
  const agent = new Agent({
    model: new MainModel({ messages: 1e9, chars: 1e9 }),
    printer: false,
    conversationManager: manager,
  })
  manager.initAgent(agent)
  return agent.messages
}

const promptArb = fc.oneof(
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 999 }).map((n) => `say ${n}`) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.integer({ min: 0, max: 999 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 5, max: 700 }),
      )
      .map(([q, rounds, size]) => `ask q${q} ${rounds} ${size}`),
  },
)

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  // Values outside Strands' clamp [0.1, 0.8] included.
  summaryRatio: fc.double({ min: 0.05, max: 0.9, noNaN: true }),
  preserveRecentMessages: fc.integer({ min: 0, max: 12 }),
  systemPrompt: fc.constantFrom(DEFAULT_SUMMARIZATION_PROMPT, 'Summarize briefly.'),
  threshold: fc.record({
    messages: fc.integer({ min: 2, max: 30 }),
    chars: fc.integer({ min: 200, max: 5000 }),
  }),
  proactive: fc.option(
    fc.record({
      limit: fc.integer({ min: 200, max: 3000 }),
      compressionThreshold: fc.double({ min: 0.1, max: 1, noNaN: true }),
    }),
    { freq: 3 },
  ),
  failures: fc.array(
    fc.record({
      at: fc.integer({ min: 1, max: 8 }),
      kind: fc.constantFrom('error' as const, 'string' as const, 'no-text' as const),
    }),
    { maxLength: 2 },
  ),
  prompts: fc.array(promptArb, { minLength: 1, maxLength: 20 }),
})

describe('PersistentConversationManager with summarize', () => {
  describe('beside Strands’ SummarizingConversationManager', () => {
    const runs = fcRuns(100)
    it(
      'shows the agent the same messages, hands both models the same input and fails the same way',
      { timeout: 60_000 + runs * 300 },
      async () => {
        const totals = { runs: 0, overflows: 0, summaries: 0, failures: 0, stuck: 0 }
        await fc.assert(
          fc.asyncProperty(scenarioArb, async (s) => {
            const r = await runBoth(s)
            totals.runs++
            totals.overflows += r.overflows
            totals.summaries += r.summaries
            totals.failures += r.failures
            if (r.stuck === true) totals.stuck++
          }),
          { numRuns: runs },
        )
        // The property exercised what it is about.
        expect(totals.summaries).toBeGreaterThan(totals.runs)
        expect(totals.failures).toBeGreaterThan(0)
        // Runs part where Strands would loop forever (about half of them: the generator favours tiny
        // windows); enough of them still compare every invocation to the end.
        expect(totals.runs - totals.stuck).toBeGreaterThan(totals.runs / 4)
      },
    )

    it('summarizes on an overflow, then folds the summary into the next one', async () => {
      const r = await runBoth({
        summaryRatio: 0.5,
        preserveRecentMessages: 2,
        systemPrompt: 'Summarize.',
        threshold: { messages: 8, chars: 100_000 },
        proactive: null,
        failures: [],
        prompts: ['say 1', 'ask a 2 20', 'say 2', 'say 3', 'ask b 1 30', 'say 4', 'say 5', 'say 6'],
      })
      expect(r.outcomes.every((o) => o.ok)).toBe(true)
      expect(r.summaries).toBeGreaterThanOrEqual(2)
    })

    it.each([
      // Strands' model layer wraps what a model's stream throws in a ModelError.
      ['an Error', 'error' as const, 'ModelError: summarizer failed on call 1'],
      ['a string', 'string' as const, 'ModelError: summarizer threw a string on call 1'],
      [
        'a reply with no text',
        'no-text' as const,
        'Error: Failed to generate summary: model response contained no text',
      ],
    ])(
      'fails the invocation with the summarizer’s error (%s) caused by the overflow',
      async (_what, kind, first) => {
        const r = await runBoth({
          summaryRatio: 0.5,
          preserveRecentMessages: 1,
          systemPrompt: 'Summarize.',
          threshold: { messages: 5, chars: 100_000 },
          proactive: null,
          failures: [{ at: 1, kind }],
          prompts: ['say 1', 'say 2', 'say 3', 'say 4', 'say 5'],
        })
        const failed = r.outcomes.find((o) => !o.ok)
        expect(failed).toStrictEqual({
          ok: false,
          chain: [first, 'ContextWindowOverflowError: scripted model: 7 messages, 147 characters'],
        })
        // The next invocation summarizes and goes on, on both sides.
        expect(r.outcomes.at(-1)).toStrictEqual({ ok: true })
      },
    )

    it('raises the overflow instead of folding the summary alone again and again (Strands loops)', async () => {
      // A ratio that takes one window message, no recent message kept: after the first fold the window is
      // [summary, call, result]; every further fold would take only the summary.
      const r = await runBoth({
        summaryRatio: 0.05,
        preserveRecentMessages: 0,
        systemPrompt: 'Summarize.',
        threshold: { messages: 2, chars: 200 },
        proactive: null,
        failures: [],
        prompts: ['ask q0 1 5'],
      })
      expect(r.stuck).toBe(true)
      // Strands' outcome: its loop ended only because this test's model gave up (ours raised the overflow).
      expect(r.outcomes).toStrictEqual([
        {
          ok: false,
          chain: [
            `ModelError: scripted model: ${OVERFLOW_LOOP_LIMIT} overflows in one invocation`,
            `Error: scripted model: ${OVERFLOW_LOOP_LIMIT} overflows in one invocation`,
          ],
        },
      ])
    })

    it('lets the overflow escape when nothing can be folded (preserveRecentMessages covers the window)', async () => {
      const r = await runBoth({
        summaryRatio: 0.3,
        preserveRecentMessages: 12,
        systemPrompt: 'Summarize.',
        threshold: { messages: 4, chars: 100_000 },
        proactive: null,
        failures: [],
        prompts: ['say 1', 'say 2', 'say 3'],
      })
      expect(r.outcomes.at(-1)).toStrictEqual({
        ok: false,
        chain: ['ContextWindowOverflowError: scripted model: 5 messages, 104 characters'],
      })
      expect(r.summaries).toBe(0)
    })

    it('raises “Unable to find valid split point” caused by the overflow when the split would land on the last tool result', async () => {
      // [prompt, toolUse, toolResult]: ratio 0.8 folds 2, the split walks past the result to the end.
      const r = await runBoth({
        summaryRatio: 0.8,
        preserveRecentMessages: 0,
        systemPrompt: 'Summarize.',
        threshold: { messages: 2, chars: 100_000 },
        proactive: null,
        failures: [],
        prompts: ['ask a 1 10'],
      })
      expect(r.outcomes).toStrictEqual([
        {
          ok: false,
          chain: [
            'Error: Unable to find valid split point for summarization',
            expect.stringMatching(/^ContextWindowOverflowError: /) as unknown as string,
          ],
        },
      ])
    })
  })
})
