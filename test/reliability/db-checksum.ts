/**
 * A checksum of everything a ledger holds: every row of every table in a fixed order, plus the header
 * fields the store reads. Equal before and after a refused call means the call changed nothing.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'

// Literal statements, one per table: SQL is never assembled from names.
const TABLES = [
  'SELECT * FROM sessions ORDER BY pk',
  'SELECT * FROM messages ORDER BY id',
  'SELECT * FROM tool_calls ORDER BY id',
  'SELECT * FROM pin_events ORDER BY id',
  'SELECT * FROM message_edits ORDER BY id',
  'SELECT * FROM summaries ORDER BY id',
  'SELECT * FROM __drizzle_migrations ORDER BY id',
  'SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name',
] as const

/**
 * sha256 over all rows of all tables of a ledger connection.
 *
 * @param db - an open ledger connection (e.g. `store.connection()`)
 * @returns hex digest
 */
export function ledgerChecksum(db: Database.Database): string {
  const hash = createHash('sha256')
  hash.update(`application_id=${String(db.pragma('application_id', { simple: true }))};`)
  hash.update(`user_version=${String(db.pragma('user_version', { simple: true }))};`)
  for (const sql of TABLES) {
    hash.update(sql)
    for (const row of db.prepare(sql).raw().iterate()) hash.update(JSON.stringify(row))
  }
  return hash.digest('hex')
}
