/**
 * The real `createAgent` loop with `ledgerMiddleware` on PostgreSQL when the database goes away in the
 * middle of a run: cut (new connections refused, its backends ended) while a tool runs, so the next write
 * — the tool results, before the next model call — meets no database; cut right after the model
 * answered, before the ledger stores its message; and backends terminated again and again while an agent
 * runs many turns. Promised: the agent is never wedged — a write that fails rejects `invoke` with the
 * library's typed error (`STORAGE_ERROR` / `DATABASE_BUSY`, docs/postgres.md), and the thread runs again
 * once the database is back: resumed from LangGraph's checkpointer (`invoke(null)`), or with a new
 * prompt — and nothing is duplicated after the recovery.
 */
import { MemorySaver } from '@langchain/langgraph'
import { describe, expect, it } from 'vitest'
import type { PostgresContextStore } from '../../src/backends/postgres/index.js'
import type { Summarizer } from '../../src/summaries/summarize.js'
import { useNoUncaught } from '../helpers/no-uncaught.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'
import { range, stepKeys, turnKeys } from '../reliability/langchain-support.js'
import { LANGCHAIN_LIMITS } from '../reliability/workers/worker-kit.js'
import { useDatabases } from './databases.js'
import { ledgerCode, pgAgent, pgArchiveKeys, type PgAgent, type PgAgentOptions } from './langchain-support.js'
import { outage, storm } from './outage.js'

const { adminUrl, database, open } = useDatabases()
useNoUncaught()
/** The codes docs/postgres.md says a call that lost its database fails with. */
const DOCUMENTED = ['STORAGE_ERROR', 'DATABASE_BUSY']
const SEED = Number(process.env.CONTEXT_LEDGER_SEED ?? Date.now() % 1_000_000)

/** What a call came to: `ok`, or the code of the library's error inside its rejection. */
const outcome = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'ok',
    (e: unknown) => ledgerCode(e),
  )

/** A store on a fresh database, the database's outage, and the window errors the agent reported. */
async function setup(): Promise<{
  store: PostgresContextStore
  cut: () => Promise<void>
  restore: () => Promise<void>
}> {
  const url = await database()
  return { store: await open(url), ...outage(adminUrl, url) }
}

/** An agent whose window errors (after a commit) are collected rather than warned about. */
function agentOn(store: PostgresContextStore, options: PgAgentOptions, errors: unknown[]): PgAgent {
  return pgAgent(store, 'a', { ...options, middleware: { onError: (e) => errors.push(e) } })
}

describe('the database cut in the middle of a createAgent run', () => {
  for (const at of ['tool', 'answer'] as const)
    it(`while ${at === 'tool' ? 'a tool runs' : 'the model’s message waits to be stored'}: typed failures, then resumed from the checkpointer, every message once`, async () => {
      const { store, cut, restore } = await setup()
      const errors: unknown[] = []
      // Turn 1's first model call (3): its tools run, or its message waits, while the database goes.
      let armed = true
      const once = async (n: number): Promise<void> => {
        if (n !== 3 || !armed) return
        armed = false
        await cut()
      }
      const run = agentOn(
        store,
        {
          checkpointer: new MemorySaver(),
          ...(at === 'tool' ? { onTool: (n) => once(n) } : { onAnswer: (n) => once(n) }),
        },
        errors,
      )
      await run.ask(0)
      expect(await outcome(run.ask(1))).toMatch(/^(STORAGE_ERROR|DATABASE_BUSY)$/)
      // Still cut: the thread fails again, typed, and does not hang.
      expect(await outcome(run.resume())).toMatch(/^(STORAGE_ERROR|DATABASE_BUSY)$/)
      await restore()
      expect(await outcome(run.resume())).toBe('ok')
      await run.ask(2)
      expect(run.problems()).toStrictEqual([])
      expect(await pgArchiveKeys(store)).toStrictEqual(turnKeys('a', 0, range(0, 3)))
      await assertWindowRulesOf(store, 't')
    })

  it('while a tool runs, without a checkpointer: the turn fails typed; the next prompt runs, the open calls repaired, nothing twice', async () => {
    const { store, cut, restore } = await setup()
    const errors: unknown[] = []
    let armed = true
    const run = agentOn(
      store,
      {
        onTool: async (n) => {
          if (n !== 3 || !armed) return
          armed = false
          await cut()
        },
      },
      errors,
    )
    await run.ask(0)
    expect(await outcome(run.ask(1))).toMatch(/^(STORAGE_ERROR|DATABASE_BUSY)$/)
    await restore()
    expect(await outcome(run.ask(2))).toBe('ok')
    await run.ask(3)
    expect(run.problems()).toStrictEqual([])
    // Turn 1's results were never stored: its calls are answered by a repair row as turn 2's prompt
    // comes. The model's next call is its fourth (one lookup, then the answer), then turn 3 as ever.
    expect(await pgArchiveKeys(store)).toStrictEqual([
      ...turnKeys('a', 0, [0]),
      'human:a.human.1',
      'ai:ai-a.3',
      'repair:call-a.3-0',
      'repair:call-a.3-1',
      'human:a.human.2',
      ...stepKeys('a', 3).slice(3),
      'human:a.human.3',
      ...stepKeys('a', 6),
    ])
    await assertWindowRulesOf(store, 't')
  })
})

