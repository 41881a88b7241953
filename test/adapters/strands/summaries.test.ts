/**
 * The Strands manager with `summarize`, beyond parity with Strands (summarize-parity.test.ts): its
 * options; a restart mid-session; pins, which stay before the summary and never fold, with every window
 * valid for providers; `windowSize` with summaries, which folds the excess after each invocation; both
 * durabilities; a failing summarizer after an invocation; and the summary as a message of
 * `agent.messages` (edited, pinned, pointed at by `pin_message`, merged by `alternate`, copied). Real
 * `Agent`s, real SQLite files, scripted models.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Agent, configureLogging, Message, TextBlock } from '@strands-agents/sdk'
import type { Tool } from '@strands-agents/sdk'
import {
  DEFAULT_SUMMARIZATION_PROMPT,
  isSummaryMessage,
  SUMMARY_REQUEST,
  type ContextStore,
  type SummaryRecord,
} from '../../../src/index.js'
import {
  generateSummary,
  modelSummarizer,
  PersistentConversationManager,
  pinMessageTool,
  type PersistentConversationManagerOptions,
} from '../../../src/adapters/strands/index.js'
import { ScriptedModel } from '../../../examples/strands-scripted-model.js'
import { refusal } from '../../helpers/refusal.js'
import { fcRuns } from '../../helpers/runs.js'
import { useTempDir } from '../../helpers/temp-store.js'
import { json, recordingLogger, type RecordingLogger } from './helpers.js'
import {
  MainModel,
  shown,
  sizedLookup,
  SummarizerModel,
  type Shown,
  type Threshold,
} from './summary-models.js'

const dir = useTempDir('context-ledger-summaries-')

const quiet = (): void => {}
beforeAll(() => {
  configureLogging({ debug: quiet, info: quiet, warn: quiet, error: quiet })
})
afterAll(() => {
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

const roomy: Threshold = { messages: 1e9, chars: 1e9 }

/** An agent with the ledger's manager, the main model, `lookup` and `pin_message`. */
function summarizing(
  options: Omit<PersistentConversationManagerOptions, 'sessionId'> & { sessionId?: string },
  extra: { main?: MainModel; summarizer?: SummarizerModel | null; tools?: Tool[]; messages?: Message[] } = {},
) {
  const logger = recordingLogger()
  const summarizer = extra.summarizer === undefined ? new SummarizerModel() : extra.summarizer
  const given = options.summarize
  const summarize =
    summarizer === null || given === undefined
      ? given
      : { ...(given === true ? {} : given), model: summarizer }
  const manager = new PersistentConversationManager({
    sessionId: 's',
    logger,
    ...options,
    ...(summarize === undefined ? {} : { summarize }),
  })
  const main = extra.main ?? new MainModel(roomy)
  const agent = new Agent({
    model: main,
    tools: extra.tools ?? [sizedLookup(), pinMessageTool],
    printer: false,
    conversationManager: manager,
    ...(extra.messages === undefined ? {} : { messages: extra.messages }),
  })
  return { agent, manager, main, summarizer, logger }
}

async function invoke(agent: Agent, main: MainModel, prompt: string): Promise<unknown> {
  main.startInvocation()
  try {
    await agent.invoke(prompt)
    return undefined
  } catch (error) {
    return error
  }
}

/** Why a provider would refuse a conversation (role/content form): see test/helpers/provider-validity.ts. */
function invalidity(messages: readonly Shown[]): string | undefined {
  const ids = (m: Shown | undefined, key: 'toolUse' | 'toolResult'): string[] =>
    ((m?.content ?? []) as Record<string, { toolUseId?: string } | undefined>[]).flatMap((b) => {
      const id = b[key]?.toolUseId
      return id === undefined ? [] : [id]
    })
  if (messages[0]?.role !== 'user' || ids(messages[0], 'toolResult').length > 0) return 'bad start'
  for (let i = 1; i < messages.length; i++) {
    const uses = new Set(ids(messages[i - 1], 'toolUse'))
    const results = ids(messages[i], 'toolResult')
    for (const id of results) if (!uses.has(id)) return `message ${i} answers ${id}, not the message before`
    for (const id of uses)
      if (!results.includes(id)) return `message ${i - 1} calls ${id}, not answered by the next message`
  }
  return undefined
}

