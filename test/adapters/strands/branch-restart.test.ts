/**
 * An agent restarted on a branch in a second process (branch-worker.ts, through tsx): it is handed the
 * branch's window — not the parent's, not a sibling's — and goes on from there while the parent's file
 * stays as it was; after a rewind, a new process restores the rewound session, the abandoned turn still
 * in the file.
 */
import { describe, expect, it } from 'vitest'
import type { Message } from '@strands-agents/sdk'
import type { MessageData } from '../../../src/index.js'
import { tsx } from '../../helpers/demo-run.js'
import { useTempDir } from '../../helpers/temp-store.js'
import { assertWindowRulesThroughApi } from '../../helpers/window-rules.js'
import { json, ledgerAgent } from './helpers.js'
import { agentOn, entryTexts, textsOf } from './branch-helpers.js'

const dir = useTempDir('context-ledger-strands-restart-')

/** Runs the worker on a session and returns what it printed. */
function restart(
  file: string,
  sessionId: string,
  windowSize: number,
  ...prompts: string[]
): { restored: MessageData[]; after: MessageData[] } {
  const run = tsx('test/adapters/strands/branch-worker.ts', file, sessionId, String(windowSize), ...prompts)
  expect(run.stderr).toBe('')
  expect(run.status).toBe(0)
  return JSON.parse(run.stdout) as { restored: MessageData[]; after: MessageData[] }
}

describe('an agent restarted on a branch in another process', () => {
  it('is handed the branch’s window and goes on there; the parent and a sibling are untouched', async () => {
    const file = dir.file('ledger.db')
    const store = dir.open('ledger.db')
    const { agent, manager } = ledgerAgent({ store, sessionId: 'trip', windowSize: 8 })
    for (const prompt of ['hello', 'ask weather', 'ask tides']) await agent.invoke(prompt)
    const yesterday = manager.fork({ atSeq: 5, newSessionId: 'trip-no-tides' })
    const sibling = manager.fork({ atSeq: 5, newSessionId: 'trip-sibling' })
    const b = agentOn(yesterday, 'b-')
    await b.agent.invoke('ask moon')
    await agentOn(sibling, 's-').agent.invoke('ask sun')
    const branchWindow = yesterday.ledger.window()
    const parentHistory = manager.ledger.history()

    const run = restart(file, 'trip-no-tides', 8, 'ask stars')
    expect(run.restored).toStrictEqual(branchWindow)
    expect(textsOf(run.restored).join('\n')).not.toMatch(/tides|sun/)
    expect(run.after).toStrictEqual(yesterday.ledger.window())
    expect(run.after.length).toBeLessThanOrEqual(8)
    expect(entryTexts(yesterday.ledger.history()).filter((t) => t.startsWith('ask'))).toStrictEqual([
      'ask weather',
      'ask moon',
      'ask stars',
    ])
    expect(manager.ledger.history()).toStrictEqual(parentHistory)
    expect(entryTexts(sibling.ledger.history()).filter((t) => t.startsWith('ask'))).toStrictEqual([
      'ask weather',
      'ask sun',
    ])
    await assertWindowRulesThroughApi(store, 'trip-no-tides')
    // This process's agent on the branch sees the other process's turn at its next invocation.
    await b.agent.invoke('thanks')
    expect(json(b.agent.messages)).toStrictEqual(yesterday.ledger.window())
    expect(textsOf(b.agent.messages).join('\n')).toContain('ask stars')
  })

  it('after a rewind, restores the rewound session; the abandoned turn stays in the file', async () => {
    const file = dir.file('rewound.db')
    const store = dir.open('rewound.db')
    const { agent, manager } = ledgerAgent({ store, sessionId: 'ops' })
    for (const prompt of ['hello', 'ask weather', 'ask tides']) await agent.invoke(prompt)
    const kept = agent.messages[5] as Message
    const { abandoned } = manager.rewind({ trackingId: kept.trackingId })

    const run = restart(file, 'ops', 40, 'bye')
    expect(run.restored).toStrictEqual(json(agent.messages))
    expect(textsOf(run.restored)).toHaveLength(6)
    expect(textsOf(run.after).slice(6)).toStrictEqual(['bye', 'Noted: bye'])
    expect(entryTexts(store.history(abandoned?.sessionId ?? '')).slice(6, 7)).toStrictEqual(['ask tides'])
  })
})
