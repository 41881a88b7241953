/**
 * A checksum of everything a PostgreSQL ledger holds: every row of every table of the schema
 * `context_ledger` in a fixed order, and its catalog (tables, columns, indexes). Equal before and after a
 * refused call means the call changed nothing.
 */
import { createHash } from 'node:crypto'
import type pg from 'pg'

// Literal statements, one per table: SQL is never assembled from names.
const TABLES = [
  'SELECT * FROM context_ledger.identity ORDER BY id',
  'SELECT * FROM context_ledger.sessions ORDER BY pk',
  'SELECT * FROM context_ledger.messages ORDER BY session, seq',
  'SELECT * FROM context_ledger.tool_calls ORDER BY id',
  'SELECT * FROM context_ledger.pin_events ORDER BY id',
  'SELECT * FROM context_ledger.message_edits ORDER BY id',
  'SELECT * FROM context_ledger.summaries ORDER BY id',
  'SELECT * FROM context_ledger.eviction_log ORDER BY session, to_seq, version',
  'SELECT * FROM context_ledger.branch_rows ORDER BY session, seq',
  `SELECT c.relname, c.relkind, a.attname, format_type(a.atttypid, a.atttypmod)
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    WHERE n.nspname = 'context_ledger' ORDER BY c.relname, a.attnum`,
] as const

/**
 * sha256 over all rows of all tables of a PostgreSQL ledger.
 *
 * @param pool - a pool on the ledger's database
 * @returns hex digest
 */
export async function pgLedgerChecksum(pool: pg.Pool): Promise<string> {
  const hash = createHash('sha256')
  for (const sql of TABLES) {
    hash.update(sql)
    const result = await pool.query({ text: sql, rowMode: 'array' })
    for (const row of result.rows) hash.update(JSON.stringify(row))
  }
  return hash.digest('hex')
}