/** Every seq a summary stands for, down its chain. */
function chainSeqs(store: ContextStore, record: SummaryRecord | undefined): Set<number> {
  const seqs = new Set<number>()
  for (
    let r = record;
    r !== undefined;
    r = r.replaces === undefined ? undefined : store.summary('s', r.replaces)
  )
    for (const [from, to] of r.seqs) for (let s = from; s < to; s++) seqs.add(s)
  return seqs
}

function currentSummary(store: ContextStore): SummaryRecord | undefined {
  const id = store.session('s')?.summaryId
  return id === undefined ? undefined : store.summary('s', id)
}

/** The seqs of the archived messages `agent.messages` shows (merged ones count each part). */
function shownSeqs(store: ContextStore, messages: readonly Message[]): number[] {
  const bySeq = new Map(store.history('s', { limit: 100_000 }).map((e) => [e.trackingId, e.seq]))
  return messages.flatMap((m) => {
    const from = (m.metadata?.custom?.contextLedger as { mergedFrom?: string[] } | undefined)?.mergedFrom
    return (from ?? [m.trackingId]).flatMap((id) => {
      const seq = bySeq.get(id)
      return seq === undefined ? [] : [seq]
    })
  })
}

/** Nothing the agent added is lost to the window: each message is shown, or folded into the summary. */
function expectNothingLost(store: ContextStore, messages: readonly Message[]): void {
  const n = store.session('s')?.messageCount ?? 0
  const covered = chainSeqs(store, currentSummary(store))
  for (const seq of shownSeqs(store, messages)) covered.add(seq)
  expect([...covered].sort((a, b) => a - b)).toStrictEqual([...Array(n).keys()])
}

const says = (n: number): string[] => Array.from({ length: n }, (_, i) => `say ${i}`)

