/**
 * The window of a branch on SQLite, with real `Agent`s, scripted models and real files: pins made before
 * the fork are inherited, later ones stay on their side; overflow recovery in a branch truncates tool
 * results (SQLite's first step) there only; a summary the parent showed is the branch's too, and the
 * branch's own folds stay in the branch. What both backends share (the sliding window's parity on a
 * branch, eviction on an overflow) is in branch-window-conformance.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { Agent } from '@strands-agents/sdk'
import { PersistentConversationManager } from '../../../src/adapters/strands/index.js'
import { ScriptedModel } from '../../../examples/strands-scripted-model.js'
import { useTempDir } from '../../helpers/temp-store.js'
import { assertWindowRulesThroughApi } from '../../helpers/window-rules.js'
import { assistantScript, json, ledgerAgent, lookupTools, toolResultOf } from './helpers.js'
import { agentOn, entryTexts, textsOf } from './branch-helpers.js'
import { SummarizerModel } from './summary-models.js'

const dir = useTempDir('context-ledger-strands-branch-window-')

describe('the window of a branch', () => {
  it('inherits the pins made before the fork; a pin made on either side afterwards stays on that side', async () => {
    const store = dir.open()
    const { agent, manager } = ledgerAgent({ store, sessionId: 's' })
    await agent.invoke('hello')
    await agent.invoke('pin 0 the greeting')
    const branch = manager.fork({ atSeq: 5 })
    const b = agentOn(branch, 'b-')
    await b.agent.invoke('ask weather')
    await b.agent.invoke('pin 6 the weather question')
    await agent.invoke('ask tides')
    await agent.invoke('pin 6 the tides question')

    const pinned = (sessionId: string) => store.pinnedMessages({ sessionId }).map((p) => [p.seq, p.reason])
    expect(pinned('s')).toStrictEqual([
      [0, 'the greeting'],
      [6, 'the tides question'],
    ])
    expect(pinned(branch.sessionId)).toStrictEqual([
      [0, 'the greeting'],
      [6, 'the weather question'],
    ])
    expect(textsOf(b.agent.messages)[0]).toBe('hello')
    expect(b.agent.messages[0]?.metadata?.custom?.pinned).toBe(true)
    await assertWindowRulesThroughApi(store, 's')
    await assertWindowRulesThroughApi(store, branch.sessionId)
  })

  it('recovers from an overflow in a branch by truncating the inherited tool results there only', async () => {
    const store = dir.open()
    const tools = lookupTools(3000)
    const { agent, manager } = ledgerAgent({ store, sessionId: 's' }, { tools })
    for (const prompt of ['ask one', 'ask two', 'ask three']) await agent.invoke(prompt)
    const parentWindow = manager.ledger.window()

    const branch = manager.fork({ atSeq: 11 })
    const model = new ScriptedModel({ script: assistantScript('b-'), contextWindowLimit: 2500 })
    const b = new Agent({ model, tools, conversationManager: branch, printer: false })
    await b.invoke('ask four')

    expect(model.overflows).toBeGreaterThan(0)
    expect(branch.lastReduction).toMatchObject({ trigger: 'overflow', fits: true })
    expect(branch.lastReduction?.truncated).toBeGreaterThan(0)
    const truncated = branch.ledger
      .window()
      .map((m) => toolResultOf(m)?.text)
      .filter((t) => t?.includes('<truncated'))
    expect(truncated.length).toBeGreaterThan(0)
    expect(json(b.messages)).toStrictEqual(branch.ledger.window())
    await assertWindowRulesThroughApi(store, branch.sessionId)
    // The parent shows its tool results whole, and the archive holds the originals for both.
    expect(manager.ledger.window()).toStrictEqual(parentWindow)
    expect(agent.messages.map((m) => m.toJSON())).toStrictEqual(parentWindow)
    expect(toolResultOf(branch.ledger.message({ seq: 2 }).message)?.text).toHaveLength(3000)
    await agent.invoke('ask five')
    expect(manager.lastReduction).toBeUndefined()
    await assertWindowRulesThroughApi(store, 's')
  })

  it('shows the summary the parent showed at the fork; a fold in the branch is the branch’s own', async () => {
    const store = dir.open()
    const options = {
      store,
      sessionId: 's',
      windowSize: 6,
      summarize: { model: new SummarizerModel() },
    } as const
    const manager = new PersistentConversationManager(options)
    const agent = new Agent({
      model: new ScriptedModel({ script: assistantScript() }),
      tools: lookupTools(),
      conversationManager: manager,
      printer: false,
    })
    for (const prompt of ['hello', 'ask weather', 'ask tides', 'thanks']) await agent.invoke(prompt)
    const parentSummaries = store.summaries('s')
    // Two summaries so far, the second folding in the first: the branch inherits the chain.
    expect(parentSummaries.map((s) => [s.current, s.replaces === undefined])).toStrictEqual([
      [true, false],
      [false, true],
    ])
    const summary = parentSummaries.find((s) => s.current)
    expect(summary).toBeDefined()
    expect(textsOf(agent.messages)[0]).toMatch(/^Summary /)

    const branch = manager.fork({ trackingId: agent.messages.at(-1)?.trackingId ?? '' })
    const b = agentOn(branch, 'b-')
    await b.agent.initialize()
    expect(json(b.agent.messages)).toStrictEqual(json(agent.messages))
    expect(store.summaries(branch.sessionId).find((s) => s.current)?.id).toBe(summary?.id)

    for (const prompt of ['ask moon', 'ask sun']) await b.agent.invoke(prompt)
    const listed = store.summaries(branch.sessionId)
    const current = listed.find((s) => s.current)
    expect(current?.id).not.toBe(summary?.id)
    expect(current?.inherited).toBe(false)
    expect(listed.find((s) => s.id === summary?.id)).toMatchObject({ inherited: true, current: false })
    expect(listed.filter((s) => s.inherited).map((s) => s.id)).toStrictEqual(parentSummaries.map((s) => s.id))
    // The parent still shows its summary, and lists none of the branch's.
    expect(store.summaries('s')).toStrictEqual(parentSummaries)
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    expect(entryTexts(branch.ledger.history()).filter((t) => t.startsWith('ask'))).toStrictEqual([
      'ask weather',
      'ask tides',
      'ask moon',
      'ask sun',
    ])
    expect(json(b.agent.messages)).toStrictEqual(branch.ledger.window())
    await assertWindowRulesThroughApi(store, branch.sessionId)
  })
})
