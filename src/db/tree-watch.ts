/**
 * What tells a connection that the tree of branches may have changed, so the lineages it keeps across
 * calls (`src/store/branches/router.ts`) are read again (docs/design.md, "Branches"):
 *
 * - another connection's commit: `PRAGMA data_version` (SQLite changes it when any other connection has
 *   committed since this one last read it; never for this connection's own writes). One prepared
 *   statement, read once per branch call.
 * - this connection's own writes: TEMP triggers (this connection's only; nothing in the file, no
 *   migration) on the `sessions` columns a lineage reads — `parent`, `fork_seq`, `fork_version`,
 *   `fork_trim_point`, `fork_pair_start` — and on inserting a branch or deleting any session. They call a
 *   function of this connection, so whatever writes them (fork, rewind, a branch's first append, delete,
 *   prune, import) is seen, even a path that does not know about the cache. A trunk never updates those
 *   columns, so its hot paths fire nothing.
 */
import type Database from 'better-sqlite3'

/** The SQL function the triggers call (this connection's own). */
const CHANGED = 'context_ledger_tree_changed'

/** The triggers, literal text. */
const TRIGGERS = [
  `CREATE TEMP TRIGGER IF NOT EXISTS context_ledger_tree_update
   AFTER UPDATE OF parent, fork_seq, fork_version, fork_trim_point, fork_pair_start ON main.sessions
   BEGIN SELECT ${CHANGED}(); END`,
  `CREATE TEMP TRIGGER IF NOT EXISTS context_ledger_tree_insert
   AFTER INSERT ON main.sessions WHEN NEW.parent IS NOT NULL
   BEGIN SELECT ${CHANGED}(); END`,
  `CREATE TEMP TRIGGER IF NOT EXISTS context_ledger_tree_delete
   AFTER DELETE ON main.sessions
   BEGIN SELECT ${CHANGED}(); END`,
] as const

/**
 * Watches a connection's tree of branches.
 *
 * @param db - the connection
 * @param writable - whether the connection may write (a read-only one has no own writes to watch)
 * @param changed - called inside the statement that changed the tree on this connection; must not throw
 * @returns a reader of `PRAGMA data_version`
 */
export function watchTree(db: Database.Database, writable: boolean, changed: () => void): () => number {
  if (writable) {
    db.function(CHANGED, { deterministic: false }, () => {
      changed()
      return null
    })
    for (const sql of TRIGGERS) db.exec(sql)
  }
  const version = db.prepare<[], number>('PRAGMA data_version').pluck()
  return () => {
    const v = version.get()
    if (typeof v !== 'number') throw new TypeError(`PRAGMA data_version returned ${String(v)}`)
    return v
  }
}
