/**
 * What the Claude Agent SDK store's tests share: a `LedgerSessionStore` on the backend the project tests
 * (SQLite or PostgreSQL, see test/helpers/backend.ts), entries made up as the SDK's conformance suite
 * makes them, and the transcripts recorded from the real CLI (test/fixtures/claude-agent/).
 */
import { readFileSync } from 'node:fs'
import { realpathSync } from 'node:fs'
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import {
  LedgerSessionStore,
  type LedgerSessionStoreOptions,
} from '../../../src/adapters/claude-agent-sdk/index.js'
import type { AdapterStore } from '../../../src/adapters/session-options.js'
import { coreStoreOf, type Backend, type LedgerStore } from '../../helpers/backend.js'

/** A store on a fresh ledger of the backend, with the suite's handle on that ledger. */
export interface Opened {
  /** The suite's handle (awaited calls, checksums). */
  readonly handle: LedgerStore
  /** The session store under test. */
  readonly sessions: LedgerSessionStore<AdapterStore>
}

/**
 * Opens a session store on a fresh ledger.
 *
 * @param backend - the run's backend
 * @param options - the store's options besides `store`
 * @returns the store and the ledger's handle
 */
export async function openSessions(
  backend: Backend,
  options: Omit<LedgerSessionStoreOptions, 'store'> = {},
): Promise<Opened> {
  const handle = await backend.open()
  return { handle, sessions: new LedgerSessionStore({ store: coreStoreOf(handle), ...options }) }
}

/**
 * A made-up entry, as the SDK's conformance suite makes them (no uuid unless given).
 *
 * @param type - its type
 * @param extra - its other fields
 * @returns the entry
 */
export const E = (type: string, extra: Record<string, unknown> = {}): SessionStoreEntry => ({
  type,
  ...extra,
})

/**
 * A transcript recorded from the real CLI.
 *
 * @param name - `tool-call` (19 entries) or `tool-call-resume-compact` (40, resumed and compacted)
 * @returns its entries, in the order the CLI wrote them
 */
export function fixture(name: 'tool-call' | 'tool-call-resume-compact'): SessionStoreEntry[] {
  const url = new URL(`../../fixtures/claude-agent/${name}.json`, import.meta.url)
  return JSON.parse(readFileSync(url, 'utf8')) as SessionStoreEntry[]
}

/** The session id of the recorded transcripts. */
export const FIXTURE_SESSION = '93343d98-4814-4d1a-bf29-e5c21c5b05ee'

/**
 * The project key the SDK derives from a `dir` (its cwd sanitizing: the real path, every character but
 * ASCII letters and digits replaced by `-`; paths past 200 characters are cut and hashed, not needed here).
 *
 * @param dir - a folder
 * @returns its project key
 */
export function projectKeyOf(dir: string): string {
  return realpathSync(dir).replace(/[^a-zA-Z0-9]/g, '-')
}

/**
 * The entries, split into the batches of the given sizes (the rest in a last batch).
 *
 * @param entries - the entries
 * @param sizes - batch sizes
 * @returns the batches
 */
export function batches<T>(entries: readonly T[], sizes: readonly number[]): T[][] {
  const out: T[][] = []
  let at = 0
  for (const size of sizes) {
    if (at >= entries.length) break
    out.push(entries.slice(at, at + Math.max(1, size)))
    at += Math.max(1, size)
  }
  if (at < entries.length) out.push(entries.slice(at))
  return out
}
