/**
 * Databases of the conformance suite used again: a copy of the run's migrated template costs ~400 ms to
 * make here (a checkpoint for the file copy), a reset ~80 ms. A database is reset by truncating the
 * ledger's tables (identities restarted) and setting the log clock back, and handed out again only when
 * it then reads as the template does: its schema, grants, settings and every table's rows (see
 * {@link fingerprint}); anything else — a column a hostile test added, a setting, a connection still
 * open — and it is dropped instead.
 */
import pg from 'pg'
import { query } from './server.js'

const USER_SCHEMAS = `NOT IN ('pg_catalog', 'information_schema', 'pg_toast')`

/**
 * Everything a test could leave in a database that a reset does not undo, as one JSON text: schemas,
 * relations (with grants), columns, indexes, constraints, functions, triggers, sequences, the database's
 * own settings and limits, and a hash of each table's rows.
 */
const FINGERPRINT = `
SELECT json_build_object(
  'database', (SELECT json_build_object('acl', datacl, 'limit', datconnlimit, 'allow', datallowconn)
               FROM pg_database WHERE datname = current_database()),
  'settings', (SELECT json_agg(setconfig ORDER BY setrole) FROM pg_db_role_setting
               WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())),
  'schemas', (SELECT json_agg(nspname || ':' || coalesce(nspacl::text, '') ORDER BY nspname)
              FROM pg_namespace WHERE nspname ${USER_SCHEMAS} AND nspname NOT LIKE 'pg_%'),
  'relations', (SELECT json_agg(x ORDER BY x) FROM (
    SELECT n.nspname || '.' || c.relname || ':' || c.relkind::text || ':' || coalesce(c.relacl::text, '') AS x
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname ${USER_SCHEMAS} AND n.nspname NOT LIKE 'pg_%') r),
  'columns', (SELECT json_agg(x ORDER BY x) FROM (
    SELECT table_schema || '.' || table_name || '.' || column_name || ':' || data_type || ':' || is_nullable
      || ':' || coalesce(column_default, '') AS x
    FROM information_schema.columns WHERE table_schema ${USER_SCHEMAS}) r),
  'indexes', (SELECT json_agg(indexdef ORDER BY indexdef) FROM pg_indexes WHERE schemaname ${USER_SCHEMAS}),
  'constraints', (SELECT json_agg(x ORDER BY x) FROM (
    SELECT conrelid::regclass::text || ':' || conname || ':' || pg_get_constraintdef(c.oid) AS x
    FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname ${USER_SCHEMAS}) r),
  'functions', (SELECT json_agg(x ORDER BY x) FROM (
    SELECT p.oid::regprocedure::text || ':' || md5(pg_get_functiondef(p.oid)) AS x
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname ${USER_SCHEMAS} AND p.prokind = 'f') r),
  'triggers', (SELECT json_agg(tgrelid::regclass::text || ':' || tgname ORDER BY tgrelid::regclass::text, tgname)
               FROM pg_trigger WHERE NOT tgisinternal),
  'sequences', (SELECT json_agg(x ORDER BY x) FROM (
    SELECT schemaname || '.' || sequencename || ':' || coalesce(last_value::text, '') AS x FROM pg_sequences) r),
  'rows', (SELECT json_agg(x ORDER BY x) FROM (
    SELECT schemaname || '.' || tablename || ':' || (xpath('/row/h/text()', query_to_xml(format(
      'SELECT md5(coalesce(string_agg(t::text, %L ORDER BY t::text), %L)) AS h FROM %I.%I t',
      E'\\n', '', schemaname, tablename), false, true, '')))[1]::text AS x
    FROM pg_tables WHERE schemaname ${USER_SCHEMAS}) r)
)::text AS fingerprint`

/**
 * The fingerprint of the database at `url` (see {@link FINGERPRINT}).
 *
 * @param url - its connection string
 * @returns the fingerprint text
 */
export async function fingerprint(url: string): Promise<string> {
  return (await query<{ fingerprint: string }>(url, FINGERPRINT))[0]?.fingerprint ?? ''
}

/**
 * Resets a copy of the ledger template: the ledger's tables truncated, their identities restarted, the
 * log clock back at 0.
 *
 * @param url - the database's connection string (nothing else connected to it)
 * @param template - the fingerprint of a fresh copy of the template
 * @returns true when the database now reads as a fresh copy; false when it does not, or another
 *   connection is still open on it, or the reset failed (drop it)
 */
export async function resetToTemplate(url: string, template: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url })
  try {
    await client.connect()
    // A connection left open (a killed worker's, not yet noticed) could hold locks, or write after the
    // reset: such a database is not handed out again.
    await client.query(`SET lock_timeout = '2s'`)
    const others = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    )
    if (others.rows[0]?.n !== 0) return false
    const tables = await client.query<{ name: string }>(
      `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
       WHERE schemaname = 'context_ledger' AND tablename <> 'identity'`,
    )
    await client.query(
      `TRUNCATE ${tables.rows.map((t) => t.name).join(', ')} RESTART IDENTITY;
       UPDATE context_ledger.identity SET log_clock = 0`,
    )
    return (await client.query<{ fingerprint: string }>(FINGERPRINT)).rows[0]?.fingerprint === template
  } catch {
    return false
  } finally {
    await client.end().catch(() => undefined)
  }
}
