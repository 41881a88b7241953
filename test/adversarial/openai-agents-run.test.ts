/**
 * Adversarial: `LedgerSession` under the SDK's real runner — human-in-the-loop approvals (interrupt,
 * approve/reject, resume from `result.state`), streamed runs, handoffs between two agents,
 * `sessionInputCallback`, `callModelInputFilter`, and `OpenAIResponsesCompactionSession` around it. After
 * every run: each model input provider-valid, no library notes, the archive complete.
 */
import { afterEach, describe, expect, it } from 'vitest'
import {
  Agent,
  handoff,
  OpenAIResponsesCompactionSession,
  run,
  tool,
  type AgentInputItem,
  type ModelRequest,
} from '@openai/agents'
import { ScriptedModel, assistantMessage, functionCall } from '@openai/agents-core/testing'
import { z } from 'zod'
import { LedgerSession } from '../../src/adapters/openai-agents/index.js'
import { openContextStore, type ContextStore } from '../../src/index.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { providerProblems } from '../adapters/openai-agents/helpers.js'

let dir: TempDir | undefined
afterEach(() => {
  dir?.cleanup()
  dir = undefined
})
const store = (): ContextStore => {
  dir ??= tempDir('context-ledger-oa-run-')
  return dir.open()
}

type Loose = { type?: string; role?: string; callId?: string; providerData?: Record<string, unknown> }

/** Problems a provider (or a reader of the notes) would find in a model input. */
function problems(input: string | AgentInputItem[]): string[] {
  if (typeof input === 'string') return []
  const out = providerProblems(input)
  for (const [i, item] of (input as Loose[]).entries())
    if (item.providerData !== undefined && 'contextLedger' in item.providerData)
      out.push(`library notes leak at ${i}`)
  return out
}
const inputsOf = (model: ScriptedModel): (string | AgentInputItem[])[] =>
  model.calls.map((c) => (c.request as ModelRequest).input)

const archive = async (session: LedgerSession): Promise<Loose[]> =>
  (await session.history({ limit: 10_000 })).map((e) => e.message as unknown as Loose)

const refund = tool({
  name: 'refund',
  description: 'Refunds an order',
  parameters: z.object({ order: z.string() }),
  needsApproval: true,
  execute: ({ order }) => `refunded ${order}`,
})
const lookup = tool({
  name: 'lookup',
  description: 'Looks up',
  parameters: z.object({ q: z.string() }),
  execute: ({ q }) => `found ${q}`,
})

