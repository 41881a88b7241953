import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { NEW_LEDGER_PAGE_SIZE, SET_PAGE_SIZE } from '../../src/db/open.js'
import { openContextStore, PersistentConversationManager } from '../../src/index.js'
import { refusal } from '../helpers/refusal.js'
import { assistant, user } from '../helpers/messages.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'

let dir: TempDir
beforeEach(() => {
  dir = tempDir()
})
afterEach(() => {
  dir.cleanup()
})

function pageSizeOf(path: string): number {
  const db = new Database(path, { readonly: true })
  try {
    return Number(db.pragma('page_size', { simple: true }))
  } finally {
    db.close()
  }
}

describe('openDatabase', () => {
  describe('page size', () => {
    it('creates a new ledger with 1 KiB pages', () => {
      expect(NEW_LEDGER_PAGE_SIZE).toBe(1024)
      const store = dir.open()
      new PersistentConversationManager({ store, sessionId: 's' }).append([user('hi'), assistant('hello')])
      expect(store.connection().pragma('page_size', { simple: true })).toBe(1024)
      store.close()
      expect(pageSizeOf(dir.file())).toBe(1024)
    })

    it('gives an empty file (0 bytes) the new page size too', () => {
      writeFileSync(dir.file(), '')
      const store = dir.open()
      expect(store.connection().pragma('page_size', { simple: true })).toBe(1024)
    })

    it('keeps the page size of a ledger made with another one, and it keeps working', () => {
      // A ledger with SQLite's default page size, as every earlier version made them: a new one, rebuilt
      // with 4 KiB pages (a page size changes only outside WAL mode, by VACUUM).
      dir.open().close()
      const src = new Database(dir.file())
      src.pragma('journal_mode = DELETE')
      src.pragma('page_size = 4096')
      src.exec('VACUUM')
      src.close()
      expect(pageSizeOf(dir.file())).toBe(4096)
      const store = dir.open()
      const manager = new PersistentConversationManager({ store, sessionId: 's', windowSize: 4 })
      for (let i = 0; i < 10; i++) manager.append([user(`q${i}`), assistant(`a${i}`)])
      manager.applyWindow()
      expect(store.connection().pragma('page_size', { simple: true })).toBe(4096)
      expect(manager.window()).toHaveLength(4)
      expect(store.session('s')?.messageCount).toBe(20)
    })

    it.each([512, 2048, 4096, 65536] as const)(
      'creates a new ledger with the pageSize asked for: %i',
      (size) => {
        const store = dir.open('ledger.db', { pageSize: size })
        const manager = new PersistentConversationManager({ store, sessionId: 's', windowSize: 4 })
        for (let i = 0; i < 10; i++) manager.append([user(`q${i}`), assistant(`a${i}`)])
        manager.applyWindow()
        store.close()
        expect(pageSizeOf(dir.file())).toBe(size)
        // Reopened without the option, and with the same one: it goes on with its own pages.
        for (const options of [{}, { pageSize: size }]) {
          const again = openContextStore(dir.file(), options)
          expect(again.window('s')).toHaveLength(4)
          again.close()
        }
      },
    )

    it('gives an in-memory store the pageSize asked for', () => {
      const store = openContextStore(':memory:', { pageSize: 2048 })
      expect(store.connection().pragma('page_size', { simple: true })).toBe(2048)
      store.close()
    })

    it("refuses a pageSize that differs from an existing ledger's, and leaves the file as it was", () => {
      const store = dir.open()
      new PersistentConversationManager({ store, sessionId: 's' }).append([user('hi'), assistant('hello')])
      store.close()
      const hash = (): string => createHash('sha256').update(readFileSync(dir.file())).digest('hex')
      const before = hash()
      for (const readonly of [false, true]) {
        const error = refusal(() => openContextStore(dir.file(), { pageSize: 4096, readonly }))
        expect(error.code).toBe('INVALID_OPTIONS')
        expect(error.path).toBe('pageSize')
        expect(error.message).toContain('1024-byte pages')
        expect(error.message).toContain('compact: true, pageSize: 4096')
      }
      expect(hash()).toBe(before)
    })

    it.each([1000, 0, -1024, 131072, 256, 1024.5, '1024', null])('refuses pageSize %p', (value) => {
      const error = refusal(() => openContextStore(dir.file(), { pageSize: value as never }))
      expect(error.code).toBe('INVALID_OPTIONS')
      expect(error.path).toBe('pageSize')
    })

    it('gives an empty SQLite file made with another page size the one asked for', () => {
      for (const [made, asked] of [
        [4096, 1024],
        [4096, 512],
        [1024, 8192],
      ] as const) {
        const path = dir.file(`empty-${made}-${asked}.db`)
        const raw = new Database(path)
        raw.pragma(SET_PAGE_SIZE[made])
        raw.pragma('journal_mode = WAL')
        raw.close()
        expect(pageSizeOf(path)).toBe(made)
        const store = openContextStore(path, { pageSize: asked })
        new PersistentConversationManager({ store, sessionId: 's' }).append([user('hi'), assistant('hello')])
        store.close()
        expect(pageSizeOf(path)).toBe(asked)
      }
    })

    it('refuses a mismatched pageSize before opening: a log left by a killed writer stays as it was', () => {
      const store = dir.open('ledger.db', { pageSize: 4096 })
      new PersistentConversationManager({ store, sessionId: 's' }).append([user('hi'), assistant('hello')])
      // A killed writer leaves its log behind: copy the files while the store holds them open.
      const copy = dir.file('copy.db')
      for (const side of ['', '-wal']) writeFileSync(copy + side, readFileSync(dir.file() + side))
      store.close()
      const hash = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex')
      const before = [hash(copy), hash(`${copy}-wal`)]
      expect(refusal(() => openContextStore(copy, { pageSize: 1024 }))).toMatchObject({
        code: 'INVALID_OPTIONS',
        path: 'pageSize',
      })
      expect([hash(copy), hash(`${copy}-wal`)]).toStrictEqual(before)
      const reopened = openContextStore(copy)
      expect(reopened.session('s')?.messageCount).toBe(2)
      reopened.close()
    })
  })
})
