/**
 * The newest turn always stays in the window: from the latest user message that can open a window on,
 * or — when that does not fit — its minimal valid form (that message, then the turn's latest tool round
 * onward). Even when it alone exceeds `tokenBudget` or `windowSize`, `applyWindow()` and `reduce()` never
 * leave an empty window or one that starts with an assistant message; they say `exceedsLimit` instead,
 * and a reduction that cannot go further says `reason: 'newest-turn'`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { planWindow, type MessageData } from '../../src/index.js'
import { BACKEND, makeBackend, type LedgerStore } from '../helpers/backend.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'
import { assistant, texts, toolResult, toolUse, user } from '../helpers/messages.js'

// The conformance suite: one store per file on the backend the project selects, a session per test.
const backend = makeBackend()
let store: LedgerStore
let sid = ''
let tests = 0
beforeAll(async () => {
  store = await backend.open()
})
afterAll(async () => {
  await backend.cleanup()
})
beforeEach(() => {
  sid = `s${tests++}`
})

/** A 3,400-token prompt by the built-in estimator (~4 characters per token). */
const bigPrompt = (): MessageData => user('x'.repeat(13_600))

describe(`the newest turn [${BACKEND}]`, () => {
  it('stays when the prompt alone exceeds tokenBudget: never an empty window', async () => {
    const m = backend.manager(store, { sessionId: sid, tokenBudget: 1000 })
    await m.append(bigPrompt())
    const applied = await m.applyWindow()
    expect(applied).toMatchObject({
      evicted: 0,
      reason: 'newest-turn',
      exceedsLimit: true,
      windowMessages: 1,
    })
    expect(await m.window()).toHaveLength(1)
    const reduced = await m.reduce({ overflow: true })
    expect(reduced).toMatchObject({ evicted: 0, reason: 'newest-turn', exceedsLimit: true })
    expect(await m.window()).toHaveLength(1)
    expect((await m.window())[0]?.role).toBe('user')
    await assertWindowRulesOf(store, sid)
  })

  it('lets everything before the prompt go, and keeps the prompt, when the prompt alone is over the budget', async () => {
    const m = backend.manager(store, { sessionId: sid, tokenBudget: 1000 })
    await m.append([user('hello'), assistant('hi'), bigPrompt()])
    const applied = await m.applyWindow()
    expect(applied).toMatchObject({ evicted: 2, cut: 'newest-turn', exceedsLimit: true, windowMessages: 1 })
    expect((await m.window())[0]?.role).toBe('user')
    expect(await m.reduce({ overflow: true })).toMatchObject({ evicted: 0, reason: 'newest-turn' })
    // An assistant reply and the next prompt continue the window; the next cut lets the big turn go.
    await m.append([assistant('done'), user('next')])
    expect(await m.applyWindow()).toMatchObject({ evicted: 2, exceedsLimit: false })
    expect(texts(await m.window())).toStrictEqual(['next'])
  })

  it("keeps its minimal form — the prompt and the latest tool round onward — when the turn's tool rounds are over the budget", async () => {
    const m = backend.manager(store, { sessionId: sid, tokenBudget: 300 })
    await m.append([user('earlier'), assistant('reply')])
    await m.append([
      user('look it up'),
      toolUse('t1'),
      toolResult('t1', 'r'.repeat(2000)),
      toolUse('t2'),
      toolResult('t2', 'ok'),
    ])
    const applied = await m.applyWindow()
    expect(applied).toMatchObject({ cut: 'tool-pair', exceedsLimit: false })
    expect(texts(await m.window())).toStrictEqual(['look it up', 'use t2', 'result t2'])
    // A call in flight stays with the prompt before it.
    await m.append(toolUse('t3'))
    await m.append(toolResult('t3', 'r'.repeat(2000)))
    await m.append(toolUse('t4'))
    await m.applyWindow()
    expect(texts(await m.window())).toStrictEqual(['look it up', 'use t4'])
    expect(await m.reduce({ overflow: true })).toMatchObject({ evicted: 0, reason: 'newest-turn' })
    await assertWindowRulesOf(store, sid)
  })

  it('keeps the prompt and the latest tool round even when that round alone is over the budget', async () => {
    const m = backend.manager(store, { sessionId: sid, tokenBudget: 300 })
    await m.append([
      user('q'),
      toolUse('a'),
      toolResult('a', 'r'.repeat(2000)),
      toolUse('b'),
      toolResult('b', 'r'.repeat(2000)),
    ])
    expect(await m.applyWindow()).toMatchObject({ cut: 'newest-turn', exceedsLimit: true, evicted: 2 })
    expect(texts(await m.window())).toStrictEqual(['q', 'use b', 'result b'])
    expect(await m.reduce({ overflow: true })).toMatchObject({ evicted: 0, reason: 'newest-turn' })
    await assertWindowRulesOf(store, sid)
  })

  it('stays when the protected messages alone fill windowSize', async () => {
    const m = backend.manager(store, { sessionId: sid, windowSize: 2 })
    await m.append([user('q0'), assistant('a0'), user('q1'), assistant('a1')])
    for (const seq of [0, 1, 2]) await m.pin({ seq })
    await m.append([user('q2'), assistant('a2')])
    expect(await m.applyWindow()).toMatchObject({
      cut: 'newest-turn',
      protectedExceedsLimit: true,
      exceedsLimit: true,
      evicted: 1,
    })
    expect(texts(await m.window())).toStrictEqual(['q0', 'a0', 'q1', 'q2', 'a2'])
    expect(await m.reduce({ overflow: true })).toMatchObject({ evicted: 0, reason: 'newest-turn' })
  })

  it('is what planWindow keeps too', () => {
    const messages = [user('hello'), assistant('hi'), bigPrompt()]
    const plan = planWindow(messages, { tokenBudget: 1000 })
    expect(plan.messages).toHaveLength(1)
    expect(plan).toMatchObject({ cut: 'newest-turn', exceedsLimit: true, boundary: 2 })
  })
})