describe('the database cut after a write committed (while the summary model runs)', () => {
  it('every invoke succeeds, onError is told, the window is folded again once the database is back, nothing twice', async () => {
    const { store, cut, restore } = await setup()
    const errors: unknown[] = []
    // Armed between a model's answer with calls and its tools: the ledger's afterModel stores the
    // message, and if the limits then need a fold, the database goes while the summary is written. The
    // tools (which need no database) bring it back.
    let state: 'idle' | 'armed' | 'cut' = 'idle'
    let cuts = 0
    const summarizer: Summarizer = async (messages) => {
      if (state === 'armed') {
        state = 'cut'
        cuts++
        await cut()
      }
      return { text: `summary of ${messages.length} messages`, model: 'scripted' }
    }
    const run = pgAgent(store, 'a', {
      middleware: { summarize: summarizer, onError: (e) => errors.push(e) },
      onAnswer: (n) => {
        if (n % 3 !== 2) state = 'armed'
        return Promise.resolve()
      },
      onTool: async () => {
        if (state === 'cut') await restore()
        state = 'idle'
      },
    })
    for (let t = 0; t < 12; t++) expect(await outcome(run.ask(t))).toBe('ok')
    expect(cuts).toBeGreaterThan(0)
    expect(errors.length).toBeGreaterThan(0)
    expect(errors.map(ledgerCode).filter((c) => !DOCUMENTED.includes(c))).toStrictEqual([])
    expect(run.problems()).toStrictEqual([])
    expect(await pgArchiveKeys(store)).toStrictEqual(turnKeys('a', 0, range(0, 12)))
    expect((await run.mw.session('t').window()).length).toBeLessThanOrEqual(LANGCHAIN_LIMITS.windowSize + 2)
    await assertWindowRulesOf(store, 't')
  })
})

describe(`backends killed again and again while an agent runs (seed ${SEED})`, { timeout: 180_000 }, () => {
  it('12 turns, each retried from its checkpoint until it completes: every failure typed, every message once, every input paired', async () => {
    const url = await database()
    const store = await open(url)
    const errors: unknown[] = []
    const run = agentOn(store, { checkpointer: new MemorySaver() }, errors)
    const codes: string[] = []
    // A step of the agent is several round trips (its sync, the limits, the window's read): a cut every
    // 60-310 ms leaves room for one to finish now and then (at the one-call writers' pace, 20-80 ms, the
    // turns still complete, but a few a minute).
    const killer = storm(adminUrl, url, SEED, { min: 60, spread: 250 })
    try {
      for (let t = 0; t < 12; t++) {
        let result = await outcome(run.ask(t))
        for (let tries = 0; result !== 'ok' && tries < 200; tries++) {
          codes.push(result)
          result = await outcome(run.resume())
        }
        expect(result).toBe('ok')
      }
    } finally {
      console.log('backends killed:', await killer.stop(), 'failed attempts:', codes.length)
    }
    expect(codes.filter((c) => !DOCUMENTED.includes(c))).toStrictEqual([])
    expect(errors.map(ledgerCode).filter((c) => !DOCUMENTED.includes(c))).toStrictEqual([])
    expect(run.problems()).toStrictEqual([])
    expect(await pgArchiveKeys(store)).toStrictEqual(turnKeys('a', 0, range(0, 12)))
    await assertWindowRulesOf(store, 't')
  })
})
