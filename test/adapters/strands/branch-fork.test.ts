/**
 * `fork` from the Strands manager, with real `Agent`s, the scripted model and real SQLite files: a new
 * agent continues a branch of the conversation while the first one goes on, neither seeing the other;
 * a fork at the newest message is the agent as Strands' own snapshot restore would give it, window slides
 * included; the messages an agent holds mid-invocation are written before a tool forks; the manager of
 * the fork takes the parent's options.
 */
import { describe, expect, it } from 'vitest'
import { Agent, Message, SlidingWindowConversationManager, TextBlock, tool } from '@strands-agents/sdk'
import { z } from 'zod'
import type { LedgerEntry, MessageData } from '../../../src/index.js'
import { PersistentConversationManager } from '../../../src/adapters/strands/index.js'
import { ScriptedModel } from '../../../examples/strands-scripted-model.js'
import { refusal } from '../../helpers/refusal.js'
import { useTempDir } from '../../helpers/temp-store.js'
import { assertWindowRulesThroughApi } from '../../helpers/window-rules.js'
import { assistantScript, json, ledgerAgent, lookupTools } from './helpers.js'
import { agentOn, entryTexts, seenByModel, shape, textsOf } from './branch-helpers.js'

const dir = useTempDir('context-ledger-strands-fork-')

