/**
 * The SDK's `SessionKey` checked and mapped to a ledger session id: parts encoded so a `/` in a project
 * key or session id never reads as the separator, distinct keys never sharing an id, ids past the
 * ledger's limit hashed deterministically and well-formed, bad keys refused naming the part.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkKey, ledgerIdOf, type CheckedKey } from '../../../src/adapters/claude-agent-sdk/keys.js'
import { ContextLedgerError } from '../../../src/index.js'

const refusal = (fn: () => unknown): { code: string; path: string | undefined } => {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ContextLedgerError)
    const e = error as ContextLedgerError
    return { code: e.code, path: e.path }
  }
  throw new Error('expected a refusal')
}

describe('ledger ids of keys', () => {
  it('are the encoded project and session, then the subpath as it is', () => {
    expect(ledgerIdOf('', { projectKey: '-tmp-app', sessionId: 's-1' })).toBe('-tmp-app/s-1')
    expect(ledgerIdOf('', { projectKey: 'a/b', sessionId: 'c d', subpath: 'subagents/agent-1' })).toBe(
      'a%2Fb/c%20d/subagents/agent-1',
    )
    expect(ledgerIdOf('claude:', { projectKey: 'p', sessionId: 's' })).toBe('claude:p/s')
  })

  it('never give two keys one id (parts with slashes, subpaths, long parts)', () => {
    const part = fc.oneof(
      fc.string({ minLength: 1, maxLength: 6 }),
      fc.string({ minLength: 200, maxLength: 300 }),
    )
    const key = fc.record(
      {
        projectKey: part,
        sessionId: part,
        subpath: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }),
      },
      { requiredKeys: ['projectKey', 'sessionId'] },
    )
    fc.assert(
      fc.property(key, key, (a, b) => {
        const ka = checkKey(a)
        const kb = checkKey(b)
        const same =
          ka.projectKey === kb.projectKey && ka.sessionId === kb.sessionId && ka.subpath === kb.subpath
        expect(ledgerIdOf('', ka) === ledgerIdOf('', kb)).toBe(same)
      }),
      { numRuns: 300 },
    )
  })

  it('hash a key past 256 characters into a readable head and a SHA-256, the same every time', () => {
    const key: CheckedKey = {
      projectKey: 'p'.repeat(151),
      sessionId: 's',
      subpath: `subagents/${'😀'.repeat(60)}`,
    }
    const id = ledgerIdOf('', key)
    expect(id.length).toBeLessThanOrEqual(256)
    expect(id.isWellFormed()).toBe(true)
    expect(id).toMatch(/^p{151}\/s\/subagents\/.*~[0-9a-f]{64}$/u)
    expect(ledgerIdOf('', { ...key })).toBe(id)
    expect(ledgerIdOf('', { ...key, subpath: `${key.subpath ?? ''}x` })).not.toBe(id)
  })
})

describe('bad keys', () => {
  it.each([
    [null, 'key'],
    ['p/s', 'key'],
    [{ sessionId: 's' }, 'key.projectKey'],
    [{ projectKey: '', sessionId: 's' }, 'key.projectKey'],
    [{ projectKey: 'p', sessionId: '' }, 'key.sessionId'],
    [{ projectKey: 'p', sessionId: 7 }, 'key.sessionId'],
    [{ projectKey: 'p', sessionId: 's', subpath: '' }, 'key.subpath'],
    [{ projectKey: 'p', sessionId: 's', subpath: 3 }, 'key.subpath'],
    [{ projectKey: '\ud800', sessionId: 's' }, 'key.projectKey'],
  ])('%j is refused at %s', (key, path) => {
    expect(refusal(() => checkKey(key))).toEqual({ code: 'INVALID_OPTIONS', path })
  })
})
