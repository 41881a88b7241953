/**
 * `context-ledger/postgres`: the ledger on a PostgreSQL server, for agent fleets whose workers share
 * sessions. The same calls as the SQLite store and manager of the root entry, each returning a Promise;
 * the same window rules, run by the same code. Loads `pg` (an optional peer dependency); the root entry
 * never does.
 *
 * @example
 * ```ts
 * // openPostgresContextStore from this entry, context-ledger/postgres
 * const store = await openPostgresContextStore({ connectionString: process.env.DATABASE_URL })
 * const manager = store.manager({ sessionId: 'support-42', windowSize: 40 })
 * await manager.append({ role: 'user', content: [{ text: 'Plan the migration' }] })
 * await manager.applyWindow()
 * const window = await manager.window()
 * ```
 */
export { openPostgresContextStore, type PostgresContextStoreOptions } from './open.js'
export { PostgresContextStore, type WriteStats } from './store.js'
export { PostgresConversationManager, type PostgresConversationManagerOptions } from './manager.js'
export type { PgSearchOptions } from './search.js'
