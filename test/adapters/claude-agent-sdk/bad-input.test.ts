/**
 * Bad input to `LedgerSessionStore` on either backend (a conformance-suite file): an entry without
 * `type`, a `uuid` reused with other content, a key with an empty part, the ledger's reserved key, a
 * session of another format or another key under the id — each a `ContextLedgerError` naming the field,
 * and the ledger unchanged (a checksum of every row before and after).
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionKey, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { LedgerSessionStore } from '../../../src/adapters/claude-agent-sdk/index.js'
import { ContextLedgerError } from '../../../src/index.js'
import { coreStoreOf, makeBackend } from '../../helpers/backend.js'
import { E, openSessions } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

const KEY: SessionKey = { projectKey: 'proj', sessionId: 'sess' }
const user = (uuid: string, text: string) => E('user', { uuid, message: { role: 'user', content: text } })

/** The error a call rejects with (failing the test when it resolves or throws something else). */
async function refusal(call: () => Promise<unknown>): Promise<{ code: string; path: string | undefined }> {
  try {
    await call()
  } catch (error) {
    expect(error).toBeInstanceOf(ContextLedgerError)
    const { code, path } = error as ContextLedgerError
    return { code, path }
  }
  throw new Error('expected a refusal')
}

/** A ledger with one stored transcript, and a check that nothing changed since. */
async function seeded() {
  const opened = await openSessions(backend)
  await opened.sessions.append(KEY, [user('u1', 'first'), E('mode', { mode: 'default' })])
  const before = await backend.checksum(opened.handle)
  const unchanged = async () => {
    expect(await backend.checksum(opened.handle)).toBe(before)
    expect(await opened.sessions.load(KEY)).toStrictEqual([
      user('u1', 'first'),
      E('mode', { mode: 'default' }),
    ])
  }
  return { ...opened, unchanged }
}

describe('bad entries: nothing of the batch is written', () => {
  it.each([
    ['an entry without type', [user('u2', 'ok'), { uuid: 'u3' }], 'INVALID_MESSAGE', '[1].type'],
    ['an entry with an empty type', [{ type: '' }], 'INVALID_MESSAGE', '[0].type'],
    ['an entry that is not an object', [user('u2', 'ok'), 'line'], 'INVALID_MESSAGE', '[1].type'],
    ['a uuid that is not a string', [E('user', { uuid: 7 })], 'INVALID_MESSAGE', '[0].uuid'],
    [
      'the ledger’s own key',
      [E('user', { uuid: 'u9', contextLedger: { pruned: true } })],
      'INVALID_MESSAGE',
      '[0].contextLedger',
    ],
    [
      'a stored uuid with other content',
      [user('u2', 'ok'), user('u1', 'changed')],
      'DUPLICATE_MESSAGE',
      '[1].uuid',
    ],
  ])('%s', async (_what, entries, code, path) => {
    const { sessions, unchanged } = await seeded()
    expect(await refusal(() => sessions.append(KEY, entries as SessionStoreEntry[]))).toEqual({ code, path })
    await unchanged()
  })

  it('entries that are not an array', async () => {
    const { sessions, unchanged } = await seeded()
    expect(await refusal(() => sessions.append(KEY, { type: 'user' } as never))).toEqual({
      code: 'INVALID_MESSAGE',
      path: 'entries',
    })
    await unchanged()
  })
})

describe('bad keys, on every method', () => {
  const badKeys: [string, unknown, string][] = [
    ['an empty projectKey', { projectKey: '', sessionId: 's' }, 'key.projectKey'],
    ['no projectKey', { sessionId: 's' }, 'key.projectKey'],
    ['an empty sessionId', { projectKey: 'p', sessionId: '' }, 'key.sessionId'],
    ['an empty-string subpath', { projectKey: 'p', sessionId: 's', subpath: '' }, 'key.subpath'],
    ['no key at all', undefined, 'key'],
  ]
  it.each(badKeys)('%s', async (_what, key, path) => {
    const { sessions, unchanged } = await seeded()
    const k = key as SessionKey
    const expected = { code: 'INVALID_OPTIONS', path }
    expect(await refusal(() => sessions.append(k, [E('a')]))).toEqual(expected)
    expect(await refusal(() => sessions.load(k))).toEqual(expected)
    expect(await refusal(() => sessions.delete(k))).toEqual(expected)
    expect(await refusal(() => sessions.pin(k, 'u1'))).toEqual(expected)
    expect(() => sessions.sessionIdOf(k)).toThrow(ContextLedgerError)
    if (path !== 'key.subpath') expect(await refusal(() => sessions.listSubkeys(k))).toEqual(expected)
    await unchanged()
  })

  it('an empty project key to listSessions and listSessionSummaries', async () => {
    const { sessions } = await seeded()
    const expected = { code: 'INVALID_OPTIONS', path: 'projectKey' }
    expect(await refusal(() => sessions.listSessions(''))).toEqual(expected)
    expect(await refusal(() => sessions.listSessionSummaries(undefined as never))).toEqual(expected)
  })
})

