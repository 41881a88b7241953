/**
 * An agent restarted on a branch in a second process (branch-worker.ts, through tsx), on either backend (a
 * conformance-suite file): it is handed exactly the window the first process's agent on the branch had —
 * not the parent's, not a sibling's — and goes on from there while the parent stays as it was; the first
 * process's agent sees the second's turn at its next invocation. After a rewind, a new process restores
 * the rewound session, the abandoned turn still stored.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { Message } from '@strands-agents/sdk'
import type { MessageData } from '../../../src/index.js'
import { BACKEND, coreStoreOf, makeBackend, type LedgerStore } from '../../helpers/backend.js'
import { tsx } from '../../helpers/demo-run.js'
import { assertWindowRulesOf } from '../../helpers/window-rules.js'
import { json, ledgerAgent } from './helpers.js'
import { agentOn, entryTexts, textsOf, type AnyStore } from './branch-helpers.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

/** Runs the worker on a session of the ledger of `suite` and returns what it printed. */
function restart(
  suite: LedgerStore,
  sessionId: string,
  windowSize: number,
  ...prompts: string[]
): { restored: MessageData[]; after: MessageData[] } {
  const location = backend.location(suite)
  const run = tsx(
    'test/adapters/strands/branch-worker.ts',
    location,
    sessionId,
    String(windowSize),
    ...prompts,
  )
  expect(run.stderr).toBe('')
  expect(run.status).toBe(0)
  return JSON.parse(run.stdout) as { restored: MessageData[]; after: MessageData[] }
}

describe(`an agent restarted on a branch in another process [${BACKEND}]`, () => {
  it('is handed the window the first process had on the branch and goes on there; the parent and a sibling are untouched', async () => {
    const suite = await backend.open()
    const store = coreStoreOf(suite)
    const { agent, manager } = ledgerAgent<AnyStore>({ store, sessionId: 'trip', windowSize: 8 })
    for (const prompt of ['hello', 'ask weather', 'ask tides']) await agent.invoke(prompt)
    // The fork point: the end of the weather turn (its answer, seq 5), named as the agent shows it.
    const turnEnd = agent.messages[textsOf(agent.messages).indexOf('ask weather') + 3] as Message
    expect((await manager.ledger.message({ trackingId: turnEnd.trackingId })).seq).toBe(5)
    const yesterday = await manager.fork({ trackingId: turnEnd.trackingId, newSessionId: 'trip-no-tides' })
    const sibling = await manager.fork({ atSeq: 5, newSessionId: 'trip-sibling' })
    const b = agentOn(yesterday, 'b-')
    await b.agent.invoke('ask moon')
    await b.agent.invoke('thanks')
    await agentOn(sibling, 's-').agent.invoke('ask sun')
    const firstProcess = json(b.agent.messages)
    expect(firstProcess).toStrictEqual(await yesterday.ledger.window())
    const parentHistory = await manager.ledger.history()

    const run = restart(suite, 'trip-no-tides', 8, 'ask stars')
    expect(run.restored).toStrictEqual(firstProcess)
    expect(textsOf(run.restored).join('\n')).not.toMatch(/tides|sun/)
    expect(run.after).toStrictEqual(await yesterday.ledger.window())
    expect(run.after.length).toBeLessThanOrEqual(8)
    expect(entryTexts(await yesterday.ledger.history()).filter((t) => t.startsWith('ask'))).toStrictEqual([
      'ask weather',
      'ask moon',
      'ask stars',
    ])
    expect(await manager.ledger.history()).toStrictEqual(parentHistory)
    expect(entryTexts(await sibling.ledger.history()).filter((t) => t.startsWith('ask'))).toStrictEqual([
      'ask weather',
      'ask sun',
    ])
    await assertWindowRulesOf(suite, 'trip-no-tides', {}, { throughApi: true })
    // This process's agent on the branch sees the other process's turn at its next invocation.
    await b.agent.invoke('bye')
    expect(json(b.agent.messages)).toStrictEqual(await yesterday.ledger.window())
    expect(textsOf(b.agent.messages).join('\n')).toContain('ask stars')
    await assertWindowRulesOf(suite, 'trip-no-tides', {}, { throughApi: true })
  })

  it('after a rewind, restores the rewound session; the abandoned turn stays stored', async () => {
    const suite = await backend.open()
    const store = coreStoreOf(suite)
    const { agent, manager } = ledgerAgent<AnyStore>({ store, sessionId: 'ops', windowSize: 40 })
    for (const prompt of ['hello', 'ask weather', 'ask tides']) await agent.invoke(prompt)
    const kept = agent.messages[5] as Message
    const { abandoned } = await manager.rewind({ trackingId: kept.trackingId })
    expect(abandoned?.sessionId).toBe('ops~1')

    const run = restart(suite, 'ops', 40, 'bye')
    expect(run.restored).toStrictEqual(json(agent.messages))
    expect(run.restored).toHaveLength(6)
    expect(textsOf(run.after).slice(6)).toStrictEqual(['bye', 'Noted: bye'])
    expect(entryTexts(await suite.history('ops~1')).slice(6, 7)).toStrictEqual(['ask tides'])
  })
})
