/**
 * Adversarial: sibling leakage. Two forks of one point each append, pin, rewind (eviction log) and apply
 * their window; the parent goes on after the fork. Nothing one sibling (or the parent after the fork
 * point) wrote shows in the other: history, window, search, pins, pin log, evictions.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { MessageData } from '../../src/index.js'
import { BACKEND, makeBackend } from '../helpers/backend.js'
import { NO_LIMITS } from '../helpers/branch-model.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })

describe(`no sibling leakage [${BACKEND}]`, () => {
  it('a sibling and the parent after the fork are invisible to a branch', async () => {
    const store = await backend.open()
    await store.append('root', [user('shared alpha'), assistant('shared beta')])
    await store.fork('root', { atSeq: 1, newSessionId: 'left' })
    await store.fork('root', { atSeq: 1, newSessionId: 'right' })
    await store.append('root', [user('parentonly gamma'), assistant('parentonly delta')])
    await store.pin('root', { seq: 2 }, { actor: 'user' })
    for (let i = 0; i < 3; i++)
      await store.append('right', [user(`rightonly q${i}`), assistant(`rightonly a${i}`)])
    await store.pin('right', { seq: 3 }, { actor: 'agent' })
    await store.pin('right', { seq: 0 }, { actor: 'agent' })
    await store.rewind('right', { toSeq: 4 })
    await store.applyWindow('right', { ...NO_LIMITS, windowSize: 2 })
    await store.append('left', [user('leftonly q'), assistant('leftonly a')])
    const leaks = (values: unknown): void => {
      const text = JSON.stringify(values)
      expect(text).not.toMatch(/rightonly|parentonly/)
    }
    leaks(await store.history('left', { limit: 1000 }))
    leaks(await store.window('left'))
    leaks(await store.search('rightonly', { sessionId: 'left' }))
    leaks(await store.search('parentonly', { sessionId: 'left' }))
    expect(await store.search('shared', { sessionId: 'left' })).toHaveLength(2)
    expect(await store.search('rightonly', { sessionId: 'right' })).not.toHaveLength(0)
    expect(await store.evictions('left')).toStrictEqual([])
    expect(await store.pinEvents('left')).toStrictEqual([])
    expect((await store.history('left', { limit: 1000 })).every((e) => !e.pinned)).toBe(true)
    // the right branch's pin of the shared seq 0 does not reach the root or left
    expect((await store.history('root', { limit: 1000 }))[0]?.pinned).toBe(false)
    // without a session filter each stored row is listed once, by its owner
    const all = await store.search('shared')
    expect(all.map((h) => h.sessionId)).toStrictEqual(['root', 'root'])
  })
})
