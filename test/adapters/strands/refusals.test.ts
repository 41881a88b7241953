/**
 * A message the store refuses must never wedge a Strands agent. A real `Agent`, the scripted model and real
 * SQLite files: tools and prompts produce what the store refuses — lone surrogates, an over-long string
 * (the 17 MiB case runs with the reliability suite), JSON nested 70 levels deep, a block of the wrong type — and after each, the agent keeps working, every later
 * message is stored, the model sees exactly what was archived, and `agent.messages` is the stored window.
 */
import { describe, expect, it } from 'vitest'
import { Message, TextBlock, tool } from '@strands-agents/sdk'
import { z } from 'zod'
import { ContextLedgerError, openContextStore, type JsonValue, type MessageData } from '../../../src/index.js'
import { PersistentConversationManager } from '../../../src/adapters/strands/index.js'
import { ScriptedModel } from '../../../examples/strands-scripted-model.js'
import { refusal } from '../../helpers/refusal.js'
import { useTempDir } from '../../helpers/temp-store.js'
import {
  assistantScript,
  json,
  ledgerAgent,
  lookupReturning,
  recordingLogger,
  toolResultOf,
} from './helpers.js'

const dir = useTempDir('context-ledger-strands-')

/** A scripted model that also keeps the JSON of every input it accepted. */
function watchedModel(): { model: ScriptedModel; inputs: MessageData[][] } {
  const inputs: MessageData[][] = []
  const model = new ScriptedModel({
    script: (call) => {
      inputs.push(json(call.messages))
      return assistantScript()(call)
    },
  })
  return { model, inputs }
}

const texts = (messages: readonly MessageData[]): unknown[] =>
  messages.map((m) => {
    const block = m.content[0]
    return block !== undefined && 'text' in block ? block.text : Object.keys(block ?? {})[0]
  })