describe('LedgerSession with approvals (human in the loop)', () => {
  it('interrupts, resumes after approval, and every model input stays valid', async () => {
    const session = new LedgerSession({ store: store(), sessionId: 'hitl' })
    const model = new ScriptedModel([
      [functionCall('refund', { order: 'A1' }, { callId: 'call_r1' })],
      [assistantMessage('refunded A1')],
      [assistantMessage('anything else?')],
    ])
    const agent = new Agent({ name: 'support', model, tools: [refund] })
    const first = await run(agent, 'refund A1', { session })
    expect(first.interruptions).toHaveLength(1)
    // While the run waits for a human, the session hands out a call without its result.
    const waiting = await session.getItems()
    for (const approval of first.interruptions) first.state.approve(approval)
    const resumed = await run(agent, first.state, { session })
    expect(resumed.finalOutput).toBe('refunded A1')
    const next = await run(agent, 'thanks', { session })
    expect(next.finalOutput).toBe('anything else?')
    for (const input of inputsOf(model)) expect(problems(input)).toStrictEqual([])
    const items = await archive(session)
    expect(items.filter((i) => i.type === 'function_call')).toHaveLength(1)
    const results = items.filter((i) => i.type === 'function_call_result')
    expect(results).toHaveLength(1)
    expect(JSON.stringify(results[0])).toContain('refunded A1')
    expect(problems(await session.getItems())).toStrictEqual([])
    expect(waiting.some((i) => (i as Loose).type === 'function_call')).toBe(true)
  })

  it('a rejected approval resumes, the call gets its (rejection) result, nothing is repaired twice', async () => {
    const session = new LedgerSession({ store: store(), sessionId: 'hitl-reject' })
    const model = new ScriptedModel([
      [functionCall('refund', { order: 'B2' }, { callId: 'call_r2' })],
      [assistantMessage('not refunded')],
    ])
    const agent = new Agent({ name: 'support', model, tools: [refund] })
    const first = await run(agent, 'refund B2', { session })
    for (const approval of first.interruptions) first.state.reject(approval)
    const resumed = await run(agent, first.state, { session })
    expect(resumed.finalOutput).toBe('not refunded')
    for (const input of inputsOf(model)) expect(problems(input)).toStrictEqual([])
    const results = (await archive(session)).filter((i) => i.type === 'function_call_result')
    expect(results).toHaveLength(1)
  })

  it('a user who never answers the approval and starts a new prompt: the open call is repaired, input valid', async () => {
    const session = new LedgerSession({ store: store(), sessionId: 'hitl-abandon' })
    const model = new ScriptedModel([
      [functionCall('refund', { order: 'C3' }, { callId: 'call_r3' })],
      [assistantMessage('ok, something else')],
    ])
    const agent = new Agent({ name: 'support', model, tools: [refund] })
    const first = await run(agent, 'refund C3', { session })
    expect(first.interruptions).toHaveLength(1)
    const next = await run(agent, 'never mind, what is the time?', { session })
    expect(next.finalOutput).toBe('ok, something else')
    for (const input of inputsOf(model)) expect(problems(input)).toStrictEqual([])
  })

  it('a step of [call needing approval, message], abandoned for a new prompt: the next input is valid', async () => {
    const session = new LedgerSession({ store: store(), sessionId: 'hitl-abandon-reasoning' })
    const model = new ScriptedModel([
      [
        {
          type: 'function_call',
          callId: 'call_r5',
          name: 'refund',
          arguments: '{"order":"E5"}',
          status: 'completed',
        },
        assistantMessage('I will refund it once approved'),
      ] as never,
      [assistantMessage('ok, something else')],
    ])
    const agent = new Agent({ name: 'support', model, tools: [refund] })
    const first = await run(agent, 'refund E5', { session })
    expect(first.interruptions).toHaveLength(1)
    await run(agent, 'never mind', { session })
    // Through run() the step is written so the store repairs the call (compare openai-agents-session).
    for (const input of inputsOf(model)) expect(problems(input)).toStrictEqual([])
  })

  it('approval resumed from a serialized state in a fresh session object on a reopened file', async () => {
    const d = (dir ??= tempDir('context-ledger-oa-run-'))
    const file = d.file('hitl.db')
    const s1 = openContextStore(file)
    const session = new LedgerSession({ store: s1, sessionId: 'hitl-restart' })
    const model = new ScriptedModel([
      [functionCall('refund', { order: 'D4' }, { callId: 'call_r4' })],
      [assistantMessage('refunded D4')],
    ])
    const agent = new Agent({ name: 'support', model, tools: [refund] })
    const first = await run(agent, 'refund D4', { session })
    const saved = first.state.toString()
    s1.close()
    const { RunState } = await import('@openai/agents')
    const state = await RunState.fromString(agent, saved)
    for (const approval of state.getInterruptions()) state.approve(approval)
    const s2 = openContextStore(file)
    try {
      const again = new LedgerSession({ store: s2, sessionId: 'hitl-restart' })
      const resumed = await run(agent, state, { session: again })
      expect(resumed.finalOutput).toBe('refunded D4')
      for (const input of inputsOf(model)) expect(problems(input)).toStrictEqual([])
      const items = await archive(again)
      expect(items.filter((i) => i.role === 'user')).toHaveLength(1)
      expect(items.filter((i) => i.type === 'function_call')).toHaveLength(1)
      expect(items.filter((i) => i.type === 'function_call_result')).toHaveLength(1)
    } finally {
      s2.close()
    }
  })
})

describe('LedgerSession with streamed runs', () => {
  it('a streamed run with a tool call stores every item once and gives valid inputs', async () => {
    const session = new LedgerSession({ store: store(), sessionId: 'stream' })
    const model = new ScriptedModel([
      [functionCall('lookup', { q: 'x' }, { callId: 'call_s1' })],
      [assistantMessage('streamed answer')],
      [assistantMessage('second')],
    ])
    const agent = new Agent({ name: 'streamer', model, tools: [lookup] })
    const result = await run(agent, 'stream please', { session, stream: true })
    for await (const event of result) expect(event).toBeDefined()
    await result.completed
    expect(result.finalOutput).toBe('streamed answer')
    const r2 = await run(agent, 'again', { session, stream: true })
    for await (const event of r2) expect(event).toBeDefined()
    await r2.completed
    for (const input of inputsOf(model)) expect(problems(input)).toStrictEqual([])
    const items = await archive(session)
    expect(items.filter((i) => i.role === 'user')).toHaveLength(2)
    expect(items.filter((i) => i.type === 'function_call')).toHaveLength(1)
    expect(items.filter((i) => i.type === 'function_call_result')).toHaveLength(1)
    expect(items.filter((i) => i.role === 'assistant')).toHaveLength(2)
  })

  it('a streamed run with an approval interrupt resumes streamed', async () => {
    const session = new LedgerSession({ store: store(), sessionId: 'stream-hitl' })
    const model = new ScriptedModel([
      [functionCall('refund', { order: 'S1' }, { callId: 'call_sr' })],
      [assistantMessage('done streaming')],
    ])
    const agent = new Agent({ name: 'support', model, tools: [refund] })
    const first = await run(agent, 'refund S1', { session, stream: true })
    for await (const event of first) expect(event).toBeDefined()
    await first.completed
    expect(first.interruptions).toHaveLength(1)
    for (const a of first.interruptions) first.state.approve(a)
    const resumed = await run(agent, first.state, { session, stream: true })
    for await (const event of resumed) expect(event).toBeDefined()
    await resumed.completed
    expect(resumed.finalOutput).toBe('done streaming')
    for (const input of inputsOf(model)) expect(problems(input)).toStrictEqual([])
    const items = await archive(session)
    expect(items.filter((i) => i.type === 'function_call_result')).toHaveLength(1)
  })
})

