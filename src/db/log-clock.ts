/**
 * The ledger's log clock: the largest fork clock of any session (one seek on `sessions_fork_version`).
 * Every pin-log, edit-log and eviction-log entry records it; see `sessions.fork_version` in schema.ts.
 * Its own module: `statements.ts` and `recall-statements.ts` (which `statements.ts` imports) both use it.
 */
export const LOG_CLOCK = '(SELECT coalesce(max(fork_version), 0) FROM sessions)'
