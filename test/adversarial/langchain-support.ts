/**
 * What the LangChain adversarial tests share: a real SQLite file per test, a checksum of every row of it
 * (equal before and after a refused call: nothing written), the ledger's error inside what `createAgent`
 * throws (LangChain wraps a middleware's error in a `MiddlewareError`, whose `cause` it is), and the
 * check of a session.
 */
import { afterEach } from 'vitest'
import type { BaseMessage } from '@langchain/core/messages'
import { MiddlewareError } from 'langchain'
import { checkSession } from '../../src/check/check-session.js'
import { ContextLedgerError, type ContextStore } from '../../src/index.js'
import { ledgerChecksum } from '../reliability/db-checksum.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'

/** Opens a store on a fresh file per call; every file of a test is removed after it. */
export function useStores(): { open: () => ContextStore } {
  let dir: TempDir | undefined
  let n = 0
  afterEach(() => {
    dir?.cleanup()
    dir = undefined
  })
  return {
    open: () => {
      dir ??= tempDir('context-ledger-lc-adv-')
      return dir.open(`l${n++}.db`)
    },
  }
}

/** A checksum of every row of the store's file. */
export const checksum = (store: ContextStore): string => ledgerChecksum(store.connection())

/** The run config of a thread. */
export const onThread = (id: string) => ({ configurable: { thread_id: id } })

/**
 * The `ContextLedgerError` behind what an agent or a history threw: the error itself, or the `cause` of
 * LangChain's `MiddlewareError`s around it.
 *
 * @param error - what was thrown
 * @returns the ledger's error
 * @throws Error when there is none (a raw error escaped)
 */
export function ledgerErrorIn(error: unknown): ContextLedgerError {
  let e: unknown = error
  for (let depth = 0; depth < 5 && e !== undefined; depth++) {
    if (e instanceof ContextLedgerError) return e
    if (!(e instanceof MiddlewareError))
      throw new Error(
        `expected a ContextLedgerError, got a raw ${e instanceof Error ? `${e.constructor.name}: ${e.message}` : typeof e}`,
        {
          cause: error,
        },
      )
    e = e.cause
  }
  throw new Error(`expected a ContextLedgerError, got ${String(error)}`, { cause: error })
}

/**
 * Awaits a call that must fail with a `ContextLedgerError` (or LangChain's wrapper of one).
 *
 * @param call - the call
 * @returns the ledger's error
 */
export async function failure(call: () => Promise<unknown>): Promise<ContextLedgerError> {
  try {
    await call()
  } catch (error) {
    return ledgerErrorIn(error)
  }
  throw new Error('expected the call to fail')
}

/** The problems `check` finds in a session (none when every rule holds). */
export const problems = (store: ContextStore, sessionId: string): string[] =>
  checkSession(store, sessionId).problems.map((p) => JSON.stringify(p))

/** Messages as plain JSON, to compare. */
export const json = (messages: readonly BaseMessage[]): unknown =>
  JSON.parse(JSON.stringify(messages.map((m) => m.toDict())))
