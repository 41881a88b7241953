/**
 * The ledger's log clock: a counter in the one row of `search_state` (`log_clock`), which every fork
 * (and every rewind that makes an abandoned branch at a new fork point) bumps by one and nothing else
 * changes — a delete never takes it back. Every pin-log, edit-log and eviction-log entry records its value
 * when written; a new branch's `sessions.fork_version` is its value right after the bump, so an ancestor's
 * entries from before the fork are below it and later ones are not (see `sessions.fork_version` in
 * schema.ts). Its own module: `statements.ts` and `recall-statements.ts` (which `statements.ts` imports)
 * both use it.
 */
export const LOG_CLOCK = '(SELECT log_clock FROM search_state WHERE id = 1)'

/** Bumps the log clock by one and returns its new value: a new branch's `fork_version`. */
export const TICK_LOG_CLOCK =
  'UPDATE search_state SET log_clock = log_clock + 1 WHERE id = 1 RETURNING log_clock'

/**
 * Raises the log clock to at least the bound (an import's largest fork clock or log-entry clock), so
 * that an entry written later is not older than an imported branch's fork.
 */
export const RAISE_LOG_CLOCK = 'UPDATE search_state SET log_clock = max(log_clock, ?) WHERE id = 1'
