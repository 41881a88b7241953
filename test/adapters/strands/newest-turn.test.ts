/**
 * A real Strands `Agent` with a `tokenBudget` smaller than its prompt: the model must never be called
 * with an empty conversation or one that opens with an assistant message. The window keeps the newest
 * turn even when it alone exceeds the budget; when the model still refuses it, nothing more can go and
 * the model's overflow error reaches the caller.
 */
import { describe, expect, it } from 'vitest'
import { ContextWindowOverflowError, type Message } from '@strands-agents/sdk'
import { ScriptedModel } from '../../../examples/strands-scripted-model.js'
import { assertWindowRules } from '../../helpers/window-rules.js'
import { useTempDir } from '../../helpers/temp-store.js'
import { assistantScript, ledgerAgent } from './helpers.js'

const dir = useTempDir('context-ledger-strands-')

/** A scripted model that records the roles of every input it is given, refused or not. */
class RecordingModel extends ScriptedModel {
  readonly inputs: string[][] = []
  override stream(...args: Parameters<ScriptedModel['stream']>): ReturnType<ScriptedModel['stream']> {
    this.inputs.push(args[0].map((m: Message) => m.role))
    return super.stream(...args)
  }
}

describe('PersistentConversationManager with a tokenBudget smaller than the prompt', () => {
  it('never sends the model an empty conversation or one that starts with an assistant message', async () => {
    const store = dir.open()
    const model = new RecordingModel({ script: assistantScript(), contextWindowLimit: 2000 })
    const { agent, manager } = ledgerAgent({ store, sessionId: 's', tokenBudget: 1000 }, { model })

    // ~3,400 tokens: over the budget and over the model's context window.
    const first = await agent.invoke(`note ${'x'.repeat(13_600)}`).catch((error: unknown) => error)
    expect(model.inputs, 'the model is only ever given the prompt').toStrictEqual([['user']])
    expect(first).toBeInstanceOf(ContextWindowOverflowError)
    expect(manager.lastReduction).toMatchObject({ trigger: 'overflow', evicted: 0, reason: 'newest-turn' })
    expect(agent.messages.map((m) => m.role)).toStrictEqual(['user'])

    // The conversation goes on: the next prompt pushes the oversized one out.
    await agent.invoke('note a short one')
    await agent.invoke('ask something')
    for (const input of model.inputs) {
      expect(input.length, `model inputs: ${JSON.stringify(model.inputs)}`).toBeGreaterThan(0)
      expect(input[0], `model inputs: ${JSON.stringify(model.inputs)}`).toBe('user')
    }
    expect(model.calls).toBeGreaterThanOrEqual(3)
    assertWindowRules(store, 's')
  })

  it('keeps the prompt in the window after an invocation whose turn alone exceeds the budget', async () => {
    const store = dir.open()
    const model = new RecordingModel({ script: assistantScript() })
    const { agent, manager } = ledgerAgent({ store, sessionId: 's', tokenBudget: 1000 }, { model })
    await agent.invoke(`note ${'x'.repeat(13_600)}`)
    expect(agent.messages.map((m) => m.role)).toStrictEqual(['user', 'assistant'])
    expect(manager.ledger.applyWindow()).toMatchObject({
      evicted: 0,
      reason: 'newest-turn',
      exceedsLimit: true,
    })
    await agent.invoke('note next')
    expect(model.inputs.every((input) => input[0] === 'user')).toBe(true)
    expect(agent.messages.map((m) => m.role)).toStrictEqual(['user', 'assistant'])
  })
})
