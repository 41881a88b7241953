/**
 * The window counts what it shows. A window replacement (`setWindowContent`, or a message the Strands
 * adapter shows in an edited form) counts with its own tokens — toward `tokenBudget`, in
 * `applyWindow()`'s `windowTokens` and in `sessions()` — not with the original's.
 */
import { describe, expect, it } from 'vitest'
import {
  estimateTokens,
  PersistentConversationManager,
  type ContextStore,
  type MessageData,
  type StoredMessageData,
} from '../../src/index.js'
import { useTempStore } from '../helpers/temp-store.js'
import { assertWindowRules } from '../helpers/window-rules.js'
import { assistant, user } from '../helpers/messages.js'

let store: ContextStore
useTempStore((opened) => {
  ;({ store } = opened)
})

/** Tokens of what the window shows, counted from window() itself. */
const shown = (window: readonly StoredMessageData[], counter = estimateTokens): number =>
  window.reduce((a, m) => a + counter(m), 0)

describe('window tokens', () => {
  it('count a replacement larger than the original, so tokenBudget holds', () => {
    const m = new PersistentConversationManager({ store, sessionId: 's', tokenBudget: 200 })
    const [, answer] = m.append([user('q1'), assistant('a1'), user('q2'), assistant('a2')])
    // An edited copy, ~10,000 tokens, shown in place of a 6-token answer.
    store.setWindowContent(
      's',
      { seq: 1 },
      { ...assistant('y'.repeat(40_000)), trackingId: answer?.trackingId },
    )
    const before = store.session('s')
    expect(before?.windowTokens).toBe(shown(m.window()))
    const result = m.applyWindow()
    expect(result.windowTokens).toBe(shown(m.window()))
    expect(result.windowTokens).toBeLessThanOrEqual(200)
    expect(result.evicted).toBe(2)
    expect(store.session('s')?.windowTokens).toBe(result.windowTokens)
    assertWindowRules(store, 's')
  })

  it('count a smaller replacement (truncated tool results) with its own tokens too', () => {
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 40 })
    const [, big] = m.append([user('q'), assistant('z'.repeat(8000))])
    store.setWindowContent('s', { seq: 1 }, { ...assistant('short'), trackingId: big?.trackingId })
    expect(store.session('s')?.windowTokens).toBe(shown(m.window()))
    expect(m.applyWindow().windowTokens).toBe(shown(m.window()))
    store.setWindowContent('s', { seq: 1 }, null)
    expect(store.session('s')?.windowTokens).toBe(shown(m.window()))
  })

  it("count a kept row's replacement, before the boundary, with the manager's own counter", () => {
    const counter = (message: MessageData): number => JSON.stringify(message.content).length
    const m = new PersistentConversationManager({
      store,
      sessionId: 's',
      windowSize: 2,
      tokenCounter: counter,
    })
    const entries = m.append([
      user('q0'),
      assistant('a0'),
      user('q1'),
      assistant('a1'),
      user('q2'),
      assistant('a2'),
    ])
    m.pin({ seq: 1 })
    m.applyWindow()
    expect(m.window().map((x) => x.trackingId)).toContain(entries[1]?.trackingId)
    m.setWindowContent({ seq: 1 }, { ...assistant('w'.repeat(500)), trackingId: entries[1]?.trackingId })
    expect(store.session('s')?.windowTokens).toBe(shown(m.window(), counter))
    const result = m.applyWindow()
    expect(result.windowTokens).toBe(shown(m.window(), counter))
    expect(store.session('s')?.windowTokens).toBe(result.windowTokens)
  })
})
