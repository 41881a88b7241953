/**
 * Window plans around a summary that the summary property test found (each failed before its fix): kept
 * rows that lost their protection leave even when no cut of the tail helps; a newest-turn opening folded
 * into the summary the window keeps does not come back beside it; and a window still over its limits
 * with its summary does without the summary.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { MessageData } from '../../src/index.js'
import { BACKEND, makeBackend, type LedgerManager, type LedgerStore } from '../helpers/backend.js'
import { assistant, callTool, toolResult, user } from '../helpers/messages.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'

// The conformance suite: one store per file on the backend the project selects, a session per test.
const backend = makeBackend()
const ctx: { store: LedgerStore } = { store: undefined as unknown as LedgerStore }
let sid = ''
let tests = 0
beforeAll(async () => {
  ctx.store = await backend.open()
})
afterAll(async () => {
  await backend.cleanup()
})
beforeEach(() => {
  sid = `s${tests++}`
})
const summarizer = (messages: readonly MessageData[]): string => `summary of ${messages.length - 1}`
const ids = async (manager: LedgerManager): Promise<string[]> =>
  (await manager.window()).map((m) => (m.metadata?.custom?.contextLedger === undefined ? m.trackingId : 'S'))

function managerWith(options: { windowSize: number; tokenBudget?: number; first: number; last: number }) {
  return backend.manager(ctx.store, {
    sessionId: sid,
    windowSize: options.windowSize,
    tokenBudget: options.tokenBudget,
    protectedMessages: { first: options.first, last: options.last },
  })
}

describe(`planCut with a summary [${BACKEND}]`, () => {
  it('releases kept rows that lost their protection when no cut of the tail brings the window down', async () => {
    let m = managerWith({ windowSize: 7, first: 3, last: 0 })
    await m.append([
      { ...assistant('Hi! How can I help?'), trackingId: 'greeting' },
      { ...user('q0'), trackingId: 'm0' },
      { ...callTool('lookup', 'call-0'), trackingId: 'm1' },
      { ...toolResult('call-0', 'result 0'), trackingId: 'm2' },
      { ...assistant('a0'), trackingId: 'm3' },
      { ...user('q1'), trackingId: 'm4' },
      { ...callTool('lookup', 'call-1'), trackingId: 'm5' },
    ])
    // A result for the answered call-0: call-1 is answered by a repair row, this one archived as late.
    await m.append({ ...toolResult('call-0', 'late'), trackingId: 'late-0' })
    expect((await m.summarizeExcess(summarizer)).summary).toBeDefined()
    // The first three are no longer protected, and the window may hold one message: the tail (a call,
    // its repair row, a late result) has no trim point, so only what needs no cut can go.
    m = managerWith({ windowSize: 1, first: 0, last: 0 })
    const result = await m.applyWindow()
    expect(result).toMatchObject({ summaryEvicted: true, evicted: 3 })
    // What stays is the newest turn, its opening brought back from the summary.
    expect(await ids(m)).toStrictEqual(['m4', 'm5', expect.any(String), 'late-0'])
    await assertWindowRulesOf(ctx.store, sid, { first: 0, last: 0 })
  })

  it('does not bring back beside the summary a newest-turn opening the summary folded', async () => {
    let m = managerWith({ windowSize: 4, tokenBudget: 23, first: 2, last: 2 })
    await m.append([
      { ...user('q0 x'), trackingId: 'm0' },
      { ...assistant('a0 y'), trackingId: 'm1' },
      { ...user('q1 x'), trackingId: 'm2' },
      { ...callTool('lookup', 'call-0'), trackingId: 'm3' },
      { ...toolResult('call-0', 'result call-0'), trackingId: 'm4' },
      { ...assistant('a1 y'), trackingId: 'm5' },
    ])
    const folded = await m.summarizeExcess(summarizer)
    expect(folded.summary?.seqs).toStrictEqual([[2, 3]])
    m = managerWith({ windowSize: 4, tokenBudget: 23, first: 2, last: 1 })
    await m.reduce({ overflow: true })
    // q1 (seq 2) opens the newest turn, but the summary stands for it: not shown twice.
    expect(await ids(m)).not.toContain('m2')
    expect((await ctx.store.session(sid))?.windowTokens).toBeLessThanOrEqual(23)
    await assertWindowRulesOf(ctx.store, sid, { first: 2, last: 1 })
  })

  it('takes the summary out of a window still over its limits with it', async () => {
    let m = managerWith({ windowSize: 2, tokenBudget: 20, first: 0, last: 1 })
    await m.append([
      { ...user('q0 x'), trackingId: 'm0' },
      { ...assistant('a0 y'), trackingId: 'm1' },
      { ...user('q1 xxxxxx'), trackingId: 'm2' },
      { ...assistant('a1 y'), trackingId: 'm3' },
    ])
    expect((await m.summarizeExcess(summarizer)).summary).toBeDefined()
    // Other ranges: the first message is protected now; with it, the newest turn's opening and the
    // summary, the window would hold three messages where two fit.
    m = managerWith({ windowSize: 2, tokenBudget: 20, first: 1, last: 0 })
    const result = await m.applyWindow()
    expect(result).toMatchObject({ summaryEvicted: true, windowMessages: 2, exceedsLimit: false })
    expect(await ids(m)).toStrictEqual(['m0', 'm2'])
    await assertWindowRulesOf(ctx.store, sid, { first: 1, last: 0 })
  })

  it('drops a summary that replaced another when the first message is protected (PostgreSQL read its tool calls too late)', async () => {
    // From the summaries property test on PostgreSQL: the drop re-plans the first-N range, whose rows the
    // snapshot did not read when the kept marks were made for the same range.
    const m = managerWith({ windowSize: 1, first: 1, last: 0 })
    await m.append([
      { ...assistant('Hi! How can I help?'), trackingId: 'greeting' },
      { ...user('q0 x'), trackingId: 'm0' },
    ])
    const first = await m.summarize(summarizer, { summaryRatio: 0, preserveRecentMessages: 0 })
    const second = await m.summarize(summarizer, { summaryRatio: 0, preserveRecentMessages: 0 })
    const current = second.summary ?? first.summary
    expect(current).toBeDefined()
    await m.dropSummary(current?.id ?? 0)
    await m.summarize(summarizer, { summaryRatio: 0, preserveRecentMessages: 0 })
    expect(await ids(m)).toContain('S')
    await assertWindowRulesOf(ctx.store, sid, { first: 1, last: 0 })
  })
})
