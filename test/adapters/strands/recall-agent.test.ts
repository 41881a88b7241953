/**
 * Recall with a real Strands `Agent` on either backend (a conformance-suite file): the recall demo's
 * scripted model, whose early fact left the window, calls `search_history` then `read_history` and answers
 * from what they returned — on SQLite the tools answer at once, on PostgreSQL they await the store.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { FACT, runRecallDemo } from '../../../examples/recall-demo.js'
import { BACKEND, coreStoreOf, makeBackend } from '../../helpers/backend.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

describe(`recall with a Strands Agent [${BACKEND}]`, () => {
  it('answers from what search_history and read_history returned, the fact long out of the window', async () => {
    const store = await backend.open()
    const r = await runRecallDemo(coreStoreOf(store))
    expect(r.factInWindowWhenAsked).toBe(false)
    expect(r.evicted).toMatchObject({ cut: 'trim-point', reason: 'window-size' })
    expect(r.evicted?.at).toBeInstanceOf(Date)
    expect(r.toolCalls.map((c) => c.name)).toStrictEqual(['search_history', 'read_history'])
    expect(r.toolCalls[1]?.input).toStrictEqual({ fromSeq: r.factSeq, toSeq: r.factSeq })
    expect(r.toolResults[0]).toMatch(
      new RegExp(`^- seq ${r.factSeq} \\(user, no longer in your context`, 'm'),
    )
    expect(r.toolResults[1]).toContain(FACT)
    expect(r.answer).toBe('The on-call engineer is Priya Raman (pager 4471), as you told me at seq 0.')
    // The tools' own calls are in the archive, and left out of a search by default.
    const hits = await store.search('on-call engineer cutover', { sessionId: 'recall' })
    expect(hits.map((h) => h.seq)).toContain(0)
    const own = await store.search('search_history', { sessionId: 'recall' })
    expect(own).toStrictEqual([])
  })
})
