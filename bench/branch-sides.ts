/**
 * The backends `npm run bench -- --branches [--postgres]` measures (bench/branches.ts): the same awaited
 * calls on SQLite (the synchronous store, each call wrapped in a resolved Promise — the same wrapper on
 * both sides of every ratio) and on PostgreSQL, how each fills a large session fast, and how each counts
 * what a call wrote: rows (SQLite: `total_changes()` of the store's connection, trigger rows included;
 * PostgreSQL: inserted + updated + deleted tuples of the ledger's tables, `pg_stat_user_tables` once the
 * store's connections have reported them) and bytes (SQLite: the WAL after a TRUNCATE checkpoint, in
 * frames of one page; PostgreSQL: the WAL position's advance).
 */
import { statSync } from 'node:fs'
import pg from 'pg'
import {
  estimateTokens,
  openContextStore,
  type ContextStore,
  type LedgerEntry,
  type MessageData,
  type SearchHit,
  type SessionSummary,
  type WindowLimits,
} from '../src/index.js'
import { openPostgresContextStore, type PostgresContextStore } from '../src/backends/postgres/index.js'
import { createDatabase } from '../test/postgres/server.js'
import type { Scratch } from './harness.js'

/** The calls the branch bench makes, awaited on either backend. */
export interface BenchStore {
  append(sessionId: string, messages: readonly MessageData[]): Promise<unknown>
  applyWindow(sessionId: string, limits: WindowLimits): Promise<unknown>
  window(sessionId: string): Promise<unknown[]>
  fork(sessionId: string, options: { atSeq: number; newSessionId: string }): Promise<{ sessionId: string }>
  search(query: string, options?: { sessionId?: string }): Promise<SearchHit[]>
  history(sessionId: string, options: { fromSeq: number; limit: number }): Promise<LedgerEntry[]>
  session(sessionId: string): Promise<SessionSummary | undefined>
}

/** What the ledger has written so far. */
export interface Written {
  /** Rows inserted, updated or deleted. */
  readonly rows: number
  /** Bytes of log written since the last {@link BranchSide.settle}. */
  readonly bytes: number
  /** SQLite: pages (WAL frames) written since the last settle; PostgreSQL: undefined. */
  readonly pages: number | undefined
}

/** One backend under measurement. */
export interface BranchSide {
  /** `SQLite` or `PostgreSQL`. */
  readonly name: string
  readonly store: BenchStore
  /**
   * Fills a new session with `texts.length` messages, alternating user and assistant text, the window
   * cut to its last 40 — through the store's own batch append (SQLite), or one server-side INSERT a batch
   * of the rows the store writes (PostgreSQL: a million appends through the store take minutes).
   */
  fill(sessionId: string, texts: (i: number) => string, n: number): Promise<void>
  /** Checkpoints (SQLite) so the next write's log is its own; then what was written so far. */
  settle(): Promise<Written>
  /** What was written so far (the bytes since the last settle). */
  written(): Promise<Written>
  close(): Promise<void>
}

const WINDOW_LIMITS: WindowLimits = { windowSize: 40, tokenBudget: undefined, first: 0, last: 0 }
const BATCH = 1_000

/** Messages `from`..`to - 1` of a filled session. */
function textMessages(texts: (i: number) => string, from: number, to: number): MessageData[] {
  return Array.from({ length: to - from }, (_, k) => ({
    role: (from + k) % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: [{ text: texts(from + k) }],
  }))
}

/** The fork call of a store that has it (the branch API, BRANCH-SPEC.md). */
type Forking = {
  fork(sessionId: string, options: object): { sessionId: string } | Promise<{ sessionId: string }>
}

/**
 * SQLite: a ledger file in `scratch`.
 *
 * @param scratch - where the file goes
 * @returns the side
 */
export function sqliteSide(scratch: Scratch): BranchSide {
  const path = scratch.file('branches.db')
  const s: ContextStore = openContextStore(path)
  const db = s.connection()
  const changes = db.prepare<[], number>('SELECT total_changes()').pluck()
  const pageSize = Number(db.pragma('page_size', { simple: true }))
  const walBytes = (): number => {
    try {
      return statSync(`${path}-wal`).size
    } catch {
      return 0
    }
  }
  const written = (): Written => {
    const bytes = walBytes()
    return { rows: changes.get() ?? 0, bytes, pages: Math.max(0, Math.round((bytes - 32) / (pageSize + 24))) }
  }
  // Each call as the PostgreSQL store's: a Promise, rejected with what the call threw.
  const later = <T>(fn: () => T): Promise<T> =>
    new Promise((resolve) => {
      resolve(fn())
    })
  const store: BenchStore = {
    append: (id, messages) => later(() => s.append(id, messages)),
    applyWindow: (id, limits) => later(() => s.applyWindow(id, limits)),
    window: (id) => later(() => s.window(id)),
    fork: async (id, options) => (s as unknown as Forking).fork(id, options),
    search: (q, options) => later(() => s.search(q, options)),
    history: (id, options) => later(() => s.history(id, options)),
    session: (id) => later(() => s.session(id)),
  }
  return {
    name: 'SQLite',
    store,
    async fill(sessionId, texts, n) {
      for (let at = 0; at < n; at += BATCH) {
        s.append(sessionId, textMessages(texts, at, Math.min(n, at + BATCH)))
        s.applyWindow(sessionId, WINDOW_LIMITS)
        // The full-text index catches up on the event loop's next turn, as an agent's appends let it.
        await new Promise((resolve) => setImmediate(resolve))
      }
    },
    settle: () =>
      later(() => {
        db.pragma('wal_checkpoint(TRUNCATE)')
        return written()
      }),
    written: () => later(written),
    close: () =>
      later(() => {
        s.close()
      }),
  }
}

