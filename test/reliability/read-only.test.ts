/**
 * Read-only ledgers. `openContextStore(path, { readonly: true })` never writes or migrates the file and
 * refuses every write with `READ_ONLY`; `{ mustExist: true }` refuses a missing file instead of creating
 * a new ledger. And reading a ledger whose file is read-only (0444) must not poison later opens: SQLite
 * gives the `-wal` and `-shm` files it creates the database's mode, and a reader cannot remove them, so
 * left alone they would make every write fail once the ledger is writable again. Root ignores file
 * modes, so those tests run the reader and the writer in a child process under an unprivileged uid when
 * run as root.
 */
import { chmodSync, chownSync, copyFileSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { openContextStore, type ErrorCode } from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'
import { refusal } from '../helpers/refusal.js'
import { collect, fileHash, useWorker, type WorkerUser } from './support.js'

const dir = useTempDir('context-ledger-rel-')
const launch = useWorker('ledger-user')
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'ledger-schema0.sqlite')
const LIMITS = { windowSize: 40, tokenBudget: undefined, first: 0, last: 0 }

/** An unprivileged user when the tests run as root (root ignores modes), else the current user. */
const USER: WorkerUser | undefined = process.geteuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined

/** A ledger of two messages, closed (no side files), owned by the worker's user. */
function makeLedger(): string {
  const path = dir.file('ledger.db')
  const store = openContextStore(path)
  store.append('s', [
    { role: 'user', content: [{ text: 'q' }] },
    { role: 'assistant', content: [{ text: 'a' }] },
  ])
  store.close()
  if (USER !== undefined) {
    chmodSync(dir.path, 0o777)
    chownSync(path, USER.uid, USER.gid)
  }
  return path
}

/** Runs one action of the `ledger-user` worker and returns its line, e.g. `ok 3` or `error READ_ONLY`. */
async function asUser(path: string, action: string): Promise<string> {
  const exit = await collect(launch([path, action], USER))
  expect(exit.code, exit.stderr).toBe(0)
  return exit.lines.join('\n')
}

describe.skipIf(process.platform === 'win32')('opening a read-only (0444) ledger', () => {
  it('with readonly: true leaves no read-only -shm behind: once writable again, writes work', async () => {
    const path = makeLedger()
    chmodSync(path, 0o444)
    expect(await asUser(path, 'read-readonly')).toBe('ok 2')
    const sides = ['-wal', '-shm'].filter((side) => existsSync(path + side))
    const writable = sides.filter((side) => (statSync(path + side).mode & 0o200) !== 0)
    chmodSync(path, 0o644)
    expect(await asUser(path, 'append')).toBe('ok 3')
    expect(writable).toStrictEqual(sides)
  })

  it('without readonly reads, refuses writes with READ_ONLY, and does not poison later opens either', async () => {
    const path = makeLedger()
    chmodSync(path, 0o444)
    expect(await asUser(path, 'read')).toBe('ok 2')
    expect(await asUser(path, 'append')).toBe('error READ_ONLY')
    chmodSync(path, 0o644)
    expect(await asUser(path, 'append')).toBe('ok 3')
  })

  it('in a directory it cannot write is refused with READ_ONLY saying why', async () => {
    const path = makeLedger()
    chmodSync(path, 0o444)
    chmodSync(dir.path, 0o555)
    try {
      expect(await asUser(path, 'read-readonly')).toBe('error READ_ONLY')
    } finally {
      chmodSync(dir.path, 0o755)
    }
  })

  it('recovers a ledger whose read-only side files another tool left behind', async () => {
    const path = makeLedger()
    chmodSync(path, 0o444)
    // Plain better-sqlite3 (or the sqlite3 shell) reading the file leaves 0444 -wal and -shm files.
    expect(await asUser(path, 'raw-read')).toBe('ok 2')
    expect(statSync(`${path}-shm`).mode & 0o777).toBe(0o444)
    chmodSync(path, 0o644)
    expect(await asUser(path, 'append')).toBe('ok 3')
  })
})

describe('readonly: true', () => {
  it('reads everything, refuses every write with READ_ONLY, and never changes the file', () => {
    const path = makeLedger()
    const before = fileHash(path)
    const store = openContextStore(path, { readonly: true })
    expect(store.readonly).toBe(true)
    expect(store.window('s')).toHaveLength(2)
    expect(store.history('s')).toHaveLength(2)
    expect(store.sessions().map((s) => s.id)).toStrictEqual(['s'])
    const writes: [string, () => unknown][] = [
      ['append', () => store.append('s', { role: 'user', content: [{ text: 'x' }] })],
      ['applyWindow', () => store.applyWindow('s', LIMITS)],
      ['pin', () => store.pin('s', { seq: 0 }, {}, LIMITS)],
      ['unpin', () => store.unpin('s', { seq: 0 })],
      [
        'setWindowContent',
        () => {
          store.setWindowContent('s', { seq: 0 }, null)
        },
      ],
    ]
    for (const [name, write] of writes) expect(refusal(write).code, name).toBe<ErrorCode>('READ_ONLY')
    store.close()
    expect(fileHash(path)).toBe(before)
  })

  it('sees what a writer commits meanwhile (it is a WAL reader, not a frozen copy)', () => {
    const path = makeLedger()
    const writer = openContextStore(path)
    const reader = openContextStore(path, { readonly: true })
    writer.append('s', { role: 'user', content: [{ text: 'later' }] })
    expect(reader.window('s')).toHaveLength(3)
    reader.close()
    writer.close()
  })

  it('refuses a missing file with FILE_NOT_FOUND naming it, creating nothing', () => {
    const path = dir.file('typo.db')
    for (const options of [{ readonly: true }, { mustExist: true }]) {
      const error = refusal(() => openContextStore(path, options))
      expect(error.code).toBe<ErrorCode>('FILE_NOT_FOUND')
      expect(error.message).toContain(path)
    }
    expect(readdirSync(dir.path)).toStrictEqual([])
  })

  it('refuses a ledger that needs migrating with SCHEMA_TOO_OLD, leaving it as it was', () => {
    const path = dir.file('old.db')
    copyFileSync(FIXTURE, path)
    const before = fileHash(path)
    const error = refusal(() => openContextStore(path, { readonly: true }))
    expect(error.code).toBe<ErrorCode>('SCHEMA_TOO_OLD')
    expect(error.message).toContain('schema version 1')
    expect(fileHash(path)).toBe(before)
    const empty = dir.file('empty.db')
    writeFileSync(empty, '')
    expect(refusal(() => openContextStore(empty, { readonly: true })).code).toBe<ErrorCode>('SCHEMA_TOO_OLD')
    // Opened writable once, it is upgraded and then opens read-only.
    openContextStore(path).close()
    openContextStore(path, { readonly: true }).close()
  })
})

describe('mustExist: true', () => {
  it('opens an existing ledger as usual, writable', () => {
    const path = makeLedger()
    const store = openContextStore(path, { mustExist: true })
    expect(store.append('s', { role: 'user', content: [{ text: 'more' }] })[0]?.seq).toBe(2)
    store.close()
  })
})
