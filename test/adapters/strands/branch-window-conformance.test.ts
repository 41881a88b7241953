/**
 * The window of a Strands agent's branch on either backend (a conformance-suite file): a fork from before
 * the parent's window starts a valid window and then slides exactly as Strands' own
 * `SlidingWindowConversationManager` does from the same messages (the differential test, on a branch);
 * forked at the parent's newest message it is the window Strands would restore from a snapshot; an
 * overflow in a branch trims the branch's window only (eviction: the behaviour both backends share), the
 * parent's window and eviction log untouched. Real `Agent`s, the scripted model; on PostgreSQL the
 * manager's calls are awaited.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { Agent, SlidingWindowConversationManager, type Message } from '@strands-agents/sdk'
import { pinMessageTool } from '../../../src/adapters/strands/index.js'
import type { MessageData } from '../../../src/index.js'
import { ScriptedModel } from '../../../examples/strands-scripted-model.js'
import { BACKEND, coreStoreOf, makeBackend, type LedgerStore } from '../../helpers/backend.js'
import { assertWindowRulesOf } from '../../helpers/window-rules.js'
import { assistantScript, json, ledgerAgent, lookupTools } from './helpers.js'
import { agentOn, shape, textsOf, type AnyStore } from './branch-helpers.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

/** Every window rule holds for a session, read through the API. */
async function rulesHold(suite: LedgerStore, sessionId: string): Promise<void> {
  await assertWindowRulesOf(suite, sessionId, {}, { throughApi: true })
}

/** A real Agent with the scripted assistant on a new manager of the session `s`. */
async function parentAgent(options: { windowSize?: number; toolChars?: number } = {}) {
  const suite = await backend.open()
  const store: AnyStore = coreStoreOf(suite)
  const tools = lookupTools(options.toolChars)
  const { agent, manager } = ledgerAgent<AnyStore>(
    {
      store,
      sessionId: 's',
      // Eviction only on an overflow: what both backends do (SQLite would truncate tool results first).
      truncateToolResults: false,
      ...(options.windowSize === undefined ? {} : { windowSize: options.windowSize }),
    },
    { tools },
  )
  return { suite, agent, manager, tools }
}

/** Strands' own sliding window, started from `messages`, with the branch's assistant script. */
function slidingReference(messages: readonly MessageData[], windowSize: number): Agent {
  return new Agent({
    model: new ScriptedModel({ script: assistantScript('b-') }),
    tools: [...lookupTools(), pinMessageTool],
    conversationManager: new SlidingWindowConversationManager({ windowSize }),
    printer: false,
    // The Strands and ledger MessageData types are structural twins.
    messages: messages as never,
  })
}