/** One batch of a filled session's rows, as the store writes them (bench/postgres.ts fills the same way). */
const PG_FILL = `INSERT INTO context_ledger.messages (session, seq, uid, role, body, tokens, cum_tokens, plain_user,
  trim_point, pair_start, has_tool_use, has_tool_result, created_at)
SELECT $1::bigint, $2::int + t.k - 1, $3::text || '-' || ($2::int + t.k - 1),
  CASE WHEN ($2::int + t.k) % 2 = 1 THEN 'user' ELSE 'assistant' END,
  json_build_object('role', CASE WHEN ($2::int + t.k) % 2 = 1 THEN 'user' ELSE 'assistant' END,
    'content', json_build_array(json_build_object('text', t.text)), 'trackingId', $3::text || '-' || ($2::int + t.k - 1))::text,
  t.tokens, $4::bigint + sum(t.tokens) OVER (ORDER BY t.k), ($2::int + t.k) % 2 = 1, ($2::int + t.k) % 2 = 1,
  false, false, false, $5::bigint
FROM unnest($6::text[], $7::int[]) WITH ORDINALITY AS t(text, tokens, k)`

/**
 * PostgreSQL: a new database on the server `admin` names.
 *
 * @param admin - the server's admin connection string
 * @returns the side
 */
export async function postgresSide(admin: string): Promise<BranchSide> {
  const database = await createDatabase(admin)
  const s: PostgresContextStore = await openPostgresContextStore({
    connectionString: database.url,
    maxConnections: 4,
  })
  const raw = new pg.Client({ connectionString: database.url })
  await raw.connect()
  const lsn = async (): Promise<string> =>
    (await raw.query<{ l: string }>('SELECT pg_current_wal_insert_lsn()::text AS l')).rows[0]?.l ?? '0/0'
  let since = await lsn()
  const written = async (): Promise<Written> => {
    // The store's connections report their counts when idle, at most once a second.
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    await raw.query('SELECT pg_stat_clear_snapshot()')
    const r = await raw.query<{ rows: string; bytes: string }>(
      `SELECT (SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_user_tables
          WHERE schemaname = 'context_ledger')::text AS rows,
        pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::text AS bytes`,
      [since],
    )
    return { rows: Number(r.rows[0]?.rows ?? 0), bytes: Number(r.rows[0]?.bytes ?? 0), pages: undefined }
  }
  const store: BenchStore = {
    append: (id, messages) => s.append(id, messages),
    applyWindow: (id, limits) => s.applyWindow(id, limits),
    window: (id) => s.window(id),
    fork: async (id, options) => (s as unknown as Forking).fork(id, options),
    search: (q, options) => s.search(q, options),
    history: (id, options) => s.history(id, options),
    session: (id) => s.session(id),
  }
  return {
    name: 'PostgreSQL',
    store,
    async fill(sessionId, texts, n) {
      // The session row and its first message through the store, the rest in server-side batches.
      await s.append(sessionId, textMessages(texts, 0, 1))
      const pk = (
        await raw.query<{ pk: string }>('SELECT pk FROM context_ledger.sessions WHERE id = $1', [sessionId])
      ).rows[0]?.pk
      const first = (await s.session(sessionId))?.totalTokens ?? 0
      let cum = first
      for (let at = 1; at < n; at += BATCH * 10) {
        const batch = textMessages(texts, at, Math.min(n, at + BATCH * 10))
        const tokens = batch.map((m) => estimateTokens(m))
        await raw.query(PG_FILL, [
          pk,
          at,
          sessionId,
          cum,
          Date.now(),
          batch.map((m) => (m.content[0] as { text: string }).text),
          tokens,
        ])
        cum += tokens.reduce((a, t) => a + t, 0)
      }
      await s.applyWindow(sessionId, WINDOW_LIMITS)
      await raw.query('ANALYZE')
    },
    settle: async () => {
      since = await lsn()
      return written()
    },
    written,
    close: async () => {
      await raw.end()
      await s.close()
      await database.drop()
    },
  }
}
