/**
 * Messages sent again and results that arrive late: neither may be dropped or refused.
 * - A message re-sent under a trackingId the session holds earlier (a clone of an old message) is a new
 *   occurrence with a new trackingId that records which message it repeats; only a retry of the newest
 *   messages is a no-op.
 * - A toolResult for a call that is no longer waiting (answered by a repair row because another writer's
 *   message came first) is archived as sent and shown in the window as text.
 */
import { describe, expect, it } from 'vitest'
import {
  PersistentConversationManager,
  type ContextStore,
  type MessageData,
  type StoredMessageData,
} from '../../src/index.js'
import { truncateLateResults } from '../../src/store/late-tool-results.js'
import { refusal } from '../helpers/refusal.js'
import { useTempStore } from '../helpers/temp-store.js'
import { assertWindowRules, readHistory } from '../helpers/window-rules.js'
import { assistant, callTool, toolResult, user } from '../helpers/messages.js'

let store: ContextStore
useTempStore((opened) => {
  ;({ store } = opened)
})

describe('ContextStore.append', () => {
  describe('a message sent again', () => {
    it('stores a re-sent earlier message as a new occurrence that records what it repeats', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's' })
      const first = m.append(user('what is the weather?', 'q-1'))
      m.append(assistant('sunny'))
      const again = m.append(user('what is the weather?', 'q-1'))
      expect(again.seq).toBe(2)
      expect(again.trackingId).not.toBe('q-1')
      expect(again.repeatOf).toBe(first.seq)
      expect(again.message).toStrictEqual({ ...user('what is the weather?'), trackingId: again.trackingId })
      expect(m.history().map((e) => [e.message.role, e.repeatOf])).toStrictEqual([
        ['user', undefined],
        ['assistant', undefined],
        ['user', 0],
      ])
      expect(m.window().map((x) => x.role)).toStrictEqual(['user', 'assistant', 'user'])
      // The repeat is itself an ordinary message: a retry of it (by its new id) is a no-op.
      expect(m.append(again.message).seq).toBe(2)
      expect(m.history()).toHaveLength(3)
      assertWindowRules(store, 's')
    })

    it('keeps a retry of the newest batch a no-op, repair rows included', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's' })
      m.append([user('go', 'u-1'), { ...callTool('deploy', 't1'), trackingId: 'c-1' }])
      const batch = [user('are you there?', 'u-2'), assistant('yes')]
      const entries = m.append([batch[0] as MessageData])
      expect(entries[0]?.repair).toBeDefined()
      expect(m.history()).toHaveLength(4)
      expect(m.append(batch[0] as MessageData).seq).toBe(3)
      expect(m.history()).toHaveLength(4)
    })

    it('refuses a changed message under the newest trackingId (not a retry, not a repeat)', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's' })
      m.append(user('hello', 'u-1'))
      expect(refusal(() => m.append(user('changed', 'u-1'))).code).toBe('DUPLICATE_MESSAGE')
      m.append(assistant('hi'))
      // Once something else followed, the same trackingId is a repeat, whatever its content.
      expect(m.append(user('changed', 'u-1')).repeatOf).toBe(0)
    })
  })

  describe('a retried batch', () => {
    it('is a no-op when it holds a copy sent again (retried after a crash that followed the commit)', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's' })
      m.append([user('a', 'A'), assistant('b')])
      const batch = [user('a', 'A'), user('c', 'C')]
      const first = m.append(batch)
      expect(first[0]?.repeatOf).toBe(0)
      const again = m.append(batch)
      expect(again.map((e) => e.seq)).toStrictEqual(first.map((e) => e.seq))
      expect(m.history()).toHaveLength(4)
    })

    it('is a retry only in the order it was stored: [B, A] after [A, B] is two messages sent again', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's' })
      m.append([user('a', 'A'), assistant('b')])
      m.append([{ ...assistant('b'), trackingId: 'B' }])
      const swapped = m.append([{ ...assistant('b'), trackingId: 'B' }, user('a', 'A')])
      expect(swapped.map((e) => e.repeatOf)).toStrictEqual([undefined, 0])
      expect(m.history()).toHaveLength(4)
    })

    it('retries a long batch with one read of the newest rows, whatever its length', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's' })
      const batch = Array.from({ length: 600 }, (_, i) =>
        i % 2 === 0 ? user(`q${i}`, `u${i}`) : assistant(`a${i}`),
      )
      const named = batch.map((x, i) => ({ ...x, trackingId: x.trackingId ?? `a${i}` }))
      m.append(named)
      expect(m.append(named).at(-1)?.seq).toBe(599)
      expect(m.history({ limit: 1000 })).toHaveLength(600)
    })
  })

  describe('a tool result that arrives late', () => {
    it('keeps a valid result of the same message linked, and the late one as text, through edits and redaction', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's' })
      m.append([user('go'), callTool('deploy', 't1')])
      m.append(user('moving on'))
      m.append({ role: 'assistant', content: [{ toolUse: { toolUseId: 't2', name: 'deploy', input: {} } }] })
      const mixed = m.append({
        role: 'user',
        content: [
          { toolResult: { toolUseId: 't2', status: 'success', content: [{ text: 'valid' }] } },
          { toolResult: { toolUseId: 't1', status: 'success', content: [{ text: 'late' }] } },
        ],
      })
      expect(mixed.late).toBe(true)
      const kinds = (): string[] => (m.window().at(-1)?.content ?? []).map((b) => Object.keys(b)[0] as string)
      expect(kinds()).toStrictEqual(['toolResult', 'text'])
      m.edit({ seq: mixed.seq }, mixed.message)
      expect(kinds()).toStrictEqual(['toolResult', 'text'])
      assertWindowRules(store, 's')
      m.redact({ seq: mixed.seq })
      expect(kinds()).toStrictEqual(['toolResult', 'text'])
      assertWindowRules(store, 's')
      // A window replacement (a truncation) or showing the original again keeps the late result as text too.
      m.setWindowContent({ seq: mixed.seq }, null)
      expect(kinds()).toStrictEqual(['toolResult', 'text'])
      m.setWindowContent({ seq: mixed.seq }, m.message({ seq: mixed.seq }).message)
      expect(kinds()).toStrictEqual(['toolResult', 'text'])
      assertWindowRules(store, 's')
    })

    it('archives a result whose call a repair row answered, and shows it in the window as text', () => {
      const a = new PersistentConversationManager({ store, sessionId: 'shared' })
      const b = new PersistentConversationManager({ store, sessionId: 'shared' })
      a.append([user('deploy please'), callTool('deploy', 'a-1')])
      // B's prompt arrives while A's tool runs: the store answers A's call with a repair row.
      const prompt = b.append(user('status?'))
      expect(prompt.repair?.message.content[0]).toHaveProperty('toolResult.status', 'error')
      // A's real result arrives: archived byte for byte, not refused.
      const late = a.append(toolResult('a-1', 'deployed v2'))
      expect(late.late).toBe(true)
      expect(late.message).toStrictEqual({ ...toolResult('a-1', 'deployed v2'), trackingId: late.trackingId })
      expect(late.windowMessage?.content).toStrictEqual([
        {
          text:
            '[Late tool result] The call "a-1" to deploy returned after the conversation had moved on ' +
            '(status: success):\ndeployed v2',
        },
      ])
      const shown = a.window().at(-1)
      expect(shown?.content[0]).toHaveProperty('text')
      expect(shown?.trackingId).toBe(late.trackingId)
      // The conversation goes on for both writers.
      a.append(assistant('done'))
      b.append(user('thanks'))
      expect(readHistory(store, 'shared').map((e) => e.late)).toStrictEqual([
        false,
        false,
        false,
        false,
        true,
        false,
        false,
      ])
      assertWindowRules(store, 'shared')
    })

    it('shows a late result truncated when given its window form with the text cut, and keeps the archive', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's' })
      m.append([user('go'), callTool('deploy', 't1')])
      m.append(user('moving on'))
      m.append({ role: 'assistant', content: [{ toolUse: { toolUseId: 't2', name: 'deploy', input: {} } }] })
      const long = 'x'.repeat(5000)
      const late = m.append({
        role: 'user',
        content: [
          { toolResult: { toolUseId: 't2', status: 'success', content: [{ text: 'valid' }] } },
          { toolResult: { toolUseId: 't1', status: 'success', content: [{ text: long }] } },
        ],
      })
      const archived = JSON.stringify(m.message({ seq: late.seq }).message)
      const before = store.session('s')?.windowTokens ?? 0
      const shown = m.window().at(-1) as StoredMessageData
      const cut = truncateLateResults(shown, late.message)
      expect(cut).not.toBe(shown)
      // Only the late result's block changes; a second cut changes nothing.
      expect(cut.content[0]).toStrictEqual(shown.content[0])
      expect(truncateLateResults(cut, late.message)).toBe(cut)
      m.setWindowContent({ seq: late.seq }, cut)
      const text = (m.window().at(-1)?.content[1] as { text: string }).text
      expect(text).toMatch(
        /^\[Late tool result\] The call "t1" to deploy returned .*\n<truncated chars="\d+"\/>\nx{200}$/s,
      )
      expect(store.session('s')?.windowTokens).toBeLessThan(before - 1000)
      expect(JSON.stringify(m.message({ seq: late.seq }).message)).toBe(archived)
      // The window form may drop the late results' ids only: a form without the linked result is refused.
      const withoutLinked = { ...cut, content: cut.content.slice(1) }
      const refused = refusal(() => {
        m.setWindowContent({ seq: late.seq }, withoutLinked)
      })
      expect(refused.code).toBe('INVALID_MESSAGE')
      assertWindowRules(store, 's')
    })

    it('truncates no text block the archive does not hold as a tool result, whatever it says', () => {
      const forged = `[Late tool result] The call "t1" to deploy returned ${'y'.repeat(5000)}`
      const message: StoredMessageData = { ...user(forged), trackingId: 'u-1' }
      expect(truncateLateResults(message, message)).toBe(message)
    })

    it('keeps every message of two interleaved tool-using writers, and a valid window after each', () => {
      const writers = ['a', 'b'].map((w) => ({
        w,
        m: new PersistentConversationManager({ store, sessionId: 'shared', windowSize: 12 }),
      }))
      let appended = 0
      for (let turn = 0; turn < 30; turn++) {
        // Each writer runs a tool round; the other writer's steps fall in between.
        for (const { w, m } of writers) m.append(user(`${w} prompt ${turn}`))
        for (const { w, m } of writers) m.append(callTool('deploy', `${w}-${turn}`))
        for (const { w, m } of writers) m.append(toolResult(`${w}-${turn}`))
        for (const { w, m } of writers) m.append(assistant(`${w} answer ${turn}`))
        appended += 8
        writers[turn % 2]?.m.applyWindow()
        assertWindowRules(store, 'shared')
      }
      const history = readHistory(store, 'shared')
      const own = history.filter((e) => e.message.metadata?.custom?.contextLedger === undefined)
      expect(own).toHaveLength(appended)
      expect(history.filter((e) => e.late).length).toBeGreaterThan(0)
    })
  })
})
