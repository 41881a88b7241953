/**
 * Every public read goes through the same error mapping as the writes: whatever SQLite or the decoding
 * of a stored row throws reaches the caller as a `ContextLedgerError` with the original as `cause` —
 * never a raw `SqliteError` or `SyntaxError`. The file is damaged behind the store's back by a second
 * connection: a table renamed away (every statement on it fails), or a stored body overwritten with
 * something that is not JSON.
 */
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openContextStore, type ContextStore, type ErrorCode } from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'
import { refusal } from '../helpers/refusal.js'

const dir = useTempDir('context-ledger-rel-')
let store: ContextStore
let path: string

beforeEach(() => {
  path = dir.file('ledger.db')
  const writer = openContextStore(path)
  writer.append('s', [
    { role: 'user', content: [{ text: 'q' }] },
    { role: 'assistant', content: [{ text: 'a' }] },
  ])
  writer.pin('s', { seq: 1 }, {}, { windowSize: 40, tokenBudget: undefined, first: 0, last: 0 })
  writer.close()
  // A fresh store: no session key cached, so every read looks the session up.
  store = openContextStore(path)
})
afterEach(() => {
  store.close()
})

/** Runs SQL on a second connection, behind the store's back. */
function behindTheBack(sql: string): void {
  const db = new Database(path)
  db.exec(sql)
  db.close()
}

const reads: [string, () => unknown][] = [
  ['window', () => store.window('s')],
  ['pinEvents', () => store.pinEvents('s')],
  ['pinnedMessages (one session)', () => store.pinnedMessages({ sessionId: 's' })],
  ['pinnedMessages (all sessions)', () => store.pinnedMessages()],
  ['history', () => store.history('s')],
  ['sessions', () => store.sessions()],
  ['session', () => store.session('s')],
  ['message', () => store.message('s', { seq: 1 })],
]

describe('every read maps storage errors', () => {
  it.each(reads)(
    '%s: a table renamed behind the store’s back gives STORAGE_ERROR, not a SqliteError',
    (_name, read) => {
      behindTheBack('ALTER TABLE sessions RENAME TO sessions_gone')
      const error = refusal(read)
      expect(error.code).toBe<ErrorCode>('STORAGE_ERROR')
      expect((error.cause as { code?: string }).code).toBe('SQLITE_ERROR')
    },
  )

  // The reads that decode stored bodies.
  const decoding = reads.filter(([name]) => !/^(session|pinEvents)/.test(name))
  it.each(decoding)(
    '%s: a stored body that is not JSON gives CORRUPT_DATABASE, not a SyntaxError',
    (_name, read) => {
      behindTheBack(`UPDATE messages SET body = '{"role":' WHERE seq = 1`)
      const error = refusal(read)
      expect(error.code).toBe<ErrorCode>('CORRUPT_DATABASE')
      expect(error.cause).toBeInstanceOf(SyntaxError)
    },
  )
})
