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
    // `instanceof` narrows to the class with an unknown code; every code is an ErrorCode.
    if (error instanceof ContextLedgerError) return error
    const name = error instanceof Error ? error.constructor.name : typeof error
    throw new Error(`expected a ContextLedgerError, got a raw ${name}: ${String(error)}`, { cause: error })
  }
  throw new Error('expected the call to be refused')
}

/**
 * Awaits `fn`, which must reject (or throw) with a {@link ContextLedgerError}: the async twin of
 * {@link refusal}, for the conformance suite's calls.
 *
 * @param fn - the call expected to be refused
 * @returns the error it rejected with
 * @throws Error when it resolved, or rejected with something else
 */
export async function refusalOf(fn: () => unknown): Promise<ContextLedgerError> {
  try {
    await fn()
  } catch (error) {
    if (error instanceof ContextLedgerError) return error
    const name = error instanceof Error ? error.constructor.name : typeof error
    throw new Error(`expected a ContextLedgerError, got a raw ${name}: ${String(error)}`, { cause: error })
  }
  throw new Error('expected the call to be refused')
}
