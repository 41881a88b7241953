/**
 * The error a call refuses with: tests assert on its code, path and cause.
 */
import { ContextLedgerError } from '../../src/index.js'

/**
 * Runs `fn`, which must throw a {@link ContextLedgerError}.
 *
 * @param fn - the call expected to be refused
 * @returns the error it threw
 * @throws Error when it did not throw, or threw something else
 */
export function refusal(fn: () => unknown): ContextLedgerError {
  try {
    fn()
  } catch (error) {
    if (error instanceof ContextLedgerError) return error
    throw new Error(`expected a ContextLedgerError, got ${String(error)}`, { cause: error })
  }
  throw new Error('expected the call to be refused')
}
