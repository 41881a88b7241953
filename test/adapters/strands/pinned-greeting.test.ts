/**
 * A pin no window can keep — Strands' pin flag on a greeting the agent opens with, before any user
 * message — is refused by the store (docs/design.md, "Window rules"). Through a real `Agent` that refusal
 * must not wedge the agent nor cost the message: it is archived unpinned, a warning says why, and the agent
 * goes on, in this process and after a restart.
 */
import { expect, it } from 'vitest'
import type { MessageData } from '../../../src/index.js'
import { useTempDir } from '../../helpers/temp-store.js'
import { ledgerAgent, recordingLogger } from './helpers.js'

const dir = useTempDir('context-ledger-strands-')

const greeting: MessageData = {
  role: 'assistant',
  content: [{ text: 'Hi, I am your release helper.' }],
  metadata: { custom: { pinned: true } },
}

it('archives a pinned greeting unpinned, warns, and the agent goes on (and after a restart)', async () => {
  const logger = recordingLogger()
  {
    const store = dir.open('greeting.db')
    const { agent, manager } = ledgerAgent(
      { store, sessionId: 's', windowSize: 6, logger },
      { messages: [greeting] },
    )
    await agent.invoke('hello')
    await agent.invoke('and again')
    const history = manager.ledger.history()
    expect(history.map((e) => [e.message.role, e.pinned])).toStrictEqual([
      ['assistant', false],
      ['user', false],
      ['assistant', false],
      ['user', false],
      ['assistant', false],
    ])
    expect(history[0]?.message.content).toStrictEqual(greeting.content)
    expect(store.pinnedMessages({ sessionId: 's' })).toStrictEqual([])
    expect(logger.lines.filter((l) => l.level === 'error')).toStrictEqual([])
    const warnings = logger.lines.filter((l) => l.level === 'warn').map((l) => l.text)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/pin flag not kept.*no plain user message/)
    store.close()
  }
  // A second process's agent, built with the same pinned greeting as its seed: no refusal, no new row.
  const store = dir.open('greeting.db')
  const again = recordingLogger()
  const { agent, manager } = ledgerAgent(
    { store, sessionId: 's', windowSize: 6, logger: again },
    { messages: [greeting] },
  )
  await agent.invoke('third')
  expect(manager.ledger.history()).toHaveLength(7)
  expect(again.lines.filter((l) => l.level === 'error')).toStrictEqual([])
  expect(agent.messages.at(-1)?.role).toBe('assistant')
})
