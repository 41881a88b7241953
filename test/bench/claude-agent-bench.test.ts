/**
 * `npm run bench -- --claude` at tiny sizes: every side appends and loads real-shaped transcript entries
 * (the bench itself stops if a side's load is not the entries appended), and the report has the shape
 * docs/benchmarks.md records — the figures that do not depend on the machine asserted, times not.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { ClaudeEntries, ENTRIES_PER_TURN } from '../../bench/claude-agent-fixtures.js'
import { measureClaude, type ClaudeBenchConfig, type ClaudeCell } from '../../bench/claude-agent.js'
import { renderClaude } from '../../bench/claude-agent-report.js'
import { CLAUDE_SIDES, type ClaudeSideKey } from '../../bench/claude-agent-sides.js'
import { Scratch } from '../../bench/harness.js'

const cfg: ClaudeBenchConfig = {
  batch: 10,
  history: 30,
  loadSize: 200,
  appends: 3,
  loads: 2,
  warmup: 1,
  sides: ['jsonl', 'memory', 'sqlite'],
}
const scratch = new Scratch()
afterAll(() => {
  scratch.dispose()
})

describe('the Claude Agent SDK store bench at tiny sizes', () => {
  it('makes entries that chain turn to turn with unique ids', () => {
    const a = new ClaudeEntries('s', 1).next(5 * ENTRIES_PER_TURN)
    const b = new ClaudeEntries('s', 2).next(5 * ENTRIES_PER_TURN)
    const uuids = [...a, ...b].flatMap((e) => (e.uuid === undefined ? [] : [e.uuid]))
    expect(new Set(uuids).size).toBe(uuids.length)
    // Deterministic: the same tag makes the same entries.
    expect(new ClaudeEntries('s', 1).next(30)).toStrictEqual(a.slice(0, 30))
    const prompts = a.filter(
      (e) => e.type === 'user' && e.parentUuid !== undefined && !('toolUseResult' in e),
    )
    expect(prompts[0]?.parentUuid).toBeNull()
    expect(prompts[1]?.parentUuid).toBe(
      a.slice(0, ENTRIES_PER_TURN).findLast((e) => e.type === 'assistant')?.uuid,
    )
    expect(a.every((e) => e.sessionId === 's')).toBe(true)
  })

  it('measures every side in both phases and reports ours against each', async () => {
    const results = await measureClaude(cfg, scratch)
    const cell = (cells: readonly ClaudeCell[], key: ClaudeSideKey): ClaudeCell => {
      const c = cells.find((x) => x.key === key)
      if (c === undefined) throw new Error(`no cell for ${key}`)
      return c
    }
    for (const cells of [results.append, results.load]) {
      expect(cells.map((c) => c.key)).toStrictEqual(cfg.sides)
      for (const c of cells) {
        expect(c.p50).toBeGreaterThan(0)
        expect(c.p95).toBeGreaterThanOrEqual(c.p50)
      }
      // The in-memory store writes nothing and keeps nothing on disk; the files do.
      expect(cell(cells, 'memory').bytes).toBeUndefined()
      expect(cell(cells, 'memory').size).toBeUndefined()
    }
    // An append writes at least its entries' JSON to the file; ours at least as much (rows, index, log).
    const batchBytes = results.entryBytes * cfg.batch
    expect(cell(results.append, 'jsonl').bytes).toBeGreaterThan(batchBytes * 0.8)
    expect(cell(results.append, 'sqlite').bytes).toBeGreaterThan(batchBytes * 0.8)
    // The loaded session is on disk whole in both files.
    expect(cell(results.load, 'jsonl').size).toBeGreaterThan(results.entryBytes * cfg.loadSize * 0.9)
    expect(cell(results.load, 'sqlite').size).toBeGreaterThan(results.entryBytes * cfg.loadSize * 0.9)

    const report = renderClaude(results, cfg, [0, 0])
    for (const key of cfg.sides) expect(report).toContain(CLAUDE_SIDES[key])
    expect(report).toContain(`÷ ${CLAUDE_SIDES.jsonl}`)
    expect(report).toContain(`÷ ${CLAUDE_SIDES.memory}`)
    expect(report).toContain('append 10')
    expect(report).toContain('load 200')
  })
})
