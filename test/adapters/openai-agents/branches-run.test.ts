/**
 * Branches through the SDK's real `run()` loop with the scripted model (tool calls after reasoning
 * items), on either backend (written for the conformance suite): the same script run on a `LedgerSession`
 * and on the SDK's `MemorySession` — runs, a turn undone by `popItem` until its question comes out, the
 * question asked again, the last answer replaced by `applyHistoryTransaction` — gives the model exactly
 * the same input at every step, each valid for a provider, and leaves every undone or replaced item in
 * an abandoned branch. And the runner's own `replace_suffix`: an output guardrail that blocks the answer
 * after a tool call (the runner stores the call and its result with `append_items`), the run resumed from
 * the error's state until the guardrail lets the answer through (the runner then replaces the stored
 * result with the accepted result and answer): the same items as `MemorySession`, once, a retry a no-op.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  Agent,
  MemorySession,
  OutputGuardrailTripwireTriggered,
  run,
  tool,
  type AgentInputItem,
  type RunState,
  type Session,
  type SessionHistoryTransactionArgs,
} from '@openai/agents'
import { z } from 'zod'
import { LedgerSession, type LedgerSessionStore } from '../../../src/adapters/openai-agents/index.js'
import { coreStoreOf, makeBackend } from '../../helpers/backend.js'
import { json, providerProblems, rewinds, ToolLoopModel } from './helpers.js'

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
    // Every undone or replaced item is in an abandoned branch, none in the session (on a store that
    // cannot rewind, each stays in the session's history, withdrawn by a marker row).
    const tree = await ledger.branches()
    const abandoned = tree.filter((b) => b.kind === 'abandoned')
    const archived = (await ledger.history({ limit: 10_000 })).map((e) => JSON.stringify(e.message))
    if (rewinds(coreStoreOf(handle))) {
      expect(abandoned.length).toBe(undone.length + 1)
      for (const item of undone) expect(archived).not.toContain(JSON.stringify(item))
      for (const b of abandoned)
        expect(b.reason === 'popItem' || b.reason?.startsWith('replace_suffix')).toBe(true)
    } else {
      expect(abandoned).toStrictEqual([])
      for (const item of undone) expect(archived).toContain(JSON.stringify(item))
    }
  }, 180_000)

  it("the runner's own replace_suffix: an answer a guardrail blocked, accepted after resuming", async () => {
    const handle = await backend.open()
    const ledger = new LedgerSession({ store: coreStoreOf(handle), sessionId: 's', windowSize: 10_000 })
    const transactions: SessionHistoryTransactionArgs[] = []
    const apply = ledger.applyHistoryTransaction.bind(ledger)
    ledger.applyHistoryTransaction = async (args) => {
      transactions.push(structuredClone(args))
      await apply(args)
    }
    const memory = new MemorySession()
    const outcomes: string[][] = []
    for (const session of [ledger, memory]) {
      let blocks = 2
      const agent = new Agent({
        name: 'helper',
        instructions: 'Help.',
        model: new ToolLoopModel({ calls: 1, tool: 'lookup' }),
        tools: [lookup],
        outputGuardrails: [
          {
            name: 'review',
            execute: () => Promise.resolve({ tripwireTriggered: blocks-- > 0, outputInfo: null }),
          },
        ],
      })
      const seen: string[] = []
      let input: string | RunState<unknown, Agent> = 'look 7 up'
      for (let attempt = 0; attempt < 5; attempt++) {
        try {
          seen.push(`done: ${String((await run(agent, input, { session })).finalOutput)}`)
          break
        } catch (error) {
          if (!(error instanceof OutputGuardrailTripwireTriggered)) throw error
          seen.push('blocked')
          input = error.state as RunState<unknown, Agent>
        }
      }
      outcomes.push(seen)
    }
    expect(outcomes[0]).toStrictEqual(outcomes[1])
    expect(outcomes[0]).toStrictEqual(['blocked', 'blocked', expect.stringMatching(/^done: /)])
    const rewound = rewinds(coreStoreOf(handle))
    // On the marker path a replaced result hides its call (a known limitation, docs/openai-agents.md,
    // "PostgreSQL today"): the model sees less than MemorySession there, the same answer last.
    if (rewound) expect(json(await ledger.getItems())).toStrictEqual(json(await memory.getItems()))
    else expect(json((await ledger.getItems()).at(-1))).toStrictEqual(json((await memory.getItems()).at(-1)))
    expect(transactions.map((t) => t.transaction.type)).toStrictEqual(['append_items', 'replace_suffix'])
    // The stored result the runner replaced is the abandoned branch; a retry changes nothing.
    const tree = await ledger.branches()
    expect(tree.map((b) => [b.kind, b.actor])).toStrictEqual(
      rewound
        ? [
            ['root', null],
            ['abandoned', 'agent'],
          ]
        : [['root', null]],
    )
    const sum = await backend.checksum(handle)
    // Replayed through the unwrapped method: through the recording wrapper each replay would add an
    // entry to the array being walked, and the loop would never end.
    for (const args of [...transactions]) await apply(structuredClone(args))
    expect(await backend.checksum(handle)).toBe(sum)
    expect(providerProblems(await ledger.getItems())).toStrictEqual([])
  }, 180_000)

  it('a fork: the trunk and the branch each go on in run() as a MemorySession copy would', async () => {
    const handle = await backend.open()
    const store = coreStoreOf(handle)
    const trunk = lane(new LedgerSession({ store, sessionId: 's', windowSize: 10_000 }), new MemorySession())
    for (let t = 0; t < 2; t++) await trunk.step(`question ${t}`)
    // A turn is 6 items (question, reasoning, call, result, reasoning, answer): keep the first turn.
    const shown = await trunk.memory.getItems()
    const early = lane(
      await trunk.ledger.fork({ atItem: 5, newSessionId: 'early', reason: 'ask otherwise' }),
      new MemorySession({ initialItems: structuredClone(shown.slice(0, 6)) }),
      'e',
    )
    const whole = lane(
      await trunk.ledger.fork({ newSessionId: 'whole' }),
      new MemorySession({ initialItems: structuredClone(shown) }),
      'w',
    )
    expect(json(await early.ledger.getItems())).toStrictEqual(json(shown.slice(0, 6)))
    expect(json(await whole.ledger.getItems())).toStrictEqual(json(shown))
    for (let t = 2; t < 4; t++) {
      await trunk.step(`question ${t}`)
      await early.step(`question ${t}, asked otherwise`)
      await whole.step(`question ${t}, on the copy`)
    }
    for (const l of [trunk, early, whole]) {
      await l.check()
      // Nothing one side wrote after the fork reaches another.
      expect(json(await l.ledger.getItems())).toStrictEqual(json(await l.memory.getItems()))
    }
    expect((await trunk.ledger.branches()).map((b) => [b.sessionId, b.kind, b.parentId])).toStrictEqual([
      ['s', 'root', null],
      ['early', 'fork', 's'],
      ['whole', 'fork', 's'],
    ])
    // No row was copied: each branch holds only what it wrote itself.
    const tree = await trunk.ledger.branches()
    expect(tree.find((b) => b.sessionId === 'early')?.ownMessages).toBe(12)
    expect(tree.find((b) => b.sessionId === 'whole')?.ownMessages).toBe(12)
  }, 180_000)

  it('a restart in a second process on a branch: it reads the branch and goes on from it', async () => {
    const handle = await backend.open()
    const store = coreStoreOf(handle)
    const trunk = lane(new LedgerSession({ store, sessionId: 's', windowSize: 10_000 }), new MemorySession())
    for (let t = 0; t < 2; t++) await trunk.step(`question ${t}`)
    const shown = await trunk.memory.getItems()
    const branch = await trunk.ledger.fork({ atItem: 5, newSessionId: 'b' })
    const copy = new MemorySession({ initialItems: structuredClone(shown.slice(0, 6)) })
    const tree = json(await branch.branches())

    const worker = join(import.meta.dirname, 'branch-restart-worker.ts')
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', worker, backend.location(handle), 'b', 'on the branch'],
      { encoding: 'utf8', timeout: 120_000 },
    )
    expect(child.stderr).toBe('')
    const seen = JSON.parse(child.stdout) as {
      items: unknown
      tree: unknown
      output: string
      inputs: unknown
      after: AgentInputItem[]
    }
    expect(seen.items).toStrictEqual(json(await copy.getItems()))
    expect(seen.tree).toStrictEqual(tree)
    // The oracle: the same turn run on the copy by a model in the same state.
    const oracle = new ToolLoopModel({ calls: 1, tool: 'lookup', reasoning: true, prefix: 'w' })
    const done = await run(agentWith(oracle), 'on the branch', { session: copy })
    expect(seen.output).toBe(String(done.finalOutput))
    expect(seen.inputs).toStrictEqual(json(oracle.inputs))
    expect(seen.after).toStrictEqual(json(await copy.getItems()))

    // This process sees what the second wrote, and goes on from there; the trunk never saw any of it.
    const again = lane(new LedgerSession({ store, sessionId: 'b', windowSize: 10_000 }), copy, 'x')
    expect(json(await again.ledger.getItems())).toStrictEqual(seen.after)
    await again.step('after the restart')
    await again.check()
    expect(json(await trunk.ledger.getItems())).toStrictEqual(json(shown))
  }, 180_000)
})

/** A `LedgerSession` and the `MemorySession` it is checked against, each run by a model of its own. */
function lane(ledger: LedgerSession<LedgerSessionStore>, memory: MemorySession, prefix = '') {
  const models = [0, 1].map(() => new ToolLoopModel({ calls: 1, tool: 'lookup', reasoning: true, prefix }))
  const agents = models.map(agentWith)
  return {
    ledger,
    memory,
    async step(input: string): Promise<void> {
      const [mine, theirs] = await Promise.all([
        run(agents[0] as Agent, input, { session: ledger }),
        run(agents[1] as Agent, input, { session: memory }),
      ])
      expect(String(mine.finalOutput)).toBe(String(theirs.finalOutput))
      expect(json(await ledger.getItems())).toStrictEqual(json(await memory.getItems()))
    },
    /** Both models were given the same input at every step, each valid for a provider. */
    async check(): Promise<void> {
      await Promise.resolve()
      expect(json(models[0]?.inputs)).toStrictEqual(json(models[1]?.inputs))
      for (const input of models[0]?.inputs ?? []) expect(providerProblems(input)).toStrictEqual([])
    },
  }
}
