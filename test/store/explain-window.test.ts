/**
 * `explainWindow()`: the reasons the store gives for each window message, in the situations the window
 * rules name — a lead before a protected message that cannot open a window, the anchor of a tool-pair
 * cut, a kept row released by an unpin, the newest turn, the tail — and that they cover the window
 * exactly.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { PersistentConversationManager, type MessageData, type WindowReason } from '../../src/index.js'
import { tempStore } from '../helpers/temp-store.js'

let cleanup: () => void = () => undefined
afterEach(() => {
  cleanup()
})

function manager(windowSize: number): PersistentConversationManager {
  const t = tempStore()
  cleanup = t.cleanup
  return new PersistentConversationManager({ store: t.store, sessionId: 's', windowSize })
}

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })
const call = (id: string): MessageData => ({
  role: 'assistant',
  content: [{ toolUse: { toolUseId: id, name: 'step', input: {} } }],
})
const result = (id: string): MessageData => ({
  role: 'user',
  content: [{ toolResult: { toolUseId: id, status: 'success', content: [{ text: 'done' }] } }],
})

function reasons(m: PersistentConversationManager): Map<number | undefined, string[]> {
  const w = m.store.explainWindow('s')
  expect(w?.messages.map((x) => x.message)).toStrictEqual(m.window())
  return new Map(w?.messages.map((x) => [x.seq, x.reasons.map((r: WindowReason) => r.kind)]) ?? [])
}

describe('explainWindow', () => {
  it('names the lead of a pinned assistant message, and the tail and newest turn', () => {
    const m = manager(4)
    for (let i = 0; i < 5; i++) m.append([user(`q${i}`), assistant(`a${i}`)])
    m.pin({ seq: 3 }, { actor: 'agent', reason: 'key answer' })
    m.applyWindow()
    const why = reasons(m)
    expect(why.get(2)).toStrictEqual(['lead'])
    expect(m.store.explainWindow('s')?.messages[0]?.reasons).toStrictEqual([{ kind: 'lead', for: 3 }])
    expect(why.get(3)).toStrictEqual(['pinned'])
    expect(why.get(8)).toStrictEqual(['tail', 'newest-turn'])
    expect(why.get(9)).toStrictEqual(['tail'])
  })

  it('names the anchor of a turn cut between its tool rounds', () => {
    const m = manager(4)
    m.append([user('start'), assistant('ok'), user('do the steps')])
    for (let i = 0; i < 4; i++) m.append([call(`c${i}`), result(`c${i}`)])
    const r = m.applyWindow()
    expect(r.cut).toBe('tool-pair')
    const why = reasons(m)
    expect(why.get(2)).toStrictEqual(['newest-turn', 'anchor'])
    expect([...why.values()].slice(1).every((k) => k[0] === 'tail')).toBe(true)
  })

  it('says a kept row is released once its pin is lifted, until a plan lets it go', () => {
    const m = manager(4)
    for (let i = 0; i < 3; i++) m.append([user(`q${i}`), assistant(`a${i}`)])
    m.pin({ seq: 0 })
    m.append([user('q3'), assistant('a3'), user('q4'), assistant('a4')])
    m.applyWindow()
    expect(reasons(m).get(0)).toStrictEqual(['pinned'])
    m.unpin({ seq: 0 })
    expect(reasons(m).get(0)).toStrictEqual(['released'])
    m.append([user('q5'), assistant('a5')])
    m.applyWindow()
    expect(reasons(m).has(0)).toBe(false)
  })

  it('is undefined for an unknown session', () => {
    const m = manager(4)
    expect(m.store.explainWindow('nope')).toBeUndefined()
  })
})