describe('PersistentConversationManager (Strands) with summarize', () => {
  describe('options', () => {
    it.each([
      ['summarize: false', { summarize: false }, 'summarize'],
      ['a string', { summarize: 'yes' }, 'summarize'],
      ['an unknown key', { summarize: { ratio: 0.3 } }, 'summarize.ratio'],
      ['a NaN ratio', { summarize: { summaryRatio: Number.NaN } }, 'summarize.summaryRatio'],
      [
        'a negative preserveRecentMessages',
        { summarize: { preserveRecentMessages: -1 } },
        'summarize.preserveRecentMessages',
      ],
      [
        'a fractional preserveRecentMessages',
        { summarize: { preserveRecentMessages: 1.5 } },
        'summarize.preserveRecentMessages',
      ],
      ['an empty systemPrompt', { summarize: { systemPrompt: '' } }, 'summarize.systemPrompt'],
      ['a model that is not a Model', { summarize: { model: { modelId: 'x' } } }, 'summarize.model'],
      ['a non-integer pinFirst', { pinFirst: 1.5 }, 'pinFirst'],
      ['pinFirst with protectedMessages', { pinFirst: 2, protectedMessages: { last: 1 } }, 'pinFirst'],
      ['pinFirst with protectedMessageRange', { pinFirst: 2, protectedMessageRange: 2 }, 'pinFirst'],
    ])('refuses %s with INVALID_OPTIONS naming the field', (_what, options, path) => {
      const store = dir.open()
      const error = refusal(
        () => new PersistentConversationManager({ store, sessionId: 's', ...(options as object) }),
      )
      expect([error.code, error.path]).toStrictEqual(['INVALID_OPTIONS', path])
    })

    it('takes true: an unlimited window, no tool-result truncation', () => {
      const store = dir.open()
      const manager = new PersistentConversationManager({ store, sessionId: 's', summarize: true })
      expect(manager.ledger.limits.windowSize).toBe(Number.MAX_SAFE_INTEGER)
      expect(manager.truncatesToolResults).toBe(false)
      const limited = new PersistentConversationManager({
        store,
        sessionId: 's',
        summarize: { summaryRatio: 2 },
        windowSize: 10,
        truncateToolResults: true,
        lowWaterMark: 0.5,
      })
      expect(limited.ledger.limits).toStrictEqual({
        windowSize: 10,
        tokenBudget: undefined,
        first: 0,
        last: 0,
        lowWaterMark: 0.5,
      })
      expect(limited.truncatesToolResults).toBe(true)
    })

    it('takes pinFirst as protectedMessages.first (negative as 0, as Strands)', () => {
      const store = dir.open()
      const first = (pinFirst: number): number =>
        new PersistentConversationManager({ store, sessionId: 's', pinFirst }).ledger.limits.first
      expect([first(3), first(0), first(-2)]).toStrictEqual([3, 0, 0])
    })
  })

  describe('on an overflow', () => {
    it('folds with the agent’s model when summarize.model is not given, recording its id', async () => {
      const store = dir.open()
      const { agent, manager, main } = summarizing(
        { store, summarize: { preserveRecentMessages: 2, summaryRatio: 0.5 } },
        { main: new MainModel({ messages: 6, chars: 1e9 }), summarizer: null },
      )
      for (const prompt of says(4)) expect(await invoke(agent, main, prompt)).toBeUndefined()
      const [summary] = manager.ledger.summaries()
      expect(summary?.model).toBe('scripted')
      // The agent's model got the request; its reply (`Noted: …`) is the summary.
      expect(summary?.message.content).toStrictEqual([{ text: `Noted: ${SUMMARY_REQUEST}` }])
      expect(manager.lastReduction).toMatchObject({ trigger: 'overflow', summarized: 3, evicted: 0 })
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
      expect(isSummaryMessage(agent.messages[0] as Message)).toBe(true)
    })

    it('restores the same agent.messages, summary included, in a new process (new store object, new agent)', async () => {
      const path = dir.file('restart.db')
      const store = dir.open('restart.db')
      const { agent, main } = summarizing(
        { store, summarize: { preserveRecentMessages: 2, summaryRatio: 0.5 } },
        { main: new MainModel({ messages: 7, chars: 1e9 }) },
      )
      for (const prompt of ['say 1', 'ask a 1 30', 'say 2', 'say 3', 'say 4'])
        expect(await invoke(agent, main, prompt)).toBeUndefined()
      const before = json(agent.messages)
      expect(before.filter((m) => isSummaryMessage(m))).toHaveLength(1)
      store.close()

      const again = dir.open('restart.db')
      expect(again.path).toBe(path)
      const next = summarizing(
        { store: again, summarize: { preserveRecentMessages: 2, summaryRatio: 0.5 } },
        { main: new MainModel({ messages: 7, chars: 1e9 }) },
      )
      await next.agent.initialize()
      expect(json(next.agent.messages)).toStrictEqual(before)
      // The conversation goes on; the next fold takes the restored summary in.
      const [first] = next.manager.ledger.summaries()
      for (const prompt of says(3)) expect(await invoke(next.agent, next.main, prompt)).toBeUndefined()
      const [latest] = next.manager.ledger.summaries()
      expect(latest?.id).not.toBe(first?.id)
      const chain: (number | undefined)[] = []
      for (
        let r = latest;
        r !== undefined;
        r = r.replaces === undefined ? undefined : again.summary('s', r.replaces)
      )
        chain.push(r.id)
      expect(chain).toContain(first?.id)
      expectNothingLost(again, next.agent.messages)
      expect(next.logger.lines).toStrictEqual([])
    })

    it('takes back an agent built with the messages of the old one (the summary among them) without storing the summary', async () => {
      const store = dir.open()
      const { agent, main, manager } = summarizing(
        { store, summarize: { preserveRecentMessages: 2, summaryRatio: 0.5 } },
        { main: new MainModel({ messages: 6, chars: 1e9 }) },
      )
      for (const prompt of says(4)) await invoke(agent, main, prompt)
      const count = store.session('s')?.messageCount
      const next = summarizing(
        { store, summarize: { preserveRecentMessages: 2, summaryRatio: 0.5 } },
        { messages: agent.messages.map((m) => Message.fromJSON(m.toJSON())) },
      )
      await next.agent.initialize()
      expect(json(next.agent.messages)).toStrictEqual(manager.ledger.window())
      expect(store.session('s')?.messageCount).toBe(count)
      expect(next.logger.lines).toStrictEqual([])
    })

    it('truncates oversized tool results first with truncateToolResults: true, and summarizes only when that is not enough', async () => {
      const store = dir.open()
      const { agent, manager, main } = summarizing(
        { store, summarize: true, truncateToolResults: true },
        { main: new MainModel({ messages: 1e9, chars: 2_000 }) },
      )
      expect(await invoke(agent, main, 'ask a 1 3000')).toBeUndefined()
      expect(manager.lastReduction).toMatchObject({ truncated: 1, summarized: 0 })
      expect(manager.ledger.summaries()).toStrictEqual([])
      expect(JSON.stringify(manager.ledger.history()[2]?.message)).toContain('r'.repeat(2_900))
    })
  })

  describe('proactive compression', () => {
    it('folds, or logs a failing summarizer and returns false (the model call goes on)', async () => {
      const store = dir.open()
      const summarizer = new SummarizerModel([{ at: 1, kind: 'error' }])
      const { agent, manager, main, logger } = summarizing(
        { store, summarize: { preserveRecentMessages: 1 } },
        { summarizer },
      )
      for (const prompt of says(3)) await invoke(agent, main, prompt)
      expect(await manager.reduce({ agent, model: main })).toBe(false)
      expect(manager.lastReduction).toMatchObject({
        trigger: 'proactive',
        reason: 'summarizer-failed',
        summarized: 0,
      })
      expect(logger.lines.map((l) => [l.level, l.text.replace(/^.*\| /, '')])).toStrictEqual([
        ['warn', 'proactive summarization failed, continuing'],
      ])
      expect(await manager.reduce({ agent, model: main })).toBe(true)
      expect(manager.lastReduction).toMatchObject({ trigger: 'proactive', summarized: 1 })
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    })
  })

  describe('with pins', () => {
    const runs = fcRuns(40)
    it(
      'keeps pinned messages in the window, before the summary, never folded; every window is valid for providers',
      { timeout: 60_000 + runs * 300 },
      async () => {
        const prompt = fc.oneof(
          fc.integer({ min: 0, max: 99 }).map((n) => `say ${n}`),
          fc.integer({ min: 0, max: 99 }).map((k) => `pin ${k}`),
          fc
            .tuple(
              fc.integer({ min: 0, max: 99 }),
              fc.integer({ min: 1, max: 2 }),
              fc.integer({ min: 5, max: 300 }),
            )
            .map(([q, rounds, size]) => `ask q${q} ${rounds} ${size}`),
        )
        const scenario = fc.record({
          summaryRatio: fc.double({ min: 0.05, max: 0.9, noNaN: true }),
          preserveRecentMessages: fc.integer({ min: 0, max: 6 }),
          threshold: fc.record({
            messages: fc.integer({ min: 4, max: 20 }),
            chars: fc.integer({ min: 400, max: 4000 }),
          }),
          alternate: fc.boolean(),
          prompts: fc.array(prompt, { minLength: 1, maxLength: 24 }),
        })
        let folded = 0
        let pinnedBeforeSummary = 0
        await fc.assert(
          fc.asyncProperty(scenario, async (s) => {
            const store = dir.open(`pins-${folded}-${Math.random()}.db`)
            const { agent, manager, main } = summarizing(
              {
                store,
                alternate: s.alternate,
                summarize: { summaryRatio: s.summaryRatio, preserveRecentMessages: s.preserveRecentMessages },
              },
              { main: new MainModel(s.threshold) },
            )
            try {
              for (const p of s.prompts) {
                const pinnedBefore = new Set(store.pinnedMessages({ sessionId: 's' }).map((m) => m.seq))
                const summariesBefore = manager.ledger.summaries({ limit: 1000 }).length
                await invoke(agent, main, p)
                // What the agent shows is the window, valid for providers, as was every model input.
                expect(json(agent.messages)).toStrictEqual(manager.ledger.window({ alternate: s.alternate }))
                expect(invalidity(shown(agent.messages))).toBeUndefined()
                for (const call of main.log)
                  expect(invalidity(call.input), JSON.stringify(call.input)).toBeUndefined()
                main.log.length = 0
                // Pinned messages stay, before the summary when they are before the boundary.
                const boundary = store.session('s')?.boundary ?? 0
                const window = manager.ledger.window()
                const at = window.findIndex((m) => isSummaryMessage(m))
                const position = new Map(window.map((m, i) => [m.trackingId, i]))
                for (const pin of store.pinnedMessages({ sessionId: 's' })) {
                  const i = position.get(pin.trackingId)
                  expect(i, `pinned seq ${pin.seq} in the window`).toBeDefined()
                  if (at >= 0 && pin.seq < boundary) {
                    expect(i).toBeLessThan(at)
                    pinnedBeforeSummary++
                  }
                }
                // No summary made in this invocation folded a message pinned before it.
                const made = manager.ledger.summaries({ limit: 1000 })
                for (const summary of made.slice(0, made.length - summariesBefore)) {
                  folded++
                  for (const [from, to] of summary.seqs)
                    for (let seq = from; seq < to; seq++)
                      expect(pinnedBefore.has(seq), `summary ${summary.id} folded pinned seq ${seq}`).toBe(
                        false,
                      )
                }
                expectNothingLost(store, agent.messages)
              }
            } finally {
              store.close()
            }
          }),
          { numRuns: runs },
        )
        expect(folded).toBeGreaterThan(0)
        expect(pinnedBeforeSummary).toBeGreaterThan(0)
      },
    )

    it('with pinFirst, the first messages stay before the summary', async () => {
      const store = dir.open()
      const { agent, manager, main } = summarizing(
        { store, pinFirst: 2, summarize: { summaryRatio: 0.5, preserveRecentMessages: 2 } },
        { main: new MainModel({ messages: 8, chars: 1e9 }) },
      )
      for (const prompt of says(6)) expect(await invoke(agent, main, prompt)).toBeUndefined()
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
      const texts = shown(agent.messages).map((m) => JSON.stringify(m.content))
      expect(texts.slice(0, 2)).toStrictEqual(['[{"text":"say 0"}]', '[{"text":"Noted: say 0"}]'])
      expect(isSummaryMessage(agent.messages[2] as Message)).toBe(true)
      expect(chainSeqs(store, currentSummary(store)).has(0)).toBe(false)
    })
  })

  describe('with windowSize', () => {
    it('folds the excess after each invocation: the window never exceeds windowSize and nothing is lost', async () => {
      const store = dir.open()
      const { agent, manager, main, summarizer } = summarizing({ store, windowSize: 6, summarize: true })
      for (const prompt of ['say 1', 'ask a 2 40', 'say 2', 'ask b 1 40', ...says(6)]) {
        expect(await invoke(agent, main, prompt)).toBeUndefined()
        expect(agent.messages.length).toBeLessThanOrEqual(6)
        expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
        expectNothingLost(store, agent.messages)
      }
      expect(manager.ledger.summaries({ limit: 100 }).length).toBeGreaterThan(2)
      expect(summarizer?.log.every((c) => c.systemPrompt === DEFAULT_SUMMARIZATION_PROMPT)).toBe(true)
      expect(store.session('s')?.messageCount).toBe(26)
    })

    it('gives the same conversation with durability invocation and message', async () => {
      const run = async (durability: 'invocation' | 'message') => {
        const store = dir.open(`${durability}.db`)
        const { agent, manager, main, summarizer } = summarizing(
          { store, windowSize: 8, durability, summarize: { preserveRecentMessages: 2 } },
          { main: new MainModel({ messages: 7, chars: 2_500 }) },
        )
        const outcomes: unknown[] = []
        for (const prompt of ['say 1', 'ask a 3 200', 'say 2', 'ask b 2 500', ...says(5), 'ask c 1 900'])
          outcomes.push(String(await invoke(agent, main, prompt)))
        expectNothingLost(store, agent.messages)
        return {
          outcomes,
          shown: shown(agent.messages),
          history: manager.ledger.history({ limit: 1000 }).map((e) => [e.message.role, e.message.content]),
          summaries: manager.ledger.summaries({ limit: 100 }).map((s) => [s.message.content, s.seqs]),
          summarizer: summarizer?.log,
        }
      }
      const invocation = await run('invocation')
      expect(invocation.summaries.length).toBeGreaterThan(1)
      expect(await run('message')).toStrictEqual(invocation)
    })

    it('never fails the invocation for a fold that fails after it: logged, the window stays unfolded, the next invocation folds', async () => {
      const store = dir.open()
      const summarizer = new SummarizerModel([{ at: 1, kind: 'error' }])
      const { agent, manager, main, logger } = summarizing(
        { store, windowSize: 4, summarize: true },
        { summarizer },
      )
      for (const prompt of says(2)) expect(await invoke(agent, main, prompt)).toBeUndefined()
      expect(await invoke(agent, main, 'say 2')).toBeUndefined()
      expect(agent.messages).toHaveLength(6)
      expect(manager.ledger.summaries()).toStrictEqual([])
      expect(logger.lines.map((l) => l.level)).toStrictEqual(['warn'])
      expect(logger.lines[0]?.text).toContain('code=<SUMMARIZER_FAILED>')
      expectNothingLost(store, agent.messages)
      expect(await invoke(agent, main, 'say 3')).toBeUndefined()
      expect(agent.messages.length).toBeLessThanOrEqual(4)
      expect(manager.ledger.summaries()).toHaveLength(1)
      expectNothingLost(store, agent.messages)
    })
  })

  describe('the summary in agent.messages', () => {
    async function withSummary(alternate = false) {
      const store = dir.open()
      const made = summarizing(
        { store, alternate, summarize: { summaryRatio: 0.5, preserveRecentMessages: 1 } },
        { main: new MainModel({ messages: 4, chars: 1e9 }) },
      )
      for (const prompt of says(3)) expect(await invoke(made.agent, made.main, prompt)).toBeUndefined()
      expect(made.manager.ledger.summaries()).toHaveLength(1)
      return { store, ...made }
    }
    const summaryOf = (agent: Agent): Message => {
      const summary = agent.messages.find((m) => isSummaryMessage(m))
      if (summary === undefined) throw new Error('no summary in agent.messages')
      return summary
    }
    const texts = (logger: RecordingLogger): string[] =>
      logger.lines.map((l) => `${l.level}: ${l.text.replace(/^.*\| /, '')}`)

    it('reverts an edit made to it in place, with a log line; nothing is recorded', async () => {
      const { agent, manager, main, logger } = await withSummary()
      main.threshold = roomy
      const before = json(agent.messages)
      const summary = summaryOf(agent)
      summary.content.splice(0, 1, new TextBlock('my own summary'))
      expect(await invoke(agent, main, 'say 9')).toBeUndefined()
      expect(json(agent.messages).slice(0, before.length)).toStrictEqual(before)
      expect(manager.ledger.edits()).toStrictEqual([])
      expect(texts(logger)).toStrictEqual([
        'warn: change to the summary not recorded, agent.messages shows the stored summary again: a summary stands for the messages it folded; write a new one with manager.ledger.resummarize',
      ])
    })

    it('reverts a pin flag set on it, with a log line; no pin is recorded', async () => {
      const { agent, store, main, logger } = await withSummary()
      main.threshold = roomy
      summaryOf(agent).metadata = { custom: { pinned: true, contextLedger: { summary: true } } }
      expect(await invoke(agent, main, 'say 9')).toBeUndefined()
      expect(summaryOf(agent).metadata).toStrictEqual({ custom: { contextLedger: { summary: true } } })
      expect(store.pinnedMessages({ sessionId: 's' })).toStrictEqual([])
      expect(texts(logger)).toStrictEqual([
        'warn: pin flag on the summary not recorded, agent.messages shows it unpinned again: a summary cannot be pinned',
      ])
    })

    it('answers pin_message pointed at it with an error result the model can read', async () => {
      const { agent, store, main } = await withSummary()
      main.threshold = roomy
      const index = agent.messages.indexOf(summaryOf(agent))
      expect(await invoke(agent, main, `pin ${index}`)).toBeUndefined()
      const results = json(agent.messages).flatMap((m) =>
        m.content.flatMap((b) => ('toolResult' in b ? [b.toolResult] : [])),
      )
      expect(results.at(-1)).toMatchObject({
        status: 'error',
        content: [
          {
            text: expect.stringContaining(
              `Message ${index} is a summary of earlier messages and cannot be pinned`,
            ) as unknown,
          },
        ],
      })
      expect(store.pinnedMessages({ sessionId: 's' })).toStrictEqual([])
    })

    it('with alternate: true, merges it with the user message after it; roles alternate', async () => {
      const { agent, manager, main } = await withSummary(true)
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window({ alternate: true }))
      const roles = agent.messages.map((m) => m.role)
      expect(roles.every((r, i) => i === 0 || r !== roles[i - 1])).toBe(true)
      // [summary + say 1, Noted, say 2, Noted]: the fold split on a user message.
      expect(shown(agent.messages)[0]?.content).toStrictEqual([
        ...(manager.ledger.summaries()[0]?.message.content ?? []),
        { text: 'say 1' },
      ])
      for (const prompt of says(4)) expect(await invoke(agent, main, prompt)).toBeUndefined()
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window({ alternate: true }))
      for (const call of main.log.filter((c) => !c.overflow))
        expect(call.input.every((m, i) => i === 0 || m.role !== call.input[i - 1]?.role)).toBe(true)
    })

    it('shows a summary rewritten with manager.ledger.resummarize, and the messages back after dropSummary, from the next invocation on', async () => {
      const { agent, manager, main, logger } = await withSummary()
      main.threshold = roomy
      const [first] = manager.ledger.summaries()
      if (first === undefined) throw new Error('no summary')
      const better = new ScriptedModel({ script: () => 'a better summary', modelId: 'better' })
      const second = await manager.ledger.resummarize(first.id, modelSummarizer(better))
      expect(second).toMatchObject({ regenerates: first.id, model: 'better', current: true })
      expect(await invoke(agent, main, 'say 9')).toBeUndefined()
      expect(shown(agent.messages)[0]).toStrictEqual({
        role: 'user',
        content: [{ text: 'a better summary' }],
      })
      manager.ledger.dropSummary(second.id)
      expect(await invoke(agent, main, 'say 10')).toBeUndefined()
      expect(agent.messages.some((m) => isSummaryMessage(m))).toBe(false)
      expect(json(agent.messages)).toStrictEqual(manager.ledger.history({ limit: 100 }).map((e) => e.message))
      expect(logger.lines).toStrictEqual([])
    })

    it('drops an old summary pushed back into agent.messages, with a log line; stores nothing for it', async () => {
      const { agent, store, main, logger, manager } = await withSummary()
      const old = summaryOf(agent)
      for (const prompt of says(3)) await invoke(agent, main, prompt)
      expect(manager.ledger.summaries().length).toBeGreaterThanOrEqual(2)
      main.threshold = roomy
      const count = store.session('s')?.messageCount ?? 0
      agent.messages.push(old)
      expect(await invoke(agent, main, 'say 9')).toBeUndefined()
      expect(store.session('s')?.messageCount).toBe(count + 2)
      expect(agent.messages.filter((m) => isSummaryMessage(m))).toHaveLength(1)
      expect(texts(logger)).toStrictEqual([
        'warn: summary message the session does not show (an old summary, or a copy) not stored, removed from agent.messages',
      ])
    })
  })

  describe('generateSummary', () => {
    it('sends the messages as given with the system prompt, and keeps the text and citation text of the reply', async () => {
      const seen: unknown[] = []
      const model = new ScriptedModel({
        script: (call) => {
          seen.push(shown(call.messages))
          return 'the gist'
        },
      })
      const request = { role: 'user' as const, content: [{ text: SUMMARY_REQUEST }] }
      const summary = await generateSummary(
        [{ role: 'user', content: [{ text: 'hi' }] }, request],
        model,
        'P',
      )
      expect(seen).toStrictEqual([[{ role: 'user', content: [{ text: 'hi' }] }, request]])
      expect(summary.toJSON()).toMatchObject({ role: 'user', content: [{ text: 'the gist' }] })
      const ofModel = await modelSummarizer(model)([request], {
        systemPrompt: 'P',
        sessionId: 's',
        previous: undefined,
      })
      expect(ofModel).toStrictEqual({ content: [{ text: 'the gist' }], model: 'scripted' })
    })

    it('throws Strands’ error for a reply with no text', async () => {
      const failing = new SummarizerModel([{ at: 1, kind: 'no-text' }])
      await expect(generateSummary([{ role: 'user', content: [{ text: 'x' }] }], failing)).rejects.toThrow(
        'Failed to generate summary: model response contained no text',
      )
    })
  })
})
