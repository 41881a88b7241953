/**
 * `rewind` from the Strands manager, with a real `Agent`, the scripted model and real SQLite files: an
 * agent rolled back after a bad tool run shows what Strands' own snapshot restore would show, the
 * abandoned turn stays listed, readable and searchable, the agent retries (a new prompt, or the same one
 * answered again with `invoke([])`); messages pushed before the rewind are kept in the abandoned branch;
 * a rewind during an invocation, or past the newest message, is refused with nothing changed.
 */
import { describe, expect, it } from 'vitest'
import { Message, TextBlock, tool } from '@strands-agents/sdk'
import { z } from 'zod'
import type { PersistentConversationManager } from '../../../src/adapters/strands/index.js'
import { refusal } from '../../helpers/refusal.js'
import { useTempDir } from '../../helpers/temp-store.js'
import { assertWindowRulesThroughApi } from '../../helpers/window-rules.js'
import { json, ledgerAgent, lookupReturning } from './helpers.js'
import { entryTexts, textsOf } from './branch-helpers.js'

const dir = useTempDir('context-ledger-strands-rewind-')

/** A `lookup` that returns garbage until fixed. */
function flakyLookup(): { fix: () => void; tool: ReturnType<typeof lookupReturning> } {
  let broken = true
  return {
    fix: () => {
      broken = false
    },
    tool: lookupReturning(() =>
      broken ? 'ERROR upstream returned garbage 0xDEADBEEF' : 'tides: high at 14:02',
    ),
  }
}

