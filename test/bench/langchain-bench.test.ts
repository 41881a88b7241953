/**
 * `npm run bench -- --langchain` at tiny sizes: every side plays real `createAgent` turns at every point,
 * and the report has the shape docs/benchmarks.md records — the figures that do not depend on the
 * machine (messages to the model, messages in the state, bytes written at all) asserted, times not.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { Scratch } from '../../bench/harness.js'
import {
  measureLangChain,
  renderLangChain,
  type LangChainCell,
  type LangChainConfig,
} from '../../bench/langchain.js'
import { MESSAGES_PER_TURN } from '../../bench/langchain-fixtures.js'
import { SIDES, WINDOW, type SideKey } from '../../bench/langchain-sides.js'

const cfg: LangChainConfig = { points: [16, 120], turns: 2, warmup: 1, sides: ['a', 'b', 'c', 'd', 'e'] }
const scratch = new Scratch()
afterAll(() => {
  scratch.dispose()
})

describe('the LangChain bench at tiny sizes', () => {
  it('plays every side at every point and reports what each kept and gave the model', async () => {
    const results = await measureLangChain(cfg, scratch)
    expect([...results.keys()]).toEqual(cfg.points)
    const at = (n: number, key: SideKey): LangChainCell => {
      const cell = results.get(n)?.find((c) => c.key === key)
      if (cell === undefined) throw new Error(`no cell for ${key} at ${n}`)
      return cell
    }
    for (const n of cfg.points) {
      expect(results.get(n)?.map((c) => c.key)).toEqual(cfg.sides)
      for (const key of cfg.sides) {
        const c = at(n, key)
        if (key !== 'e') expect(c.bytes, `${key} at ${n}`).toBeGreaterThan(0)
        expect(c.median).toBeGreaterThan(0)
        expect(c.p95).toBeGreaterThanOrEqual(c.median)
      }
      // The saver keeps the whole history in the state and (a) hands all of it to the model, ± the turn.
      expect(Math.abs(at(n, 'a').state - n)).toBeLessThanOrEqual(2 * MESSAGES_PER_TURN)
      expect(at(n, 'a').toModel).toBe(at(n, 'a').state - 1)
      expect(at(n, 'b').state).toBe(at(n, 'a').state)
    }
    // trimMessages bounds what the model gets once the history is past the window, not the state.
    expect(at(120, 'b').toModel).toBeLessThanOrEqual(WINDOW)
    expect(at(120, 'a').toModel).toBeGreaterThan(WINDOW)
    // The saver writes the whole state at every step: more history, more bytes a turn.
    expect(at(120, 'a').bytes).toBeGreaterThan(at(16, 'a').bytes)
    // Ours: the model gets the window, the state (and so the saver of (c)) holds the window, and the
    // ledger alone writes less than the ledger and the saver together, which write less than the saver
    // with the whole state.
    for (const key of ['c', 'd'] as const) {
      expect(at(120, key).toModel, key).toBeLessThanOrEqual(WINDOW)
      expect(at(120, key).state, key).toBeLessThanOrEqual(WINDOW + MESSAGES_PER_TURN)
    }
    expect(at(120, 'd').bytes).toBeLessThan(at(120, 'c').bytes)
    // The loop alone keeps the turn and nothing else, and stores nothing.
    expect(at(120, 'e').bytes).toBeLessThan(at(120, 'd').bytes)
    expect(at(120, 'e').state).toBe(MESSAGES_PER_TURN)
    expect(at(120, 'e').toModel).toBe(MESSAGES_PER_TURN - 1)
    expect(at(120, 'c').bytes).toBeLessThan(at(120, 'a').bytes)

    const report = renderLangChain(results, cfg, [0, 0])
    for (const key of cfg.sides) expect(report).toContain(SIDES[key])
    expect(report).toContain('| 120 ')
    for (const r of ['c ÷ a', 'c ÷ b', 'd ÷ a', 'd ÷ b']) expect(report).toContain(r)
  })
})
