/**
 * Shared plumbing of the reliability tests: temp directories, file checksums, child-process workers and
 * the knob for the long variants.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach } from 'vitest'

/** True when `CONTEXT_LEDGER_LONG=1`: run the long variants (more kills, processes, messages). */
export const LONG = process.env.CONTEXT_LEDGER_LONG === '1'

/** The folder holding the child-process worker scripts. */
export const WORKERS = join(dirname(fileURLToPath(import.meta.url)), 'workers')

/** A temp directory per test, removed afterwards. */
export interface TestDir {
  /** The current test's directory. */
  readonly path: string
  /** A path inside it. */
  file(name: string): string
}

/**
 * Registers hooks giving each test of the file a fresh temp directory.
 *
 * @returns the directory handle (valid inside tests)
 */
export function useTempDir(): TestDir {
  let current: string | undefined
  beforeEach(() => {
    current = mkdtempSync(join(tmpdir(), 'context-ledger-rel-'))
  })
  afterEach(() => {
    if (current !== undefined) rmSync(current, { recursive: true, force: true })
    current = undefined
  })
  const path = (): string => {
    if (current === undefined) throw new Error('useTempDir() is only valid inside a test')
    return current
  }
  return {
    get path() {
      return path()
    },
    file: (name) => join(path(), name),
  }
}

/**
 * sha256 of a file's bytes, or `'absent'`.
 *
 * @param path - the file
 * @returns hex digest
 */
export function fileHash(path: string): string {
  return existsSync(path) ? createHash('sha256').update(readFileSync(path)).digest('hex') : 'absent'
}