describe('a message the store refuses as it is', () => {
  it('stores a tool result with a lone surrogate repaired; the model sees the stored form; later messages are stored', async () => {
    const store = dir.open()
    const logger = recordingLogger()
    const cut = 'deploy went fine 👍'.slice(0, 18)
    expect(cut.isWellFormed()).toBe(false)
    const { model, inputs } = watchedModel()
    const { agent, manager } = ledgerAgent(
      { store, sessionId: 's', logger },
      { model, tools: [lookupReturning(() => cut)] },
    )
    await agent.invoke('ask deploy')
    await agent.invoke('next')
    await agent.invoke('more')

    const history = manager.ledger.history().map((e) => e.message)
    expect(texts(history)).toStrictEqual([
      'ask deploy',
      'toolUse',
      'toolResult',
      'Answer 1',
      'next',
      'Noted: next',
      'more',
      'Noted: more',
    ])
    expect(toolResultOf(history[2])).toStrictEqual({ text: 'deploy went fine \uFFFD' })
    expect(history[2]?.metadata?.custom?.contextLedger).toStrictEqual({
      repaired: [{ path: 'content[0].toolResult.content[0].text', problem: 'lone-surrogate' }],
    })
    // The model answered the result seeing exactly the archived message.
    expect(inputs[1]?.[2]).toStrictEqual(history[2])
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    expect(logger.lines.map((l) => l.level)).toStrictEqual(['warn'])
    expect(logger.lines[0]?.text).toMatch(
      /^session_id=<s>, tracking_id=<[^>]+>, role=<user>, repairs=<1> \| message repaired before it was stored \(lone-surrogate at content\[0\]\.toolResult\.content\[0\]\.text\)/,
    )
  })

  it('stores a prompt with a lone surrogate repaired, and the model answers the repaired prompt', async () => {
    const store = dir.open()
    const { model, inputs } = watchedModel()
    const { agent, manager } = ledgerAgent({ store, sessionId: 's', logger: recordingLogger() }, { model })
    const result = await agent.invoke('caf\uD83D')
    expect(result.toString()).toContain('Noted: caf\uFFFD')
    expect(inputs[0]?.[0]?.content).toStrictEqual([{ text: 'caf\uFFFD' }])
    await agent.invoke('hello')
    expect(texts(manager.ledger.history().map((e) => e.message))).toStrictEqual([
      'caf\uFFFD',
      'Noted: caf\uFFFD',
      'hello',
      'Noted: hello',
    ])
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
  })

  it('stores a blank prompt and a tool that returned nothing with placeholders; no model call carries blank text', async () => {
    const store = dir.open()
    const { model, inputs } = watchedModel()
    const { agent, manager } = ledgerAgent(
      { store, sessionId: 's', logger: recordingLogger() },
      { model, tools: [lookupReturning(() => '')] },
    )
    await agent.invoke('   \n\t ')
    await agent.invoke('ask anything')
    await agent.invoke('thanks')
    const blank = (ms: readonly MessageData[]): boolean =>
      JSON.stringify(ms).includes('"text":""') || /"text":"\s+"/.test(JSON.stringify(ms))
    expect(inputs.some(blank)).toBe(false)
    const history = manager.ledger.history()
    expect(history[0]?.message.content).toStrictEqual([{ text: '[empty message]' }])
    expect(JSON.stringify(history)).toContain('[empty tool result]')
    expect(texts(history.map((e) => e.message)).at(-2)).toBe('thanks')
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
  })

  it("repairs to the store's own limits", async () => {
    const store = openContextStore(dir.file('small.db'), { limits: { maxStringLength: 1000, maxDepth: 64 } })
    try {
      const { agent, manager } = ledgerAgent(
        { store, sessionId: 's', logger: recordingLogger() },
        { tools: [lookupReturning(() => 'z'.repeat(5000))] },
      )
      await agent.invoke('ask z')
      const text = toolResultOf(manager.ledger.history()[2]?.message)?.text as string
      expect(text.length).toBeLessThanOrEqual(1000)
      expect(text.length).toBeGreaterThan(950)
      expect(manager.ledger.history()).toHaveLength(4)
    } finally {
      store.close()
    }
  })

  it('stores JSON nested 70 levels deep with its too-deep part as JSON text', async () => {
    const store = dir.open()
    let deep: JsonValue = { found: true }
    for (let i = 0; i < 70; i++) deep = { level: deep }
    const { agent, manager } = ledgerAgent(
      { store, sessionId: 's', logger: recordingLogger() },
      { tools: [lookupReturning(() => deep)] },
    )
    await agent.invoke('ask tree')
    await agent.invoke('thanks')

    const stored = manager.ledger.history()[2]?.message
    const repaired = stored?.metadata?.custom?.contextLedger as { repaired: { problem: string }[] }
    expect(repaired.repaired.map((r) => r.problem)).toStrictEqual(['too-deep'])
    expect(JSON.stringify(toolResultOf(stored)?.json)).toContain('\\"found\\":true')
    expect(manager.ledger.history()).toHaveLength(6)
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
  })

  it('refuses a prompt it cannot repair exactly once: logged, invoke rejects, nothing kept; the next invoke works', async () => {
    const store = dir.open()
    const logger = recordingLogger()
    const { agent, manager } = ledgerAgent({ store, sessionId: 's', logger })
    await agent.invoke('hello')
    // A text block whose text is not a string: nothing to repair, the shape itself is wrong.
    const bad = [new TextBlock(42 as unknown as string)]
    const refusal = await agent.invoke(bad).catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(ContextLedgerError)
    expect(refusal).toMatchObject({ code: 'INVALID_MESSAGE', sessionId: 's', path: 'content[0].text' })
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    expect(manager.ledger.history()).toHaveLength(2)
    expect(logger.lines.map((l) => [l.level, l.extra[0]])).toStrictEqual([['error', refusal]])
    expect(logger.lines[0]?.text).toMatch(
      /^session_id=<s>, tracking_id=<[^>]+>, role=<user>, code=<INVALID_MESSAGE>, path=<content\[0\]\.text> \| message refused/,
    )

    await agent.invoke('still there?')
    await agent.invoke('good')
    expect(texts(manager.ledger.history().map((e) => e.message))).toStrictEqual([
      'hello',
      'Noted: hello',
      'still there?',
      'Noted: still there?',
      'good',
      'Noted: good',
    ])
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    expect(logger.lines).toHaveLength(1)
  })

  it('refuses a message pushed by hand at the next invoke, which rejects; the one after works', async () => {
    const store = dir.open()
    const logger = recordingLogger()
    const { agent, manager } = ledgerAgent({ store, sessionId: 's', logger })
    await agent.invoke('hello')
    agent.messages.push(new Message({ role: 'user', content: [new TextBlock(null as unknown as string)] }))
    await expect(agent.invoke('first')).rejects.toMatchObject({ code: 'INVALID_MESSAGE' })
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    await agent.invoke('second')
    expect(texts(manager.ledger.history().map((e) => e.message))).toStrictEqual([
      'hello',
      'Noted: hello',
      'second',
      'Noted: second',
    ])
    expect(logger.lines.filter((l) => l.level === 'error')).toHaveLength(1)
  })

  it('repairs or refuses messages the agent was built with without breaking initialize()', async () => {
    const store = dir.open()
    const logger = recordingLogger()
    const seed = [
      { role: 'user', content: [{ text: 'brief: caf\uD83D' }] },
      { role: 'assistant', content: [{ text: 17 }] },
    ] as unknown as MessageData[]
    const { agent, manager } = ledgerAgent({ store, sessionId: 's', logger }, { messages: seed })
    await agent.initialize()
    expect(texts(json(agent.messages))).toStrictEqual(['brief: caf\uFFFD'])
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    expect(logger.lines.map((l) => l.level)).toStrictEqual(['warn', 'error'])
    await agent.invoke('go on')
    expect(texts(manager.ledger.history().map((e) => e.message))).toStrictEqual([
      'brief: caf\uFFFD',
      'go on',
      'Noted: go on',
    ])
  })
})

