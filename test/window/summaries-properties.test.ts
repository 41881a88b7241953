/**
 * Summaries under random operations: appends (text turns, single and parallel tool calls, late results,
 * messages pinned on the way in), pins and unpins, window replacements, `applyWindow()`, overflow
 * `reduce()`, folds by ratio (`summarize`) and by excess (`summarizeExcess`), `resummarize`,
 * `dropSummary`, and managers with other protected ranges and window sizes — with a deterministic
 * synchronous summarizer.
 * After every step:
 * - every window rule holds (`test/helpers/window-rules.ts`, which knows summaries and their chains);
 * - another connection on the file reads the same window and session (a restarted process would);
 * - the planner over SQL and over the array reference decide the same: `planWindow` with
 *   `WindowState.summaryTokens` for applyWindow/reduce/dropSummary, `planCut` with the fold request over
 *   `ArrayLedgerView` for each fold, and the store ends in the state the reference planned;
 * - a fold's summary stands for exactly the messages that left the window (its own `seqs`), replaces the
 *   summary the window showed, and the summarizer was given exactly those messages as the window showed
 *   them; a regeneration was given exactly the archived originals of its chain;
 * - a cut that takes the summary out ends it as `'evicted'`, a drop as `'dropped'` and shows the summary it
 *   replaced again, with the window the reference plans from the state before the fold.
 * At the end of each run a freshly opened store reads the same window, and the archive is byte-identical.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ContextLedgerError,
  estimateTokens,
  isContextLedgerError,
  planWindow,
  type ContentBlockData,
  type FoldRequest,
  type MessageData,
  type StoredMessageData,
  type SummarizeResult,
  type SummaryRecord,
  type WindowLimits,
  type WindowResult,
} from '../../src/index.js'
import { ArrayLedgerView } from '../../src/window/array-view.js'
import { planCut, type CutDecision } from '../../src/window/plan-cut.js'
import { conversation, firstPlainUser } from '../helpers/conversations.js'
import { refusalOf as refusalOfCall } from '../helpers/refusal.js'
import { fcRuns } from '../helpers/runs.js'
import { recordingSummarizer, summaryText } from '../helpers/summarizers.js'
import { BACKEND, makeBackend, type LedgerManager, type LedgerStore } from '../helpers/backend.js'
import { assertProgress, assertStepRulesOf, assertWindowRulesOf } from '../helpers/window-rules.js'

// The conformance suite: the same properties on the backend the project selects.
const backend = makeBackend()
let store: LedgerStore
let other: LedgerStore
let session = 0
beforeAll(async () => {
  store = await backend.open()
  other = await backend.reopen(store)
})
afterAll(async () => {
  await backend.cleanup()
})

const op = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      take: fc.integer({ min: 1, max: 6 }),
      pinMask: fc.nat({ max: 63 }),
      pinned: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('apply' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reduce' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pin' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unpin' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('late' as const), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('replace' as const),
      at: fc.nat(),
      size: fc.integer({ min: 1, max: 600 }),
      clear: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('ranges' as const),
      first: fc.integer({ min: 0, max: 3 }),
      last: fc.integer({ min: 0, max: 3 }),
      windowSize: fc.option(fc.integer({ min: 1, max: 14 }), { nil: undefined }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('summarize' as const),
      ratio: fc.double({ min: 0, max: 1, noNaN: true }),
      preserve: fc.oneof(
        { weight: 3, arbitrary: fc.integer({ min: 0, max: 3 }) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: 12 }) },
      ),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('excess' as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('resummarize' as const),
      from: fc.constantFrom('raw' as const, 'previous' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop' as const) }) },
)

const config = fc.record({
  windowSize: fc.integer({ min: 1, max: 14 }),
  tokenBudget: fc.option(fc.integer({ min: 20, max: 700 }), { nil: undefined }),
  lowWaterMark: fc.option(fc.double({ min: 0.3, max: 0.9, noNaN: true }), { nil: undefined }),
  first: fc.integer({ min: 0, max: 3 }),
  last: fc.integer({ min: 0, max: 3 }),
})

/** The message with every text and tool result of `size` characters: what a window replacement may be. */
function replacement(message: StoredMessageData, size: number): MessageData {
  const content = message.content.map((block): ContentBlockData => {
    if ('text' in block) return { text: 'r'.repeat(size) }
    if ('toolResult' in block)
      return { toolResult: { ...block.toolResult, content: [{ text: 'r'.repeat(size) }] } }
    return block
  })
  return { ...message, content }
}