describe('PersistentConversationManager.rewind', () => {
  it('rolls the agent back after a bad tool run to what Strands’ snapshot restore shows, and keeps the bad turn as an abandoned branch', async () => {
    const store = dir.open()
    const lookup = flakyLookup()
    const { agent, manager } = ledgerAgent({ store, sessionId: 'ops' }, { tools: [lookup.tool] })
    await agent.invoke('hello')
    await agent.invoke('plan the day')
    const checkpoint = agent.takeSnapshot({ preset: 'session' })
    const last = agent.messages.at(-1) as Message
    await agent.invoke('ask tides')
    expect(textsOf(agent.messages).join('\n')).toContain('0xDEADBEEF')

    const result = manager.rewind({ trackingId: last.trackingId, reason: 'bad tool run' })
    // agent.messages replaced in place, as agent.loadSnapshot(checkpoint) would.
    expect(json(agent.messages)).toStrictEqual(checkpoint.data.messages)
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    expect(result.left).toBe(4)
    expect(result.session).toMatchObject({ sessionId: 'ops', kind: 'root', messageCount: 4 })
    expect(result.abandoned).toMatchObject({
      sessionId: 'ops~1',
      parentId: 'ops',
      forkSeq: 3,
      kind: 'abandoned',
      reason: 'bad tool run',
      ownMessages: 4,
      messageCount: 8,
    })
    await assertWindowRulesThroughApi(store, 'ops')

    // Nothing is lost: the bad turn is listed, readable and searchable in the abandoned branch only.
    expect(manager.branches().map((b) => [b.sessionId, b.kind])).toStrictEqual([
      ['ops', 'root'],
      ['ops~1', 'abandoned'],
    ])
    expect(entryTexts(store.history('ops~1')).slice(4)).toStrictEqual([
      'ask tides',
      'call {"q":"tides"}',
      'result ERROR upstream returned garbage 0xDEADBEEF',
      'Answer 3',
    ])
    expect(store.search('garbage', { sessionId: 'ops~1' }).map((h) => h.seq)).toStrictEqual([6])
    expect(store.search('garbage', { sessionId: 'ops' })).toStrictEqual([])
    expect(manager.ledger.evictions().filter((e) => e.reason === 'rewind')).toMatchObject([
      { fromSeq: 4, toSeq: 7, cut: 'rewind', abandonedId: 'ops~1' },
    ])
    // The retry: the same prompt, the tool fixed.
    lookup.fix()
    await agent.invoke('ask tides')
    expect(entryTexts(manager.ledger.history()).slice(4)).toStrictEqual([
      'ask tides',
      'call {"q":"tides"}',
      'result tides: high at 14:02',
      'Answer 5',
    ])
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    await assertWindowRulesThroughApi(store, 'ops')
  })

  it('rewinds to the prompt and answers it again with invoke([]): the answer is regenerated, the first kept aside', async () => {
    const store = dir.open()
    const lookup = flakyLookup()
    const { agent, manager } = ledgerAgent({ store, sessionId: 'ops' }, { tools: [lookup.tool] })
    await agent.invoke('hello')
    await agent.invoke('ask tides')
    const prompt = agent.messages[2] as Message
    lookup.fix()

    manager.rewind({ trackingId: prompt.trackingId })
    expect(agent.messages.at(-1)).toBe(prompt)
    expect(agent.messages).toHaveLength(3)
    await agent.invoke([])
    expect(entryTexts(manager.ledger.history())).toStrictEqual([
      'hello',
      'Noted: hello',
      'ask tides',
      'call {"q":"tides"}',
      'result tides: high at 14:02',
      'Answer 4',
    ])
    expect(entryTexts(store.history('ops~1')).slice(3)).toStrictEqual([
      'call {"q":"tides"}',
      'result ERROR upstream returned garbage 0xDEADBEEF',
      'Answer 2',
    ])
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
  })

  it('keeps a message pushed since the last invocation: written first, it leaves with the abandoned turn', async () => {
    const store = dir.open()
    const { agent, manager } = ledgerAgent({ store, sessionId: 's' })
    await agent.invoke('hello')
    await agent.invoke('ask weather')
    agent.messages.push(new Message({ role: 'user', content: [new TextBlock('a note pushed by hand')] }))

    const result = manager.rewind({ toSeq: 1 })
    expect(result.left).toBe(5)
    expect(entryTexts(store.history(result.abandoned?.sessionId ?? '')).at(-1)).toBe('a note pushed by hand')
    expect(textsOf(agent.messages)).toStrictEqual(['hello', 'Noted: hello'])
    // A later invocation does not bring it back.
    await agent.invoke('bye')
    expect(entryTexts(manager.ledger.history())).toStrictEqual(['hello', 'Noted: hello', 'bye', 'Noted: bye'])
  })

  it('refuses a rewind from a tool while the agent is invoking, and one past the newest message; nothing changes', async () => {
    const store = dir.open()
    const held: { manager?: PersistentConversationManager } = {}
    let refused: unknown
    const undo = tool({
      name: 'lookup',
      description: 'Tries to undo the conversation mid-turn',
      inputSchema: z.object({ q: z.string() }),
      callback: () => {
        try {
          held.manager?.rewind({ toSeq: 0 })
        } catch (error) {
          refused = error
        }
        return 'done'
      },
    })
    const built = ledgerAgent({ store, sessionId: 's' }, { tools: [undo] })
    const manager = built.manager
    held.manager = manager
    await built.agent.invoke('hello')
    await built.agent.invoke('ask undo')
    expect(refused).toMatchObject({ code: 'INVALID_OPTIONS', path: 'agent', sessionId: 's' })
    expect(store.session('s')?.messageCount).toBe(6)
    expect(manager.branches()).toHaveLength(1)

    const shown = json(built.agent.messages)
    const past = refusal(() => manager.rewind({ toSeq: 6 }))
    expect(past).toMatchObject({ code: 'MESSAGE_NOT_FOUND', path: 'toSeq' })
    expect(refusal(() => manager.rewind({ toSeq: 1, trackingId: 'x' })).code).toBe('INVALID_OPTIONS')
    expect(json(built.agent.messages)).toStrictEqual(shown)
    expect(manager.branches()).toHaveLength(1)
    // The newest message: nothing to do, nothing written.
    expect(manager.rewind({ toSeq: 5 })).toMatchObject({ abandoned: undefined, left: 0 })
    expect(manager.branches()).toHaveLength(1)
  })
})
