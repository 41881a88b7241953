/**
 * Window plans around a summary that the summary property test found (each failed before its fix): kept
 * rows that lost their protection leave even when no cut of the tail helps; a newest-turn opening folded
 * into the summary the window keeps does not come back beside it; and a window still over its limits
 * with its summary does without the summary.
 */
import { describe, expect, it } from 'vitest'
import { PersistentConversationManager, type MessageData } from '../../src/index.js'
import { assistant, callTool, toolResult, user } from '../helpers/messages.js'
import { useTempStore } from '../helpers/temp-store.js'
import type { ContextStore } from '../../src/index.js'
import { assertWindowRules } from '../helpers/window-rules.js'

const ctx: { store: ContextStore } = { store: undefined as unknown as ContextStore }
useTempStore((opened) => {
  ctx.store = opened.store
})
const summarizer = (messages: readonly MessageData[]): string => `summary of ${messages.length - 1}`
const ids = (manager: PersistentConversationManager): string[] =>
  manager.window().map((m) => (m.metadata?.custom?.contextLedger === undefined ? m.trackingId : 'S'))

function managerWith(options: { windowSize: number; tokenBudget?: number; first: number; last: number }) {
  return new PersistentConversationManager({
    store: ctx.store,
    sessionId: 's',
    windowSize: options.windowSize,
    tokenBudget: options.tokenBudget,
    protectedMessages: { first: options.first, last: options.last },
  })
}

describe('planCut with a summary', () => {
  it('releases kept rows that lost their protection when no cut of the tail brings the window down', async () => {
    let m = managerWith({ windowSize: 7, first: 3, last: 0 })
    m.append([
      { ...assistant('Hi! How can I help?'), trackingId: 'greeting' },
      { ...user('q0'), trackingId: 'm0' },
      { ...callTool('lookup', 'call-0'), trackingId: 'm1' },
      { ...toolResult('call-0', 'result 0'), trackingId: 'm2' },
      { ...assistant('a0'), trackingId: 'm3' },
      { ...user('q1'), trackingId: 'm4' },
      { ...callTool('lookup', 'call-1'), trackingId: 'm5' },
    ])
    // A result for the answered call-0: call-1 is answered by a repair row, this one archived as late.
    m.append({ ...toolResult('call-0', 'late'), trackingId: 'late-0' })
    expect((await m.summarizeExcess(summarizer)).summary).toBeDefined()
    // The first three are no longer protected, and the window may hold one message: the tail (a call,
    // its repair row, a late result) has no trim point, so only what needs no cut can go.
    m = managerWith({ windowSize: 1, first: 0, last: 0 })
    const result = m.applyWindow()
    expect(result).toMatchObject({ summaryEvicted: true, evicted: 3 })
    // What stays is the newest turn, its opening brought back from the summary.
    expect(ids(m)).toStrictEqual(['m4', 'm5', expect.any(String), 'late-0'])
    assertWindowRules(ctx.store, 's', { first: 0, last: 0 })
  })

  it('does not bring back beside the summary a newest-turn opening the summary folded', async () => {
    let m = managerWith({ windowSize: 4, tokenBudget: 23, first: 2, last: 2 })
    m.append([
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
    m.reduce({ overflow: true })
    // q1 (seq 2) opens the newest turn, but the summary stands for it: not shown twice.
    expect(ids(m)).not.toContain('m2')
    expect(ctx.store.session('s')?.windowTokens).toBeLessThanOrEqual(23)
    assertWindowRules(ctx.store, 's', { first: 2, last: 1 })
  })

  it('takes the summary out of a window still over its limits with it', async () => {
    let m = managerWith({ windowSize: 2, tokenBudget: 20, first: 0, last: 1 })
    m.append([
      { ...user('q0 x'), trackingId: 'm0' },
      { ...assistant('a0 y'), trackingId: 'm1' },
      { ...user('q1 xxxxxx'), trackingId: 'm2' },
      { ...assistant('a1 y'), trackingId: 'm3' },
    ])
    expect((await m.summarizeExcess(summarizer)).summary).toBeDefined()
    // Other ranges: the first message is protected now; with it, the newest turn's opening and the
    // summary, the window would hold three messages where two fit.
    m = managerWith({ windowSize: 2, tokenBudget: 20, first: 1, last: 0 })
    const result = m.applyWindow()
    expect(result).toMatchObject({ summaryEvicted: true, windowMessages: 2, exceedsLimit: false })
    expect(ids(m)).toStrictEqual(['m0', 'm2'])
    assertWindowRules(ctx.store, 's', { first: 1, last: 0 })
  })
})