interface Snapshot {
  archive: StoredMessageData[]
  pinned: boolean[]
  tokens: number[]
  /** What the window counts for each message when it shows a replacement. */
  windowTokens: (number | undefined)[]
  /** `windowTokens`, or the message's own tokens. */
  effective: number[]
  boundary: number
  kept: number[]
  /** The archived messages in the window, by seq. */
  window: number[]
  /** What `window()` returns, the summary included. */
  shown: StoredMessageData[]
  /** The summary the window shows. */
  summary: SummaryRecord | undefined
  /** Every summary, newest first. */
  summaries: SummaryRecord[]
}

async function snapshot(m: LedgerManager): Promise<Snapshot> {
  const entries = await m.history({ limit: 100_000 })
  const s = await m.store.session(m.sessionId)
  const summaries = await m.summaries({ limit: 10_000 })
  return {
    archive: entries.map((e) => e.message),
    pinned: entries.map((e) => e.pinned),
    tokens: entries.map((e) => e.tokens),
    windowTokens: entries.map((e) =>
      e.windowMessage === undefined ? undefined : estimateTokens(e.windowMessage),
    ),
    effective: entries.map((e) =>
      e.windowMessage === undefined ? e.tokens : estimateTokens(e.windowMessage),
    ),
    boundary: s?.boundary ?? 0,
    kept: entries.filter((e) => e.inWindow && e.seq < (s?.boundary ?? 0)).map((e) => e.seq),
    window: entries.filter((e) => e.inWindow).map((e) => e.seq),
    shown: await m.window(),
    summary: summaries.find((x) => x.current),
    summaries,
  }
}

/** The seqs of half-open ranges. */
function seqsOf(ranges: readonly (readonly [number, number])[]): number[] {
  return ranges.flatMap(([lo, hi]) => Array.from({ length: hi - lo }, (_, i) => lo + i))
}

/** Every seq the summary stands for, down its chain, once each, ascending. */
function chainOf(summary: SummaryRecord, all: readonly SummaryRecord[]): number[] {
  const out: number[] = []
  for (let link: SummaryRecord | undefined = summary; link !== undefined;) {
    out.push(...seqsOf(link.seqs))
    const older: number | undefined = link.replaces
    link = older === undefined ? undefined : all.find((x) => x.id === older)
  }
  return [...new Set(out)].sort((a, b) => a - b)
}

function referenceView(b: Snapshot): ArrayLedgerView {
  return new ArrayLedgerView(
    b.archive,
    b.tokens,
    b.pinned,
    { boundary: b.boundary, kept: b.kept, summaryTokens: b.summary?.tokens },
    b.windowTokens,
  )
}

/** The kept rows after a decision, from the ones before it. */
function keptAfter(before: readonly number[], d: CutDecision): number[] {
  const released = new Set(d.changes.release)
  return [...new Set([...before.filter((s) => !released.has(s)), ...d.changes.keep.map((k) => k.seq)])].sort(
    (a, b) => a - b,
  )
}

/** Plans a fold over SQL and over the reference; they must agree. Returns the reference's decision. */
async function sameFoldPlans(
  m: LedgerManager,
  before: Snapshot,
  limits: WindowLimits,
  request: FoldRequest,
): Promise<CutDecision | undefined> {
  const sql = await m.store.planFold(m.sessionId, limits, request)
  if (before.archive.length === 0) {
    expect(sql).toStrictEqual({ nothing: 'too-few-messages' })
    return undefined
  }
  const reference = planCut(referenceView(before), limits, 'apply', request)
  if ('nothing' in sql) {
    expect(reference.plan.cut).not.toBe('fold')
    expect(sql.nothing).toBe(reference.plan.reason ?? 'within-limits')
    return undefined
  }
  expect(sql.plan.decision.plan).toStrictEqual(reference.plan)
  expect(sql.plan.folded).toStrictEqual(reference.folded)
  expect(sql.plan.newBoundary).toBe(reference.plan.boundary)
  return reference
}

function refusalOf(error: unknown): string {
  if (error instanceof ContextLedgerError) return error.code
  throw error
}

