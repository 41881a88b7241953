import { writeFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { NEW_LEDGER_PAGE_SIZE } from '../../src/db/open.js'
import { PersistentConversationManager } from '../../src/index.js'
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
  })
})
