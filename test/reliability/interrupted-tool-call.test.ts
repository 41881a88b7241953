/**
 * A toolUse whose result never arrives (the process died mid-tool) must not leave the session unusable:
 * the next append records a synthetic error result as its own ledger row, and the window stays valid.
 */
import { describe, expect, it } from 'vitest'
import { type ContextStore, type MessageData } from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'
import { refusal } from '../helpers/refusal.js'
import { assertWindowRules, readHistory } from '../helpers/window-rules.js'
import { toolResults, toolUse, user } from '../helpers/messages.js'

const TEXT = 'Tool call interrupted: no result was recorded before the conversation continued.'
const dir = useTempDir('context-ledger-rel-')
// Stores opened by dir.open() are closed with the directory.
let store: ContextStore

const repairOf = (...ids: string[]): Omit<MessageData, 'trackingId'> => ({
  role: 'user',
  content: ids.map((toolUseId) => ({
    toolResult: { toolUseId, status: 'error' as const, content: [{ text: TEXT }] },
  })),
  metadata: { custom: { contextLedger: { repair: 'missing-tool-result' } } },
})
const withoutId = (m: MessageData): Omit<MessageData, 'trackingId'> => {
  const { trackingId: _id, ...rest } = m
  return rest
}
const statuses = (s: ContextStore): unknown[] =>
  s.connection().prepare('SELECT tool_use_id, use_seq, result_seq, status FROM tool_calls ORDER BY id').all()

describe('ContextStore.append after an interrupted tool call', () => {
  it('records an error result as its own row before a message that does not answer the call', () => {
    store = dir.open('a.db')
    store.append('s', [user('go'), toolUse('t1')])
    const [entry] = store.append('s', user('are you there?'))
    expect(entry?.seq).toBe(3)
    const history = readHistory(store, 's')
    expect(history.map((e) => withoutId(e.message))).toStrictEqual([
      withoutId(user('go')),
      withoutId(toolUse('t1')),
      repairOf('t1'),
      withoutId(user('are you there?')),
    ])
    expect(statuses(store)).toStrictEqual([{ tool_use_id: 't1', use_seq: 1, result_seq: 2, status: 'error' }])
    expect(store.window('s')).toHaveLength(4)
    assertWindowRules(store, 's')
  })

  it('answers only the calls a partial answer leaves open, in one row placed before it', () => {
    store = dir.open('a.db')
    store.append('s', [user('go'), toolUse('t1', 't2', 't3')])
    store.append('s', toolResults(['t2']))
    const history = readHistory(store, 's')
    expect(history.slice(2).map((e) => withoutId(e.message))).toStrictEqual([
      repairOf('t1', 't3'),
      withoutId(toolResults(['t2'])),
    ])
    expect(statuses(store)).toStrictEqual([
      { tool_use_id: 't1', use_seq: 1, result_seq: 2, status: 'error' },
      { tool_use_id: 't2', use_seq: 1, result_seq: 3, status: 'success' },
      { tool_use_id: 't3', use_seq: 1, result_seq: 2, status: 'error' },
    ])
    assertWindowRules(store, 's')
  })

  it('adds nothing when the next message answers every call', () => {
    store = dir.open('a.db')
    store.append('s', [user('go'), toolUse('t1', 't2')])
    store.append('s', toolResults(['t2', 't1']))
    expect(store.session('s')?.messageCount).toBe(3)
    expect(statuses(store).every((r) => (r as { status: string }).status === 'success')).toBe(true)
  })

  it('repairs inside a batch and before an assistant message too', () => {
    store = dir.open('a.db')
    const entries = store.append('s', [
      user('go'),
      toolUse('t1'),
      { role: 'assistant', content: [{ text: 'x' }] },
    ])
    expect(entries.map((e) => e.seq)).toStrictEqual([0, 1, 3])
    expect(withoutId(store.message('s', { seq: 2 }).message)).toStrictEqual(repairOf('t1'))
    assertWindowRules(store, 's')
  })

  it('keeps a call in flight as the newest message, across a reopen, until the next append', () => {
    store = dir.open('a.db')
    store.append('s', [user('go'), toolUse('t1')])
    store.close()
    store = dir.open('a.db')
    expect(store.window('s').at(-1)?.content[0]).toHaveProperty('toolUse')
    assertWindowRules(store, 's')
    store.append('s', toolResults(['t1']))
    expect(store.session('s')?.messageCount).toBe(3)
    assertWindowRules(store, 's')
  })

  it('does not repair for a retried batch that is already stored', () => {
    store = dir.open('a.db')
    const call = { ...toolUse('t1'), trackingId: 'c-1' }
    const [u, c] = store.append('s', [user('go', 'u-1'), call])
    const again = store.append('s', [u?.message as MessageData, call])
    expect(store.session('s')?.messageCount).toBe(2)
    expect(again.map((e) => e.seq)).toStrictEqual([0, 1])
    expect(c?.seq).toBe(1)
  })

  it('writes no repair row when the batch that needed it fails', () => {
    store = dir.open('a.db')
    store.append('s', [user('go', 'u-1'), toolUse('t1')])
    expect(refusal(() => store.append('s', [user('next'), toolResults(['never-called'])])).code).toBe(
      'INVALID_MESSAGE',
    )
    expect(store.session('s')?.messageCount).toBe(2)
    expect(statuses(store)).toStrictEqual([{ tool_use_id: 't1', use_seq: 1, result_seq: null, status: null }])
  })
})
