/**
 * Opening a ledger on a PostgreSQL server: checking the options, making (or taking) the pool, and
 * deciding what the database holds before anything is written (see `migrate.ts`).
 */
import pg from 'pg'
import { z } from 'zod'
import { ContextLedgerError } from '../../errors.js'
import { resolveMessageLimits, type MessageLimits } from '../../messages/limits.js'
import { optionsError } from '../../window/window-options.js'
import { Database } from './database.js'
import { toPgLedgerError } from './pg-errors.js'
import { migratePg, readPgMigrations, readState } from './migrate.js'
import { PostgresContextStore } from './store.js'

/** Options of {@link openPostgresContextStore}. */
export interface PostgresContextStoreOptions {
  /**
   * A connection string (`postgres://user:password@host:5432/db`). Without it and without `pool`, the
   * standard `PG*` environment variables are used.
   */
  connectionString?: string | undefined
  /**
   * A node-postgres pool to use instead. The store does not end it on close. While open, it listens on
   * the pool's `'error'` (a connection lost while idle, which would otherwise end the process); give
   * the pool a listener of your own for the time before and after (docs/postgres.md#pooling).
   */
  pool?: pg.Pool | undefined
  /** Connections of the pool the store makes (default 10). */
  maxConnections?: number | undefined
  /** Refuse every write (`READ_ONLY`) and never migrate (an older schema is `SCHEMA_TOO_OLD`). */
  readonly?: boolean | undefined
  /** Refuse a database without a ledger (`NOT_A_LEDGER`) instead of creating one. */
  mustExist?: boolean | undefined
  /** Validation limits for incoming messages, as for `openContextStore`. */
  limits?: Partial<MessageLimits> | undefined
}

const schema = z.strictObject({
  connectionString: z.string().min(1).optional(),
  pool: z.custom<pg.Pool>((v) => v instanceof pg.Pool, 'expected a pg.Pool').optional(),
  maxConnections: z.number().int().min(1).max(10_000).optional(),
  readonly: z.boolean().optional(),
  mustExist: z.boolean().optional(),
  limits: z.unknown().optional(),
})

/**
 * The session settings the store's own connections start with: plan each statement once per connection
 * (they are fixed shapes; re-planning the snapshot query on every call cost more than running it), and
 * since such a plan outlives the table sizes it was made for, keep it on the indexes every statement is
 * written for (a scan of a table that was tiny when the plan was made grows with the table). See
 * docs/postgres.md#pooling.
 */
const SESSION_OPTIONS = '-c plan_cache_mode=force_generic_plan -c enable_seqscan=off'

/** Connections (and the plans they hold) are replaced after this long, so plans follow the statistics. */
const CONNECTION_LIFETIME_SECONDS = 300

/**
 * Opens a ledger on a PostgreSQL server, creating its schema (`context_ledger`) or migrating it as needed
 * — under an advisory lock, so workers starting together migrate once.
 *
 * @param options - where the server is (`connectionString` or `pool`), `readonly`, `mustExist`, `limits`
 * @returns the store
 * @throws ContextLedgerError `INVALID_OPTIONS` naming a bad option; `NOT_A_LEDGER` or `SCHEMA_TOO_NEW` (the
 *   database is left untouched); `SCHEMA_TOO_OLD` for a ledger that needs migrating opened `readonly`;
 *   `STORAGE_ERROR` when the server cannot be reached
 *
 * @example
 * ```ts
 * const store = await openPostgresContextStore({ connectionString: process.env.DATABASE_URL })
 * ```
 */
export async function openPostgresContextStore(
  options: PostgresContextStoreOptions = {},
): Promise<PostgresContextStore> {
  const parsed = schema.safeParse(options)
  if (!parsed.success) throw optionsError(parsed.error, 'openPostgresContextStore')
  const o = parsed.data
  if (o.pool !== undefined && o.connectionString !== undefined)
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      'Invalid openPostgresContextStore options: give connectionString or pool, not both',
      { path: 'pool' },
    )
  const limits = resolveMessageLimits(o.limits, 'limits')
  const pool =
    o.pool ??
    new pg.Pool({
      ...(o.connectionString === undefined ? {} : { connectionString: o.connectionString }),
      max: o.maxConnections ?? 10,
      maxLifetimeSeconds: CONNECTION_LIFETIME_SECONDS,
      // Added to PGOPTIONS; an `options` parameter in the connection string replaces both.
      options: [process.env.PGOPTIONS, SESSION_OPTIONS].filter((x) => x !== undefined && x !== '').join(' '),
    })
  // The database listens on the pool's 'error' while the store is open (an idle client that lost its
  // connection must not end the process: the pool drops it and the next query connects anew).
  const db = new Database(pool, o.pool === undefined)
  const where = describe(o.connectionString)
  try {
    const migrations = readPgMigrations()
    const state = await readState((text, values) => db.query(text, values), where, migrations.length)
    if (state === 'fresh' && (o.mustExist === true || o.readonly === true))
      throw new ContextLedgerError(
        'NOT_A_LEDGER',
        `${where} holds no context-ledger (${o.readonly === true ? 'readonly' : 'mustExist'}: true); it was not modified`,
      )
    if (state !== 'current') {
      if (o.readonly === true)
        throw new ContextLedgerError(
          'SCHEMA_TOO_OLD',
          `${where} holds a ledger of an older schema; open it without readonly once to migrate it`,
        )
      await migratePg(db, where, migrations)
    }
  } catch (error) {
    await db.close()
    throw toPgLedgerError(error, `open ${where}`)
  }
  return new PostgresContextStore(db, where, limits, o.readonly ?? false)
}

/** The database a connection string names, without its password, for messages. */
function describe(connectionString: string | undefined): string {
  if (connectionString === undefined) return 'the PostgreSQL database'
  try {
    const url = new URL(connectionString)
    return `PostgreSQL database ${url.pathname.replace(/^\//, '') || '(default)'} on ${url.host}`
  } catch {
    return 'the PostgreSQL database'
  }
}
