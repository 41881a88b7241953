/**
 * Tests of code that must never throw out of an event handler or a timer (where a real process would
 * end): every uncaught exception while a test runs is collected, and the test fails if there was one.
 */
import { afterEach, beforeEach, expect } from 'vitest'

/**
 * Registers hooks that listen for `'uncaughtException'` during each test of the file and assert, after
 * it, that none came (vitest reports them too, but after the fact and not against the test).
 *
 * @returns the exceptions caught so far in the running test, for assertions inside it
 */
export function useNoUncaught(): readonly unknown[] {
  const uncaught: unknown[] = []
  const onUncaught = (error: unknown): void => {
    uncaught.push(error)
  }
  beforeEach(() => {
    uncaught.length = 0
    process.on('uncaughtException', onUncaught)
  })
  afterEach(() => {
    process.off('uncaughtException', onUncaught)
    expect(uncaught).toStrictEqual([])
  })
  return uncaught
}
