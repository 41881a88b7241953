/**
 * Branches from the Strands manager on either backend (a conformance-suite file): a fork at a message of
 * `agent.messages` continued by a second agent while the first goes on, each seeing only its own branch;
 * a rewind after a bad tool run that leaves `agent.messages` as Strands' snapshot restore would, keeps the
 * bad turn as a searchable abandoned branch, and lets the agent retry. Real `Agent`s, the scripted model;
 * on PostgreSQL the manager's calls are awaited.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { Message } from '@strands-agents/sdk'
import { PersistentConversationManager } from '../../../src/adapters/strands/index.js'
import { BACKEND, coreStoreOf, makeBackend, type LedgerStore } from '../../helpers/backend.js'
import { assertWindowRulesOf } from '../../helpers/window-rules.js'
import { json, ledgerAgent, lookupReturning } from './helpers.js'
import { agentOn, entryTexts, seenByModel, textsOf, type AnyStore } from './branch-helpers.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

/** A suite store (for the window-rule checks) and the store behind it (for the manager). */
async function opened(): Promise<{ suite: LedgerStore; store: AnyStore }> {
  const suite = await backend.open()
  return { suite, store: coreStoreOf(suite) }
}

/** Every window rule holds for a session, read through the API (on SQLite too). */
async function rulesHold(suite: LedgerStore, sessionId: string): Promise<void> {
  await assertWindowRulesOf(suite, sessionId, {}, { throughApi: true })
}

describe(`branches of a Strands agent [${BACKEND}]`, () => {
  it('forks at a message of agent.messages; a second agent continues the branch while the first goes on', async () => {
    const { suite, store } = await opened()
    const { agent, manager } = ledgerAgent<AnyStore>({ store, sessionId: 'trip' })
    for (const prompt of ['hello', 'ask weather', 'ask tides']) await agent.invoke(prompt)
    const parentBefore = json(agent.messages)

    const branch = await manager.fork({ trackingId: (agent.messages[5] as Message).trackingId })
    const b = agentOn(branch, 'b-')
    await b.agent.initialize()
    expect(json(b.agent.messages)).toStrictEqual(parentBefore.slice(0, 6))
    await b.agent.invoke('ask moon')
    await agent.invoke('ask sun')
    await b.agent.invoke('bye')

    const parent = entryTexts(await manager.ledger.history())
    const own = entryTexts(await branch.ledger.history())
    expect(own.slice(0, 6)).toStrictEqual(parent.slice(0, 6))
    expect(parent.filter((t) => /moon|bye/.test(t))).toStrictEqual([])
    expect(own.filter((t) => /tides|sun/.test(t))).toStrictEqual([])
    expect(seenByModel(b.calls).filter((t) => /tides|sun/.test(t))).toStrictEqual([])
    expect(json(agent.messages)).toStrictEqual(await manager.ledger.window())
    expect(json(b.agent.messages)).toStrictEqual(await branch.ledger.window())
    await rulesHold(suite, 'trip')
    await rulesHold(suite, branch.sessionId)
    const tree = await manager.branches()
    expect(tree.map((t) => [t.sessionId, t.parentId, t.forkSeq, t.kind])).toStrictEqual([
      ['trip', null, null, 'root'],
      [branch.sessionId, 'trip', 5, 'fork'],
    ])
  })

  it('rewinds after a bad tool run to what Strands’ snapshot restore shows; the bad turn stays, searchable', async () => {
    const { suite, store } = await opened()
    let broken = true
    const lookup = lookupReturning(() =>
      broken ? 'ERROR upstream returned garbage' : 'tides: high at 14:02',
    )
    const { agent, manager } = ledgerAgent<AnyStore>({ store, sessionId: 'ops' }, { tools: [lookup] })
    await agent.invoke('hello')
    const checkpoint = agent.takeSnapshot({ preset: 'session' })
    const last = agent.messages.at(-1) as Message
    await agent.invoke('ask tides')

    const result = await manager.rewind({ trackingId: last.trackingId, reason: 'bad tool run' })
    expect(json(agent.messages)).toStrictEqual(checkpoint.data.messages)
    expect(result).toMatchObject({
      left: 4,
      abandoned: { sessionId: 'ops~1', kind: 'abandoned', forkSeq: 1 },
    })
    expect((await suite.search('garbage', { sessionId: 'ops~1' })).map((h) => h.seq)).toStrictEqual([4])
    expect(await suite.search('garbage', { sessionId: 'ops' })).toStrictEqual([])

    broken = false
    await agent.invoke('ask tides')
    expect(entryTexts(await manager.ledger.history()).slice(2)).toStrictEqual([
      'ask tides',
      'call {"q":"tides"}',
      'result tides: high at 14:02',
      'Answer 4',
    ])
    expect(json(agent.messages)).toStrictEqual(await manager.ledger.window())
    await rulesHold(suite, 'ops')
  })

  it('two writers on one branch (two connections): each sees the other’s turns, nothing is lost, the parent stays', async () => {
    const { suite, store } = await opened()
    const { agent, manager } = ledgerAgent<AnyStore>({ store, sessionId: 'team' })
    for (const prompt of ['hello', 'ask weather', 'ask tides']) await agent.invoke(prompt)
    const parentHistory = await manager.ledger.history()
    const branch = await manager.fork({ atSeq: 5, newSessionId: 'team-plan' })
    // The second writer: its own store on the same ledger, as another process would have.
    const other = coreStoreOf(await backend.reopen(suite))
    const second = new PersistentConversationManager<AnyStore>({ store: other, sessionId: 'team-plan' })
    const a = agentOn(branch, 'a-')
    const c = agentOn(second, 'c-')

    await a.agent.invoke('ask moon')
    await c.agent.invoke('ask sun')
    await a.agent.invoke('thanks')
    expect(seenByModel(c.calls)).toContain('ask moon')
    expect(seenByModel(a.calls)).toContain('ask sun')
    // Both at once (on PostgreSQL, two connections writing the branch concurrently).
    await Promise.all([a.agent.invoke('ask stars'), c.agent.invoke('ask comets')])
    await a.agent.invoke('bye')
    expect(json(a.agent.messages)).toStrictEqual(await branch.ledger.window())
    await c.agent.invoke('ok')
    expect(json(c.agent.messages)).toStrictEqual(await second.ledger.window())

    const texts = entryTexts(await branch.ledger.history())
    expect(texts.slice(0, 6)).toStrictEqual(entryTexts(parentHistory).slice(0, 6))
    const prompts = texts.slice(6).filter((t) => /^(ask \w+|thanks|bye|ok)$/.test(t))
    expect(prompts.toSorted()).toStrictEqual(
      ['ask moon', 'ask sun', 'thanks', 'ask stars', 'ask comets', 'bye', 'ok'].toSorted(),
    )
    for (const q of ['moon', 'sun', 'stars', 'comets'])
      expect(texts.filter((t) => t.startsWith(`result ${q}: `))).toHaveLength(1)
    expect(textsOf(c.agent.messages).join('\n')).toContain('bye')
    await rulesHold(suite, 'team-plan')
    // The parent saw none of it.
    expect(await manager.ledger.history()).toStrictEqual(parentHistory)
    expect(json(agent.messages)).toStrictEqual(await manager.ledger.window())
    await rulesHold(suite, 'team')
  })
})
