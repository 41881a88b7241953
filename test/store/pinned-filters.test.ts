/**
 * `pinnedMessages()` filtered by the latest pin's actor, reason and time, in one session or all.
 */
import { describe, expect, it } from 'vitest'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-pins-')

describe('store.pinnedMessages filters', () => {
  it('filters by actor, reason (contained, any case), since and until', async () => {
    const store = dir.open()
    store.append('a', [
      { role: 'user', content: [{ text: 'task' }] },
      { role: 'assistant', content: [{ text: 'ok' }] },
      { role: 'user', content: [{ text: 'constraint' }] },
    ])
    store.append('b', [{ role: 'user', content: [{ text: 'other' }] }])
    store.pin('a', { seq: 0 }, { actor: 'agent', reason: 'The TASK definition' })
    await new Promise((r) => setTimeout(r, 5))
    const middle = Date.now()
    await new Promise((r) => setTimeout(r, 5))
    store.pin('a', { seq: 2 }, { actor: 'user', reason: 'hard constraint' })
    store.pin('b', { seq: 0 }, { actor: 'agent' })
    const seqs = (o: Parameters<typeof store.pinnedMessages>[0]): string[] =>
      store.pinnedMessages(o).map((p) => `${p.sessionId}:${p.seq}`)
    expect(seqs({ actor: 'agent' })).toStrictEqual(['a:0', 'b:0'])
    expect(seqs({ sessionId: 'a', actor: 'agent' })).toStrictEqual(['a:0'])
    expect(seqs({ reason: 'task' })).toStrictEqual(['a:0'])
    expect(seqs({ since: middle })).toStrictEqual(['a:2', 'b:0'])
    expect(seqs({ until: new Date(middle) })).toStrictEqual(['a:0'])
    expect(seqs({ sessionId: 'nobody', actor: 'agent' })).toStrictEqual([])
    expect(seqs({ sessionId: 'a' })).toStrictEqual(['a:0', 'a:2'])
    expect(() => store.pinnedMessages({ actor: 3 } as never)).toThrow(/options.actor/)
    expect(() => store.pinnedMessages({ since: 'yesterday' } as never)).toThrow(/options.since/)
  })
})