describe('PersistentConversationManager.fork', () => {
  it('gives a new agent the conversation up to a message of agent.messages; both agents go on, each on its own branch', async () => {
    const store = dir.open()
    const { agent, manager } = ledgerAgent({ store, sessionId: 'trip' })
    for (const prompt of ['hello', 'ask weather', 'ask tides']) await agent.invoke(prompt)
    // hello + reply, then two tool turns of 4: the answer about the weather is agent.messages[5].
    expect(agent.messages).toHaveLength(10)
    const at = agent.messages[5] as Message
    const parentBefore = json(agent.messages)

    const branch = manager.fork({ trackingId: at.trackingId, reason: 'plan without the tides' })
    expect(branch).toBeInstanceOf(PersistentConversationManager)
    expect(branch.sessionId).not.toBe('trip')
    expect(branch.store).toBe(store)
    // Forking wrote no message and changed nothing the first agent shows.
    expect(json(agent.messages)).toStrictEqual(parentBefore)
    expect(store.session('trip')?.messageCount).toBe(10)

    const b = agentOn(branch, 'b-')
    await b.agent.initialize()
    expect(json(b.agent.messages)).toStrictEqual(parentBefore.slice(0, 6))

    await b.agent.invoke('ask moon')
    await agent.invoke('ask sun')
    await b.agent.invoke('bye')

    const parent = entryTexts(manager.ledger.history())
    const own = entryTexts(branch.ledger.history())
    expect(own.slice(0, 6)).toStrictEqual(parent.slice(0, 6))
    expect(own.slice(6).filter((t) => t.startsWith('ask') || t === 'bye')).toStrictEqual(['ask moon', 'bye'])
    expect(parent.filter((t) => t.startsWith('ask'))).toStrictEqual(['ask weather', 'ask tides', 'ask sun'])
    // The branch's model was never handed the parent's turns after the fork point, nor the parent's the branch's.
    expect(seenByModel(b.calls).filter((t) => /tides|sun/.test(t))).toStrictEqual([])
    expect(parent.filter((t) => /moon|bye/.test(t))).toStrictEqual([])
    // The inherited rows are the parent's own: same seqs, trackingIds and bytes.
    const rows = (entries: LedgerEntry[]) => entries.map((e) => [e.seq, e.trackingId, e.message])
    expect(rows(branch.ledger.history({ limit: 6 }))).toStrictEqual(
      rows(manager.ledger.history({ limit: 6 })),
    )
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    expect(json(b.agent.messages)).toStrictEqual(branch.ledger.window())
    await assertWindowRulesThroughApi(store, 'trip')
    await assertWindowRulesThroughApi(store, branch.sessionId)

    const tree = manager.branches()
    expect(tree).toStrictEqual(branch.branches())
    expect(tree.map((t) => [t.sessionId, t.parentId, t.forkSeq, t.kind, t.depth])).toStrictEqual([
      ['trip', null, null, 'root', 0],
      [branch.sessionId, 'trip', 5, 'fork', 1],
    ])
    expect(tree[1]).toMatchObject({ actor: 'user', reason: 'plan without the tides', ownMessages: 6 })
    expect(tree[1]?.messageCount).toBe(12)
  })

  it('a fork at the newest message is the agent as Strands’ snapshot restore gives it, and slides the same way after', async () => {
    const store = dir.open()
    const { agent, manager } = ledgerAgent({ store, sessionId: 's', windowSize: 5 })
    for (const prompt of ['hello', 'ask weather', 'ask tides', 'thanks']) await agent.invoke(prompt)
    const snapshot = agent.takeSnapshot({ preset: 'session' })

    const branch = manager.fork({ trackingId: (agent.messages.at(-1) as Message).trackingId })
    const b = agentOn(branch, 'b-')
    await b.agent.initialize()
    // Exactly the messages Strands would restore into a new agent, trackingIds and all.
    expect(json(b.agent.messages)).toStrictEqual(snapshot.data.messages)

    // Strands' way: a new agent with its sliding window, loaded from the snapshot.
    const reference = new Agent({
      model: new ScriptedModel({ script: assistantScript('b-') }),
      tools: lookupTools(),
      conversationManager: new SlidingWindowConversationManager({ windowSize: 5 }),
      printer: false,
    })
    reference.loadSnapshot(snapshot)
    for (const prompt of ['ask moon', 'ask sun', 'bye']) {
      await b.agent.invoke(prompt)
      await reference.invoke(prompt)
      expect(shape(json(b.agent.messages))).toStrictEqual(shape(json(reference.messages)))
      await assertWindowRulesThroughApi(store, branch.sessionId)
    }
    // The parent's window never moved.
    expect(json(agent.messages)).toStrictEqual(snapshot.data.messages)
    expect(manager.ledger.window()).toStrictEqual(snapshot.data.messages)
  })

  it('a fork at a tool call leaves the call open in the branch: the branch agent’s next prompt brings its repair row', async () => {
    const store = dir.open()
    const { agent, manager } = ledgerAgent({ store, sessionId: 's' })
    for (const prompt of ['hello', 'ask weather']) await agent.invoke(prompt)
    // agent.messages[3] is the call of lookup, answered in the parent by agent.messages[4].
    const call = agent.messages[3] as Message
    expect(call.content[0]?.type).toBe('toolUseBlock')

    const branch = manager.fork({ trackingId: call.trackingId })
    const b = agentOn(branch, 'b-')
    await b.agent.initialize()
    expect(json(b.agent.messages).at(-1)).toStrictEqual(call.toJSON())
    await b.agent.invoke('never mind, say hi')

    // The model was handed a valid conversation: the call answered (by the repair row), then the prompt.
    const handed = b.calls.at(-1)?.messages.map((m) => m.toJSON() as unknown as MessageData) ?? []
    const answer = handed[4]?.content[0]
    expect(answer !== undefined && 'toolResult' in answer ? answer.toolResult.status : undefined).toBe(
      'error',
    )
    expect(textsOf(handed.slice(5))).toStrictEqual(['never mind, say hi'])
    expect(json(b.agent.messages)).toStrictEqual(branch.ledger.window())
    await assertWindowRulesThroughApi(store, branch.sessionId)
    // The parent's answer to the call is not the branch's.
    expect(entryTexts(branch.ledger.history())).not.toContain(entryTexts(manager.ledger.history())[4])
  })

  it('writes what the agent holds mid-invocation before a tool forks, and the fork holds the turn so far', async () => {
    const store = dir.open()
    const held: { manager?: PersistentConversationManager } = {}
    let forkedAt: string | undefined
    const spinOff = tool({
      name: 'lookup',
      description: 'Looks something up, and spins the conversation so far off into a branch',
      inputSchema: z.object({ q: z.string() }),
      callback: ({ q }) => {
        // The prompt is held (durability 'invocation'): the fork must still see it.
        const branch = held.manager?.fork({ atSeq: 2, newSessionId: `side-${q}` })
        forkedAt = branch?.sessionId
        return `${q}: found`
      },
    })
    const built = ledgerAgent({ store, sessionId: 's' }, { tools: [spinOff] })
    held.manager = built.manager
    await built.agent.invoke('hello')
    await built.agent.invoke('ask plans')
    expect(forkedAt).toBe('side-plans')
    expect(entryTexts(store.history('side-plans'))).toStrictEqual(['hello', 'Noted: hello', 'ask plans'])
    expect(store.session('s')?.messageCount).toBe(6)
  })

  it('makes the fork’s manager with the parent’s options, the ones given over them; bad ones write nothing', async () => {
    const store = dir.open()
    const { agent, manager } = ledgerAgent({ store, sessionId: 's', windowSize: 4, alternate: true })
    for (const prompt of ['hello', 'ask weather']) await agent.invoke(prompt)

    const same = manager.fork({ atSeq: 1 })
    expect(same.ledger.limits.windowSize).toBe(4)
    expect(same.alternate).toBe(true)
    const wider = manager.fork({ atSeq: 1, newSessionId: 'wide' }, { windowSize: 40 })
    expect(wider.sessionId).toBe('wide')
    expect(wider.ledger.limits.windowSize).toBe(40)
    expect(wider.alternate).toBe(true)

    const before = store.sessions().length
    for (const [bad, path] of [
      [{ sessionId: 'x' }, 'options.sessionId'],
      [{ store }, 'options.store'],
      [{ windowSise: 3 }, undefined],
    ] as const) {
      const error = refusal(() => manager.fork({ atSeq: 1 }, bad as never))
      expect(error.code).toBe('INVALID_OPTIONS')
      if (path !== undefined) expect(error.path).toBe(path)
    }
    expect(refusal(() => manager.fork({ atSeq: 99 })).code).toBe('MESSAGE_NOT_FOUND')
    expect(refusal(() => manager.fork({ atSeq: 1, newSessionId: 'wide' })).code).toBe('SESSION_EXISTS')
    expect(store.sessions()).toHaveLength(before)
  })

  it('with alternate, a fork at a merged message of agent.messages takes every message it stands for', async () => {
    const store = dir.open()
    const { agent, manager } = ledgerAgent({ store, sessionId: 's', alternate: true })
    await agent.invoke('hello')
    // Two user messages pushed in a row: the agent sees them merged, under the first one's trackingId.
    agent.messages.push(
      new Message({ role: 'user', content: [new TextBlock('first thought')] }),
      new Message({ role: 'user', content: [new TextBlock('second thought')] }),
    )
    await agent.invoke([])
    const merged = agent.messages[2] as Message
    expect(textsOf([merged])[0]).toContain('first thought')
    expect(textsOf([merged])[0]).toContain('second thought')

    const branch = manager.fork({ trackingId: merged.trackingId })
    expect(entryTexts(branch.ledger.history())).toStrictEqual([
      'hello',
      'Noted: hello',
      'first thought',
      'second thought',
    ])
  })
})