describe('what the id holds', () => {
  it("a session of another format under the key's id: FORMAT_MISMATCH, on writes and reads", async () => {
    const { handle, sessions } = await openSessions(backend)
    await handle.append('proj/sess', [{ role: 'user', content: 'hi' }], { format: 'openai-agents' })
    const before = await backend.checksum(handle)
    expect(await refusal(() => sessions.append(KEY, [E('a')]))).toMatchObject({ code: 'FORMAT_MISMATCH' })
    expect(await refusal(() => sessions.load(KEY))).toMatchObject({ code: 'FORMAT_MISMATCH' })
    expect(await refusal(() => sessions.delete(KEY))).toMatchObject({ code: 'FORMAT_MISMATCH' })
    expect(await sessions.listSessions('proj')).toStrictEqual([])
    expect(await backend.checksum(handle)).toBe(before)
  })

  it("another key's transcript under the key's id (a prefix ending like a key): refused at key", async () => {
    const { handle, sessions } = await openSessions(backend)
    const prefixed = new LedgerSessionStore({ store: coreStoreOf(handle), prefix: 'a/' })
    await prefixed.append({ projectKey: 'p', sessionId: 's' }, [E('one')])
    const clash = { projectKey: 'a', sessionId: 'p', subpath: 's' }
    expect(sessions.sessionIdOf(clash)).toBe(prefixed.sessionIdOf({ projectKey: 'p', sessionId: 's' }))
    const before = await backend.checksum(handle)
    expect(await refusal(() => sessions.append(clash, [E('two')]))).toEqual({
      code: 'INVALID_OPTIONS',
      path: 'key',
    })
    expect(await refusal(() => sessions.load(clash))).toEqual({ code: 'INVALID_OPTIONS', path: 'key' })
    expect(await sessions.listSubkeys({ projectKey: 'a', sessionId: 'p' })).toStrictEqual([])
    expect(await backend.checksum(handle)).toBe(before)
  })
})

describe('bad options', () => {
  it.each([
    [{ store: {} }, 'store'],
    [{ store: 'agent.db' }, 'store'],
    [{ prefix: 3 }, 'prefix'],
    [{ prefix: 'x'.repeat(65) }, 'prefix'],
    [{ windowSize: 10 }, 'windowSize'],
  ])('%j is refused naming %s', async (options, path) => {
    const { handle } = await openSessions(backend)
    const make = () => new LedgerSessionStore({ store: coreStoreOf(handle), ...options } as never)
    expect(make).toThrow(ContextLedgerError)
    expect(await refusal(() => Promise.resolve().then(make))).toMatchObject({ code: 'INVALID_OPTIONS', path })
  })

  it('pin of an unknown uuid, a bad uuid, bad prune options', async () => {
    const { sessions, unchanged } = await seeded()
    expect(await refusal(() => sessions.pin(KEY, 'nope'))).toMatchObject({ code: 'MESSAGE_NOT_FOUND' })
    expect(await refusal(() => sessions.pin(KEY, ''))).toEqual({ code: 'INVALID_OPTIONS', path: 'uuid' })
    const prune = (options: unknown) => refusal(() => sessions.prune(options as never))
    expect(await prune({ olderThan: Date.now() })).toEqual({
      code: 'INVALID_OPTIONS',
      path: 'options.keepPinned',
    })
    expect(await prune({ olderThan: 'yesterday', keepPinned: true })).toEqual({
      code: 'INVALID_OPTIONS',
      path: 'options.olderThan',
    })
    expect(await prune({ olderThan: new Date('nonsense'), keepPinned: true })).toEqual({
      code: 'INVALID_OPTIONS',
      path: 'options.olderThan',
    })
    expect(await prune({ olderThan: 0, keepPinned: true, projectKey: '' })).toEqual({
      code: 'INVALID_OPTIONS',
      path: 'options.projectKey',
    })
    expect(await prune({ olderThan: 0, keepPinned: true, days: 3 })).toEqual({
      code: 'INVALID_OPTIONS',
      path: 'options.days',
    })
    await unchanged()
  })
})
