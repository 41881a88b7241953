import { describe, expect, it } from 'vitest'
import {
  type ContextLedgerError,
  PersistentConversationManager,
  planWindow,
  type ContextStore,
} from '../../src/index.js'
import { refusal } from '../helpers/refusal.js'
import { useTempStore } from '../helpers/temp-store.js'
import { assistant, turns, user } from '../helpers/messages.js'

let store: ContextStore
useTempStore((opened) => {
  ;({ store } = opened)
})

/** The refusal of a manager built on `store`, session `s`, with `options`. */
function optionsError(options: Record<string, unknown>): ContextLedgerError {
  return refusal(() => new PersistentConversationManager({ store, sessionId: 's', ...options }))
}

describe('PersistentConversationManager', () => {
  describe('constructor', () => {
    it.each<[Record<string, unknown>, string]>([
      [{ windowSize: 0 }, 'windowSize'],
      [{ windowSize: -3 }, 'windowSize'],
      [{ windowSize: 2.5 }, 'windowSize'],
      [{ protectedMessages: { first: -1 } }, 'protectedMessages.first'],
      [{ protectedMessages: { middle: 1 } }, '"middle"'],
      [{ windowsize: 40 }, 'unknown option(s) "windowsize"'],
      [{ tokenBudget: 0 }, 'tokenBudget'],
      [{ protectedMessages: { first: 1 }, protectedMessageRange: 2 }, 'protectedMessage'],
      [{ sessionId: '' }, 'sessionId'],
      [{ store: {} }, 'ContextStore'],
    ])('refuses %j with INVALID_OPTIONS naming the option (%s)', (options, named) => {
      const error = optionsError(options)
      expect(error.code).toBe('INVALID_OPTIONS')
      expect(error.message).toContain(named)
    })

    it('defaults to a 40-message window and reads the protectedMessageRange shorthand', () => {
      expect(new PersistentConversationManager({ store, sessionId: 's' }).limits).toStrictEqual({
        windowSize: 40,
        tokenBudget: undefined,
        first: 0,
        last: 0,
      })
      const head = new PersistentConversationManager({ store, sessionId: 's', protectedMessageRange: 2 })
      const tail = new PersistentConversationManager({ store, sessionId: 's', protectedMessageRange: -3 })
      expect([head.limits.first, head.limits.last, tail.limits.first, tail.limits.last]).toStrictEqual([
        2, 0, 0, 3,
      ])
    })
  })

  describe('applyWindow', () => {
    it('returns evicted 0 and within-limits when nothing needs to go', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 10 })
      m.append(turns(2))
      expect(m.applyWindow()).toMatchObject({ evicted: 0, reason: 'within-limits', windowMessages: 4 })
    })

    it('keeps protected first and last messages and counts them toward windowSize', () => {
      const m = new PersistentConversationManager({
        store,
        sessionId: 's',
        windowSize: 6,
        protectedMessages: { first: 2, last: 2 },
      })
      m.append(turns(10))
      const result = m.applyWindow()
      const ids = m.window().map((x) => (x.content[0] as { text: string }).text)
      expect(ids).toStrictEqual(['q0', 'a0', 'q8', 'a8', 'q9', 'a9'])
      expect(result).toMatchObject({ windowMessages: 6, evicted: 14, cut: 'trim-point', protectedCount: 4 })
    })

    it('says so when the protected messages alone exceed the window, and keeps the newest turn', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 3 })
      m.append(turns(4))
      for (const seq of [0, 1, 2, 3]) m.pin({ seq })
      const result = m.applyWindow()
      expect(result).toMatchObject({
        protectedExceedsLimit: true,
        exceedsLimit: true,
        cut: 'newest-turn',
        protectedCount: 4,
        windowMessages: 6,
      })
      expect(m.window().map((x) => (x.content[0] as { text: string }).text)).toStrictEqual([
        'q0',
        'a0',
        'q1',
        'a1',
        'q3',
        'a3',
      ])
    })

    it('never lets the window exceed the token budget unless the protected set does', () => {
      const m = new PersistentConversationManager({
        store,
        sessionId: 's',
        windowSize: 100,
        tokenBudget: 50,
        tokenCounter: () => 10,
      })
      m.append(turns(10))
      const result = m.applyWindow()
      expect(result.windowTokens).toBeLessThanOrEqual(50)
      expect(result.windowTokens).toBe(40)
      expect(m.window()).toHaveLength(4)
    })

    it('matches planWindow on the same messages', () => {
      const messages = turns(12)
      const m = new PersistentConversationManager({
        store,
        sessionId: 's',
        windowSize: 5,
        protectedMessageRange: 1,
      })
      m.append(messages)
      const result = m.applyWindow()
      const planned = planWindow(
        m.history({ limit: 1000 }).map((e) => e.message),
        {
          windowSize: 5,
          protectedMessageRange: 1,
        },
      )
      expect(result.boundary).toBe(planned.boundary)
      expect(m.window()).toStrictEqual(planned.messages)
    })
  })

  describe('window', () => {
    it('never opens with an assistant greeting the session started with, even under protectedMessageRange 1', () => {
      const m = new PersistentConversationManager({
        store,
        sessionId: 's',
        windowSize: 3,
        protectedMessageRange: 1,
      })
      const greeting = m.append(assistant('Hi!'))
      expect(greeting.inWindow).toBe(false)
      m.append(turns(3))
      m.applyWindow()
      // The greeting is seq 0, the "first 1"; it cannot open a window, so it is not protected.
      expect(m.window().map((x) => (x.content[0] as { text: string }).text)).toStrictEqual(['q2', 'a2'])
      expect(m.history()[0]?.message).toStrictEqual({ ...assistant('Hi!'), trackingId: greeting.trackingId })
    })

    it('keeps the newest turn when it alone exceeds the budget, and a message appended pinned after it', () => {
      const m = new PersistentConversationManager({
        store,
        sessionId: 's',
        tokenBudget: 100,
        tokenCounter: () => 60,
      })
      m.append([user('a'), assistant('b')])
      expect(m.applyWindow()).toMatchObject({
        evicted: 0,
        reason: 'newest-turn',
        exceedsLimit: true,
        windowMessages: 2,
      })
      const pinned = m.append({ ...assistant('keep me'), metadata: { custom: { pinned: true } } })
      expect(pinned.inWindow).toBe(true)
      const window = m.window().map((x) => (x.content[0] as { text: string }).text)
      expect(window).toStrictEqual(['a', 'b', 'keep me'])
    })
  })

  describe('reduce', () => {
    it('evicts something on overflow even within the window, and says why when nothing can go', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 40 })
      m.append(turns(3))
      expect(m.reduce({ overflow: true })).toMatchObject({ evicted: 2, cut: 'trim-point' })
      expect(m.reduce({ overflow: true })).toMatchObject({ evicted: 2 })
      const last = m.reduce({ overflow: true })
      expect(last.evicted).toBe(0)
      expect(last.reason).toBe('newest-turn')
      expect(m.window()).toHaveLength(2)
      m.pin({ windowIndex: 0 })
      m.pin({ windowIndex: 1 })
      expect(m.reduce({ overflow: true }).reason).toBe('all-protected')
    })

    it.each([
      ['a misspelt option', { overflowed: true }, 'options.overflowed'],
      ['a non-boolean overflow', { overflow: 'yes' }, 'options.overflow'],
      ['null', null, 'options'],
    ])('refuses %s with INVALID_OPTIONS naming it, and evicts nothing', (_, options, path) => {
      const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 40 })
      m.append(turns(3))
      expect(refusal(() => m.reduce(options as never))).toMatchObject({ code: 'INVALID_OPTIONS', path })
      expect(m.window()).toHaveLength(6)
    })

    it('is not jammed by a pinned head (where Strands 1.19 gives up and evicts nothing)', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 4 })
      m.append(turns(3))
      m.pin({ seq: 0 })
      m.pin({ seq: 1 })
      const result = m.reduce({ overflow: true })
      expect(result.evicted).toBeGreaterThan(0)
      expect(m.window().map((x) => (x.content[0] as { text: string }).text)).toStrictEqual([
        'q0',
        'a0',
        'q2',
        'a2',
      ])
    })
  })
})
