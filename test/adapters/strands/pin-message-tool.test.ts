/**
 * `pinMessageTool` called by a real Strands `Agent` (the scripted model decides when), against real
 * ledger files.
 */
import { describe, expect, it } from 'vitest'
import { Agent, SlidingWindowConversationManager } from '@strands-agents/sdk'
import type { MessageData } from '../../../src/index.js'
import { pinMessageTool } from '../../../src/adapters/strands/index.js'
import { ScriptedModel } from '../../../examples/strands-scripted-model.js'
import { useTempDir } from '../../helpers/temp-store.js'
import { assistantScript, json, ledgerAgent } from './helpers.js'

const dir = useTempDir('context-ledger-strands-')

/** The toolResult block answering `toolUseId`, from the archive. */
function toolResult(history: readonly { message: MessageData }[], toolUseId: string): unknown {
  for (const { message } of history)
    for (const block of message.content)
      if ('toolResult' in block && block.toolResult.toolUseId === toolUseId) return block.toolResult
  return undefined
}

describe('pinMessageTool', () => {
  describe('toolSpec', () => {
    it('describes pin_message with { index, action?, reason? }', () => {
      expect(pinMessageTool.name).toBe('pin_message')
      expect(pinMessageTool.toolSpec.inputSchema).toStrictEqual({
        type: 'object',
        properties: {
          index: {
            type: 'integer',
            minimum: 0,
            maximum: Number.MAX_SAFE_INTEGER,
            description: 'Position of the message in the conversation you see, from 0',
          },
          action: {
            default: 'pin',
            description: "'pin' (default) or 'unpin'",
            type: 'string',
            enum: ['pin', 'unpin'],
          },
          reason: {
            description: 'Why, in a few words; recorded with the pin',
            type: 'string',
            minLength: 1,
            maxLength: 256,
          },
        },
        required: ['index'],
      })
    })
  })

  describe('stream', () => {
    it('4. pins the message at an index of agent.messages; the pin survives eviction and restart with actor agent and the reason', async () => {
      const first = dir.open()
      const one = ledgerAgent({ store: first, sessionId: 's', windowSize: 4 })
      await one.agent.invoke('Plan the migration to Postgres')
      await one.agent.invoke('pin 0 the task')
      const task = one.manager.ledger.history({ limit: 1 })[0]?.message as MessageData
      expect(toolResult(one.manager.ledger.history(), 'tool-1')).toStrictEqual({
        toolUseId: 'tool-1',
        status: 'success',
        content: [{ text: 'Pinned message 0: it stays in your context window until unpinned.' }],
      })
      for (const prompt of ['ask schema', 'ask indexes', 'ask rollout']) await one.agent.invoke(prompt)

      const pinnedTask = { ...task, metadata: { custom: { pinned: true } } }
      expect(one.agent.messages[0]?.toJSON()).toStrictEqual(pinnedTask)
      expect(one.manager.ledger.history({ limit: 100 }).filter((e) => !e.inWindow).length).toBeGreaterThan(0)
      const pins = first.pinnedMessages({ sessionId: 's' })
      expect(pins).toStrictEqual([
        {
          sessionId: 's',
          seq: 0,
          trackingId: task.trackingId,
          message: pinnedTask,
          inWindow: true,
          pinnedAt: expect.any(Date) as unknown,
          actor: 'agent',
          reason: 'the task',
        },
      ])
      first.close()

      const second = dir.open()
      const two = ledgerAgent(
        { store: second, sessionId: 's', windowSize: 4 },
        { model: new ScriptedModel({ script: assistantScript('restarted-') }) },
      )
      await two.agent.invoke('ask cutover')
      expect(two.agent.messages[0]?.toJSON()).toStrictEqual(pinnedTask)
      expect(second.pinnedMessages({ sessionId: 's' })).toStrictEqual(pins)
    })

    it('answers an out-of-range index with an error tool result and the run goes on', async () => {
      const store = dir.open()
      const { agent, manager } = ledgerAgent({ store, sessionId: 's' })
      await agent.invoke('hello')
      const result = await agent.invoke('pin 99')
      expect(result.stopReason).toBe('endTurn')
      expect(toolResult(manager.ledger.history(), 'tool-1')).toStrictEqual({
        toolUseId: 'tool-1',
        status: 'error',
        content: [{ text: 'Invalid index 99: you see 3 messages, so index must be between 0 and 2.' }],
      })
      expect(store.pinnedMessages()).toStrictEqual([])
    })

    it('answers unpinning a message that is not pinned with an error tool result', async () => {
      const store = dir.open()
      const { agent, manager } = ledgerAgent({ store, sessionId: 's' })
      await agent.invoke('hello')
      await agent.invoke('unpin 0')
      expect(toolResult(manager.ledger.history(), 'tool-1')).toStrictEqual({
        toolUseId: 'tool-1',
        status: 'error',
        content: [{ text: 'Message 0 is not pinned, so there is nothing to unpin.' }],
      })
      expect(store.pinEvents('s')).toStrictEqual([])
    })

    it('unpins a pinned message, recording the agent and reason, and the window lets it go', async () => {
      const store = dir.open()
      const { agent, manager } = ledgerAgent({ store, sessionId: 's', windowSize: 4 })
      await agent.invoke('The task')
      await agent.invoke('pin 0 task')
      await agent.invoke('unpin 0 done with it')
      expect(store.pinEvents('s').map((e) => [e.seq, e.action, e.actor, e.reason])).toStrictEqual([
        [0, 'pin', 'agent', 'task'],
        [0, 'unpin', 'agent', 'done with it'],
      ])
      expect(store.pinnedMessages({ sessionId: 's' })).toStrictEqual([])
      expect(manager.ledger.history({ limit: 1 })[0]?.inWindow).toBe(false)
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    })

    it("sets Strands' own flag on an agent without the ledger's manager", async () => {
      const agent = new Agent({
        model: new ScriptedModel({ script: assistantScript() }),
        tools: [pinMessageTool],
        conversationManager: new SlidingWindowConversationManager({ windowSize: 40 }),
        printer: false,
      })
      await agent.invoke('The task')
      await agent.invoke('pin 0 task')
      expect(agent.messages[0]?.metadata).toStrictEqual({ custom: { pinned: true } })
      const answer = agent.messages[4]?.content[0]
      expect(answer?.type === 'toolResultBlock' ? answer.status : undefined).toBe('success')
    })
  })

  describe('invoke', () => {
    it('returns an error text instead of throwing when called without an agent', async () => {
      await expect(pinMessageTool.invoke({ index: 0 })).resolves.toBe(
        'pin_message needs the agent; call it through agent.tool or a model turn.',
      )
    })
  })
})
