import { defineConfig } from 'vitest/config'

/**
 * Two projects, both run by `npm test` (`vitest run`):
 * - `unit`: fast, in-process tests (`npx vitest run --project unit` while working);
 * - `reliability`: killed and concurrent processes, hostile files, long fuzz runs, and the package
 *   install test (`npx vitest run --project reliability`).
 * Property tests take `FC_RUNS`, the reliability suite `CONTEXT_LEDGER_LONG=1`, for longer runs.
 */
const slow = ['test/reliability/**/*.test.ts', 'test/package/**/*.test.ts']

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: slow, isolate: false },
      },
      {
        extends: true,
        test: { name: 'reliability', include: slow },
      },
    ],
  },
})
