/**
 * `pinnedMessages()` filtered by the latest pin's actor, reason and time, in one session or all — on
 * either backend (a conformance-suite file).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { BACKEND, makeBackend } from '../helpers/backend.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

describe(`store.pinnedMessages filters [${BACKEND}]`, () => {
  it('filters by actor, reason (contained, any case), since and until', async () => {
    const store = await backend.open()
    await store.append('a', [
      { role: 'user', content: [{ text: 'task' }] },
      { role: 'assistant', content: [{ text: 'ok' }] },
      { role: 'user', content: [{ text: 'constraint' }] },
    ])
    await store.append('b', [{ role: 'user', content: [{ text: 'other' }] }])
    await store.pin('a', { seq: 0 }, { actor: 'agent', reason: 'The TASK definition' })
    await new Promise((r) => setTimeout(r, 5))
    const middle = Date.now()
    await new Promise((r) => setTimeout(r, 5))
    await store.pin('a', { seq: 2 }, { actor: 'user', reason: 'hard constraint' })
    await store.pin('b', { seq: 0 }, { actor: 'agent' })
    const seqs = async (o: Parameters<typeof store.pinnedMessages>[0]): Promise<string[]> =>
      (await store.pinnedMessages(o)).map((p) => `${p.sessionId}:${p.seq}`)
    expect(await seqs({ actor: 'agent' })).toStrictEqual(['a:0', 'b:0'])
    expect(await seqs({ sessionId: 'a', actor: 'agent' })).toStrictEqual(['a:0'])
    expect(await seqs({ reason: 'task' })).toStrictEqual(['a:0'])
    expect(await seqs({ since: middle })).toStrictEqual(['a:2', 'b:0'])
    expect(await seqs({ until: new Date(middle) })).toStrictEqual(['a:0'])
    expect(await seqs({ sessionId: 'nobody', actor: 'agent' })).toStrictEqual([])
    expect(await seqs({ sessionId: 'a' })).toStrictEqual(['a:0', 'a:2'])
    await expect(store.pinnedMessages({ actor: 3 } as never)).rejects.toThrow(/options.actor/)
    await expect(store.pinnedMessages({ since: 'yesterday' } as never)).rejects.toThrow(/options.since/)
  })
})
