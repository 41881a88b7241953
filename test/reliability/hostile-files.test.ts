/**
 * Files that are not a healthy ledger of ours are refused with their own code and never modified: random
 * bytes, a forged SQLite header, a ledger cut short anywhere, another application's database (rollback
 * or WAL journal, with or without tables), and a ledger written by a newer schema. "Never modified" is
 * checked on the bytes of the file, and no side file (-wal, -shm, -journal) may be left behind.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { copyFileSync, existsSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { openContextStore, type ContextLedgerError, type ErrorCode } from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'
import { refusal } from '../helpers/refusal.js'
import { fileHash } from './support.js'
import { fcRuns } from '../helpers/runs.js'

const dir = useTempDir('context-ledger-rel-')

/** Opens `path`, expects `code`, and checks the file and its neighbours are exactly as before. */
function expectRefused(path: string, code: ErrorCode | readonly ErrorCode[]): ContextLedgerError {
  const before = fileHash(path)
  const siblings = readdirSync(dir.path).sort()
  const error = refusal(() => {
    openContextStore(path).close()
  })
  expect(typeof code === 'string' ? [code] : code, error.message).toContain(error.code)
  expect(error.message).toContain(path)
  expect(fileHash(path)).toBe(before)
  expect(readdirSync(dir.path).sort()).toStrictEqual(siblings)
  return error
}

/** A real ledger with tool calls, pins and a moved boundary, checkpointed into the main file. */
function makeLedger(path: string): void {
  const store = openContextStore(path)
  for (let i = 0; i < 60; i++)
    store.append('s', [
      { role: 'user', content: [{ text: `question ${i} ${'q'.repeat(300)}` }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: `c${i}`, name: 'f', input: { i } } }] },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: `c${i}`, status: 'success', content: [{ text: 'r'.repeat(200) }] } },
        ],
      },
      { role: 'assistant', content: [{ text: `answer ${i}` }] },
    ])
  store.pin('s', { seq: 4 }, {}, { windowSize: 8, tokenBudget: undefined, first: 0, last: 0 })
  store.applyWindow('s', { windowSize: 8, tokenBudget: undefined, first: 0, last: 0 })
  store.close()
}

describe('hostile files', () => {
  it('refuses random bytes as NOT_A_LEDGER', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom(1, 2, 15, 16, 99, 100, 512, 4096), fc.integer({ min: 1, max: 64 * 1024 })),
        (size) => {
          const path = dir.file(`random-${size}.db`)
          const bytes = randomBytes(size)
          // A file starting like SQLite's magic is a truncated database, refused as CORRUPT_DATABASE.
          if (bytes[0] === 0x53) bytes[0] = 0
          writeFileSync(path, bytes)
          expectRefused(path, 'NOT_A_LEDGER')
        },
      ),
      { numRuns: fcRuns(20) },
    )
  })

  it('refuses a named pipe (FIFO) as NOT_A_LEDGER at once, where opening it blocked until a writer came', () => {
    const path = dir.file('pipe.db')
    execFileSync('mkfifo', [path])
    const siblings = readdirSync(dir.path).sort()
    const error = refusal(() => {
      openContextStore(path).close()
    })
    expect(error.code).toBe('NOT_A_LEDGER')
    expect(error.message).toContain(`${path} is a named pipe (FIFO)`)
    expect(readdirSync(dir.path).sort()).toStrictEqual(siblings)
  })

  it('refuses a forged SQLite header over random pages without touching the file', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 16 }), (pages) => {
        const path = dir.file(`forged-${pages}.db`)
        const bytes = randomBytes(pages * 4096)
        bytes.write('SQLite format 3\0', 0, 'latin1')
        bytes.writeUInt16BE(4096, 16)
        writeFileSync(path, bytes)
        expectRefused(path, ['NOT_A_LEDGER', 'CORRUPT_DATABASE'])
      }),
      { numRuns: fcRuns(10) },
    )
  })

  it('refuses a ledger cut short anywhere as CORRUPT_DATABASE', () => {
    const ledger = dir.file('ledger.db')
    makeLedger(ledger)
    const size = statSync(ledger).size
    expect(size).toBeGreaterThan(8 * 4096)
    const cuts = [50, 100, 4095, 4096, 4097, 8192, size >> 1, size - 4096, size - 1]
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...cuts), fc.integer({ min: 1, max: size - 1 })), (cut) => {
        const path = dir.file(`cut-${cut}.db`)
        copyFileSync(ledger, path)
        truncateSync(path, cut)
        expectRefused(path, 'CORRUPT_DATABASE')
      }),
      { numRuns: fcRuns(30) },
    )
    // The uncut ledger itself still opens.
    openContextStore(ledger).close()
  })

  it('refuses another application’s SQLite database as NOT_A_LEDGER', () => {
    const variants: [string, (db: Database.Database) => void][] = [
      [
        'rollback journal, with tables',
        (db) =>
          db.exec(
            'CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES (1)',
          ),
      ],
      [
        'WAL, with tables',
        (db) => {
          db.pragma('journal_mode = WAL')
          db.exec(
            'CREATE TABLE messages (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO messages (body) VALUES (1)',
          )
        },
      ],
      ['its own application_id, no tables', (db) => db.pragma('application_id = 305419896')],
      [
        'a table named like ours, no application_id',
        (db) => db.exec('CREATE TABLE sessions (pk INTEGER PRIMARY KEY)'),
      ],
    ]
    for (const [name, setup] of variants) {
      const path = dir.file(`${name.replace(/\W+/g, '-')}.db`)
      const db = new Database(path)
      setup(db)
      db.close()
      const error = expectRefused(path, 'NOT_A_LEDGER')
      expect(error.message, name).toMatch(/another application/)
    }
  })

  it('refuses a ledger from a newer schema as SCHEMA_TOO_NEW', () => {
    const path = dir.file('future.db')
    makeLedger(path)
    const db = new Database(path)
    const version = db.pragma('user_version', { simple: true }) as number
    // eslint-disable-next-line no-restricted-syntax -- a fixture: an integer schema version one past the current
    db.pragma(`user_version = ${version + 1}`)
    db.pragma('wal_checkpoint(TRUNCATE)')
    db.close()
    const error = expectRefused(path, 'SCHEMA_TOO_NEW')
    expect(error.message).toContain(`version ${version + 1}`)
  })

  it('leaves no side files after refusing, and opens a healthy ledger as before', () => {
    const path = dir.file('ok.db')
    makeLedger(path)
    for (const suffix of ['-wal', '-shm', '-journal']) expect(existsSync(`${path}${suffix}`)).toBe(false)
    const store = openContextStore(path)
    expect(store.session('s')?.messageCount).toBe(240)
    store.close()
  })
})
