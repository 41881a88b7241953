/**
 * Real SQLite files in a fresh temp directory per test: no mocks of the database. Every test that needs
 * a file, a store or a directory gets it here, and every store opened through these is closed before its
 * directory is removed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach } from 'vitest'
import { openContextStore, type ContextStore, type ContextStoreOptions } from '../../src/index.js'

/** A temp directory that removes itself, closing the stores opened in it first. */
export interface TempDir {
  /** Absolute path of the directory. */
  readonly path: string
  /** A path inside it (`ledger.db` by default). */
  file(name?: string): string
  /** Opens a store on a file inside it (`ledger.db` by default); `cleanup()` closes it. */
  open(name?: string, options?: ContextStoreOptions): ContextStore
  /** Closes the stores opened by `open()` and removes the directory and everything in it. */
  cleanup(): void
}

/**
 * Creates a temp directory.
 *
 * @param prefix - directory name prefix
 * @returns the directory handle
 */
export function tempDir(prefix = 'context-ledger-'): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix))
  const stores: ContextStore[] = []
  return {
    path,
    file: (name = 'ledger.db') => join(path, name),
    open(name = 'ledger.db', options = {}) {
      const store = openContextStore(join(path, name), options)
      stores.push(store)
      return store
    },
    cleanup() {
      for (const store of stores.splice(0)) store.close()
      rmSync(path, { recursive: true, force: true })
    },
  }
}

/**
 * Opens a store on a new file in a new temp directory.
 *
 * @param options - store options
 * @returns the store, its path, and a cleanup that closes it and deletes the directory
 */
export function tempStore(options: ContextStoreOptions = {}): {
  store: ContextStore
  path: string
  dir: TempDir
  cleanup: () => void
} {
  const dir = tempDir()
  const store = dir.open('ledger.db', options)
  return {
    store,
    path: dir.file(),
    dir,
    cleanup: () => {
      dir.cleanup()
    },
  }
}

/**
 * Registers hooks that give each test of the file a fresh temp directory, cleaned up after it.
 *
 * @param prefix - directory name prefix
 * @returns a handle that stands for the current test's directory (valid inside tests and their hooks)
 */
export function useTempDir(prefix = 'context-ledger-'): TempDir {
  let current: TempDir | undefined
  beforeEach(() => {
    current = tempDir(prefix)
  })
  afterEach(() => {
    current?.cleanup()
    current = undefined
  })
  const now = (): TempDir => {
    if (current === undefined) throw new Error('useTempDir() is only valid inside a test')
    return current
  }
  return {
    get path() {
      return now().path
    },
    file: (name) => now().file(name),
    open: (name, options) => now().open(name, options),
    cleanup: () => {
      now().cleanup()
    },
  }
}

/** What {@link useTempStore} opens for each test. */
export interface TempStore {
  /** The open store. */
  readonly store: ContextStore
  /** Its file. */
  readonly path: string
  /** Its directory, for more files. */
  readonly dir: TempDir
}

/**
 * Registers hooks that open a store on a new file before each test of the file, and close it and remove
 * its directory after it.
 *
 * @param onOpen - receives the test's store, path and directory (assign them to the file's variables)
 * @param options - store options
 */
export function useTempStore(onOpen: (opened: TempStore) => void, options: ContextStoreOptions = {}): void {
  let cleanup: (() => void) | undefined
  beforeEach(() => {
    const opened = tempStore(options)
    cleanup = opened.cleanup
    onOpen(opened)
  })
  afterEach(() => {
    cleanup?.()
    cleanup = undefined
  })
}
