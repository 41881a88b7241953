/**
 * `context-ledger stats <file>`: the file (bytes, WAL, pages, schema version) and messages and tokens per
 * session. It reads only what every schema version has, so it also describes a file written by an older
 * context-ledger (without upgrading it).
 */
import { statSync } from 'node:fs'
import type Database from 'better-sqlite3'
import { readIntegerPragma } from '../../db/pragmas.js'
import { prepareSpec } from '../../db/typed-statement.js'
import { bytes, count, iso, time, visible } from '../format.js'
import { inspect } from '../open-ledger.js'
import type { CommandContext } from '../program.js'
import { CLI_READS } from '../statements.js'
import { printTable } from '../table.js'

function sizeOf(path: string): number | null {
  try {
    return statSync(path).size
  } catch {
    return null
  }
}

function textPragma(db: Database.Database, name: 'journal_mode'): string {
  const v: unknown = db.pragma(name, { simple: true })
  return typeof v === 'string' ? v : String(v)
}

/**
 * Runs `stats`.
 *
 * @param ctx - output
 * @param file - the ledger
 * @param options - `json`
 * @returns the exit code
 */
export function stats(ctx: CommandContext, file: string, options: { json?: boolean }): number {
  const ledger = inspect(file, { older: true })
  try {
    const db = ledger.db
    const pageSize = readIntegerPragma(db, 'page_size')
    const pageCount = readIntegerPragma(db, 'page_count')
    const freePages = db.pragma('freelist_count', { simple: true }) as number
    const sessions = prepareSpec(db, CLI_READS.sizes).all()
    const report = {
      file,
      bytes: sizeOf(file),
      walBytes: sizeOf(`${file}-wal`),
      shmBytes: sizeOf(`${file}-shm`),
      pageSize,
      pageCount,
      freePages,
      journalMode: textPragma(db, 'journal_mode'),
      schemaVersion: ledger.schemaVersion,
      currentSchemaVersion: ledger.current,
      sessionCount: sessions.length,
      messages: sessions.reduce((n, s) => n + s.messages, 0),
      tokens: sessions.reduce((n, s) => n + s.tokens, 0),
      sessions: sessions.map((s) => ({
        id: s.id,
        messages: s.messages,
        tokens: s.tokens,
        createdAt: iso(s.created_at),
        lastMessageAt: iso(s.last_message_at),
      })),
    }
    const out = ctx.out
    if (options.json === true) {
      out.json(report)
      return 0
    }
    const c = out.color
    const kv = (k: string, v: string): void => {
      out.line(`${c.bold(k.padEnd(16))}${v}`)
    }
    kv('file', `${visible(file)}  ${report.bytes === null ? '' : bytes(report.bytes)}`)
    kv('write-ahead log', report.walBytes === null ? 'none' : bytes(report.walBytes))
    kv('pages', `${count(pageCount)} of ${bytes(pageSize)} (${count(freePages)} free)`)
    kv('journal mode', report.journalMode)
    kv(
      'schema version',
      ledger.kind === 'current'
        ? `${ledger.schemaVersion} (current)`
        : `${ledger.schemaVersion} — this context-ledger reads ${ledger.current}; upgrade with: context-ledger upgrade ${visible(file)}`,
    )
    kv('sessions', count(report.sessionCount))
    kv('messages', `${count(report.messages)} (${count(report.tokens)} tokens)`)
    if (sessions.length > 0) {
      out.line()
      printTable(
        out,
        [
          { head: 'messages', align: 'right' },
          { head: 'tokens', align: 'right' },
          { head: 'last message (UTC)' },
          { head: 'session' },
        ],
        [...sessions]
          .sort((a, b) => b.messages - a.messages)
          .map((s) => [count(s.messages), count(s.tokens), time(s.last_message_at ?? undefined), s.id]),
      )
    }
    return 0
  } finally {
    ledger.db.close()
  }
}
