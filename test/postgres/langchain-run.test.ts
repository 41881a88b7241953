/**
 * The real `createAgent` loop with `ledgerMiddleware` over PostgreSQL (the process tests' scripted agent:
 * parallel and single tool calls, a model refusing inputs over its token limit): many turns with a token
 * budget and summaries written by a LangChain chat model, and two stores running on one thread at once.
 * Promised (issue 24): every model input bounded and paired, every message in the ledger once, the
 * window rules kept.
 */
import { AIMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { describe, expect, it } from 'vitest'
import { assertWindowRulesOf } from '../helpers/window-rules.js'
import { expectOnce, range, turnKeys } from '../reliability/langchain-support.js'
import { useDatabases } from './databases.js'
import { pgAgent, pgArchiveKeys } from './langchain-support.js'

const { database, open } = useDatabases()

/** A LangChain fake chat model answering `count` summaries in turn. */
function summaryModel(count: number) {
  const model = fakeModel()
  for (let i = 0; i < count; i++) model.respond(new AIMessage(`summary ${i}: ${'word '.repeat(20)}`))
  return model
}

describe('createAgent with ledgerMiddleware on PostgreSQL', () => {
  it('16 turns with tools, a token budget and summaries by a chat model: every input bounded and paired, every message once', async () => {
    const store = await open(await database())
    const summaries = summaryModel(200)
    const errors: unknown[] = []
    const run = pgAgent(store, 'a', {
      middleware: { summarize: { model: summaries }, onError: (e) => errors.push(e) },
    })
    for (let t = 0; t < 16; t++) {
      const state = await run.ask(t)
      expect(state.messages.at(-1)?.content).toBe(`done a.${3 * t + 2}`)
    }
    expect(run.problems()).toStrictEqual([])
    expect(errors).toStrictEqual([])
    expect(summaries.callCount).toBeGreaterThan(0)
    // The window the next model call would see starts with the summary of what was folded.
    const window = await run.mw.session('t').window()
    expect(window[0]?.text).toMatch(/^summary \d+/)
    expect(await pgArchiveKeys(store)).toStrictEqual(turnKeys('a', 0, range(0, 16)))
    await assertWindowRulesOf(store, 't')
  })

  it('two stores run on one thread at once (12 turns each): every input paired, nothing lost, nothing twice', async () => {
    const url = await database()
    const [first, second] = [await open(url), await open(url)]
    const runs = [pgAgent(first, 'a'), pgAgent(second, 'b')]
    await Promise.all(
      runs.map(async (run) => {
        for (let t = 0; t < 12; t++) await run.ask(t)
      }),
    )
    for (const run of runs) expect(run.problems()).toStrictEqual([])
    const keys = await pgArchiveKeys(first)
    const expected = [...turnKeys('a', 0, range(0, 12)), ...turnKeys('b', 0, range(0, 12))]
    expectOnce(keys, expected)
    // Anything more is the ledger's repair of a call the other writer's message interrupted.
    const more = keys.filter((k) => !expected.includes(k))
    expect(more.filter((k) => !k.startsWith('repair:'))).toStrictEqual([])
    console.log('calls answered by a repair row, their result arriving late:', more.length)
    await assertWindowRulesOf(first, 't')
  })
})
