/**
 * The trunk beside branches on SQLite (docs/design.md, "Branches"): an unbranched session runs exactly the
 * statements it ran before branches existed, and no branch statement, however many branches the file holds
 * (what the router keeps from a root: SQLite's own mechanism; the behaviour of branches on either backend is
 * in branches-fork.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { ContextStore, MessageData, WindowLimits } from '../../src/index.js'
import { countStatements, type Work } from '../helpers/statement-counter.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'

const LIMITS: WindowLimits = { windowSize: 4, tokenBudget: undefined, first: 0, last: 0 }

/** One turn: a question, a tool call, its result, an answer (seqs 4t … 4t + 3 when appended in order). */
function turn(t: number | string): MessageData[] {
  return [
    { role: 'user', content: [{ text: `question ${t}` }] },
    { role: 'assistant', content: [{ toolUse: { name: 'look', toolUseId: `c${t}`, input: { t } } }] },
    {
      role: 'user',
      content: [{ toolResult: { toolUseId: `c${t}`, status: 'success', content: [{ text: `found ${t}` }] } }],
    },
    { role: 'assistant', content: [{ text: `answer ${t}` }] },
  ]
}

let dir: TempDir
afterEach(() => {
  dir.cleanup()
})

describe('the trunk', () => {
  /** Counts the executions of the branch statements (the store keeps them private: a test reaches in). */
  function countBranchStatements(store: ContextStore): () => number {
    const br = (store as unknown as { ledger: { branches: { br: Record<string, Record<string, unknown>> } } })
      .ledger.branches.br
    let n = 0
    for (const statement of Object.values(br))
      for (const method of ['get', 'all', 'run', 'iterate']) {
        const f = statement[method]
        if (typeof f !== 'function') continue
        statement[method] = (...args: unknown[]) => {
          n++
          return (f as (...a: unknown[]) => unknown).apply(statement, args)
        }
      }
    return () => n
  }

  /** The work of one round on session `t`: an append, a pin, a window application, a window read. */
  function round(store: ContextStore, t: number): Work {
    const counter = countStatements(store)
    return counter.measure(() => {
      store.append('t', turn(`t${t}`))
      store.pin('t', { seq: 4 * t + 1 })
      store.unpin('t', { seq: 4 * t + 1 })
      store.applyWindow('t', LIMITS)
      store.window('t')
      store.history('t', { fromSeq: 4 * t })
    })
  }

  it('runs the statements it ran before branches, and no branch statement, beside a tree of branches', () => {
    dir = tempDir()
    const alone = dir.open('alone.db')
    const beside = dir.open('beside.db')
    beside.append('s', [0, 1].flatMap(turn))
    beside.fork('s', { atSeq: 7, newSessionId: 'b' })
    beside.fork('b', { atSeq: 3, newSessionId: 'c' })
    beside.append('c', turn('c'))
    for (const store of [alone, beside]) store.append('t', turn('t0'))
    const branchCalls = countBranchStatements(beside)
    const before = branchCalls()
    for (let t = 1; t < 4; t++) expect(round(beside, t).byName).toStrictEqual(round(alone, t).byName)
    expect(branchCalls() - before).toBe(0)
  })
})