describe('a new message inserted before stored ones', () => {
  it('is refused with MESSAGE_OUT_OF_ORDER naming its index, from the next invoke; nothing is reordered and the session goes on', async () => {
    const store = dir.open()
    const logger = recordingLogger()
    const { agent, manager } = ledgerAgent({ store, sessionId: 's', logger })
    await agent.invoke('one')
    await agent.invoke('two')
    const before = json(agent.messages)
    agent.messages.splice(1, 0, new Message({ role: 'user', content: [new TextBlock('inserted')] }))

    const refusal = await agent.invoke('three').catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(ContextLedgerError)
    expect(refusal).toMatchObject({ code: 'MESSAGE_OUT_OF_ORDER', sessionId: 's', path: 'agent.messages[1]' })
    expect((refusal as Error).message).toContain('agent.messages[1]')
    expect(json(agent.messages)).toStrictEqual(before)
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    expect(logger.lines.map((l) => [l.level, l.extra[0]])).toStrictEqual([['error', refusal]])
    expect(logger.lines[0]?.text).toMatch(/code=<MESSAGE_OUT_OF_ORDER>, index=<1> \|/)

    await agent.invoke('three')
    expect(texts(manager.ledger.history().map((e) => e.message))).toStrictEqual([
      'one',
      'Noted: one',
      'two',
      'Noted: two',
      'three',
      'Noted: three',
    ])
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
  })

  it('is refused at the end of the invocation when a tool inserts it, logged; the turn itself is kept', async () => {
    const store = dir.open()
    const logger = recordingLogger()
    const insert = tool({
      name: 'lookup',
      description: 'Inserts a message at the start of the conversation',
      inputSchema: z.object({ q: z.string() }),
      callback: (_input, context) => {
        context?.agent.messages.splice(
          0,
          0,
          new Message({ role: 'user', content: [new TextBlock('sneaked in')] }),
        )
        return 'done'
      },
    })
    const { agent, manager } = ledgerAgent({ store, sessionId: 's', logger }, { tools: [insert] })
    await agent.invoke('hello')
    await agent.invoke('ask x')
    expect(texts(manager.ledger.history().map((e) => e.message))).toStrictEqual([
      'hello',
      'Noted: hello',
      'ask x',
      'toolUse',
      'toolResult',
      'Answer 2',
    ])
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    expect(logger.lines.map((l) => [l.level, (l.extra[0] as ContextLedgerError).code])).toStrictEqual([
      ['error', 'MESSAGE_OUT_OF_ORDER'],
    ])
    await agent.invoke('bye')
    expect(manager.ledger.history()).toHaveLength(8)
  })

  it('is refused among the messages an agent is built with, without breaking initialize()', async () => {
    const store = dir.open()
    const first = ledgerAgent({ store, sessionId: 's', logger: recordingLogger() })
    await first.agent.invoke('one')
    const stored = json(first.agent.messages)
    const logger = recordingLogger()
    const inserted = { role: 'user', content: [{ text: 'inserted' }] } as MessageData
    const second = ledgerAgent(
      { store, sessionId: 's', logger },
      { messages: [stored[0] as MessageData, inserted, stored[1] as MessageData] },
    )
    await second.agent.initialize()
    expect(json(second.agent.messages)).toStrictEqual(stored)
    expect(logger.lines.map((l) => (l.extra[0] as ContextLedgerError).code)).toStrictEqual([
      'MESSAGE_OUT_OF_ORDER',
    ])
    await second.agent.invoke('two')
    expect(second.manager.ledger.history()).toHaveLength(4)
  })
})

describe('an agent from another copy of the Strands SDK', () => {
  it('is refused at initAgent with INVALID_OPTIONS naming the cause, and nothing is written', () => {
    const store = dir.open()
    const manager = new PersistentConversationManager({ store, sessionId: 'two-copies' })
    // What a second copy of the SDK hands over: an agent with the same shape but another class, whose
    // hook registry would match events by that copy's classes and never call the ledger's hooks.
    const foreign = { messages: [], addHook: () => () => undefined, constructor: { name: 'Agent' } }
    const error = refusal(() => {
      manager.initAgent(foreign as never)
    })
    expect(error.code).toBe('INVALID_OPTIONS')
    expect(error.path).toBe('agent')
    expect(error.message).toMatch(/two copies of the SDK/)
    expect(store.session('two-copies')).toBeUndefined()
  })
})
