import { defineConfig } from 'vitest/config'

/**
 * The projects `npm test` (`vitest run`) runs:
 * - `unit`: fast, in-process tests (`npx vitest run --project unit` while working);
 * - `reliability`: killed and concurrent processes, hostile files, long fuzz runs
 *   (`npx vitest run --project reliability`), alongside `unit`;
 * - `package`: the install tests (pack, install three ways, typecheck consumers). They run after the
 *   other two, alone, because their npm installs would load the machine while the reliability suite
 *   measures lock waits.
 * Property tests take `FC_RUNS`, the reliability suite `CONTEXT_LEDGER_LONG=1`, for longer runs.
 */
const reliability = ['test/reliability/**/*.test.ts']
const pkg = ['test/package/**/*.test.ts']

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...reliability, ...pkg],
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'reliability', include: reliability, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'package', include: pkg, sequence: { groupOrder: 1 } },
      },
    ],
  },
})
