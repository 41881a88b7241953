/**
 * The store's own pin() and unpin(): what a caller without a manager uses. A pin brings an evicted
 * message back with its tool partners, by the protected ranges it is given or, without limits, by those
 * the session's window was last applied with; an unpin lets it go at the next window application. Both
 * log who and why, and refuse bad arguments with `INVALID_OPTIONS` naming them.
 */
import { afterEach, describe, expect, it } from 'vitest'
import {
  openContextStore,
  PersistentConversationManager,
  type ContextStore,
  type MessageData,
} from '../../src/index.js'
import { refusal } from '../helpers/refusal.js'
import { tempStore } from '../helpers/temp-store.js'

/** Three turns, each a question, a tool call, its result and a reply: seqs 4t … 4t + 3. */
function conversation(): MessageData[] {
  return [0, 1, 2].flatMap((t): MessageData[] => [
    { role: 'user', content: [{ text: `question ${t}` }] },
    { role: 'assistant', content: [{ toolUse: { name: 'look', toolUseId: `c${t}`, input: { t } } }] },
    {
      role: 'user',
      content: [{ toolResult: { toolUseId: `c${t}`, status: 'success', content: [{ text: `found ${t}` }] } }],
    },
    { role: 'assistant', content: [{ text: `answer ${t}` }] },
  ])
}

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})

/** A store whose session `s` holds the conversation, applied with `protectedMessages.first = first`. */
function applied(first: number): ReturnType<typeof tempStore> & { manager: PersistentConversationManager } {
  const temp = tempStore()
  cleanups.push(temp.cleanup)
  const manager = new PersistentConversationManager({
    store: temp.store,
    sessionId: 's',
    windowSize: 4,
    protectedMessages: { first },
  })
  manager.append(conversation())
  manager.applyWindow()
  return { ...temp, manager }
}

const inWindow = (m: PersistentConversationManager): number[] =>
  m
    .history()
    .filter((e) => e.inWindow)
    .map((e) => e.seq)

describe('store.pin and store.unpin', () => {
  it('bring an evicted tool call back with its result and a lead, log who and why, and let it go again', () => {
    const { store, manager } = applied(0)
    expect(inWindow(manager)).toStrictEqual([8, 9, 10, 11])

    expect(store.pin('s', { seq: 5 }, { actor: 'agent', reason: 'the lookup' })).toStrictEqual({
      seq: 5,
      trackingId: expect.any(String) as string,
      changed: true,
      restored: 3,
    })
    // The call, its result, and the question before them as the window's lead.
    expect(inWindow(manager)).toStrictEqual([4, 5, 6, 8, 9, 10, 11])
    expect(store.pin('s', { seq: 5 })).toMatchObject({ changed: false, restored: 0 })

    expect(store.unpin('s', { seq: 5 }, { actor: 'user', reason: 'done' })).toMatchObject({
      changed: true,
      restored: 0,
    })
    manager.applyWindow()
    expect(inWindow(manager)).toStrictEqual([8, 9, 10, 11])
    expect(store.pinEvents('s').map((e) => [e.seq, e.action, e.actor, e.reason])).toStrictEqual([
      [5, 'pin', 'agent', 'the lookup'],
      [5, 'unpin', 'user', 'done'],
    ])
  })

  it('without limits, protect by the ranges the window was last applied with: the same window as the manager pin', () => {
    const byManager = applied(2)
    const byStore = applied(2)
    byManager.manager.pin({ seq: 5 })
    byStore.store.pin('s', { seq: 5 })
    expect(inWindow(byStore.manager)).toStrictEqual(inWindow(byManager.manager))
    // The kept rows' marks stay derived for the manager's range, so its next plan need not redo them.
    const keptFirst = (t: ReturnType<typeof tempStore>): unknown =>
      t.store.connection().prepare('SELECT kept_first FROM sessions').pluck().get()
    expect(keptFirst(byStore)).toBe(2)
    expect(keptFirst(byStore)).toBe(keptFirst(byManager))
    byManager.manager.append({ role: 'user', content: [{ text: 'next' }] })
    byStore.manager.append({ role: 'user', content: [{ text: 'next' }] })
    expect(byStore.manager.applyWindow()).toStrictEqual(byManager.manager.applyWindow())
    expect(inWindow(byStore.manager)).toStrictEqual(inWindow(byManager.manager))
  })

  it.each([
    [
      'pin limits {}',
      (store: ContextStore) => store.pin('s', { seq: 1 }, {}, {} as never),
      'limits.windowSize',
    ],
    ['pin limits null', (store: ContextStore) => store.pin('s', { seq: 1 }, {}, null as never), 'limits'],
    ["pin actor ''", (store: ContextStore) => store.pin('s', { seq: 1 }, { actor: '' }), 'attribution.actor'],
    ['unpin ref {}', (store: ContextStore) => store.unpin('s', {} as never), 'ref'],
    ['unpin session 7', (store: ContextStore) => store.unpin(7 as never, { seq: 1 }), 'sessionId'],
  ])('refuse %s with INVALID_OPTIONS naming it', (_name, call, path) => {
    const { store } = applied(0)
    const error = refusal(() => call(store))
    expect([error.code, error.path]).toStrictEqual(['INVALID_OPTIONS', path])
  })

  it('refuse a read-only store with READ_ONLY', () => {
    const { path } = applied(0)
    const reader = openContextStore(path, { readonly: true })
    cleanups.unshift(() => {
      reader.close()
    })
    expect(refusal(() => reader.pin('s', { seq: 1 })).code).toBe('READ_ONLY')
    expect(refusal(() => reader.unpin('s', { seq: 1 })).code).toBe('READ_ONLY')
  })
})
