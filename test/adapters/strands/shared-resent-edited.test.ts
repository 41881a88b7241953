/**
 * The Strands adapter when the conversation is not one agent appending fresh messages: a second agent on
 * the same session, a message sent again, a message edited in `agent.messages`, and a provider that needs
 * alternating roles. Every case runs a real `Agent` with the scripted model on a real ledger file.
 */
import { describe, expect, it } from 'vitest'
import {
  BeforeInvocationEvent,
  MessageAddedEvent,
  TextBlock,
  tool,
  type Agent,
  type Message,
} from '@strands-agents/sdk'
import { z } from 'zod'
import { assertWindowRules, readHistory } from '../../helpers/window-rules.js'
import type { ContextStore } from '../../../src/index.js'
import type { PersistentConversationManager } from '../../../src/adapters/strands/index.js'
import type { ScriptedCall } from '../../../examples/strands-scripted-model.js'
import { useTempDir } from '../../helpers/temp-store.js'
import { json, ledgerAgent, recordingModel } from './helpers.js'
import { invalidity } from '../../helpers/provider-validity.js'

const dir = useTempDir('context-ledger-strands-')

/** Every model call got a valid conversation, `a` shows its window, and the window keeps every rule. */
function expectValid(
  store: ContextStore,
  calls: readonly ScriptedCall[],
  a: { agent: Agent; manager: PersistentConversationManager },
): void {
  expect(calls.map((c) => invalidity(c.messages)).filter((w) => w !== undefined)).toStrictEqual([])
  expect(json(a.agent.messages)).toStrictEqual(a.manager.ledger.window())
  assertWindowRules(store, 's')
}

/**
 * A invokes `ask a0` … `ask a4`; the first three times A adds a tool call, B runs a whole turn
 * (`ask b1` … `ask b3`) before A goes on.
 */
async function interleave(a: Agent, b: Agent): Promise<void> {
  let interleaved = 0
  a.addHook(MessageAddedEvent, async (event) => {
    if (interleaved < 3 && event.message.content.some((x) => x.type === 'toolUseBlock'))
      await b.invoke(`ask b${++interleaved}`)
  })
  for (let i = 0; i < 5; i++) await a.invoke(`ask a${i}`)
  expect(interleaved).toBe(3)
}

const textOf = (data: { content: readonly unknown[] }): string => JSON.stringify(data.content)

