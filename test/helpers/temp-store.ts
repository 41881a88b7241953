/**
 * Real SQLite files in a fresh temp directory per test: no mocks of the database.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openContextStore, type ContextStore, type ContextStoreOptions } from '../../src/index.js'

/** A temp directory that removes itself. */
export interface TempDir {
  /** Absolute path of the directory. */
  readonly dir: string
  /** A path inside it. */
  file(name: string): string
  /** Removes the directory and everything in it. */
  cleanup(): void
}

/**
 * Creates a temp directory.
 *
 * @param prefix - directory name prefix
 * @returns the directory handle
 */
export function tempDir(prefix = 'context-ledger-'): TempDir {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return {
    dir,
    file: (name) => join(dir, name),
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true })
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
  const path = dir.file('ledger.db')
  const store = openContextStore(path, options)
  return {
    store,
    path,
    dir,
    cleanup: () => {
      store.close()
      dir.cleanup()
    },
  }
}
