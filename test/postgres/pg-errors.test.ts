/**
 * How the PostgreSQL store reads a driver error: a connection lost or refused (the work may run again on
 * a new one) against a statement the server refused (it would be refused again).
 */
import { describe, expect, it } from 'vitest'
import { isConnectRefused, isConnectionLoss, toPgLedgerError } from '../../src/backends/postgres/pg-errors.js'

/** An error shaped as `pg` builds one from a server's ErrorResponse. */
function serverError(code: string, message: string, routine?: string): Error {
  return Object.assign(new Error(message), { code, severity: 'FATAL', routine })
}

describe('isConnectionLoss', () => {
  it('a login refused because the database takes no connections for now is a lost connection', () => {
    const refused = serverError(
      '55000',
      'database "app" is not currently accepting connections',
      'CheckMyDatabase',
    )
    expect(isConnectionLoss(refused)).toBe(true)
    // The message alone (a driver that keeps no routine) says the same.
    expect(
      isConnectionLoss(serverError('55000', 'database "app" is not currently accepting connections')),
    ).toBe(true)
    // Still a STORAGE_ERROR when the attempts run out.
    expect(toPgLedgerError(refused, 'read session "s"').code).toBe('STORAGE_ERROR')
  })

  it('any other 55000 is a refusal of the statement, not a lost connection', () => {
    const state = serverError(
      '55000',
      'cannot ALTER TABLE "messages" because it is being used by active queries',
    )
    expect(isConnectionLoss(state)).toBe(false)
    expect(isConnectionLoss(serverError('55000', 'lock is held', 'LockAcquire'))).toBe(false)
  })

  it('terminated, shut down, starting up and socket errors are lost connections; a unique violation is not', () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', '08003'])
      expect(isConnectionLoss(serverError(code, 'x')), code).toBe(true)
    expect(isConnectionLoss(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true)
    expect(isConnectionLoss(new Error('Connection terminated unexpectedly'))).toBe(true)
    expect(isConnectionLoss(serverError('23505', 'duplicate key value violates unique constraint'))).toBe(
      false,
    )
  })
})

describe('isConnectRefused', () => {
  it('a login refused or a closed port is a refusal (asked again after a pause); a connection ended is not', () => {
    expect(
      isConnectRefused(serverError('55000', 'database "app" is not currently accepting connections')),
    ).toBe(true)
    expect(isConnectRefused(serverError('57P03', 'the database system is starting up'))).toBe(true)
    expect(isConnectRefused(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(
      true,
    )
    expect(
      isConnectRefused(serverError('57P01', 'terminating connection due to administrator command')),
    ).toBe(false)
    expect(isConnectRefused(new Error('Connection terminated unexpectedly'))).toBe(false)
    expect(isConnectRefused(serverError('55000', 'lock is held', 'LockAcquire'))).toBe(false)
  })
})
