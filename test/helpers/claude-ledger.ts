/**
 * The ledger side of the Claude Agent SDK's end-to-end runs, for the tests and their child-process
 * workers alike (nothing here imports vitest): a `LedgerSessionStore` on the ledger at a location (SQLite
 * file or PostgreSQL connection string), and what the workers' command lines carry.
 */
import type { SessionKey } from '@anthropic-ai/claude-agent-sdk'
import { LedgerSessionStore } from '../../src/adapters/claude-agent-sdk/index.js'
import type { AdapterStore } from '../../src/adapters/session-options.js'
import { coreStoreOf, openLedger, type LedgerStore } from './ledger-open.js'

/** A ledger opened at a location, with the session store under test on it. */
export interface OpenedSessions {
  /** The ledger (the suite's awaited API on either backend). */
  readonly ledger: LedgerStore
  /** The SDK's session store on it. */
  readonly sessions: LedgerSessionStore<AdapterStore>
}

/**
 * Opens the ledger at `location` with a `LedgerSessionStore` on it.
 *
 * @param location - a SQLite file or a PostgreSQL connection string
 * @returns both
 */
export async function openSessions(location: string): Promise<OpenedSessions> {
  const ledger = await openLedger(location)
  return { ledger, sessions: new LedgerSessionStore({ store: coreStoreOf(ledger) }) }
}

/** What the resume worker (test/reliability/workers/claude-agent-resume.ts) is told. */
export interface ResumeArgs {
  /** The ledger. */
  readonly location: string
  /** The CLI binary. */
  readonly cli: string
  /** The stand-in Messages API's URL. */
  readonly url: string
  /** The project folder the session was made in. */
  readonly cwd: string
  /** Where to make its fresh `CLAUDE_CONFIG_DIR`s. */
  readonly scratch: string
  /** The session to resume. */
  readonly sessionId: string
  /** The prompts to run, one `query()` each. */
  readonly prompts: readonly string[]
}

/** What the appender worker (test/reliability/workers/claude-agent-appender.ts) is told. */
export interface AppenderArgs {
  /** The ledger. */
  readonly location: string
  /** The transcript it appends to. */
  readonly key: SessionKey
  /** Its entries' generator tag (bench/claude-agent-fixtures.ts): the parent makes the same entries. */
  readonly tag: number
  /** Its batches' sizes, in order. */
  readonly sizes: readonly number[]
  /** The batches it sends a second time right after the first (the SDK's retry of a lost answer). */
  readonly resend: readonly number[]
}
