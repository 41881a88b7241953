/**
 * The reference the benchmarks compare against: a hand-written better-sqlite3 store doing the least a
 * conversation store must do — serialize each message, insert one row per message (similar columns, one
 * UNIQUE index on (session, seq)), bump the session row, all in one transaction; and read the last N rows
 * back with JSON.parse. Same pragmas as the library: WAL, synchronous=NORMAL, and a checkpoint at the
 * store's log size; SQLite's default page size (4 KiB), where a ledger has 1 KiB pages.
 */
import { randomUUID } from 'node:crypto'
import Database from 'better-sqlite3'
import type { MessageData } from '../src/index.js'

/** A message already serialized: what {@link RawBaseline.appendSerialized} writes. */
export interface SerializedRow {
  readonly uid: string
  readonly role: string
  readonly tokens: number
  readonly body: string
}

/**
 * Serializes messages the way the baseline stores them (tracking id added, `JSON.stringify`).
 *
 * @param messages - the messages
 * @returns one row each
 */
export function serialize(messages: readonly MessageData[]): SerializedRow[] {
  return messages.map((m) => {
    const uid = m.trackingId ?? randomUUID()
    const body = JSON.stringify(m.trackingId === undefined ? { ...m, trackingId: uid } : m)
    return { uid, role: m.role, tokens: body.length >> 2, body }
  })
}

/** A raw better-sqlite3 message table with no window logic at all. */
export class RawBaseline {
  private readonly db: Database.Database
  private readonly insert: Database.Statement
  private readonly bump: Database.Statement
  private readonly createSession: Database.Statement
  private readonly lastN: Database.Statement
  private readonly appendTx: Database.Transaction<(session: number, rows: readonly SerializedRow[]) => void>
  private readonly counts = new Map<number, number>()

  /**
   * @param path - the database file (created)
   * @param walCheckpointBytes - log size at which SQLite checkpoints automatically; pass the store's
   *   (`WAL_CHECKPOINT_BYTES`), so both sides checkpoint at the same log size whatever their page sizes.
   *   Default: SQLite's 1,000 pages
   */
  constructor(path: string, walCheckpointBytes?: number) {
    this.db = new Database(path)
    this.db.pragma('journal_mode = WAL')
    this.db.pragma('synchronous = NORMAL')
    // A WAL frame is a page and its 24-byte header; wal_autocheckpoint counts frames.
    const pageSize = this.db.pragma('page_size', { simple: true }) as number
    const frames = walCheckpointBytes === undefined ? 1000 : Math.round(walCheckpointBytes / (pageSize + 24))
    // eslint-disable-next-line no-restricted-syntax -- an integer setting of the baseline itself, not input
    this.db.pragma(`wal_autocheckpoint = ${frames}`)
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS sessions (
        id INTEGER PRIMARY KEY, message_count INTEGER NOT NULL, total_tokens INTEGER NOT NULL,
        updated_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS messages (
        id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL, seq INTEGER NOT NULL, uid TEXT NOT NULL,
        role TEXT NOT NULL, tokens INTEGER NOT NULL, pinned INTEGER NOT NULL DEFAULT 0, body TEXT NOT NULL);
      CREATE UNIQUE INDEX IF NOT EXISTS messages_session_seq ON messages (session_id, seq);`)
    this.insert = this.db.prepare(
      'INSERT INTO messages (session_id, seq, uid, role, tokens, body) VALUES (?, ?, ?, ?, ?, ?)',
    )
    this.createSession = this.db.prepare(
      'INSERT INTO sessions (id, message_count, total_tokens, updated_at) VALUES (?, 0, 0, ?)',
    )
    this.bump = this.db.prepare(
      'UPDATE sessions SET message_count = ?, total_tokens = total_tokens + ?, updated_at = ? WHERE id = ?',
    )
    this.lastN = this.db
      .prepare('SELECT body FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT ?')
      .pluck()
    this.appendTx = this.db.transaction((session: number, rows: readonly SerializedRow[]) => {
      let seq = this.counts.get(session)
      if (seq === undefined) {
        this.createSession.run(session, Date.now())
        seq = 0
      }
      let tokens = 0
      for (const r of rows) {
        tokens += r.tokens
        this.insert.run(session, seq++, r.uid, r.role, r.tokens, r.body)
      }
      this.bump.run(seq, tokens, Date.now(), session)
      this.counts.set(session, seq)
    })
  }

  /**
   * Stores messages in one transaction: per message a tracking id, `JSON.stringify`, one INSERT; then one
   * UPDATE of the session row (the row is created on first use).
   *
   * @param session - session key
   * @param messages - messages, oldest first
   */
  append(session: number, messages: readonly MessageData[]): void {
    this.appendTx(session, serialize(messages))
  }

  /**
   * The strictest reference: rows already serialized, so only the SQLite work is timed.
   *
   * @param session - session key
   * @param rows - rows from {@link serialize}
   */
  appendSerialized(session: number, rows: readonly SerializedRow[]): void {
    this.appendTx(session, rows)
  }

  /**
   * The last `n` messages in seq order: `ORDER BY seq DESC LIMIT n`, reversed, each body JSON.parsed.
   *
   * @param session - session key
   * @param n - how many
   * @returns the messages, oldest first
   */
  lastMessages(session: number, n: number): MessageData[] {
    const bodies = this.lastN.all(session, n) as string[]
    const out = new Array<MessageData>(bodies.length)
    for (let i = 0; i < bodies.length; i++)
      out[bodies.length - 1 - i] = JSON.parse(bodies[i] as string) as MessageData
    return out
  }

  /** Closes the connection. */
  close(): void {
    this.db.close()
  }
}