describe('PersistentConversationManager (Strands)', () => {
  it('keeps two agents on one session working when one prompts while the other runs a tool', async () => {
    const store = dir.open()
    const calls: ScriptedCall[] = []
    const b = ledgerAgent({ store, sessionId: 's' }, { model: recordingModel('b-', calls) })
    // A writes each message as it comes (durability 'message'), so its call is stored when B's turn runs.
    const a = ledgerAgent(
      { store, sessionId: 's', durability: 'message' },
      { model: recordingModel('a-', calls) },
    )
    // B's whole turn lands between A's tool call and A's tool result: the store answers A's call with a
    // repair row when B's prompt arrives, so A's real result arrives late.
    // After initialize(), so the ledger's own MessageAddedEvent hook (registered there) has stored A's call.
    await a.agent.initialize()
    await interleave(a.agent, b.agent)
    const history = readHistory(store, 's')
    const archived = history.map((e) => textOf(e.message)).join('\n')
    for (let i = 0; i < 5; i++) expect(archived).toContain(`a${i}: `)
    for (let i = 1; i <= 3; i++) expect(archived).toContain(`b${i}: `)
    expect(history.filter((e) => e.late)).toHaveLength(3)
    expectValid(store, calls, a)
  })

  it('with durability invocation, stores the turn the other agent ran during a tool call whole, before this one', async () => {
    const store = dir.open()
    const calls: ScriptedCall[] = []
    const b = ledgerAgent({ store, sessionId: 's' }, { model: recordingModel('b-', calls) })
    const a = ledgerAgent({ store, sessionId: 's' }, { model: recordingModel('a-', calls) })
    // The session's first message is stored at once (nothing before it to follow); from then on A's
    // messages are held until its invocation ends.
    await a.agent.invoke('hello')
    await interleave(a.agent, b.agent)
    const history = readHistory(store, 's')
    // A's prompt and call were held when B ran: B's turn is stored first, then A's whole turn, so no
    // call is answered by a repair row and no result arrives late.
    expect(history.filter((e) => e.late)).toStrictEqual([])
    expect(
      history.filter((e) =>
        e.message.content.some((x) => 'toolResult' in x && x.toolResult.status === 'error'),
      ),
    ).toStrictEqual([])
    const prompts = history.flatMap((e) => {
      const [block] = e.message.content
      return e.message.role === 'user' && block !== undefined && 'text' in block ? [block.text] : []
    })
    expect(prompts).toStrictEqual([
      'hello',
      'ask b1',
      'ask a0',
      'ask b2',
      'ask a1',
      'ask b3',
      'ask a2',
      'ask a3',
      'ask a4',
    ])
    // Every turn is contiguous: prompt, call, result, answer.
    const kind = (e: (typeof history)[number]): string =>
      e.message.content.map((x) => Object.keys(x)[0]).join('+') + `@${e.message.role}`
    expect(history.map(kind)).toStrictEqual([
      'text@user',
      'text@assistant',
      ...Array.from({ length: 8 }, () => [
        'text@user',
        'toolUse@assistant',
        'toolResult@user',
        'text@assistant',
      ]).flat(),
    ])
    expectValid(store, calls, a)
  })

  it('with durability invocation, hands the model a valid conversation when the other agent’s turn lands while this agent’s tool runs', async () => {
    const store = dir.open()
    const calls: ScriptedCall[] = []
    const b = ledgerAgent({ store, sessionId: 's' }, { model: recordingModel('b-', calls) })
    let turns = 0
    // A's tool runs B's whole turn: A's prompt is held, and Strands adds A's call and its result only
    // after the tool returned — by then the session has B's rows.
    const lookup = tool({
      name: 'lookup',
      description: 'Look something up',
      inputSchema: z.object({ q: z.string() }),
      callback: async ({ q }) => {
        if (turns < 3) await b.agent.invoke(`ask b${++turns}`)
        return `${q}: found`
      },
    })
    const a = ledgerAgent({ store, sessionId: 's' }, { model: recordingModel('a-', calls), tools: [lookup] })
    await a.agent.invoke('hello')
    for (let i = 0; i < 4; i++) await a.agent.invoke(`ask a${i}`)
    expect(turns).toBe(3)
    expect(calls.map((c) => invalidity(c.messages)).filter((w) => w !== undefined)).toStrictEqual([])
    const history = readHistory(store, 's')
    expect(history).toHaveLength(2 + 7 * 4)
    expect(history.filter((e) => e.late)).toStrictEqual([])
    expect(json(a.agent.messages)).toStrictEqual(a.manager.ledger.window())
    assertWindowRules(store, 's')
  })

  it('hands a model a valid conversation when the other agent’s tool result landed after this agent’s view was shown', async () => {
    const store = dir.open()
    const calls: ScriptedCall[] = []
    const a = ledgerAgent({ store, sessionId: 's' }, { model: recordingModel('a-', calls) })
    const b = ledgerAgent({ store, sessionId: 's' }, { model: recordingModel('b-', calls) })
    await a.agent.initialize()
    await b.agent.initialize()
    await a.agent.invoke('chat first')
    // B's view is shown while A's call is stored and its result not yet; A's result lands before B's prompt.
    let bShown!: () => void
    const bShownP = new Promise<void>((resolve) => (bShown = resolve))
    let aResult!: () => void
    const aResultP = new Promise<void>((resolve) => (aResult = resolve))
    let bDone: Promise<unknown> | undefined
    b.agent.addHook(BeforeInvocationEvent, async () => {
      bShown()
      await aResultP
    })
    a.agent.addHook(MessageAddedEvent, async (event) => {
      if (event.message.content.some((x) => x.type === 'toolUseBlock') && bDone === undefined) {
        bDone = b.agent.invoke('chat from B')
        await bShownP
      }
      if (event.message.content.some((x) => x.type === 'toolResultBlock')) aResult()
    })
    await a.agent.invoke('ask from A')
    await bDone
    expect(calls.map((c) => invalidity(c.messages)).filter((w) => w !== undefined)).toStrictEqual([])
    assertWindowRules(store, 's')
  })

  it('stores a clone pushed onto agent.messages as a new occurrence', async () => {
    const store = dir.open()
    const { agent, manager } = ledgerAgent({ store, sessionId: 's' })
    await agent.invoke('hello one')
    agent.messages.push((agent.messages[0] as Message).clone())
    await agent.invoke('third')
    const history = manager.ledger.history()
    expect(history.map((e) => [e.message.role, e.repeatOf])).toStrictEqual([
      ['user', undefined],
      ['assistant', undefined],
      ['user', 0],
      ['user', undefined],
      ['assistant', undefined],
    ])
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
  })

  it('stores a clone of an earlier message sent again as a new occurrence, and shows it', async () => {
    const store = dir.open()
    const { agent, manager } = ledgerAgent({ store, sessionId: 's' })
    await agent.invoke('what is the plan?')
    await agent.invoke('and the budget?')
    const again = (agent.messages[0] as Message).clone()
    await agent.invoke([again])
    const history = manager.ledger.history()
    expect(history.map((e) => e.message.role)).toStrictEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ])
    expect(history[4]?.repeatOf).toBe(0)
    expect(history[4]?.message.content).toStrictEqual(history[0]?.message.content)
    expect(history[4]?.trackingId).not.toBe(history[0]?.trackingId)
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    assertWindowRules(store, 's')
  })

  it('records an edit made in place in agent.messages, and shows it after a restart', async () => {
    const store = dir.open()
    const { agent, manager } = ledgerAgent({ store, sessionId: 's' })
    await agent.invoke('my card is 4111-1111-1111-1111')
    ;(agent.messages[0] as Message).content[0] = new TextBlock('my card is [REDACTED]')
    await agent.invoke('thanks')
    expect(manager.ledger.window()[0]?.content).toStrictEqual([{ text: 'my card is [REDACTED]' }])
    expect(manager.ledger.history()[0]?.message.content).toStrictEqual([
      { text: 'my card is 4111-1111-1111-1111' },
    ])
    expect(manager.ledger.edits()).toMatchObject([{ seq: 0, kind: 'edit', actor: 'strands' }])
    // A new process over the same file: the edit holds.
    store.close()
    const reopened = dir.open()
    const next = ledgerAgent({ store: reopened, sessionId: 's' })
    await next.agent.initialize()
    expect(next.agent.messages[0]?.toJSON().content).toStrictEqual([{ text: 'my card is [REDACTED]' }])
    // Erasing the original from the archive itself goes through the ledger.
    next.manager.ledger.redact({ seq: 0 }, { actor: 'dpo' })
    await next.agent.invoke('anything else?')
    expect(next.manager.ledger.history()[0]?.message.content).toStrictEqual([{ text: '[redacted]' }])
    expect(next.agent.messages[0]?.toJSON().content).toStrictEqual([{ text: '[redacted]' }])
  })

  it('reverts, with a log line, an edit that changes a stored message’s role', async () => {
    const store = dir.open()
    const warnings: unknown[] = []
    const logger = {
      debug: () => {},
      info: () => {},
      warn: (...args: unknown[]) => warnings.push(args),
      error: () => {},
    }
    const { agent, manager } = ledgerAgent({ store, sessionId: 's', logger })
    await agent.invoke('hello')
    Object.assign(agent.messages[0] as Message, { role: 'assistant' })
    await agent.invoke('again')
    expect(warnings).toHaveLength(1)
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    expect(agent.messages[0]?.role).toBe('user')
  })

  it('reverts metadata changed by hand, and an edit of a merged message (alternate), with a log line', async () => {
    const store = dir.open()
    const warnings: unknown[] = []
    const logger = {
      debug: () => {},
      info: () => {},
      warn: (...args: unknown[]) => warnings.push(args),
      error: () => {},
    }
    const { agent, manager } = ledgerAgent({ store, sessionId: 's', windowSize: 4, alternate: true, logger })
    for (const prompt of ['remember: ship friday', 'pin 0 the task', 'q1', 'q2']) await agent.invoke(prompt)
    const merged = agent.messages[0] as Message
    expect(merged.content).toHaveLength(2)
    merged.content[0] = new TextBlock('remember: ship monday')
    ;(agent.messages[1] as Message).metadata = { custom: { note: 'mine' } }
    await agent.invoke('q3')
    expect(warnings).toHaveLength(1)
    expect(manager.ledger.edits()).toStrictEqual([])
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window({ alternate: true }))
    assertWindowRules(store, 's')
  })

  it('hands the model strictly alternating roles with alternate: true', async () => {
    const run = async (alternate: boolean): Promise<string[][]> => {
      const calls: ScriptedCall[] = []
      const store = dir.open(`alt-${alternate}.db`)
      const { agent } = ledgerAgent(
        { store, sessionId: 's', windowSize: 4, alternate },
        { model: recordingModel('t-', calls) },
      )
      // A pinned first prompt is kept before the boundary, right before a later prompt.
      for (const prompt of ['remember: ship friday', 'pin 0 the task', 'q1', 'q2', 'q3'])
        await agent.invoke(prompt)
      assertWindowRules(store, 's')
      return calls.map((c) => c.messages.map((m) => m.role))
    }
    const plain = await run(false)
    const alternating = await run(true)
    const repeats = (roles: string[][]): number =>
      roles.filter((r) => r.some((role, i) => i > 0 && role === r[i - 1])).length
    expect(repeats(plain)).toBeGreaterThan(0)
    expect(repeats(alternating)).toBe(0)
  })
})