describe(`the window of a Strands agent's branch [${BACKEND}]`, () => {
  it('a fork behind the parent’s window starts valid and slides as Strands’ SlidingWindowConversationManager does', async () => {
    const { suite, agent, manager } = await parentAgent({ windowSize: 6 })
    for (const prompt of ['hello', 'ask weather', 'ask tides', 'thanks', 'ask moon', 'ask sun'])
      await agent.invoke(prompt)
    const parentWindow = await manager.ledger.window()
    // The parent's window starts well after seq 9 (the answer about the tides).
    expect(textsOf(parentWindow).join('\n')).not.toContain('tides')

    const branch = await manager.fork({ atSeq: 9 })
    const b = agentOn(branch, 'b-')
    await b.agent.initialize()
    await rulesHold(suite, branch.sessionId)
    const start = json(b.agent.messages)
    expect(start).toStrictEqual(await branch.ledger.window())
    // Made valid from the parent's window restricted to seq ≤ 9 (nothing of it): its newest turn.
    const turn = (await manager.ledger.history({ fromSeq: 6, limit: 4 })).map((e) => e.message)
    expect(start).toStrictEqual(turn)
    expect(textsOf(start)[0]).toBe('ask tides')

    const reference = slidingReference(start, 6)
    for (const prompt of ['ask stars', 'thanks', 'ask comets', 'bye']) {
      await b.agent.invoke(prompt)
      await reference.invoke(prompt)
      expect(shape(json(b.agent.messages))).toStrictEqual(shape(json(reference.messages)))
      expect(json(b.agent.messages)).toStrictEqual(await branch.ledger.window())
      await rulesHold(suite, branch.sessionId)
    }
    // The parent's window did not move, and shows nothing of the branch.
    expect(await manager.ledger.window()).toStrictEqual(parentWindow)
    expect(json(agent.messages)).toStrictEqual(parentWindow)
  })

  it('forked at the newest message, the branch is the snapshot Strands would restore, and both slide alike from there', async () => {
    const { suite, agent, manager } = await parentAgent({ windowSize: 8 })
    for (const prompt of ['hello', 'ask weather', 'ask tides', 'thanks']) await agent.invoke(prompt)
    const snapshot = agent.takeSnapshot({ preset: 'session' })
    const newest = agent.messages.at(-1) as Message

    const branch = await manager.fork({ trackingId: newest.trackingId, reason: 'try another plan' })
    const b = agentOn(branch, 'b-')
    await b.agent.initialize()
    expect(json(b.agent.messages)).toStrictEqual(snapshot.data.messages)
    const reference = slidingReference(snapshot.data.messages as unknown as MessageData[], 8)
    for (const prompt of ['ask moon', 'ask sun', 'bye']) {
      await b.agent.invoke(prompt)
      await reference.invoke(prompt)
      expect(shape(json(b.agent.messages))).toStrictEqual(shape(json(reference.messages)))
    }
    expect(json(b.agent.messages)).toStrictEqual(await branch.ledger.window())
    await rulesHold(suite, branch.sessionId)
    await rulesHold(suite, 's')
  })

  it('an overflow in a branch trims the branch’s window only; the parent’s window and eviction log stay', async () => {
    const { suite, agent, manager, tools } = await parentAgent({ toolChars: 3000 })
    for (const prompt of ['ask one', 'ask two', 'ask three']) await agent.invoke(prompt)
    const parentWindow = await manager.ledger.window()
    const parentEvictions = await suite.evictions('s')

    const branch = await manager.fork({ atSeq: 11 })
    const model = new ScriptedModel({ script: assistantScript('b-'), contextWindowLimit: 2500 })
    const b = new Agent({
      model,
      tools: [...tools, pinMessageTool],
      conversationManager: branch,
      printer: false,
    })
    await b.initialize()
    expect(b.messages).toHaveLength(12)
    await b.invoke('ask four')

    expect(model.overflows).toBeGreaterThan(0)
    const window = await branch.ledger.window()
    expect(json(b.messages)).toStrictEqual(window)
    // Trimmed: the branch holds 16 messages, its window far fewer, the newest turn whole.
    expect(window.length).toBeLessThan(12)
    expect(textsOf(window).slice(-4)).toStrictEqual([
      'ask four',
      'call {"q":"four"}',
      `result four: ${'r'.repeat(2994)}`,
      `Answer ${model.calls - 1}`,
    ])
    const overflow = (await suite.evictions(branch.sessionId)).filter((e) => e.reason === 'overflow')
    expect(overflow.length).toBeGreaterThan(0)
    await rulesHold(suite, branch.sessionId)
    // The parent shows what it showed, its log holds none of the branch's evictions, and it goes on.
    expect(await manager.ledger.window()).toStrictEqual(parentWindow)
    expect(json(agent.messages)).toStrictEqual(parentWindow)
    expect(await suite.evictions('s')).toStrictEqual(parentEvictions)
    await agent.invoke('ask five')
    expect(json(agent.messages)).toStrictEqual(await manager.ledger.window())
    expect(textsOf(agent.messages).join('\n')).not.toContain('four')
    await rulesHold(suite, 's')
  })
})
