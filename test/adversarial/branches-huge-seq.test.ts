/**
 * A fork or rewind point past 2^31 - 1 (a safe integer the option check accepts, beyond what a PostgreSQL
 * `integer` seq can hold): `MESSAGE_NOT_FOUND` naming the field on both backends, never the server's
 * out-of-range error, and nothing written.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { ContextLedgerError } from '../../src/index.js'
import { BACKEND, makeBackend } from '../helpers/backend.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p
    return 'no error'
  } catch (error) {
    return error instanceof ContextLedgerError ? `${error.code} ${error.path ?? ''}` : `raw ${String(error)}`
  }
}

describe(`a seq past 2^31 - 1 [${BACKEND}]`, () => {
  it.each([2 ** 31, Number.MAX_SAFE_INTEGER])(
    'fork atSeq %d / rewind toSeq: MESSAGE_NOT_FOUND, nothing written',
    async (seq) => {
      const store = await backend.open()
      await store.append('root', [{ role: 'user', content: [{ text: 'q' }] }])
      const before = await backend.checksum(store)
      expect(await codeOf(store.fork('root', { atSeq: seq }))).toBe('MESSAGE_NOT_FOUND atSeq')
      expect(await codeOf(store.rewind('root', { toSeq: seq }))).toBe('MESSAGE_NOT_FOUND toSeq')
      expect(await backend.checksum(store)).toBe(before)
    },
  )
})
