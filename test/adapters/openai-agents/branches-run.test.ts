/**
 * Branches through the SDK's real `run()` loop with the scripted model (tool calls after reasoning
 * items), on either backend (written for the conformance suite): the same script run on a `LedgerSession`
 * and on the SDK's `MemorySession` — runs, a turn undone by `popItem` until its question comes out, the
 * question asked again, the last answer replaced by `applyHistoryTransaction` — gives the model exactly
 * the same input at every step, each valid for a provider, and leaves every undone or replaced item in
 * an abandoned branch.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { Agent, MemorySession, run, tool, type AgentInputItem, type Session } from '@openai/agents'
import { z } from 'zod'
import { LedgerSession } from '../../../src/adapters/openai-agents/index.js'
import { coreStoreOf, makeBackend } from '../../helpers/backend.js'
import { json, providerProblems, ToolLoopModel } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

const lookup = tool({
  name: 'lookup',
  description: 'Looks a number up',
  parameters: z.object({ n: z.number() }),
  execute: ({ n }) => `value ${n}`,
})
const agentWith = (model: ToolLoopModel) =>
  new Agent({ name: 'helper', instructions: 'Help.', model, tools: [lookup] })
const isPrompt = (item: AgentInputItem | undefined): boolean =>
  item !== undefined && (item as { role?: string }).role === 'user'

/** Pops until the turn's question comes out; the items popped. */
async function undoTurn(session: Session): Promise<AgentInputItem[]> {
  const popped: AgentInputItem[] = []
  for (;;) {
    const item = await session.popItem()
    if (item === undefined) return popped
    popped.push(item)
    if (isPrompt(item)) return popped
  }
}

describe('branches in the run loop, against MemorySession', () => {
  it('undo a turn, ask again, replace the answer: the same model input as MemorySession at every step', async () => {
    const handle = await backend.open()
    const ledger = new LedgerSession({ store: coreStoreOf(handle), sessionId: 's', windowSize: 10_000 })
    const memory = new MemorySession()
    const models = [ledger, memory].map(
      () => new ToolLoopModel({ calls: 1, tool: 'lookup', reasoning: true }),
    )
    const agents = models.map(agentWith)
    const step = async (input: string): Promise<void> => {
      const [mine, theirs] = await Promise.all([
        run(agents[0] as Agent, input, { session: ledger }),
        run(agents[1] as Agent, input, { session: memory }),
      ])
      expect(String(mine.finalOutput)).toBe(String(theirs.finalOutput))
      expect(json(await ledger.getItems())).toStrictEqual(json(await memory.getItems()))
    }
    for (let t = 0; t < 3; t++) await step(`question ${t}`)

    const undone = await undoTurn(ledger)
    const undoneInMemory = await undoTurn(memory)
    // The ledger pops fewer items: a result takes its call along, a reasoning item goes unseen once its
    // output item left. The turn is gone from both all the same.
    expect(json(undone.at(-1))).toStrictEqual(json(undoneInMemory.at(-1)))
    expect(json(await ledger.getItems())).toStrictEqual(json(await memory.getItems()))
    await step('question 2, asked again')

    const last = (await ledger.getItems()).at(-1) as AgentInputItem
    const fix = {
      operationId: 'fix-last-answer',
      transaction: {
        type: 'replace_suffix' as const,
        expectedSuffix: [last],
        replacement: [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'corrected' }],
          } as AgentInputItem,
        ],
      },
    }
    await ledger.applyHistoryTransaction(structuredClone(fix))
    await memory.applyHistoryTransaction(structuredClone(fix))
    expect(json(await ledger.getItems())).toStrictEqual(json(await memory.getItems()))
    await step('question 3')

    expect(json(models[0]?.inputs)).toStrictEqual(json(models[1]?.inputs))
    for (const input of models[0]?.inputs ?? []) expect(providerProblems(input)).toStrictEqual([])
    // Every undone or replaced item is in an abandoned branch, none in the session.
    const tree = await ledger.branches()
    const abandoned = tree.filter((b) => b.kind === 'abandoned')
    expect(abandoned.length).toBe(undone.length + 1)
    const archived = (await ledger.history({ limit: 10_000 })).map((e) => JSON.stringify(e.message))
    for (const item of undone) expect(archived).not.toContain(JSON.stringify(item))
    for (const b of abandoned)
      expect(b.reason === 'popItem' || b.reason?.startsWith('replace_suffix')).toBe(true)
  })
})
