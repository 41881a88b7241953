/**
 * `window({ alternate: true })`: the window with runs of same-role messages merged, so that providers
 * which require alternating roles (Bedrock Converse) accept it; the archive is untouched. The window-rule
 * oracle (`test/helpers/window-rules.ts`) checks this form after every step of every property test;
 * these cases show the merges themselves.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  alternateRoles,
  PersistentConversationManager,
  type ContextStore,
  type StoredMessageData,
} from '../../src/index.js'
import { useTempStore } from '../helpers/temp-store.js'
import { assertWindowRules } from '../helpers/window-rules.js'
import { assistant, toolUse, user } from '../helpers/messages.js'

let store: ContextStore
useTempStore((opened) => {
  ;({ store } = opened)
})

describe('alternateRoles', () => {
  it('merges a pinned user message kept before the boundary with the user message after it', () => {
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 4 })
    m.append([user('remember: deadline friday'), assistant('ok'), user('q1'), assistant('a1'), user('q2')])
    m.pin({ seq: 0 })
    m.applyWindow()
    expect(m.window().map((x) => x.role)).toStrictEqual(['user', 'user', 'assistant', 'user'])
    const merged = m.window({ alternate: true })
    expect(merged.map((x) => x.role)).toStrictEqual(['user', 'assistant', 'user'])
    expect(merged[0]?.content).toStrictEqual([{ text: 'remember: deadline friday' }, { text: 'q1' }])
    expect(merged[0]?.metadata?.custom).toMatchObject({
      pinned: true,
      contextLedger: { mergedFrom: [m.history()[0]?.trackingId, m.history()[2]?.trackingId] },
    })
    // The archive and the plain window are unchanged.
    expect(m.history().map((e) => e.message.content)).toStrictEqual(
      [user('remember: deadline friday'), assistant('ok'), user('q1'), assistant('a1'), user('q2')].map(
        (x) => x.content,
      ),
    )
    assertWindowRules(store, 's')
  })

  it('puts the results of a repair row first when it merges with the prompt that caused it', () => {
    const m = new PersistentConversationManager({ store, sessionId: 's' })
    m.append([user('go'), toolUse('t1')])
    m.append(user('still there?'))
    const merged = m.window({ alternate: true })
    expect(merged.map((x) => x.role)).toStrictEqual(['user', 'assistant', 'user'])
    expect(merged[2]?.content.map((b) => Object.keys(b)[0])).toStrictEqual(['toolResult', 'text'])
    assertWindowRules(store, 's')
  })

  it('returns messages that need no merging as they are', () => {
    const window = [user('a'), assistant('b'), user('c')].map((x, i) => ({ ...x, trackingId: `t${i}` }))
    const out = alternateRoles(window)
    expect(out).toStrictEqual(window)
    out.forEach((x, i) => {
      expect(x).toBe(window[i])
    })
  })

  it('alternates roles and keeps every block, in order within each role run, for any sequence', () => {
    const block = fc.oneof(
      fc.string().map((text) => ({ text })),
      fc.constantFrom('x', 'y').map((id) => ({
        toolResult: { toolUseId: id, status: 'success' as const, content: [] },
      })),
    )
    const message = fc.record({
      role: fc.constantFrom('user' as const, 'assistant' as const),
      content: fc.array(block, { minLength: 1, maxLength: 3 }),
      trackingId: fc.uuid(),
    })
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), (window: StoredMessageData[]) => {
        const out = alternateRoles(window)
        for (let i = 1; i < out.length; i++) expect(out[i]?.role).not.toBe(out[i - 1]?.role)
        const text = (ms: StoredMessageData[]): unknown[] =>
          ms.flatMap((x) => x.content.filter((b) => 'text' in b))
        expect(text(out)).toStrictEqual(text(window))
        expect(out.flatMap((x) => x.content)).toHaveLength(window.flatMap((x) => x.content).length)
      }),
    )
  })
})
