/**
 * Overflow recovery on a shared session: two agents, each with its own store on the same file and one
 * sessionId. A tool result that lands after the other agent's turn is late (the window shows it as text);
 * when it is too large for the model, overflow recovery must truncate it like any tool result, since it
 * sits in the newest turn and cannot be evicted. A real `Agent` pair, the scripted model, a real file.
 */
import { describe, expect, it } from 'vitest'
import { MessageAddedEvent } from '@strands-agents/sdk'
import { ScriptedModel, type ScriptedCall } from '../../../examples/strands-scripted-model.js'
import { invalidity } from '../../helpers/provider-validity.js'
import { useTempDir } from '../../helpers/temp-store.js'
import { assertWindowRules, readHistory } from '../../helpers/window-rules.js'
import { PersistentConversationManager } from '../../../src/index.js'
import { callTool, toolResult, user } from '../../helpers/messages.js'
import { assistantScript, json, ledgerAgent, lookupTools } from './helpers.js'

const dir = useTempDir('context-ledger-strands-')

/** Characters each `lookup` returns: about 3,500 tokens, over the models' 3,000-token window alone. */
const RESULT_CHARS = 14_000

/** A model with a 3,000-token window, recording every conversation it accepted. */
function limitedModel(prefix: string, calls: ScriptedCall[]): ScriptedModel {
  const script = assistantScript(prefix)
  return new ScriptedModel({
    contextWindowLimit: 3000,
    script: (call) => {
      calls.push({ ...call, messages: [...call.messages] })
      return script(call)
    },
  })
}

describe('shared session overflow recovery (Strands)', () => {
  it('truncates a late tool result too large for the model, and both agents keep working', async () => {
    const storeA = dir.open()
    const storeB = dir.open()
    const calls: ScriptedCall[] = []
    const tools = lookupTools(RESULT_CHARS)
    // A writes each message as it comes, so its call is stored while B's turn runs.
    const a = ledgerAgent(
      { store: storeA, sessionId: 's', durability: 'message' },
      { model: limitedModel('a-', calls), tools },
    )
    const b = ledgerAgent({ store: storeB, sessionId: 's' }, { model: limitedModel('b-', calls), tools })
    await a.agent.initialize()
    // B's whole turn lands between A's tool call and its result: A's result arrives late.
    let interleaved = 0
    a.agent.addHook(MessageAddedEvent, async (event) => {
      if (interleaved < 2 && event.message.content.some((x) => x.type === 'toolUseBlock'))
        await b.agent.invoke(`ask b${++interleaved}`)
    })
    await a.agent.invoke('ask a0')
    await a.agent.invoke('ask a1')
    expect(interleaved).toBe(2)
    expect(a.manager.lastReduction).toMatchObject({ trigger: 'overflow', fits: true })
    expect(a.manager.lastReduction?.truncated).toBeGreaterThan(0)
    expect(json(a.agent.messages)).toStrictEqual(a.manager.ledger.window())
    // B goes on over a window holding A's late results.
    await b.agent.invoke('ask b3')
    expect(json(b.agent.messages)).toStrictEqual(b.manager.ledger.window())

    const history = readHistory(storeA, 's')
    const late = history.filter((e) => e.late)
    expect(late).toHaveLength(2)
    // The archive keeps each late result whole; the window shows it truncated.
    for (const entry of late) {
      const block = entry.message.content[0]
      expect(block !== undefined && 'toolResult' in block ? block.toolResult.content : []).toStrictEqual([
        { text: expect.stringMatching(new RegExp(`^a\\d: r{${RESULT_CHARS - 4}}$`)) as unknown },
      ])
    }
    const shownLate = a.manager.ledger.window().filter((m) => late.some((e) => e.trackingId === m.trackingId))
    expect(shownLate.length).toBeGreaterThan(0)
    for (const message of shownLate) {
      const [block] = message.content
      const text = block !== undefined && 'text' in block ? block.text : ''
      expect(text).toMatch(/^\[Late tool result\] The call "a-\d+" to lookup returned/)
      expect(text).toContain('<truncated chars="')
      expect(text.length).toBeLessThan(1000)
    }
    // Every model call of either agent got a valid conversation.
    expect(calls.map((c) => invalidity(c.messages)).filter((w) => w !== undefined)).toStrictEqual([])
    assertWindowRules(storeA, 's')
    assertWindowRules(storeB, 's')
  })

  it('truncates an oversized result another writer adds while this agent reduces its window', async () => {
    const storeA = dir.open()
    const other = new PersistentConversationManager({ store: dir.open(), sessionId: 's' })
    other.append([user('b go'), callTool('lookup', 'b1')])
    const calls: ScriptedCall[] = []
    const a = ledgerAgent(
      { store: storeA, sessionId: 's' },
      { model: limitedModel('a-', calls), tools: lookupTools(RESULT_CHARS) },
    )
    await a.agent.initialize()
    // The other writer's result for b1 (answered by the repair row A's prompt caused) lands late, right
    // after A's reduction truncated its own result and before it counted the window again.
    const setWindowContent = storeA.setWindowContent.bind(storeA)
    let landed = false
    storeA.setWindowContent = (sessionId, ref, message, counter) => {
      setWindowContent(sessionId, ref, message, counter)
      if (landed) return
      landed = true
      expect(other.append(toolResult('b1', 'b'.repeat(RESULT_CHARS))).late).toBe(true)
    }
    await a.agent.invoke('ask a0')
    expect(landed).toBe(true)
    expect(a.manager.lastReduction).toMatchObject({ trigger: 'overflow', fits: true, truncated: 2 })
    expect(calls.map((c) => invalidity(c.messages)).filter((w) => w !== undefined)).toStrictEqual([])
    expect(json(a.agent.messages)).toStrictEqual(a.manager.ledger.window())
    assertWindowRules(storeA, 's')
  })
})