describe(`summaries [${BACKEND}]`, () => {
  it('keep every window rule and their chains, and plan as the reference does, step after step', async () => {
    await fc.assert(
      fc.asyncProperty(
        conversation(16),
        fc.integer({ min: 0, max: 24 }),
        fc.array(op, { minLength: 1, maxLength: 40 }),
        config,
        async (messages, opening, ops, cfg) => {
          const sessionId = `sum-${session++}`
          const manager = (first: number, last: number, windowSize = cfg.windowSize): LedgerManager =>
            backend.manager(store, {
              sessionId,
              windowSize,
              tokenBudget: cfg.tokenBudget,
              lowWaterMark: cfg.lowWaterMark,
              protectedMessages: { first, last },
            })
          let m = manager(cfg.first, cfg.last)
          let inForce = m.limits
          const summarizer = recordingSummarizer()
          const appended = new Map<string, string>()
          const answered: string[] = []
          let lates = 0
          let next = 0
          // Most runs start with a conversation under way, so folds have something to take.
          const start: typeof ops =
            opening === 0 ? [] : [{ kind: 'append', take: opening, pinMask: 0, pinned: false }]
          for (const o of [...start, ...ops]) {
            const before = await snapshot(m)
            let result: WindowResult | undefined
            let mayGoBack = false
            const calls = summarizer.calls.length
            const lastId = before.summaries[0]?.id ?? 0
            if (o.kind === 'append') {
              const batch = messages.slice(next, next + o.take).map((msg, i) =>
                // A greeting before the first user message cannot arrive pinned (pin-unpin.test.ts).
                o.pinned && (o.pinMask >> i) % 2 === 1 && msg.trackingId !== 'greeting'
                  ? { ...msg, metadata: { custom: { pinned: true } } }
                  : msg,
              )
              next += batch.length
              if (batch.length > 0) await m.append(batch)
              for (const msg of batch) {
                appended.set(msg.trackingId, JSON.stringify(msg))
                for (const b of msg.content) if ('toolResult' in b) answered.push(b.toolResult.toolUseId)
              }
            } else if (o.kind === 'late') {
              // A second result for a call already answered: archived as sent, shown as text.
              const id = answered[o.at % Math.max(1, answered.length)]
              if (id !== undefined) {
                const late: StoredMessageData = {
                  role: 'user',
                  content: [
                    { toolResult: { toolUseId: id, status: 'success', content: [{ text: 'late' }] } },
                  ],
                  trackingId: `late-${lates++}`,
                }
                await m.append(late)
                appended.set(late.trackingId, JSON.stringify(late))
              }
            } else if (o.kind === 'apply' || o.kind === 'reduce') {
              const mode = o.kind === 'apply' ? ('apply' as const) : ('overflow' as const)
              result = o.kind === 'apply' ? await m.applyWindow() : await m.reduce({ overflow: true })
              inForce = m.limits
              const expected = planWindow(before.archive, {
                windowSize: m.limits.windowSize,
                tokenBudget: m.limits.tokenBudget,
                lowWaterMark: m.limits.lowWaterMark,
                protectedMessages: { first: m.limits.first, last: m.limits.last },
                state: {
                  boundary: before.boundary,
                  kept: before.kept,
                  summaryTokens: before.summary?.tokens,
                },
                mode,
                tokens: before.tokens,
                pinned: before.pinned,
                windowTokens: before.windowTokens,
              })
              const { indices, messages: _m, state: _s, kept: _k, ...plan } = expected
              expect(result).toStrictEqual(plan)
              expect((await snapshot(m)).window).toStrictEqual(indices)
              const summaryAfter = (await m.summaries()).find((x) => x.current)
              if (before.summary !== undefined && result.summaryEvicted) {
                expect(summaryAfter).toBeUndefined()
                expect((await m.summary(before.summary.id)).endReason).toBe('evicted')
              } else expect(summaryAfter?.id).toBe(before.summary?.id)
              if (before.summary === undefined) expect(result.summaryEvicted).toBe(false)
            } else if (o.kind === 'summarize' || o.kind === 'excess') {
              const limits = m.limits
              const low = limits.lowWaterMark ?? 1
              const request: FoldRequest =
                o.kind === 'summarize'
                  ? { kind: 'ratio', ratio: Math.max(0.1, Math.min(0.8, o.ratio)), preserve: o.preserve }
                  : {
                      kind: 'excess',
                      windowSize: Math.max(1, Math.floor(limits.windowSize * low)),
                      tokenBudget:
                        limits.tokenBudget === undefined
                          ? undefined
                          : Math.max(1, Math.floor(limits.tokenBudget * low)),
                      reserveTokens: before.summary?.tokens ?? 0,
                    }
              const reference = await sameFoldPlans(m, before, limits, request)
              let r: SummarizeResult
              try {
                r =
                  o.kind === 'summarize'
                    ? await m.summarize(summarizer.summarize, {
                        summaryRatio: o.ratio,
                        preserveRecentMessages: o.preserve,
                      })
                    : await m.summarizeExcess(summarizer.summarize)
              } catch (error) {
                // A fold of the excess whose summary the budget cannot hold writes nothing.
                if (
                  o.kind !== 'excess' ||
                  !isContextLedgerError(error, 'SUMMARIZER_FAILED') ||
                  !error.message.includes('more than the tokenBudget')
                )
                  throw error
                const unchanged = await snapshot(m)
                expect(unchanged.summaries).toStrictEqual(before.summaries)
                expect(unchanged.shown).toStrictEqual(before.shown)
                expect(unchanged.boundary).toBe(before.boundary)
                continue
              }
              const after = await snapshot(m)
              const made = after.summaries.filter((x) => x.id > lastId).reverse()
              // A fold written plans with the manager's protected ranges; nothing folded writes nothing.
              if (made.length > 0) inForce = limits
              // One summarizer call per summary made: nobody else writes.
              expect(summarizer.calls.length - calls).toBe(made.length)
              expect(r.windowMessages).toBe(after.shown.length)
              expect(r.windowTokens).toBe((await m.store.session(sessionId))?.windowTokens ?? 0)
              if (reference === undefined) {
                expect(made).toStrictEqual([])
                expect(r.summary).toBeUndefined()
                expect(r.summarized).toBe(0)
                expect(r.reason).toBeDefined()
                expect(after.shown).toStrictEqual(before.shown)
                expect(after.boundary).toBe(before.boundary)
              } else {
                expect(made.length).toBeGreaterThan(0)
                expect(r.summary?.id).toBe(made.at(-1)?.id)
                expect(after.summary?.id).toBe(r.summary?.id)
                // Each summary replaces the one the window showed before it, and is written as made.
                let previous = before.summary
                for (const [i, s] of made.entries()) {
                  expect(s.replaces).toBe(previous?.id)
                  if (previous !== undefined)
                    expect((await m.summary(previous.id)).endReason).toBe('replaced')
                  const call = summarizer.calls[calls + i]
                  expect(s.message.content).toStrictEqual([{ text: call?.text }])
                  expect(s.tokens).toBe(estimateTokens(s.message))
                  expect(call?.request.previous?.id).toBe(previous?.id)
                  previous = s
                }
                // Together they stand for exactly the messages that left the window.
                const left = before.window.filter((s) => !after.window.includes(s))
                expect(made.flatMap((s) => seqsOf(s.seqs)).sort((a, b) => a - b)).toStrictEqual(left)
                expect(r.summarized).toBe(
                  made.reduce((a, s) => a + s.messageCount + (s.replaces === undefined ? 0 : 1), 0),
                )
                const first = made[0] as SummaryRecord
                expect(first.fromBoundary).toBe(before.boundary)
                expect(first.toBoundary).toBe(reference.plan.boundary)
                // The summarizer was given the folded messages as the window showed them, the summary
                // it showed among them, in window order.
                const folded = new Set(seqsOf(first.seqs).map((s) => before.archive[s]?.trackingId))
                if (before.summary !== undefined) folded.add(before.summary.trackingId)
                expect(summarizer.calls[calls]?.input).toStrictEqual(
                  before.shown.filter((x) => folded.has(x.trackingId)),
                )
                expect(summarizer.calls[calls]?.text).toBe(summaryText(summarizer.calls[calls]?.input ?? []))
                if (made.length === 1) {
                  // The store is where the reference planned it.
                  expect(after.boundary).toBe(reference.plan.boundary)
                  expect(after.kept).toStrictEqual(keptAfter(before.kept, reference))
                  expect(r.windowMessages).toBe(reference.plan.windowMessages + 1)
                  expect(r.windowTokens).toBe(reference.plan.windowTokens + first.tokens)
                }
              }
            } else if (o.kind === 'resummarize' || o.kind === 'drop') {
              const current = before.summary
              if (current === undefined) {
                // Only the summary the window shows can be regenerated or dropped.
                const id = before.summaries[0]?.id ?? 1
                const code = await (
                  o.kind === 'drop' ? m.dropSummary(id) : m.resummarize(id, summarizer.summarize)
                ).then(
                  () => 'none',
                  (error: unknown) => refusalOf(error),
                )
                expect(code).toBe(before.summaries.length > 0 ? 'SUMMARY_NOT_CURRENT' : 'SUMMARY_NOT_FOUND')
                expect(summarizer.calls.length).toBe(calls)
              } else if (o.kind === 'resummarize') {
                const made = await m.resummarize(current.id, summarizer.summarize, { from: o.from })
                const input = summarizer.calls[calls]?.input
                const older = before.summaries.find((x) => x.id === current.replaces)
                const expected =
                  o.from === 'raw'
                    ? chainOf(current, before.summaries).map((s) => before.archive[s])
                    : [
                        ...(older === undefined ? [] : [older.message]),
                        ...seqsOf(current.seqs).map((s) => before.archive[s]),
                      ]
                expect(input).toStrictEqual(expected)
                expect(made).toMatchObject({
                  current: true,
                  regenerates: current.id,
                  replaces: current.replaces,
                  seqs: current.seqs,
                  messageCount: current.messageCount,
                  fromBoundary: current.fromBoundary,
                  toBoundary: current.toBoundary,
                })
                expect(await m.summary(current.id)).toMatchObject({
                  current: false,
                  endReason: 'regenerated',
                })
                const after = await snapshot(m)
                expect(after.window).toStrictEqual(before.window)
                expect(after.boundary).toBe(before.boundary)
              } else {
                // The window before the fold comes back, and is planned anew.
                const replaced = before.summaries.find((x) => x.id === current.replaces)
                const from = current.fromBoundary
                const kept = [
                  ...new Set([
                    ...before.kept.filter((s) => s < from),
                    ...seqsOf(current.seqs).filter((s) => s < from),
                  ]),
                ].sort((a, b) => a - b)
                const expected = planWindow(before.archive, {
                  windowSize: m.limits.windowSize,
                  tokenBudget: m.limits.tokenBudget,
                  lowWaterMark: m.limits.lowWaterMark,
                  protectedMessages: { first: m.limits.first, last: m.limits.last },
                  state: { boundary: from, kept, summaryTokens: replaced?.tokens },
                  mode: 'apply',
                  tokens: before.tokens,
                  pinned: before.pinned,
                  windowTokens: before.windowTokens,
                })
                result = await m.dropSummary(current.id)
                inForce = m.limits
                mayGoBack = true
                const { indices, messages: _m, state: _s, kept: _k, ...plan } = expected
                expect(result).toStrictEqual(plan)
                expect((await snapshot(m)).window).toStrictEqual(indices)
                expect(await m.summary(current.id)).toMatchObject({ current: false, endReason: 'dropped' })
                const shownAfter = (await m.summaries()).find((x) => x.current)
                expect(shownAfter?.id).toBe(plan.summaryEvicted ? undefined : replaced?.id)
                if (plan.summaryEvicted && replaced !== undefined)
                  expect((await m.summary(replaced.id)).endReason).toBe('evicted')
              }
            } else if (o.kind === 'ranges') {
              m = manager(o.first, o.last, o.windowSize)
            } else if (before.archive.length > 0) {
              const seq = o.at % before.archive.length
              if (o.kind === 'pin' && seq < firstPlainUser(before.archive))
                expect((await refusalOfCall(() => m.pin({ seq }))).path).toBe('ref')
              else if (o.kind === 'pin') await m.pin({ seq }, { actor: 'agent', reason: 'property' })
              else if (o.kind === 'unpin') await m.unpin({ seq })
              else
                await m.setWindowContent(
                  { seq },
                  o.clear ? null : replacement(before.archive[seq] as StoredMessageData, o.size),
                )
            }

            const after = await snapshot(m)
            if (!['apply', 'reduce', 'summarize', 'excess', 'resummarize', 'drop'].includes(o.kind))
              expect(after.summary?.id).toBe(before.summary?.id)
            const check = {
              store,
              sessionId,
              archive: after.archive,
              tokens: after.effective,
              windowSeqs: after.window,
              limits: inForce,
              result,
              mode: o.kind === 'reduce' ? ('overflow' as const) : ('apply' as const),
              ...(mayGoBack ? {} : { previousBoundary: before.boundary }),
              summaryTokens: after.summary?.tokens,
            }
            const protectedSeqs = await assertStepRulesOf(check)
            if (o.kind === 'reduce')
              assertProgress({
                ...check,
                before: before.window,
                boundaryBefore: before.boundary,
                protectedSeqs,
              })
            // Another connection — as a restarted process would — reads the same window and session.
            expect(await other.window(sessionId)).toStrictEqual(after.shown)
            expect(await other.session(sessionId)).toStrictEqual(await m.store.session(sessionId))
          }
          // A store opened afresh computes the same window; the archive is byte-identical.
          const fresh = await backend.reopen(store)
          try {
            expect(await fresh.window(sessionId)).toStrictEqual(await m.window())
            await assertWindowRulesOf(fresh, sessionId, inForce, { appended })
          } finally {
            await fresh.close()
          }
        },
      ),
      // PostgreSQL takes milliseconds a call where SQLite takes microseconds: fewer runs, the same checks.
      { numRuns: fcRuns(BACKEND === 'postgres' ? 60 : 200) },
    )
  }, 300_000)
})
