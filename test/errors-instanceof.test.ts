/**
 * `instanceof ContextLedgerError` behaves as for any class, and narrows to an error with a typed code
 * (not `ContextLedgerError<any>`): checked at run time here and at compile time by `npm run typecheck`.
 */
import { describe, expect, expectTypeOf, it } from 'vitest'
import { ContextLedgerError, isContextLedgerError, type ErrorCode } from '../src/index.js'

describe('ContextLedgerError and instanceof', () => {
  it.each([
    ['a ContextLedgerError', new ContextLedgerError('READ_ONLY', 'no'), true],
    ['a plain Error', new Error('no'), false],
    [
      'an object with the same fields',
      { name: 'ContextLedgerError', code: 'READ_ONLY', message: 'no' },
      false,
    ],
    ['null', null, false],
    ['a string', 'READ_ONLY', false],
  ])('%s → %s', (_, value, expected) => {
    expect(value instanceof ContextLedgerError).toBe(expected)
    expect(value instanceof Error).toBe(value instanceof Error)
  })

  it('narrows to an error whose code is an ErrorCode, and isContextLedgerError to one code', () => {
    const caught: unknown = new ContextLedgerError('STORE_CLOSED', 'closed')
    if (!(caught instanceof ContextLedgerError)) throw new Error('expected a ContextLedgerError')
    expectTypeOf(caught.code).toEqualTypeOf<ErrorCode>()
    expect(caught.code).toBe('STORE_CLOSED')
    if (!isContextLedgerError(caught, 'STORE_CLOSED')) throw new Error('expected STORE_CLOSED')
    expectTypeOf(caught.code).toEqualTypeOf<'STORE_CLOSED'>()
  })
})
