/**
 * `npm run bench -- --branches` at tiny sizes, on SQLite: every part runs (forks of a large and a small
 * session, the agent loop in a chain of branches, search in branches of the large tree) and the report
 * has the shape docs/benchmarks.md records. The figures that do not depend on the machine are asserted —
 * a fork writes as many rows at 4,000 messages as at 200, and about as many pages — times are not.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { measureBranches, renderBranches, type BranchBenchConfig } from '../../bench/branches.js'
import { sqliteSide } from '../../bench/branch-sides.js'
import { Scratch } from '../../bench/harness.js'

const cfg: BranchBenchConfig = {
  large: 4_000,
  small: 200,
  forks: 2,
  depths: [1, 3],
  perBranch: 40,
  iterations: 3,
  runs: 2,
  queries: 5,
}
const scratch = new Scratch()
afterAll(() => {
  scratch.dispose()
})

describe('the branch bench at tiny sizes', () => {
  it('measures forks, the agent loop at depth and search in branches, and reports them', async () => {
    const side = sqliteSide(scratch)
    try {
      const r = await measureBranches(side, cfg)
      expect(r.forks.map((f) => [f.at, f.messages])).toStrictEqual([
        ['newest', cfg.large],
        ['newest', cfg.small],
        ['middle', cfg.large],
        ['middle', cfg.small],
      ])
      for (const f of r.forks) {
        // A fork writes its session row and its window state: some rows, never a message per message.
        expect(f.rows).toBeGreaterThan(0)
        expect(f.rows).toBeLessThan(cfg.small / 2)
        expect(f.pages).toBeGreaterThan(0)
        expect(f.us).toBeGreaterThan(0)
      }
      // O(1): the large session's fork writes the rows the small one's does, and about its pages.
      for (const at of ['newest', 'middle'] as const) {
        const [big, little] = r.forks.filter((f) => f.at === at)
        expect(big?.rows).toBe(little?.rows)
        expect(big?.pages ?? 0).toBeLessThanOrEqual(2 * (little?.pages ?? 0) + 4)
      }
      expect(r.depths.map((d) => d.operation)).toHaveLength(3 * cfg.depths.length)
      for (const d of r.depths) expect(d.ratio).toBeGreaterThan(0)
      expect(r.search.map(([name]) => name)).toHaveLength(4)
      for (const [, times] of r.search) expect(times).toHaveLength(cfg.queries)
      const report = renderBranches(r, cfg)
      expect(report).toContain('rows written, at the newest message')
      expect(report).toContain('branch at depth 3 vs unbranched')
      expect(report).toContain('a branch at depth 10')
    } finally {
      await side.close()
    }
  })
})