describe('LedgerSession with handoffs', () => {
  it('a handoff between two agents: both models get valid input, the archive has every item', async () => {
    const session = new LedgerSession({ store: store(), sessionId: 'handoff', windowSize: 6 })
    const billingModel = new ScriptedModel([[assistantMessage('billing here')], [assistantMessage('b2')]])
    const billing = new Agent({ name: 'billing', model: billingModel })
    const triageModel = new ScriptedModel([
      [functionCall('transfer_to_billing', {}, { callId: 'call_h1' })],
      [functionCall('transfer_to_billing', {}, { callId: 'call_h2' })],
    ])
    const triage = new Agent({ name: 'triage', model: triageModel, handoffs: [handoff(billing)] })
    const r = await run(triage, 'I was charged twice', { session })
    expect(r.finalOutput).toBe('billing here')
    const r2 = await run(triage, 'and again', { session })
    expect(r2.finalOutput).toBe('b2')
    for (const input of [...inputsOf(triageModel), ...inputsOf(billingModel)])
      expect(problems(input)).toStrictEqual([])
    const items = await archive(session)
    expect(items.filter((i) => i.type === 'function_call').map((i) => i.callId)).toStrictEqual([
      'call_h1',
      'call_h2',
    ])
    expect(items.filter((i) => i.type === 'function_call_result')).toHaveLength(2)
  })
})

describe('LedgerSession with sessionInputCallback and callModelInputFilter', () => {
  it('a callback that drops history still persists the new input; a filter sees a valid input', async () => {
    const session = new LedgerSession({ store: store(), sessionId: 'callbacks' })
    const seen: AgentInputItem[][] = []
    const model = new ScriptedModel([
      [functionCall('lookup', { q: 'a' }, { callId: 'call_c1' })],
      [assistantMessage('one')],
      [assistantMessage('two')],
    ])
    const agent = new Agent({ name: 'a', model, tools: [lookup] })
    await run(agent, 'first', { session })
    await run(agent, 'second', {
      session,
      sessionInputCallback: (history, input) => [...history.slice(-1), ...input],
      callModelInputFilter: ({ modelData }) => {
        seen.push(structuredClone(modelData.input))
        return modelData
      },
    })
    for (const input of [...seen, ...inputsOf(model)]) expect(problems(input)).toStrictEqual([])
    const users = (await archive(session)).filter((i) => i.role === 'user')
    expect(users).toHaveLength(2)
  })
})

describe('OpenAIResponsesCompactionSession around a LedgerSession', () => {
  it('compacts, loses nothing from the archive, and the next run is valid', async () => {
    const underlying = new LedgerSession({ store: store(), sessionId: 'compact' })
    const compactCalls: unknown[] = []
    const client = {
      responses: {
        compact: (req: unknown) => {
          compactCalls.push(req)
          return Promise.resolve({
            output: [
              { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'first' }] },
              { type: 'compaction', id: 'cmp_1', encrypted_content: 'ENC' },
            ],
            usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
          })
        },
      },
    }
    const session = new OpenAIResponsesCompactionSession({
      // A fake client: the session calls only `responses.compact`.
      client: client as never,
      underlyingSession: underlying,
      model: 'gpt-4.1',
      compactionMode: 'input',
      shouldTriggerCompaction: () => true,
    })
    const model = new ScriptedModel([
      [functionCall('lookup', { q: 'a' }, { callId: 'call_k1' })],
      [assistantMessage('one')],
      [assistantMessage('two')],
    ])
    const agent = new Agent({ name: 'a', model, tools: [lookup] })
    await run(agent, 'first', { session })
    expect(compactCalls.length).toBeGreaterThan(0)
    await run(agent, 'second', { session })
    for (const input of inputsOf(model)) expect(problems(input)).toStrictEqual([])
    const items = await archive(underlying)
    expect(items.filter((i) => i.type === 'function_call')).toHaveLength(1)
    expect(items.filter((i) => i.type === 'function_call_result')).toHaveLength(1)
    expect(items.filter((i) => i.role === 'assistant').length).toBeGreaterThanOrEqual(2)
    const shown = (await underlying.getItems()) as Loose[]
    expect(shown.some((i) => i.type === 'compaction')).toBe(true)
    expect(problems(await underlying.getItems())).toStrictEqual([])
  })
})
