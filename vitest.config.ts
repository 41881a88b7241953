import { defineConfig } from 'vitest/config'

/**
 * The projects `npm test` (`vitest run`) runs:
 * - `unit`: fast, in-process tests (`npx vitest run --project unit` while working);
 * - `reliability`: killed and concurrent processes, hostile files, long fuzz runs
 *   (`npx vitest run --project reliability`), alongside `unit`, without isolation too (its files share
 *   no state but the modules they import; the processes they start are their own);
 * - `postgres`: the conformance suite (the files in {@link CONFORMANCE}, which `unit` and `reliability`
 *   run on SQLite) on PostgreSQL, and the PostgreSQL-only tests (`test/postgres/`), on one embedded server
 *   the project starts (`test/postgres/global-setup.ts`); after the first two, so the machine is not
 *   loaded by both at once (`npx vitest run --project postgres`, or `npm run test:postgres`); like `unit`,
 *   without isolation: each file's fresh module graph (the PostgreSQL backend, pg, the frameworks) took
 *   ~150 s of the project's ~950 s on two cores;
 * - `package`: the install tests (pack, install three ways, typecheck consumers). They run last, alone,
 *   because their npm installs would load the machine while the reliability suite measures lock waits.
 * Property tests take `FC_RUNS`, the reliability suite `CONTEXT_LEDGER_LONG=1`, for longer runs.
 */
const reliability = ['test/reliability/**/*.test.ts']
const pkg = ['test/package/**/*.test.ts']
/** PostgreSQL-only tests kept beside their subject's other tests (not in `test/postgres/`). */
const postgresOnly = ['test/adversarial/langchain-postgres.test.ts']

/** The conformance suite: test files written against either backend (see test/helpers/backend.ts). */
export const CONFORMANCE = [
  'test/window/sql-matches-reference.test.ts',
  'test/window/strands-equivalence.test.ts',
  'test/window/newest-turn.test.ts',
  'test/window/summaries-properties.test.ts',
  'test/window/strands-summaries-equivalence.test.ts',
  'test/window/summary-edge-cases.test.ts',
  'test/window/branches-match-reference.test.ts',
  'test/store/branches-reads-conformance.test.ts',
  'test/store/branches-reads-backends.test.ts',
  'test/adversarial/branches-leakage.test.ts',
  'test/adversarial/branches-huge-seq.test.ts',
  'test/store/branches-regressions.test.ts',
  'test/adversarial/branches-hostile-input.test.ts',
  'test/adversarial/branches-writers.test.ts',
  'test/adversarial/branches-killed.test.ts',
  'test/store/pin-unpin.test.ts',
  'test/store/reserved-metadata.test.ts',
  'test/store/summaries.test.ts',
  'test/manager/summaries-hostile.test.ts',
  'test/reliability/bad-input.test.ts',
  'test/reliability/concurrency.test.ts',
  'test/reliability/crash-safety.test.ts',
  'test/adapters/strands/summary-only-overflow.test.ts',
  'test/store/pinned-filters.test.ts',
  'test/store/search-conformance.test.ts',
  'test/store/formats-conformance.test.ts',
  'test/store/formats-ui-conformance.test.ts',
  'test/store/formats-agents-conformance.test.ts',
  'test/store/formats-langchain-conformance.test.ts',
  'test/store/formats-claude-agent.test.ts',
  'test/store/formats-claude-agent-property.test.ts',
  'test/store/prune-once-formats.test.ts',
  'test/window/formats-equivalence.test.ts',
  'test/formats/adversarial-approvals.test.ts',
  'test/store/search-filters-property.test.ts',
  'test/store/eviction-log.test.ts',
  'test/tools/recall-tools.test.ts',
  'test/adapters/strands/recall-agent.test.ts',
  'test/adapters/strands/branch-conformance.test.ts',
  'test/adapters/strands/branch-restart.test.ts',
  'test/adapters/strands/branch-window-conformance.test.ts',
  'test/adapters/ai-sdk/session-conformance.test.ts',
  'test/adapters/ai-sdk/branches-chat.test.ts',
  'test/adapters/ai-sdk/branches-loop.test.ts',
  'test/adapters/ai-sdk/branches-property.test.ts',
  'test/adapters/ai-sdk/branches-writers.test.ts',
  'test/adapters/ai-sdk/branches-tools.test.ts',
  'test/adapters/openai-agents/session-conformance.test.ts',
  'test/adapters/openai-agents/transactions.test.ts',
  'test/adapters/openai-agents/branches.test.ts',
  'test/adapters/openai-agents/branches-run.test.ts',
  'test/adapters/langchain/agent-conformance.test.ts',
  'test/adapters/langchain/history-conformance.test.ts',
  'test/store/append-expect-count.test.ts',
  'test/store/session-metadata.test.ts',
  'test/store/window-entries.test.ts',
  'test/adapters/claude-agent-sdk/conformance.test.ts',
  'test/adapters/claude-agent-sdk/bad-input.test.ts',
  'test/adapters/claude-agent-sdk/oracle.test.ts',
  'test/adapters/claude-agent-sdk/transcripts.test.ts',
  'test/adapters/claude-agent-sdk/recorded-runs.test.ts',
  'test/adapters/claude-agent-sdk/sdk-functions.test.ts',
  'test/adapters/claude-agent-sdk/retention.test.ts',
  'test/adapters/claude-agent-sdk/fork-session.test.ts',
  'test/adapters/claude-agent-sdk/fork-writes.test.ts',
  'test/adapters/claude-agent-sdk/resume-fork.test.ts',
  'test/adapters/claude-agent-sdk/fork-property.test.ts',
  'test/adapters/claude-agent-sdk/fork-sdk-calls.test.ts',
  'test/adversarial/claude-agent-input.test.ts',
  'test/adversarial/claude-agent-retention.test.ts',
  'test/adversarial/claude-agent-property.test.ts',
  'test/store/branches-fork.test.ts',
  'test/store/branches-rewind.test.ts',
  'test/store/branches-property.test.ts',
]

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
          exclude: [...reliability, ...pkg, ...postgresOnly, 'test/postgres/**'],
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'reliability', include: reliability, isolate: false, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: [...CONFORMANCE, ...postgresOnly, 'test/postgres/**/*.test.ts'],
          env: { CONTEXT_LEDGER_BACKEND: 'postgres' },
          isolate: false,
          globalSetup: ['test/postgres/global-setup.ts'],
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: { name: 'package', include: pkg, sequence: { groupOrder: 2 } },
      },
    ],
  },
})
