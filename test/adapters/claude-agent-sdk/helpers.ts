/**
 * What the Claude Agent SDK store's tests share: a `LedgerSessionStore` on the backend the project tests
 * (SQLite or PostgreSQL, see test/helpers/backend.ts), entries made up as the SDK's conformance suite
 * makes them, and the runs recorded from the real CLI (test/fixtures/claude-agent/cli-*.json).
 */
import { realpathSync } from 'node:fs'
import type { SessionKey, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import {
  LedgerSessionStore,
  type LedgerSessionStoreOptions,
} from '../../../src/adapters/claude-agent-sdk/index.js'
import type { AdapterStore } from '../../../src/adapters/session-options.js'
import { coreStoreOf, type Backend, type LedgerStore } from '../../helpers/backend.js'
import { mainKey, readFixture, transcriptOf } from '../../helpers/claude-fixtures.js'

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

/** A run recorded from the real CLI with a main transcript only (test/fixtures/claude-agent/cli-*.json). */
export interface Recorded {
  /** Its main key. */
  readonly key: SessionKey
  /** Its session id. */
  readonly sessionId: string
  /** Its transcript, as `load` returns it. */
  readonly entries: SessionStoreEntry[]
  /** The batches the SDK appended it in. */
  readonly batches: SessionStoreEntry[][]
}

/**
 * A run recorded from the real CLI.
 *
 * @param name - `tool-call` (21 entries) or `tool-call-resume-compact` (47: resumed, then `/compact`ed)
 * @returns its key, transcript and batches
 */
export function recorded(name: 'tool-call' | 'tool-call-resume-compact'): Recorded {
  const fixture = readFixture(name)
  return {
    key: mainKey(fixture),
    sessionId: fixture.sessionId,
    entries: transcriptOf(fixture),
    batches: fixture.appends.map((a) => [...a.entries]),
  }
}

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

/**
 * What a store deduplicating by uuid holds after these batches: every uuid once, uuid-less entries each
 * time they came.
 *
 * @param sent - the batches, in the order sent
 * @returns the entries `load` should return
 */
export function dedupedByUuid(sent: readonly (readonly SessionStoreEntry[])[]): SessionStoreEntry[] {
  const seen = new Set<string>()
  const out: SessionStoreEntry[] = []
  for (const entry of sent.flat()) {
    if (entry.uuid !== undefined && seen.has(entry.uuid)) continue
    if (entry.uuid !== undefined) seen.add(entry.uuid)
    out.push(entry)
  }
  return out
}
