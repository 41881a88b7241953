/**
 * The session stores bench/claude-agent.ts measures, each behind the SDK's `SessionStore` calls the CLI
 * makes (`append(key, entries)`, `load(key)`):
 *
 *   jsonl:    the CLI's own local transcripts — one JSON line per entry appended to
 *             `<dir>/<projectKey>/<sessionId>.jsonl`, read back whole and parsed line by line;
 *   memory:   the SDK's `InMemorySessionStore` (time only: it writes nothing; its `load` hands back
 *             its own array, no copy);
 *   sqlite:   ours, `LedgerSessionStore` on a SQLite file (WAL, synchronous=NORMAL);
 *   postgres: ours on PostgreSQL (`--postgres`), a database of its own on the bench's server.
 *
 * Bytes written: for the files, the process's `wchar` (/proc/self/io) — for SQLite with a
 * `wal_checkpoint(TRUNCATE)` after the measured calls, so the pages it writes into the database file
 * count too; for PostgreSQL the WAL the server generated (`pg_current_wal_insert_lsn()` before and after:
 * what a commit makes durable; the data pages follow at the server's checkpoints).
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises'
import { statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import {
  InMemorySessionStore,
  type SessionKey,
  type SessionStore,
  type SessionStoreEntry,
} from '@anthropic-ai/claude-agent-sdk'
import pg from 'pg'
import { LedgerSessionStore } from '../src/adapters/claude-agent-sdk/index.js'
import { openPostgresContextStore } from '../src/backends/postgres/index.js'
import { openContextStore } from '../src/index.js'
import { wchar } from './machine.js'

/** The sides, by key, as the report names them. */
export const CLAUDE_SIDES = {
  jsonl: 'JSONL files (the CLI without a store)',
  memory: 'InMemorySessionStore (SDK)',
  sqlite: 'ours, SQLite',
  postgres: 'ours, PostgreSQL',
} as const

/** A side's key. */
export type ClaudeSideKey = keyof typeof CLAUDE_SIDES

/** A store under test, with what it takes to measure it. */
export interface ClaudeSide {
  /** Which. */
  readonly key: ClaudeSideKey
  /** The two calls measured. */
  readonly store: Pick<SessionStore, 'append' | 'load'>
  /** A running count of bytes this side has written (undefined: it writes nothing). */
  written(): Promise<number | undefined>
  /** Writes what is still in a log into the main file, so {@link written} and {@link size} count it. */
  checkpoint(): Promise<void>
  /** Bytes it holds on disk now (undefined: nothing on disk). */
  size(): Promise<number | undefined>
  /** Releases files and connections. */
  close(): Promise<void>
}

/** The CLI's local layout: a JSONL file per transcript. */
export class JsonlSessionStore implements Pick<SessionStore, 'append' | 'load'> {
  /** @param dir - the `projects` folder */
  constructor(private readonly dir: string) {}

  /** The transcript's file. */
  fileOf(key: SessionKey): string {
    const base = join(this.dir, key.projectKey, key.sessionId)
    return key.subpath === undefined ? `${base}.jsonl` : join(base, `${key.subpath}.jsonl`)
  }

  /** Appends one line per entry. */
  async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    const file = this.fileOf(key)
    await mkdir(dirname(file), { recursive: true })
    await appendFile(file, entries.map((e) => `${JSON.stringify(e)}\n`).join(''))
  }

  /** Reads the file whole and parses each line. */
  async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
    let text: string
    try {
      text = await readFile(this.fileOf(key), 'utf8')
    } catch {
      return null
    }
    const out: SessionStoreEntry[] = []
    for (const line of text.split('\n')) if (line !== '') out.push(JSON.parse(line) as SessionStoreEntry)
    return out
  }
}

const fileSize = (path: string): number => {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

const processWritten = (): Promise<number | undefined> => Promise.resolve(wchar() ?? 0)

function jsonl(dir: string, key: SessionKey): ClaudeSide {
  const store = new JsonlSessionStore(dir)
  return {
    key: 'jsonl',
    store,
    written: processWritten,
    checkpoint: () => Promise.resolve(),
    size: () => Promise.resolve(fileSize(store.fileOf(key))),
    close: () => Promise.resolve(),
  }
}

function memory(): ClaudeSide {
  return {
    key: 'memory',
    store: new InMemorySessionStore(),
    written: () => Promise.resolve(undefined),
    checkpoint: () => Promise.resolve(),
    size: () => Promise.resolve(undefined),
    close: () => Promise.resolve(),
  }
}

function sqlite(file: string): ClaudeSide {
  const ledger = openContextStore(file)
  return {
    key: 'sqlite',
    store: new LedgerSessionStore({ store: ledger }),
    written: processWritten,
    checkpoint: () => {
      ledger.connection().pragma('wal_checkpoint(TRUNCATE)')
      return Promise.resolve()
    },
    size: () => Promise.resolve(fileSize(file) + fileSize(`${file}-wal`)),
    close: () => {
      ledger.close()
      return Promise.resolve()
    },
  }
}

async function postgres(url: string): Promise<ClaudeSide> {
  const ledger = await openPostgresContextStore({ connectionString: url })
  const probe = new pg.Client({ connectionString: url })
  await probe.connect()
  const one = async (sql: string): Promise<number> => {
    const { rows } = await probe.query<{ v: string }>(sql)
    return Number(rows[0]?.v)
  }
  const empty = await one('SELECT pg_database_size(current_database())::text AS v')
  return {
    key: 'postgres',
    store: new LedgerSessionStore({ store: ledger }),
    written: () => one("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::text AS v"),
    checkpoint: () => Promise.resolve(),
    size: async () => (await one('SELECT pg_database_size(current_database())::text AS v')) - empty,
    close: async () => {
      await probe.end()
      await ledger.close()
    },
  }
}

/**
 * Opens a side on fresh storage.
 *
 * @param key - which
 * @param where - a scratch folder of its own (files), or a fresh database's URL (PostgreSQL)
 * @param session - the key the bench writes (the JSONL side's file is its)
 * @returns the side
 */
export async function openClaudeSide(
  key: ClaudeSideKey,
  where: string,
  session: SessionKey,
): Promise<ClaudeSide> {
  if (key === 'jsonl') return jsonl(where, session)
  if (key === 'memory') return memory()
  if (key === 'sqlite') return sqlite(join(where, 'ledger.db'))
  return postgres(where)
}
